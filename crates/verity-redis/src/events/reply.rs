//! Parsing `FT.SEARCH` and `HGETALL` replies into hits and events.

use std::collections::HashMap;

use chrono::DateTime;
use redis::Value;
use serde_json::{Map, Value as Json};
use uuid::Uuid;
use verity_core::{Event, Result, StoreError};

use super::{from_bytes, NEVER};
use crate::conn::{as_f64, as_i64, as_string, bad_reply};

/// One `FT.SEARCH` hit: its score (with `WITHSCORES`) and returned fields.
#[derive(Debug, Default)]
pub(crate) struct Hit {
    pub(crate) score: Option<f64>,
    fields: HashMap<String, Vec<u8>>,
}

fn bytes_of(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.into_bytes()),
        other => as_string(&other).map(String::into_bytes),
    }
}

impl Hit {
    pub(crate) fn str(&self, f: &str) -> Option<String> {
        self.fields
            .get(f)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }
    pub(crate) fn i64(&self, f: &str) -> Option<i64> {
        self.str(f)?.trim().parse().ok()
    }
    pub(crate) fn f64(&self, f: &str) -> Option<f64> {
        self.str(f)?.trim().parse().ok()
    }
    pub(crate) fn json_obj(&self, f: &str) -> Option<Map<String, Json>> {
        match serde_json::from_slice(self.fields.get(f)?) {
            Ok(Json::Object(m)) => Some(m),
            _ => None,
        }
    }
}

/// `[total, key, (score), [field, value, …], …]` (RESP2).
pub(crate) fn parse_hits(reply: Value) -> Result<(u64, Vec<Hit>)> {
    let Value::Array(items) = reply else {
        return Err(bad_reply("FT.SEARCH"));
    };
    let mut it = items.into_iter().peekable();
    let total = it.next().as_ref().and_then(as_i64).unwrap_or(0).max(0) as u64;
    let mut out = Vec::new();
    while let Some(_key) = it.next() {
        let mut score = None;
        if let Some(v) = it.peek() {
            if !matches!(v, Value::Array(_)) {
                score = as_f64(v);
                it.next();
            }
        }
        let mut fields = HashMap::new();
        if let Some(Value::Array(kv)) = it.next() {
            let mut kv = kv.into_iter();
            while let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                if let (Some(k), Some(v)) = (as_string(&k), bytes_of(v)) {
                    fields.insert(k, v);
                }
            }
        }
        out.push(Hit { score, fields });
    }
    Ok((total, out))
}

fn corrupt(what: &str) -> verity_core::Error {
    StoreError::Corrupt(format!("event hash: bad {what}")).into()
}

/// An event from an `HGETALL` reply (`None` for a missing key).
pub(crate) fn event_of(reply: Value) -> Result<Option<Event>> {
    let mut fields: HashMap<String, Vec<u8>> = HashMap::new();
    match reply {
        Value::Array(kv) => {
            let mut kv = kv.into_iter();
            while let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                if let (Some(k), Some(v)) = (as_string(&k), bytes_of(v)) {
                    fields.insert(k, v);
                }
            }
        }
        Value::Map(kv) => {
            for (k, v) in kv {
                if let (Some(k), Some(v)) = (as_string(&k), bytes_of(v)) {
                    fields.insert(k, v);
                }
            }
        }
        Value::Nil => return Ok(None),
        _ => return Err(bad_reply("HGETALL")),
    }
    if fields.is_empty() {
        return Ok(None);
    }
    let h = Hit {
        score: None,
        fields,
    };
    let id = h
        .str("id")
        .and_then(|s| Uuid::parse_str(&s).ok())
        .ok_or_else(|| corrupt("id"))?;
    let ts = h
        .i64("ts")
        .and_then(DateTime::from_timestamp_millis)
        .ok_or_else(|| corrupt("ts"))?;
    let exp = h.i64("exp").ok_or_else(|| corrupt("exp"))?;
    Ok(Some(Event {
        id,
        timestamp: ts,
        content: h.json_obj("content").ok_or_else(|| corrupt("content"))?,
        metadata: h.json_obj("metadata").ok_or_else(|| corrupt("metadata"))?,
        embedding: match h.fields.get("vec") {
            Some(b) => Some(from_bytes(b).ok_or_else(|| corrupt("vec"))?),
            None => None,
        },
        similarity_score: None,
        rank_score: None,
        expires_at: if exp >= NEVER {
            None
        } else {
            DateTime::from_timestamp_millis(exp)
        },
    }))
}
