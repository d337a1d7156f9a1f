//! Event memory requests and responses (seed 004, the MnemoLite API; seed
//! 000's `remember`/`recall`/`forget`).
//!
//! Events themselves are the library's types ([`Event`], [`NewEvent`],
//! [`EventQuery`], [`Added`]), re-exported here; this module adds the
//! envelopes hosts answer with and the agent-tool requests.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

pub use verity_memory::{
    Added, EmbeddingSource, Event, EventFilter, EventPage, EventQuery, EventQueryParams,
    EventSearchMode, NewEvent, RecallRequest, TimeOrder, VectorQuery,
};

use crate::Result;

/// MnemoLite's search envelope: `{data, meta: {total_hits, limit, offset}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventSearchResponse {
    /// Events of this page, best (or newest) first.
    pub data: Vec<Event>,
    /// Counts and how the search ran.
    pub meta: EventSearchMeta,
}

/// The `meta` of an [`EventSearchResponse`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventSearchMeta {
    /// Matching events before pagination, when known exactly.
    pub total_hits: Option<u64>,
    /// Page size asked.
    pub limit: usize,
    /// Offset asked.
    pub offset: usize,
    /// Index that answered (`vector`, `lexical`, `hybrid`, `metadata-only`).
    pub mode: EventSearchMode,
    /// `true` when a strict `distance_threshold` found nothing on a pure
    /// vector search and the nearest events were returned instead.
    pub threshold_fallback: bool,
    /// Honest notes (a text query without embedder ran lexical, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl From<EventPage> for EventSearchResponse {
    fn from(p: EventPage) -> Self {
        Self {
            data: p.data,
            meta: EventSearchMeta {
                total_hits: p.total_hits,
                limit: p.limit,
                offset: p.offset,
                mode: p.mode,
                threshold_fallback: p.threshold_fallback,
                notes: p.notes,
            },
        }
    }
}

/// `remember`: store a piece of text for later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberRequest {
    /// What to remember (stored as the event's `content.text`, embedded).
    #[schemars(length(min = 1))]
    pub text: String,
    /// Tags, ids, … (a JSON object) used to filter later.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Seconds until the event is forgotten (default: kept).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub ttl_seconds: Option<u64>,
}

/// `forget`: delete one event by id, or every event matching a filter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetRequest {
    /// The event to delete (exclusive with the filters).
    #[serde(default)]
    pub id: Option<Uuid>,
    /// Delete the events whose metadata contains this object.
    #[serde(default)]
    pub filter_metadata: Map<String, Value>,
    /// … and whose timestamp is at or after this.
    #[serde(default)]
    pub ts_start: Option<DateTime<Utc>>,
    /// … and at or before this.
    #[serde(default)]
    pub ts_end: Option<DateTime<Utc>>,
}

impl ForgetRequest {
    /// The library's `forget` target; refuses an id with filters, and nothing at all.
    pub fn to_forget(&self) -> Result<verity_memory::Forget> {
        let filtered =
            !self.filter_metadata.is_empty() || self.ts_start.is_some() || self.ts_end.is_some();
        match (self.id, filtered) {
            (Some(_), true) => Err(verity_core::events::field_err(
                "id",
                "give either `id` or filters (`filter_metadata`, `ts_start`, `ts_end`), not both",
            )),
            (Some(id), false) => Ok(verity_memory::Forget::Id(id)),
            (None, true) => Ok(verity_memory::Forget::Filter(EventFilter {
                metadata: (!self.filter_metadata.is_empty()).then(|| self.filter_metadata.clone()),
                ts_start: self.ts_start,
                ts_end: self.ts_end,
            })),
            (None, false) => Err(verity_core::events::field_err(
                "id",
                "give `id` or a filter (`filter_metadata`, `ts_start`, `ts_end`): forgetting everything is refused",
            )),
        }
    }
}

/// What `forget` deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ForgetResponse {
    /// Events deleted.
    pub deleted: usize,
}
