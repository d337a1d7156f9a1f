//! The one place where Python values meet Verity's Rust types: Python ⇄
//! JSON values (through serde), keyword arguments → `verity::api` requests,
//! `verity_core::Error` → the `verity.errors` class the api error table names, and the
//! sync / async call helpers that release the GIL while Rust works.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Number, Value};
use verity::api::error::ErrorMapping;

/// A JSON value on its way to Python (built without the GIL, converted with it).
pub struct Json(pub Value);

impl<'py> IntoPyObject<'py> for Json {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.0)
    }
}

/// Serialize any serde value to a [`Json`].
pub fn json<T: Serialize>(v: &T) -> PyResult<Json> {
    serde_json::to_value(v)
        .map(Json)
        .map_err(|e| PyValueError::new_err(format!("cannot serialize result: {e}")))
}

/// Serialize a Rust value into plain Python data.
pub fn to_py<'py, T: Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    json_to_py(py, &json(v)?.0)
}

/// A JSON value as Python data (dict, list, str, int, float, bool, None).
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json_to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Python data as a JSON value. Accepts None, bool, int, float (finite),
/// str, list/tuple, dict with str keys, `datetime`/`date` (RFC 3339, naive
/// means UTC), an `os.PathLike` (its path as a string) and
/// `verity.Document`; anything else (bytes included) is a `TypeError`.
pub fn py_to_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_json(obj, &|_| {
        Err(PyValueError::new_err(
            "NaN and infinite floats are not valid JSON values",
        ))
    })
}

/// [`py_to_json`], a non-finite float becoming what `non_finite` makes of it.
fn to_json(obj: &Bound<'_, PyAny>, non_finite: &dyn Fn(f64) -> PyResult<Value>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Value::from(v));
        }
        return i
            .extract::<u64>()
            .map(Value::from)
            .map_err(|_| PyValueError::new_err("integer does not fit in 64 bits"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let f = f.value();
        return match Number::from_f64(f) {
            Some(n) => Ok(Value::Number(n)),
            None => non_finite(f),
        };
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.extract::<String>()?));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| {
                    PyTypeError::new_err(format!("dict keys must be str, not {}", type_name(&k)))
                })?
                .extract::<String>()?;
            m.insert(key, to_json(&v, non_finite)?);
        }
        return Ok(Value::Object(m));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut a = Vec::new();
        for x in obj.try_iter()? {
            a.push(to_json(&x?, non_finite)?);
        }
        return Ok(Value::Array(a));
    }
    if let Ok(d) = obj.cast::<crate::types::Document>() {
        return Ok(json(&d.get().inner)?.0);
    }
    if let Some(s) = datetime_to_rfc3339(obj)? {
        return Ok(Value::String(s));
    }
    if obj.hasattr("__fspath__")? {
        let path = obj.py().import("os")?.call_method1("fspath", (obj,))?;
        if let Ok(s) = path.cast::<PyString>() {
            return Ok(Value::String(s.extract::<String>()?));
        }
    }
    Err(PyTypeError::new_err(format!(
        "cannot convert {} to a JSON value",
        type_name(obj)
    )))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// `datetime` → RFC 3339 (naive = UTC); `date` → midnight UTC; else `None`.
pub fn datetime_to_rfc3339(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let dt = obj.py().import("datetime")?;
    if obj.is_instance(&dt.getattr("datetime")?)? {
        let iso: String = obj.call_method0("isoformat")?.extract()?;
        let naive = obj.getattr("tzinfo")?.is_none();
        return Ok(Some(if naive { format!("{iso}+00:00") } else { iso }));
    }
    if obj.is_instance(&dt.getattr("date")?)? {
        let iso: String = obj.call_method0("isoformat")?.extract()?;
        return Ok(Some(format!("{iso}T00:00:00+00:00")));
    }
    Ok(None)
}

/// Deserialize a Rust value from Python data; schema errors are `InvalidInput`.
pub fn from_py<T: DeserializeOwned>(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<T> {
    let v = py_to_json(obj)?;
    serde_json::from_value(v)
        .map_err(|e| error(py, "invalid_input", false, &format!("invalid {what}: {e}")))
}

/// A `verity::api` request from a method's leading arguments (`lead`, by
/// field name; `None` ones left out) and its keyword arguments, through
/// serde: `kwargs` are the request's fields (the names of its JSON schema),
/// so every option and its default come from the api type. An unknown
/// keyword, or one of the wrong type, is a `TypeError` naming it; a value the
/// request refuses is `InvalidInput`. A `date` becomes `YYYY-MM-DD` (the api
/// reads it as that day; midnight UTC for a `date-time` field), a `datetime`
/// RFC 3339, an `os.PathLike` its path. JSON holds no NaN or infinity: in a
/// vector field (an array of numbers) they are passed by name (`NaN`,
/// `Infinity`, `-Infinity`, `verity::core::events::wire`) for the
/// library's vector check to refuse with its typed error; in any other
/// field they are `InvalidInput` naming the argument.
pub fn request<T: DeserializeOwned + schemars::JsonSchema + 'static>(
    py: Python<'_>,
    method: &str,
    lead: &[(&str, Value)],
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<T> {
    let kwargs: Vec<_> = kwargs.into_iter().flat_map(|d| d.iter()).collect();
    request_in(py, method, lead, &kwargs, &[])
}

/// A request and the options of the same call from one set of keyword
/// arguments: those named in `option_names` (fields of `O`) go to the
/// options, the others to the request ([`request`] for each).
pub fn request_and_options<R, O>(
    py: Python<'_>,
    method: &str,
    lead: &[(&str, Value)],
    kwargs: Option<&Bound<'_, PyDict>>,
    option_names: &[&str],
) -> PyResult<(R, O)>
where
    R: DeserializeOwned + schemars::JsonSchema + 'static,
    O: DeserializeOwned + schemars::JsonSchema + 'static,
{
    let mut req = Vec::new();
    let mut opts = Vec::new();
    for (k, v) in kwargs.into_iter().flat_map(|d| d.iter()) {
        let key: String = k.extract()?;
        if option_names.contains(&key.as_str()) {
            opts.push((k, v));
        } else {
            req.push((k, v));
        }
    }
    Ok((
        request_in(py, method, lead, &req, option_names)?,
        request_in(py, method, &[], &opts, &[])?,
    ))
}

/// [`request`] over `kwargs` pairs; `also`: the call's other keyword
/// names, listed with the request's when a keyword is unknown.
fn request_in<T: DeserializeOwned + schemars::JsonSchema + 'static>(
    py: Python<'_>,
    method: &str,
    lead: &[(&str, Value)],
    kwargs: &[(Bound<'_, PyAny>, Bound<'_, PyAny>)],
    also: &[&str],
) -> PyResult<T> {
    let fields = field_names::<T>();
    let mut map = Map::new();
    for (k, v) in kwargs {
        let key: String = k.extract()?;
        if lead.iter().any(|(name, v)| *name == key && !v.is_null()) {
            return Err(PyTypeError::new_err(format!(
                "{method}() got multiple values for argument '{key}'"
            )));
        }
        if !fields.contains(&key) {
            let mut expected = fields.names(&lead.iter().map(|(n, _)| *n).collect::<Vec<_>>());
            expected.extend(also.iter().map(|n| n.to_string()));
            expected.sort();
            return Err(PyTypeError::new_err(format!(
                "{method}() got an unexpected keyword argument '{key}' (expected one of: {})",
                expected.join(", ")
            )));
        }
        if v.is_none() {
            continue;
        }
        let value = field_json(py, method, &fields, &key, v)?;
        map.insert(key, value);
    }
    for (name, value) in lead.iter().filter(|(_, v)| !v.is_null()) {
        map.insert(name.to_string(), value.clone());
    }
    serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let what = match path.as_str() {
            "." => format!("{method}(): {inner}"),
            _ => format!("{method}() argument '{path}': {inner}"),
        };
        if inner.starts_with("invalid type") {
            PyTypeError::new_err(what)
        } else {
            error(py, "invalid_input", false, &what)
        }
    })
}

/// A method's positional argument `name`, a field of `T`, as JSON, read
/// as its keyword would be ([`request`]): pass it in `lead`.
pub fn argument<T: schemars::JsonSchema + 'static>(
    py: Python<'_>,
    method: &str,
    name: &str,
    v: Option<&Bound<'_, PyAny>>,
) -> PyResult<Value> {
    match v.filter(|v| !v.is_none()) {
        Some(v) => field_json(py, method, &field_names::<T>(), name, v),
        None => Ok(Value::Null),
    }
}

/// The value of field `key` as JSON: non-finite floats by name in a
/// vector, refused elsewhere ([`request`]).
fn field_json(
    py: Python<'_>,
    method: &str,
    fields: &Fields,
    key: &str,
    v: &Bound<'_, PyAny>,
) -> PyResult<Value> {
    if fields.is_vector(key) {
        return to_json(v, &|f| Ok(Value::String(non_finite_name(f).into())));
    }
    let refused = |_| {
        Err(error(
            py,
            "invalid_input",
            false,
            &format!("{method}() argument '{key}': NaN and infinite numbers are refused"),
        ))
    };
    kwarg_to_json(v, fields.format(key).as_deref(), &refused)
}

/// The name `verity::core::events::wire` reads a non-finite float by.
fn non_finite_name(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// A keyword argument as JSON: a `date` (not a `datetime`) as `YYYY-MM-DD`,
/// or midnight UTC where the field is a `date-time`.
fn kwarg_to_json(
    v: &Bound<'_, PyAny>,
    format: Option<&str>,
    non_finite: &dyn Fn(f64) -> PyResult<Value>,
) -> PyResult<Value> {
    let dt = v.py().import("datetime")?;
    let date_only =
        v.is_instance(&dt.getattr("date")?)? && !v.is_instance(&dt.getattr("datetime")?)?;
    if date_only && format != Some("date-time") {
        return Ok(Value::String(v.call_method0("isoformat")?.extract()?));
    }
    to_json(v, non_finite)
}

/// The top-level fields of a request's JSON schema, and its definitions.
pub struct Fields {
    props: Map<String, Value>,
    defs: Map<String, Value>,
}

impl Fields {
    fn contains(&self, name: &str) -> bool {
        self.props.contains_key(name)
    }

    /// The names, but those of `except`.
    fn names(&self, except: &[&str]) -> Vec<String> {
        self.props
            .keys()
            .filter(|n| !except.contains(&n.as_str()))
            .cloned()
            .collect()
    }

    /// The `format` of a string field (`date-time`, …), looked through `null`.
    fn format(&self, name: &str) -> Option<String> {
        let p = self.props.get(name)?;
        let direct = p.get("format").and_then(Value::as_str);
        let nested = || {
            p.get("anyOf")?
                .as_array()?
                .iter()
                .find_map(|a| a.get("format").and_then(Value::as_str))
        };
        direct.or_else(nested).map(str::to_string)
    }

    /// Whether the field takes a vector (an array of numbers), directly,
    /// among alternatives or through a definition.
    fn is_vector(&self, name: &str) -> bool {
        self.props
            .get(name)
            .is_some_and(|p| self.vector_schema(p, 0))
    }

    fn vector_schema(&self, s: &Value, depth: usize) -> bool {
        if depth > 8 {
            return false;
        }
        let numbers = |items: &Value| {
            matches!(
                items.get("type").and_then(Value::as_str),
                Some("number" | "integer")
            )
        };
        if s.get("type").and_then(Value::as_str) == Some("array") {
            return s.get("items").is_some_and(numbers);
        }
        if s.get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.iter().any(|t| t == "array"))
            && s.get("items").is_some_and(numbers)
        {
            return true;
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or_default();
            return self
                .defs
                .get(name)
                .is_some_and(|d| self.vector_schema(d, depth + 1));
        }
        ["anyOf", "oneOf"].iter().any(|k| {
            s.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|alts| alts.iter().any(|a| self.vector_schema(a, depth + 1)))
        })
    }
}

/// The top-level fields of `T`'s JSON schema (aliases excluded), once per type.
fn field_names<T: schemars::JsonSchema + 'static>() -> std::sync::Arc<Fields> {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Fields>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry(TypeId::of::<T>())
        .or_insert_with(|| {
            let schema = verity::api::schema_of::<T>();
            let object = |key: &str| {
                schema
                    .get(key)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default()
            };
            Arc::new(Fields {
                props: object("properties"),
                defs: object("$defs"),
            })
        })
        .clone()
}

/// A `verity.Document`, or a dict in the Verity's document schema, as a [`verity::Document`].
pub fn document(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<verity::Document> {
    if let Ok(d) = obj.cast::<crate::types::Document>() {
        return Ok(d.get().inner.clone());
    }
    if obj.cast::<PyDict>().is_err() {
        return Err(PyTypeError::new_err(format!(
            "expected a dict or verity.Document, not {}",
            type_name(obj)
        )));
    }
    from_py(py, obj, "document")
}

/// An exception of `verity.errors` for `code`, with `.code` and `.transient`.
pub fn error(py: Python<'_>, code: &str, transient: bool, message: &str) -> PyErr {
    let made = py
        .import("verity.errors")
        .and_then(|m| m.getattr(ErrorMapping::for_code(code).python_class))
        .and_then(|cls| cls.call1((message, code, transient)));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// A `verity_core::Error` as a Python exception.
pub fn to_pyerr(py: Python<'_>, e: verity::Error) -> PyErr {
    error(py, e.code(), e.is_transient(), &e.to_string())
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal error (Rust panic): {what}")
}

/// Run a Verity future to completion on the shared tokio runtime, with the
/// GIL released; errors and panics become `verity.errors` exceptions.
pub fn block<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    T: Send,
    F: Future<Output = verity::Result<T>> + Send,
{
    let out = py.detach(|| {
        let rt = pyo3_async_runtimes::tokio::get_runtime();
        std::panic::catch_unwind(AssertUnwindSafe(|| rt.block_on(fut)))
    });
    match out {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_pyerr(py, e)),
        Err(p) => Err(error(py, "internal", false, &panic_message(p))),
    }
}

/// Schedule a Verity future on the shared tokio runtime and return an
/// asyncio awaitable resolving to `conv(result)`.
pub fn spawn<'py, T, R, F>(
    py: Python<'py>,
    fut: F,
    conv: fn(T) -> PyResult<R>,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    R: for<'a> IntoPyObject<'a> + Send + 'static,
    F: Future<Output = verity::Result<T>> + Send + 'static,
{
    pyo3_async_runtimes::tokio::future_into_py(py, async move {
        match AssertUnwindSafe(fut).catch_unwind().await {
            Ok(Ok(v)) => conv(v),
            Ok(Err(e)) => Err(Python::attach(|py| to_pyerr(py, e))),
            Err(p) => Err(Python::attach(|py| {
                error(py, "internal", false, &panic_message(p))
            })),
        }
    })
}

/// The store a `Store` and its `memory`, `watch` and `projects` views work
/// on, shared between them; `Store.close()` empties it, after which every
/// call raises `VerityError` saying the store is closed.
#[derive(Clone)]
pub struct Handle(std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<verity::Verity>>>>);

impl Handle {
    /// A handle on an open store.
    pub fn new(v: verity::Verity) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(Some(
            std::sync::Arc::new(v),
        ))))
    }

    /// The open store, or the "closed" error.
    pub fn get(&self) -> PyResult<std::sync::Arc<verity::Verity>> {
        self.peek().ok_or_else(|| {
            Python::attach(|py| {
                error(
                    py,
                    "invalid_input",
                    false,
                    "this store is closed: open it again with verity.Store.open(...)",
                )
            })
        })
    }

    /// The open store, if not closed.
    pub fn peek(&self) -> Option<std::sync::Arc<verity::Verity>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Close: the store leaves the handle (it is flushed and released once
    /// the calls still running on it end).
    pub fn take(&self) -> Option<std::sync::Arc<verity::Verity>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// `home` for `repr`s: the location, or `closed`.
    pub fn describe(&self) -> String {
        self.peek()
            .map(|v| v.location())
            .unwrap_or_else(|| "closed".into())
    }
}
