//! `store.memory`: event memory — `add`, `get`, `search`,
//! `update_metadata`, `delete`, and the agent calls `remember`, `recall`,
//! `forget`; each with an `a`-prefixed asyncio twin (`twins!`). Arguments
//! become `verity::api::memory` requests (`remember`, `recall` and `forget`
//! read theirs from the keywords through serde, with the library's
//! defaults); errors are `verity.errors` exceptions naming the field.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{json, Map, Value};
use verity::api::memory::{
    Event as RsEvent, EventQuery, EventSearchMode, EventSearchResponse, ForgetRequest, NewEvent,
    RecallRequest, RememberRequest, VectorQuery,
};
use verity::core::events::{check_vector, field_err};

use crate::conv;
use crate::types::wrapper;

wrapper! {
    /// One stored event (MnemoLite's `Event`).
    Event(RsEvent) repr ["id", "timestamp", "content"] {
        #[getter] fn id(&self) -> String { self.inner.id.to_string() }
        #[getter] fn timestamp(&self) -> String { self.inner.timestamp.to_rfc3339() }
        #[getter] fn content<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { conv::to_py(py, &self.inner.content) }
        #[getter] fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { conv::to_py(py, &self.inner.metadata) }
        #[getter] fn embedding(&self) -> Option<Vec<f32>> { self.inner.embedding.clone() }
        #[getter] fn similarity_score(&self) -> Option<f32> { self.inner.similarity_score }
        #[getter] fn rank_score(&self) -> Option<f32> { self.inner.rank_score }
        #[getter] fn expires_at(&self) -> Option<String> { self.inner.expires_at.map(|t| t.to_rfc3339()) }
    }
}

wrapper! {
    /// A page of events with MnemoLite's `meta` (`total_hits`, `limit`, `offset`).
    EventPage(EventSearchResponse) repr ["meta"] {
        #[getter] fn data(&self) -> Vec<Event> { self.inner.data.iter().cloned().map(Event::from).collect() }
        #[getter] fn total_hits(&self) -> Option<u64> { self.inner.meta.total_hits }
        #[getter] fn limit(&self) -> usize { self.inner.meta.limit }
        #[getter] fn offset(&self) -> usize { self.inner.meta.offset }
        #[getter] fn mode(&self) -> String { self.inner.meta.mode.to_string() }
        #[getter] fn threshold_fallback(&self) -> bool { self.inner.meta.threshold_fallback }
        #[getter] fn notes(&self) -> Vec<String> { self.inner.meta.notes.clone() }
        fn __len__(&self) -> usize { self.inner.data.len() }
        fn __getitem__(&self, i: isize) -> PyResult<Event> {
            let n = self.inner.data.len() as isize;
            let j = if i < 0 { i + n } else { i };
            usize::try_from(j).ok().and_then(|j| self.inner.data.get(j)).cloned().map(Event::from)
                .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("event index out of range"))
        }
    }
}

/// The event memory of a `Store` (`store.memory`).
#[pyclass(frozen, module = "verity")]
pub struct Memory {
    pub(crate) inner: crate::conv::Handle,
}

fn err(py: Python<'_>, e: verity::Error) -> PyErr {
    conv::to_pyerr(py, e)
}

fn uuid(py: Python<'_>, id: &str) -> PyResult<uuid::Uuid> {
    uuid::Uuid::parse_str(id.trim())
        .map_err(|e| err(py, field_err("id", format!("is not a UUID: {e}"))))
}

fn object(
    py: Python<'_>,
    v: Option<&Bound<'_, PyAny>>,
    field: &str,
) -> PyResult<Map<String, Value>> {
    match v {
        None => Ok(Map::new()),
        Some(o) if o.is_none() => Ok(Map::new()),
        Some(o) => match conv::py_to_json(o)? {
            Value::Object(m) => Ok(m),
            _ => Err(err(py, field_err(field, "must be a dict"))),
        },
    }
}

fn mode(py: Python<'_>, m: Option<&str>) -> PyResult<Option<EventSearchMode>> {
    m.map(str::parse).transpose().map_err(|e| err(py, e))
}

fn event_page(v: EventSearchResponse) -> PyResult<EventPage> {
    Ok(EventPage::from(v))
}

fn event(v: RsEvent) -> PyResult<Event> {
    Ok(Event::from(v))
}

fn added(v: verity::api::memory::Added) -> PyResult<Event> {
    Ok(Event::from(v.event))
}

fn new_event(
    py: Python<'_>,
    content: &Bound<'_, PyAny>,
    metadata: Option<&Bound<'_, PyAny>>,
    embedding: Option<&Bound<'_, PyAny>>,
    timestamp: Option<&Bound<'_, PyAny>>,
) -> PyResult<NewEvent> {
    let mut body = Map::new();
    body.insert("content".into(), conv::py_to_json(content)?);
    body.insert(
        "metadata".into(),
        Value::Object(object(py, metadata, "metadata")?),
    );
    let mut ev = NewEvent::from_json(&Value::Object(body)).map_err(|e| err(py, e))?;
    // Extracted directly so NaN reaches the vector check (JSON has no NaN).
    if let Some(e) = embedding.filter(|e| !e.is_none()) {
        let v: Vec<f32> = e
            .extract()
            .map_err(|_| err(py, field_err("embedding", "must be a list of floats")))?;
        check_vector("embedding", &v, None).map_err(|e| err(py, e))?;
        ev.embedding = Some(v);
    }
    ev.timestamp = conv::optional_time(py, timestamp, "timestamp")?;
    Ok(ev)
}

#[allow(clippy::too_many_arguments)]
fn query(
    py: Python<'_>,
    vector_query: Option<&Bound<'_, PyAny>>,
    filter_metadata: Option<&Bound<'_, PyAny>>,
    ts_start: Option<&Bound<'_, PyAny>>,
    ts_end: Option<&Bound<'_, PyAny>>,
    distance_threshold: Option<f32>,
    limit: Option<usize>,
    offset: Option<usize>,
    m: Option<&str>,
) -> PyResult<EventQuery> {
    let vq = match vector_query.filter(|v| !v.is_none()) {
        None => None,
        Some(v) => match v.extract::<String>() {
            Ok(s) => Some(VectorQuery::parse(&s).map_err(|e| err(py, e))?),
            Err(_) => Some(VectorQuery::Vector(v.extract::<Vec<f32>>().map_err(
                |_| {
                    err(
                        py,
                        field_err("vector_query", "must be a str or a list of floats"),
                    )
                },
            )?)),
        },
    };
    let fm = object(py, filter_metadata, "filter_metadata")?;
    let defaults = EventQuery::default();
    let q = EventQuery {
        vector_query: vq,
        filter_metadata: (!fm.is_empty()).then_some(fm),
        ts_start: conv::optional_time(py, ts_start, "ts_start")?,
        ts_end: conv::optional_time(py, ts_end, "ts_end")?,
        distance_threshold,
        limit: limit.unwrap_or(defaults.limit),
        offset: offset.unwrap_or(defaults.offset),
        mode: mode(py, m)?,
    };
    q.validate().map_err(|e| err(py, e))?;
    Ok(q)
}

twins! {
    impl Memory {
        /// Write an event: `content` is a dict whose text field (`text`, `body`,
        /// `message`, `content`, `title`) is embedded unless `embedding` is given.
        fn add / aadd (
            content: &Bound<'py, PyAny>,
            metadata: Option<&Bound<'py, PyAny>>,
            embedding: Option<&Bound<'py, PyAny>>,
            timestamp: Option<&Bound<'py, PyAny>>
        )
            signature (content, *, metadata = None, embedding = None, timestamp = None) -> Event
            => added;
            |v, py| {
                let ev = new_event(py, content, metadata, embedding, timestamp)?;
                async move { v.memory_add(ev).await }
            }

        /// One event by id (`NotFound` when unknown or expired).
        fn get / aget (id: String) signature (id) -> Event
            => event;
            |v, py| {
                let id = uuid(py, &id)?;
                async move { v.memory_get(id).await }
            }

        /// Delete one event (`NotFound` when unknown).
        fn delete / adelete (id: String) signature (id) -> ()
            => Ok;
            |v, py| {
                let id = uuid(py, &id)?;
                async move { v.memory_delete(id).await }
            }

        /// Merge `patch` into an event's metadata (keys added or replaced, others kept).
        fn update_metadata / aupdate_metadata (id: String, patch: &Bound<'py, PyDict>)
            signature (id, patch) -> Event
            => event;
            |v, py| {
                let id = uuid(py, &id)?;
                let patch = conv::py_to_json(patch.as_any())?;
                async move { v.memory_update_metadata(id, &patch).await }
            }

        /// Search (MnemoLite's `GET /v1/search/`): `vector_query` is text or a
        /// list of floats; filters by metadata containment and time; unset
        /// `limit` and `offset` are `EventQuery`'s defaults.
        fn search / asearch (
            vector_query: Option<&Bound<'py, PyAny>>,
            filter_metadata: Option<&Bound<'py, PyAny>>,
            ts_start: Option<&Bound<'py, PyAny>>,
            ts_end: Option<&Bound<'py, PyAny>>,
            distance_threshold: Option<f32>,
            limit: Option<usize>,
            offset: Option<usize>,
            mode: Option<&str>
        )
            signature (vector_query = None, *, filter_metadata = None, ts_start = None, ts_end = None, distance_threshold = None, limit = None, offset = None, mode = None)
            -> EventPage
            => event_page;
            |v, py| {
                let q = query(py, vector_query, filter_metadata, ts_start, ts_end, distance_threshold, limit, offset, mode)?;
                async move { v.memory_search(&q).await }
            }

        /// Store `text` with `metadata` and an optional time to live
        /// (`ttl_seconds`): the fields of the api's `RememberRequest`.
        fn remember / aremember (text: String; **kwargs)
            signature (text, **kwargs) -> Event
            => added;
            |v, py| {
                let req: RememberRequest = conv::request(py, "remember", &[("text", json!(text))], kwargs)?;
                async move { v.remember(&req).await }
            }

        /// Find remembered events by meaning and/or words, metadata and time:
        /// the fields of the api's `RecallRequest`, with its defaults.
        fn recall / arecall (query: Option<String>; **kwargs)
            signature (query = None, **kwargs) -> EventPage
            => event_page;
            |v, py| {
                let req: RecallRequest = conv::request(py, "recall", &[("query", json!(query))], kwargs)?;
                async move { v.recall(&req).await }
            }

        /// Delete one event by `id`, or every event matching `filter_metadata`
        /// and the time range; returns how many were deleted.
        fn forget / aforget (id: Option<String>; **kwargs)
            signature (id = None, **kwargs) -> usize
            => |r: verity::api::memory::ForgetResponse| Ok(r.deleted);
            |v, py| {
                let req: ForgetRequest = conv::request(py, "forget", &[("id", json!(id))], kwargs)?;
                async move { v.forget(&req).await }
            }
    }
    plain {
        fn __repr__(&self) -> String {
            format!("Memory(home={:?})", self.inner.describe())
        }
    }
}
