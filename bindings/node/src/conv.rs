//! The one place where JavaScript values meet Verity's Rust types: option
//! objects (camelCase keys → the `verity::api` request types, unknown keys
//! refused), results → plain JSON objects with camelCase keys (the same
//! serde types Python reads as attributes; user data such as `metadata` is
//! left as it was written), and `verity_core::Error` → a rejection that
//! `node/index.js` turns into a `VerityError` whose `code` is the api error
//! table's JS code.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use verity::api::error::{ErrorBody, ErrorMapping};
use verity::api::{AskRequest, ConfigOverrides, SearchRequest};

/// Prefix of the error reasons produced here; `index.js` parses
/// `VERITY:<code>:<transient>:<message>`.
pub const ERROR_PREFIX: &str = "VERITY";

/// A rejection carrying the Verity error code and transience.
pub fn napi_error(code: &str, transient: bool, message: &str) -> napi::Error {
    napi::Error::from_reason(format!("{ERROR_PREFIX}:{code}:{transient}:{message}"))
}

/// A `verity_core::Error` as a rejection, with the JS code of the api error table.
pub fn to_napi(e: verity::Error) -> napi::Error {
    let body = ErrorBody::from(&e);
    napi_error(ErrorMapping::of(&e).js_code, body.transient, &body.message)
}

/// Deserialize an options object (`undefined`/`null` = defaults).
pub fn options<T: DeserializeOwned + Default>(v: Option<Value>, what: &str) -> napi::Result<T> {
    match v {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v).map_err(|e| {
            napi_error(
                "invalid_input",
                false,
                &format!("invalid {what} options: {e}"),
            )
        }),
    }
}

/// Deserialize a value of a required argument.
pub fn value<T: DeserializeOwned>(v: Value, what: &str) -> napi::Result<T> {
    serde_json::from_value(v)
        .map_err(|e| napi_error("invalid_input", false, &format!("invalid {what}: {e}")))
}

/// Serialize a result to a plain JSON value (becomes a plain JS object),
/// its keys in camelCase ([`camel_keys`]).
pub fn json<T: Serialize>(v: &T) -> napi::Result<Value> {
    serde_json::to_value(v)
        .map(camel_keys)
        .map_err(|e| napi_error("internal", false, &format!("cannot serialize result: {e}")))
}

/// Keys whose values are user data, kept exactly as written (document and
/// event metadata, an event's JSON content, tool arguments).
const USER_DATA: &[&str] = &["metadata", "content", "arguments", "args"];

/// Object keys in camelCase, recursively (`not_enough_evidence` →
/// `notEnoughEvidence`), except inside [`USER_DATA`] values.
pub fn camel_keys(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let v = if USER_DATA.contains(&k.as_str()) {
                        v
                    } else {
                        camel_keys(v)
                    };
                    (to_camel(&k), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(camel_keys).collect()),
        other => other,
    }
}

fn to_camel(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut upper = false;
    for (i, c) in k.chars().enumerate() {
        if c == '_' && i > 0 {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Top-level option names in camelCase (`minRelevance`, `noCache`, `tagsAll`)
/// become the api's snake_case names; nested values (metadata) are untouched.
pub(crate) fn snake_keys(v: Value, renames: &[(&str, &str)]) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let k = match renames.iter().find(|(from, _)| *from == k) {
                        Some((_, to)) => (*to).to_string(),
                        None => to_snake(&k),
                    };
                    (k, v)
                })
                .collect(),
        ),
        other => other,
    }
}

fn to_snake(k: &str) -> String {
    let mut out = String::with_capacity(k.len() + 4);
    for c in k.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Options of `Verity.open` as [`ConfigOverrides`]; `url` names a Redis server.
pub fn open_options(v: Option<Value>) -> napi::Result<ConfigOverrides> {
    options(v.map(|v| snake_keys(v, &[("url", "redis_url")])), "open")
}

/// Options of `search` for `query` as a [`SearchRequest`].
pub fn search_request(query: String, v: Option<Value>) -> napi::Result<SearchRequest> {
    request(v, "query", query, "search")
}

/// Options of `ask` for `question` as an [`AskRequest`].
pub fn ask_request(question: String, v: Option<Value>) -> napi::Result<AskRequest> {
    request(v, "question", question, "ask")
}

/// An options object (camelCase keys) with `key` set to `text`, as the api
/// request `T`; `key` itself among the options is refused.
pub(crate) fn request<T: DeserializeOwned>(
    v: Option<Value>,
    key: &str,
    text: String,
    what: &str,
) -> napi::Result<T> {
    let mut m = match v.map(|v| snake_keys(v, &[])) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => {
            return Err(napi_error(
                "invalid_input",
                false,
                &format!("{what} options must be an object"),
            ))
        }
    };
    if m.contains_key(key) {
        return Err(napi_error(
            "invalid_input",
            false,
            &format!("invalid {what} options: unknown field `{key}`"),
        ));
    }
    m.insert(key.to_string(), Value::String(text));
    value(Value::Object(m), &format!("{what} options"))
}

/// The store a `NativeVerity` works on; `close()` empties it, after which
/// every call rejects saying the store is closed.
#[derive(Clone, Default)]
pub struct Handle(std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<verity::Verity>>>>);

impl Handle {
    /// A handle on an open store.
    pub fn new(v: verity::Verity) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(Some(
            std::sync::Arc::new(v),
        ))))
    }

    /// The open store, or the "closed" rejection.
    pub fn get(&self) -> napi::Result<std::sync::Arc<verity::Verity>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| {
                napi_error(
                    "invalid_input",
                    false,
                    "this store is closed: open it again with Verity.open(...)",
                )
            })
    }

    /// Close: the store leaves the handle.
    pub fn take(&self) -> Option<std::sync::Arc<verity::Verity>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Await a Verity future, turning its error or panic into a rejection.
pub async fn run<T, F>(fut: F) -> napi::Result<T>
where
    F: Future<Output = verity::Result<T>>,
{
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_napi(e)),
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(napi_error(
                "internal",
                false,
                &format!("internal error (Rust panic): {what}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_camel_case_but_user_data_is_kept() {
        let v = serde_json::json!({
            "not_enough_evidence": true,
            "hits": [{"chunk": {"doc_uid": "a", "heading_path": []},
                      "doc": {"uid": "a", "metadata": {"node_pubkey": "02ab"}}}],
        });
        let c = camel_keys(v);
        assert_eq!(c["notEnoughEvidence"], true);
        assert_eq!(c["hits"][0]["chunk"]["docUid"], "a");
        assert!(c["hits"][0]["chunk"]["headingPath"].is_array());
        assert_eq!(c["hits"][0]["doc"]["metadata"]["node_pubkey"], "02ab");
        assert_eq!(to_camel("_private"), "_private");
    }
}
