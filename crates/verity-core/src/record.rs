//! One conversion from an ingest record (a JSON object in the seed-001
//! schema, or BEIR's `_id`/`text`) to a [`Document`], for every way a
//! document comes in: JSONL files ([`Document::from_record`] with the file's
//! defaults), and every deserialization of a `Document` — REST bodies, MCP
//! arguments, Python dicts and JavaScript objects all go through the
//! `Deserialize` implementation below, which calls the same function.
//!
//! Seed 001's fields (`uid, source, ts, lang, title, content, tags`, plus
//! `url`) fill the document; **every other field is kept** in `metadata`
//! (`node_pubkey`, `channel_id`, `metrics`, anything else), and the entries
//! of a nested `metadata` object are merged into it — nothing a client sends
//! is dropped. A field of the wrong type is an error naming it.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::document::{stable_uid, Document};

/// What a record may leave out, by where it comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordDefaults {
    /// `source` when the record has none (a file's path); `""` otherwise.
    pub source: Option<String>,
    /// Derive a missing `uid` from the source and content ([`stable_uid`]):
    /// right for files (the path keeps it stable); a record sent inline
    /// must name its uid, or re-sending an edited version would add a copy.
    pub derive_uid: bool,
    /// Read a number where text is expected (`uid`, `title`, …) as its
    /// digits: right for files, whose datasets number their ids; a record
    /// sent inline follows its published schema, where these are strings.
    pub numbers_as_text: bool,
}

impl RecordDefaults {
    /// Defaults of a record read from the file at `path`.
    pub fn file(path: impl Into<String>) -> Self {
        Self {
            source: Some(path.into()),
            derive_uid: true,
            numbers_as_text: true,
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn opt_string(v: Value, field: &str, numbers: bool) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Number(n) if numbers => Ok(Some(n.to_string())),
        other => Err(format!(
            "`{field}` must be a string, got {}",
            type_name(&other)
        )),
    }
}

/// Parse an RFC 3339 timestamp, or a bare `YYYY-MM-DD` (midnight UTC).
pub fn parse_ts(s: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s.trim()) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d") {
        if let Some(t) = d.and_hms_opt(0, 0, 0) {
            return Ok(t.and_utc());
        }
    }
    Err(format!("`ts` is not an RFC 3339 timestamp: {s:?}"))
}

impl Document {
    /// The document of one record (see the module docs). Errors name the
    /// field at fault.
    pub fn from_record(
        mut map: Map<String, Value>,
        defaults: &RecordDefaults,
    ) -> Result<Document, String> {
        let content = match map.remove("content") {
            Some(v) => v,
            None => map
                .remove("text")
                .ok_or_else(|| "missing `content` (or BEIR `text`)".to_string())?,
        };
        let content = match content {
            Value::String(s) => s,
            other => {
                return Err(format!(
                    "`content` must be a string, got {}",
                    type_name(&other)
                ))
            }
        };
        let uid = match map.remove("uid") {
            Some(v) => opt_string(v, "uid", defaults.numbers_as_text)?,
            None => match map.remove("_id") {
                Some(v) => opt_string(v, "_id", defaults.numbers_as_text)?,
                None => None,
            },
        };
        let source = match map.remove("source") {
            Some(v) => opt_string(v, "source", defaults.numbers_as_text)?,
            None => None,
        }
        .or_else(|| defaults.source.clone())
        .unwrap_or_default();
        let uid = match uid {
            Some(u) if !u.trim().is_empty() => u,
            Some(_) => return Err("`uid` is empty".into()),
            None if defaults.derive_uid => stable_uid(&source, &content),
            None => return Err("missing `uid` (the document's stable id)".into()),
        };
        let title = match map.remove("title") {
            Some(v) => {
                opt_string(v, "title", defaults.numbers_as_text)?.filter(|t| !t.trim().is_empty())
            }
            None => None,
        };
        let ts = match map.remove("ts") {
            Some(Value::Null) | None => None,
            Some(Value::String(s)) => Some(parse_ts(&s)?),
            Some(other) => {
                return Err(format!(
                    "`ts` must be an RFC 3339 string, got {}",
                    type_name(&other)
                ))
            }
        };
        let lang = match map.remove("lang") {
            Some(v) => opt_string(v, "lang", defaults.numbers_as_text)?
                .map(|l| l.trim().to_ascii_lowercase())
                .filter(|l| !l.is_empty()),
            None => None,
        };
        let url = match map.remove("url") {
            Some(v) => opt_string(v, "url", defaults.numbers_as_text)?,
            None => None,
        };
        let tags = match map.remove("tags") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => s
                .split(',')
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect(),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|t| match t {
                    Value::String(s) => Ok(s),
                    Value::Number(n) => Ok(n.to_string()),
                    other => Err(format!(
                        "`tags` items must be strings, got {}",
                        type_name(&other)
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                return Err(format!(
                    "`tags` must be an array of strings, got {}",
                    type_name(&other)
                ))
            }
        };
        let mut metadata = Map::new();
        let nested = map.remove("metadata");
        metadata.extend(map);
        match nested {
            Some(Value::Object(m)) => metadata.extend(m),
            Some(Value::Null) | None => {}
            Some(other) => {
                metadata.insert("metadata".into(), other);
            }
        }
        Ok(Document {
            uid,
            source,
            ts,
            lang,
            title,
            content,
            tags,
            url,
            metadata,
        })
    }
}

/// Every deserialization of a [`Document`] is [`Document::from_record`]
/// (inline records must carry their `uid`).
impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        Document::from_record(map, &RecordDefaults::default()).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_fields_and_extra_fields_are_kept() {
        let d: Document = serde_json::from_str(
            r#"{"uid":"a1","source":"amboss","ts":"2025-10-01T12:00:00+02:00","lang":"EN",
                "title":"Fees","content":"Routing fees went up.","tags":["lightning","fees"],
                "url":"https://x.test/a","node_pubkey":"02ab","channel_id":"123x1x0",
                "metrics":{"fee_ppm":42},"metadata":{"author":"bob"},"colour":"blue"}"#,
        )
        .unwrap();
        assert_eq!(d.uid, "a1");
        assert_eq!(d.lang.as_deref(), Some("en"));
        assert_eq!(d.metadata["node_pubkey"], "02ab");
        assert_eq!(d.metadata["channel_id"], "123x1x0");
        assert_eq!(d.metadata["metrics"]["fee_ppm"], 42);
        assert_eq!(d.metadata["author"], "bob");
        assert_eq!(d.metadata["colour"], "blue");
        assert!(!d.metadata.contains_key("metadata"));
        // What is serialized reads back the same.
        let back: Document = serde_json::from_value(serde_json::to_value(&d).unwrap()).unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn errors_name_the_field() {
        for (body, field) in [
            (r#"{"content":"x"}"#, "`uid`"),
            (r#"{"uid":"a"}"#, "`content`"),
            (r#"{"uid":"a","content":"x","ts":"yesterday"}"#, "`ts`"),
            (r#"{"uid":"a","content":"x","tags":{"a":1}}"#, "`tags`"),
            (r#"{"uid":"a","content":5}"#, "`content`"),
            (r#"{"uid":" ","content":"x"}"#, "`uid`"),
            // Inline records follow the schema: text fields are strings.
            (r#"{"uid":"a","content":"x","title":-2.5e16}"#, "`title`"),
            (r#"{"uid":"a","content":"x","url":15887512}"#, "`url`"),
            (r#"{"uid":7,"content":"x"}"#, "`uid`"),
        ] {
            let e = serde_json::from_str::<Document>(body)
                .unwrap_err()
                .to_string();
            assert!(e.contains(field), "{body}: {e}");
        }
    }

    #[test]
    fn files_derive_uid_and_source() {
        let map = serde_json::from_str(r#"{"text":"Hello.","_id":null}"#).unwrap();
        let d = Document::from_record(map, &RecordDefaults::file("a.jsonl")).unwrap();
        assert_eq!(d.source, "a.jsonl");
        assert_eq!(d.uid, stable_uid("a.jsonl", "Hello."));
        // A dataset's numbered ids and titles are read as their digits.
        let map = serde_json::from_str(r#"{"text":"Hello.","_id":4983,"title":12}"#).unwrap();
        let d = Document::from_record(map, &RecordDefaults::file("a.jsonl")).unwrap();
        assert_eq!((d.uid.as_str(), d.title.as_deref()), ("4983", Some("12")));
    }
}
