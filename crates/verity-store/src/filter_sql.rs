//! Translation of [`verity_core::Filters`] into a SQL predicate on `documents d`.
//! [`verity_core::Filters::matches`] is the reference semantics.

use rusqlite::types::Value as SqlValue;
use serde_json::Value;
use verity_core::Filters;

/// A SQL boolean expression with its positional (`?`) parameters.
#[derive(Debug, Default)]
pub(crate) struct SqlPredicate {
    pub(crate) sql: String,
    pub(crate) params: Vec<SqlValue>,
}

fn placeholders(n: usize) -> String {
    vec!["?"; n].join(", ")
}

fn texts(v: &[String]) -> impl Iterator<Item = SqlValue> + '_ {
    v.iter().map(|s| SqlValue::Text(s.clone()))
}

/// Build `(1 AND …)` over the `documents` table aliased `d`.
pub(crate) fn filters_to_sql(f: &Filters) -> SqlPredicate {
    let mut parts: Vec<String> = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    if !f.sources.is_empty() {
        parts.push(format!("d.source IN ({})", placeholders(f.sources.len())));
        params.extend(texts(&f.sources));
    }
    if !f.langs.is_empty() {
        // `eq_ignore_ascii_case`: SQLite's lower() folds ASCII only, like the reference.
        parts.push(format!(
            "lower(d.lang) IN ({})",
            vec!["lower(?)"; f.langs.len()].join(", ")
        ));
        params.extend(texts(&f.langs));
    }
    if !f.tags_any.is_empty() {
        parts.push(format!(
            "EXISTS (SELECT 1 FROM json_each(d.tags) WHERE json_each.value IN ({}))",
            placeholders(f.tags_any.len())
        ));
        params.extend(texts(&f.tags_any));
    }
    for t in &f.tags_all {
        parts.push("EXISTS (SELECT 1 FROM json_each(d.tags) WHERE json_each.value = ?)".into());
        params.push(SqlValue::Text(t.clone()));
    }
    if !f.uids.is_empty() {
        parts.push(format!("d.uid IN ({})", placeholders(f.uids.len())));
        params.extend(texts(&f.uids));
    }
    for m in &f.metadata {
        let mut alts: Vec<String> = Vec::new();
        let mut alt_params: Vec<SqlValue> = Vec::new();
        for want in &m.values {
            let (sql, p) = json_value_test(want);
            alts.push(sql);
            alt_params.extend(p);
        }
        if alts.is_empty() {
            parts.push("0".into());
            continue;
        }
        parts.push(format!(
            "EXISTS (SELECT 1 FROM json_each(d.metadata) j WHERE j.key = ? AND ({}))",
            alts.join(" OR ")
        ));
        params.push(SqlValue::Text(m.key.clone()));
        params.extend(alt_params);
    }
    if let Some(since) = f.time.since {
        // ts is stored in whole milliseconds: ts >= since ⇔ ts_ms >= ceil(since in ms).
        let ms =
            since.timestamp_millis() + i64::from(since.timestamp_subsec_nanos() % 1_000_000 != 0);
        parts.push("(d.ts IS NOT NULL AND d.ts >= ?)".into());
        params.push(SqlValue::Integer(ms));
    }
    if let Some(until) = f.time.until {
        parts.push("(d.ts IS NOT NULL AND d.ts <= ?)".into());
        params.push(SqlValue::Integer(until.timestamp_millis()));
    }
    if parts.is_empty() {
        return SqlPredicate {
            sql: "1".into(),
            params,
        };
    }
    SqlPredicate {
        sql: format!("({})", parts.join(" AND ")),
        params,
    }
}

/// Test on a `json_each` row `j` equal (as `serde_json::Value` equality) to `want`.
fn json_value_test(want: &Value) -> (String, Vec<SqlValue>) {
    match want {
        Value::Null => ("j.type = 'null'".into(), vec![]),
        Value::Bool(true) => ("j.type = 'true'".into(), vec![]),
        Value::Bool(false) => ("j.type = 'false'".into(), vec![]),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                (
                    "(j.type = 'integer' AND j.atom = ?)".into(),
                    vec![SqlValue::Integer(i)],
                )
            } else if n.is_u64() {
                // Beyond i64: SQLite keeps it as a real.
                (
                    "(j.type IN ('integer', 'real') AND j.atom = ?)".into(),
                    vec![SqlValue::Real(n.as_f64().unwrap_or(f64::NAN))],
                )
            } else {
                (
                    "(j.type = 'real' AND j.atom = ?)".into(),
                    vec![SqlValue::Real(n.as_f64().unwrap_or(f64::NAN))],
                )
            }
        }
        Value::String(s) => (
            "(j.type = 'text' AND j.atom = ?)".into(),
            vec![SqlValue::Text(s.clone())],
        ),
        Value::Array(_) | Value::Object(_) => {
            // Stored metadata is serialised by serde_json (sorted keys), so the
            // minified JSON texts compare equal exactly when the values do.
            (
                "(j.type IN ('array', 'object') AND json(j.value) = json(?))".into(),
                vec![SqlValue::Text(want.to_string())],
            )
        }
    }
}
