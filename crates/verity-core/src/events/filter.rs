//! Metadata containment (PostgreSQL `jsonb @>` semantics) and the flattened
//! terms every event backend indexes to pre-select candidates.
//!
//! A filter's terms are a subset of the terms of every metadata object that
//! contains it, so a backend may use them as a necessary condition (TAG
//! intersection, posting lists) and must then check [`json_contains`] exactly.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha1::{Digest, Sha1};

/// Longest term kept verbatim; longer terms (and terms a tag query cannot
/// express: control characters, braces, surrounding spaces) are hashed.
pub const MAX_TERM_LEN: usize = 160;

/// `true` when `doc` contains `query` like PostgreSQL's `doc @> query`:
/// objects contain objects whose every key is contained, arrays contain arrays
/// whose every element is contained in some element, scalars are equal
/// (numbers compared by value: `1` equals `1.0`).
pub fn json_contains(doc: &Value, query: &Value) -> bool {
    match (doc, query) {
        (Value::Object(d), Value::Object(q)) => q
            .iter()
            .all(|(k, qv)| d.get(k).is_some_and(|dv| json_contains(dv, qv))),
        (Value::Array(d), Value::Array(q)) => q
            .iter()
            .all(|qv| d.iter().any(|dv| array_element_contains(dv, qv))),
        (Value::Number(a), Value::Number(b)) => numbers_equal(a, b),
        (a, b) => a == b,
    }
}

/// Inside arrays PostgreSQL also lets a scalar match an equal scalar only
/// (no array-contains-scalar shortcut below the top level).
fn array_element_contains(doc: &Value, query: &Value) -> bool {
    json_contains(doc, query)
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) => x == y,
        _ => match (a.as_u64(), b.as_u64()) {
            (Some(x), Some(y)) => x == y,
            _ => a.as_f64() == b.as_f64(),
        },
    }
}

/// `true` when the metadata object contains the filter object.
pub fn metadata_contains(metadata: &Map<String, Value>, filter: &Map<String, Value>) -> bool {
    filter
        .iter()
        .all(|(k, qv)| metadata.get(k).is_some_and(|dv| json_contains(dv, qv)))
}

/// The flattened leaf terms of a metadata object (or a filter): one
/// `path=value` string per scalar leaf, arrays transparent in the path
/// (`{"a": {"b": [1, "x"]}}` → `a.b=n:1`, `a.b=s:x`). Sorted, deduplicated.
pub fn metadata_terms(metadata: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in metadata {
        walk(k, v, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

fn walk(path: &str, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                walk(&format!("{path}.{k}"), v, out);
            }
        }
        Value::Array(a) => {
            for v in a {
                walk(path, v, out);
            }
        }
        scalar => out.push(term(path, scalar)),
    }
}

fn term(path: &str, scalar: &Value) -> String {
    let value = match scalar {
        Value::String(s) => format!("s:{s}"),
        Value::Number(n) => match n.as_f64() {
            Some(f) => format!("n:{f}"),
            None => format!("n:{n}"),
        },
        Value::Bool(b) => format!("b:{b}"),
        _ => "null".to_string(),
    };
    let t = format!("{path}={value}");
    let plain = t.len() <= MAX_TERM_LEN
        && t.trim() == t
        && !t.chars().any(|c| c.is_control() || c == '{' || c == '}');
    if plain {
        t
    } else {
        let digest = Sha1::digest(t.as_bytes());
        format!("#{}", hex::encode(digest))
    }
}

/// What a search or listing keeps: metadata containment, an inclusive time
/// window on the event timestamp, and never events expired at `now`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EventFilter {
    /// Keep events whose metadata contains this object (`@>` semantics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Earliest timestamp kept (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_start: Option<DateTime<Utc>>,
    /// Latest timestamp kept (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_end: Option<DateTime<Utc>>,
}

impl EventFilter {
    /// The reference semantics every backend must agree with (expiry apart).
    pub fn matches(&self, timestamp: DateTime<Utc>, metadata: &Map<String, Value>) -> bool {
        self.ts_start.is_none_or(|s| timestamp >= s)
            && self.ts_end.is_none_or(|e| timestamp <= e)
            && self
                .metadata
                .as_ref()
                .is_none_or(|f| metadata_contains(metadata, f))
    }

    /// Terms every matching event's metadata has (see [`metadata_terms`]).
    pub fn terms(&self) -> Vec<String> {
        self.metadata
            .as_ref()
            .map(metadata_terms)
            .unwrap_or_default()
    }

    /// `true` when nothing is restricted.
    pub fn is_empty(&self) -> bool {
        self.metadata.as_ref().is_none_or(|m| m.is_empty())
            && self.ts_start.is_none()
            && self.ts_end.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn containment_follows_postgres() {
        let doc = json!({"a": 1, "b": {"c": [1, 2, {"d": "x", "e": true}]}, "t": ["x", "y"]});
        for (q, want) in [
            (json!({}), true),
            (json!({"a": 1}), true),
            (json!({"a": 1.0}), true),
            (json!({"a": 2}), false),
            (json!({"b": {}}), true),
            (json!({"b": {"c": []}}), true),
            (json!({"b": {"c": [2, 1]}}), true),
            (json!({"b": {"c": [{"d": "x"}]}}), true),
            (json!({"b": {"c": [{"d": "y"}]}}), false),
            (json!({"t": ["y"]}), true),
            (json!({"t": "y"}), false),
            (json!({"t": ["z"]}), false),
            (json!({"missing": null}), false),
            (json!({"a": "1"}), false),
        ] {
            assert_eq!(json_contains(&doc, &q), want, "{q}");
        }
    }

    #[test]
    fn filter_terms_are_a_subset_of_matching_terms() {
        let doc = obj(json!({"a": 1, "b": {"c": [1, {"d": "x"}]}, "long": "z".repeat(300)}));
        let terms = metadata_terms(&doc);
        assert!(terms.contains(&"a=n:1".to_string()));
        assert!(!terms.contains(&"b.c=s:x".to_string()));
        assert!(terms.contains(&"b.c.d=s:x".to_string()));
        assert!(terms.iter().any(|t| t.starts_with('#')));
        for q in [
            json!({"a": 1.0}),
            json!({"b": {"c": [{"d": "x"}]}}),
            json!({"long": "z".repeat(300)}),
        ] {
            let q = obj(q);
            assert!(metadata_contains(&doc, &q));
            for t in metadata_terms(&q) {
                assert!(terms.contains(&t), "{t}");
            }
        }
    }

    #[test]
    fn filter_window_is_inclusive() {
        let t = DateTime::parse_from_rfc3339("2025-01-02T00:00:00Z")
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_default();
        let f = EventFilter {
            metadata: Some(obj(json!({"k": "v"}))),
            ts_start: Some(t),
            ts_end: Some(t),
        };
        assert!(f.matches(t, &obj(json!({"k": "v", "o": 1}))));
        assert!(!f.matches(t, &obj(json!({"k": "w"}))));
        assert!(!f.matches(t + chrono::Duration::seconds(1), &obj(json!({"k": "v"}))));
    }
}
