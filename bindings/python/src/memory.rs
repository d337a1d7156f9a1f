//! `store.memory`: event memory — `add`, `get`, `search`,
//! `update_metadata`, `delete`, and the agent calls `remember`, `recall`,
//! `forget`; each with an `a`-prefixed asyncio twin (`twins!`). Arguments
//! become `verity::api::memory` requests, read from the keywords through
//! serde (`conv::request`) with the library's defaults; a vector holding NaN
//! or an infinity reaches the library's vector check (`conv` passes them by
//! name), so it gets the typed error REST gives. Errors are `verity.errors`
//! exceptions naming the field.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::json;
use verity::api::memory::{
    Event as RsEvent, EventQuery, EventSearchResponse, ForgetRequest, NewEvent, RecallRequest,
    RememberRequest,
};
use verity::core::events::field_err;

use crate::conv;
use crate::types::wrapper;

wrapper! {
    /// One stored event (MnemoLite's `Event`).
    Event(RsEvent) repr ["id", "timestamp", "content"] {
        #[getter] fn id(&self) -> String { self.inner.id.to_string() }
        /// RFC 3339, as `to_dict()` and the JSON of every host write it (`…Z`).
        #[getter] fn timestamp<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { crate::types::Attr::attr(&self.inner.timestamp, py) }
        #[getter] fn content<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { conv::to_py(py, &self.inner.content) }
        #[getter] fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { conv::to_py(py, &self.inner.metadata) }
        #[getter] fn embedding(&self) -> Option<Vec<f32>> { self.inner.embedding.clone() }
        #[getter] fn similarity_score(&self) -> Option<f32> { self.inner.similarity_score }
        #[getter] fn rank_score(&self) -> Option<f32> { self.inner.rank_score }
        #[getter] fn expires_at<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> { crate::types::Attr::attr(&self.inner.expires_at, py) }
        fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> { crate::types::item(py, &self.inner, key) }
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

fn event_page(v: EventSearchResponse) -> PyResult<EventPage> {
    Ok(EventPage::from(v))
}

fn event(v: RsEvent) -> PyResult<Event> {
    Ok(Event::from(v))
}

fn added(v: verity::api::memory::Added) -> PyResult<Event> {
    Ok(Event::from(v.event))
}

twins! {
    impl Memory {
        /// Write an event: `content` is a dict whose text field (`text`, `body`,
        /// `message`, `content`, `title`) is embedded unless `embedding` is given.
        /// The keywords are the fields of the api's `NewEvent` (`metadata`,
        /// `embedding`, `timestamp`, `expires_at`).
        fn add / aadd (content: &Bound<'py, PyAny>; **kwargs)
            signature (content, **kwargs) -> Event
            => added;
            |v, py| {
                let content = conv::argument::<NewEvent>(py, "add", "content", Some(content))?;
                let ev: NewEvent = conv::request(py, "add", &[("content", content)], kwargs)?;
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
        /// list of floats; the keywords are the fields of the api's
        /// `EventQuery` (`filter_metadata`, `ts_start`, `ts_end`,
        /// `distance_threshold`, `limit`, `offset`, `mode`), with its defaults.
        fn search / asearch (vector_query: Option<&Bound<'py, PyAny>>; **kwargs)
            signature (vector_query = None, **kwargs) -> EventPage
            => event_page;
            |v, py| {
                let vq = conv::argument::<EventQuery>(py, "search", "vector_query", vector_query)?;
                let q: EventQuery = conv::request(py, "search", &[("vector_query", vq)], kwargs)?;
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
