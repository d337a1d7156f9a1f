//! `Store.check(...)`: citation verification. Keyword arguments
//! are the fields of the api's `CheckRequest` (`url`, `path`,
//! `content_base64`, `content_type`, `name`, `concurrency`, `judge`,
//! `allow_private`); unknown ones are refused as `InvalidInput`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use verity::api::CheckRequest;

use crate::conv::{error, py_to_json};

/// The request of `check(content=None, **kwargs)`.
pub fn request(
    py: Python<'_>,
    content: Option<String>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<CheckRequest> {
    let mut map = match kwargs {
        Some(k) => match py_to_json(k.as_any())? {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        },
        None => serde_json::Map::new(),
    };
    if let Some(c) = content {
        map.insert("content".into(), Value::String(c));
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        error(
            py,
            "invalid_input",
            false,
            &format!("invalid check request: {e}"),
        )
    })
}
