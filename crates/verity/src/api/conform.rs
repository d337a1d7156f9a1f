//! Bring a JSON request to the shape its published schema describes before
//! serde reads it, so that every host (the REST server's bodies, the tool
//! registry's arguments for MCP and `/api`) accepts exactly what its schema
//! allows — no more, no less — on the two points where serde and JSON Schema
//! disagree:
//!
//! - JSON Schema's `integer` includes numbers with a zero fraction (`498.0`);
//!   serde refuses them for integer fields. They are rewritten as integers.
//! - serde's derived structs also accept a JSON *array* of their fields in
//!   order (`[null, null]` for a two-field struct); the schema says `object`.
//!   Such arrays are refused with the path of the field.
//!
//! JSON Schema 2020-12 treats `format` as an annotation, so a string that is
//! not a valid `date-time` still matches the schema: it is refused as a
//! [`Mismatch::Format`] (400, like the other rules the schema cannot state)
//! rather than a shape mismatch (422).
//!
//! Everything else (missing fields, wrong types, unknown fields, ranges) is
//! left to serde and the api types' own checks. The walk follows `$ref`,
//! `allOf`, `anyOf`/`oneOf` (the branch whose type matches), `properties`,
//! `additionalProperties` and `items`; it never fails on a schema it does not
//! understand.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Number, Value};

/// Nesting depth past which the walk stops (bodies are size-limited anyway).
const MAX_DEPTH: usize = 64;

/// The deserialize-contract schema of `T`, generated once per type.
fn schema_of<T: JsonSchema + 'static>() -> Arc<Value> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Value>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    map.entry(TypeId::of::<T>())
        .or_insert_with(|| {
            let generator = SchemaSettings::draft2020_12()
                .for_deserialize()
                .into_generator();
            Arc::new(generator.into_root_schema_for::<T>().to_value())
        })
        .clone()
}

/// Why a body was refused before serde read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// The body's shape is not the schema's (an object sent as an array).
    Shape(String),
    /// A string does not have the format the schema annotates (`date-time`).
    Format(String),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Shape(m) | Mismatch::Format(m) => f.write_str(m),
        }
    }
}

/// Conform `body` to `T`'s schema; `Err` names the offending field.
pub fn conform<T: JsonSchema + 'static>(body: &mut Value) -> Result<(), Mismatch> {
    let root = schema_of::<T>();
    walk(body, &root, &root, "$", 0)
}

/// Conform `body` to a self-contained schema (its `$ref`s point into its own
/// `$defs`), e.g. a tool's input schema.
pub fn conform_to(body: &mut Value, schema: &Value) -> Result<(), Mismatch> {
    walk(body, schema, schema, "$", 0)
}

fn resolve<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
            return schema;
        };
        let target = r
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer));
        match target {
            Some(t) => schema = t,
            None => return schema,
        }
    }
    schema
}

fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A float with no fraction, as the integer JSON Schema considers it.
fn whole(n: &Number) -> Option<Number> {
    let f = n.as_f64()?;
    if f.fract() != 0.0 || !f.is_finite() {
        return None;
    }
    if f >= 0.0 && f <= u64::MAX as f64 {
        return Some(Number::from(f as u64));
    }
    if f < 0.0 && f >= i64::MIN as f64 {
        return Some(Number::from(f as i64));
    }
    None
}

/// The range of an integer `format` (an annotation in JSON Schema 2020-12,
/// a hard limit for the field that reads it).
fn integer_bounds(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    })
}

fn walk(
    v: &mut Value,
    schema: &Value,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), Mismatch> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let schema = resolve(schema, root);
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for s in all {
            walk(v, s, root, path, depth + 1)?;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let t = json_type(v);
            let pick = branches.iter().find(|b| {
                let ts = types(resolve(b, root));
                ts.contains(&t) || (t == "integer" && ts.contains(&"number"))
            });
            if let Some(b) = pick {
                walk(v, b, root, path, depth + 1)?;
            } else if let Some(b) = branches.iter().find(|b| {
                let ts = types(resolve(b, root));
                ts.contains(&"object") || ts.contains(&"integer")
            }) {
                // No branch of this JSON type: conform to the one that
                // would refuse it most clearly (an array for an object,
                // a whole float for an integer).
                walk(v, b, root, path, depth + 1)?;
            }
        }
    }
    let allowed = types(schema);
    match v {
        Value::Array(items) => {
            if !allowed.is_empty() && !allowed.contains(&"array") && allowed.contains(&"object") {
                return Err(Mismatch::Shape(format!(
                    "{path}: expected an object, got an array"
                )));
            }
            if let Some(item) = schema.get("items").filter(|i| i.is_object()) {
                for (i, x) in items.iter_mut().enumerate() {
                    walk(x, item, root, &format!("{path}[{i}]"), depth + 1)?;
                }
            }
        }
        Value::Number(n) => {
            if allowed.contains(&"integer") && !allowed.contains(&"number") {
                if let Some(w) = whole(n) {
                    *n = w;
                }
            }
            let format = schema.get("format").and_then(Value::as_str);
            if let Some((lo, hi)) = format.and_then(integer_bounds) {
                let v = n
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from));
                if v.is_some_and(|v| v < lo || v > hi) {
                    return Err(Mismatch::Format(format!(
                        "{path}: {n} does not fit the field's {} range ({lo} to {hi})",
                        format.unwrap_or_default()
                    )));
                }
            }
        }
        Value::Object(fields) => conform_fields(fields, schema, root, path, depth)?,
        Value::String(text) => {
            let is_date_time = schema.get("format").and_then(Value::as_str) == Some("date-time");
            if is_date_time && chrono::DateTime::parse_from_rfc3339(text).is_err() {
                return Err(Mismatch::Format(format!(
                    "{path}: `{text}` is not an RFC 3339 date-time (e.g. 2025-10-15T08:00:00Z)"
                )));
            }
        }
        _ => {}
    }
    Ok(())
}

fn conform_fields(
    fields: &mut Map<String, Value>,
    schema: &Value,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), Mismatch> {
    let props = schema.get("properties").and_then(Value::as_object);
    let extra = schema.get("additionalProperties").filter(|s| s.is_object());
    for (k, x) in fields.iter_mut() {
        let sub = props.and_then(|p| p.get(k)).or(extra);
        if let Some(sub) = sub {
            walk(x, sub, root, &format!("{path}.{k}"), depth + 1)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Params {
        max_tokens: Option<u32>,
        temperature: Option<f32>,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Req {
        k: Option<usize>,
        params: Option<Params>,
        list: Vec<Params>,
    }

    #[test]
    fn whole_floats_become_integers_and_fractions_stay() {
        let mut v = json!({"k": 498.0, "params": {"max_tokens": 12.0, "temperature": 1.0},
                           "list": [{"max_tokens": 3.0}]});
        conform::<Req>(&mut v).unwrap();
        assert_eq!(v["k"], json!(498));
        assert_eq!(v["params"]["max_tokens"], json!(12));
        assert_eq!(
            v["params"]["temperature"],
            json!(1.0),
            "numbers stay numbers"
        );
        assert_eq!(v["list"][0]["max_tokens"], json!(3));
        let r: Req = serde_json::from_value(v).unwrap();
        assert_eq!(r.k, Some(498));

        let mut v = json!({"k": 2.5, "list": []});
        conform::<Req>(&mut v).unwrap();
        assert_eq!(v["k"], json!(2.5), "serde refuses it with its own message");
        assert!(serde_json::from_value::<Req>(v).is_err());
    }

    #[test]
    fn structs_sent_as_arrays_are_refused_with_their_path() {
        let mut v = json!({"params": [null, null], "list": []});
        let e = conform::<Req>(&mut v).unwrap_err();
        assert!(
            matches!(&e, Mismatch::Shape(m) if m.contains("$.params")),
            "{e}"
        );
        let mut v = json!({"list": [[1, 2]]});
        let e = conform::<Req>(&mut v).unwrap_err();
        assert!(e.to_string().contains("$.list[0]"), "{e}");
        let mut v = json!([null, null, []]);
        assert!(conform::<Req>(&mut v).is_err());
        // serde alone would have taken it:
        assert!(serde_json::from_value::<Req>(json!([null, null, []])).is_ok());
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Dated {
        ts: Option<chrono::DateTime<chrono::Utc>>,
    }

    #[test]
    fn dates_that_do_not_parse_are_format_errors() {
        let mut v = json!({"ts": ""});
        let e = conform::<Dated>(&mut v).unwrap_err();
        assert!(
            matches!(&e, Mismatch::Format(m) if m.contains("$.ts")),
            "{e}"
        );
        let mut v = json!({"ts": "2025-10-15T08:00:00Z"});
        conform::<Dated>(&mut v).unwrap();
        let mut v = json!({"ts": null});
        conform::<Dated>(&mut v).unwrap();
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Sized {
        small: Option<u32>,
        signed: Option<i64>,
    }

    #[test]
    fn integers_outside_their_format_are_format_errors() {
        let mut v = json!({"small": 4294967296u64});
        let e = conform::<Sized>(&mut v).unwrap_err();
        assert!(
            matches!(&e, Mismatch::Format(m) if m.contains("$.small")),
            "{e}"
        );
        let mut v = json!({"signed": 9223372036854775808u64});
        assert!(matches!(conform::<Sized>(&mut v), Err(Mismatch::Format(_))));
        let mut v = json!({"small": 7, "signed": -3});
        conform::<Sized>(&mut v).unwrap();
    }
}
