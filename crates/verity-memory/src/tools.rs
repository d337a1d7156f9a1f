//! Agent-facing tools (seed 000's AuraCore memory): remember, recall, forget.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;
use verity_core::events::{field_err, DEFAULT_LIMIT};
use verity_core::{
    EventFilter, EventPage, EventQuery, EventSearchMode, NewEvent, Result, TimeOrder, VectorQuery,
};

use crate::memory::{Added, Memory};

// The one recall request: `Memory::recall` takes it and the facade names it
// `verity::api::memory::RecallRequest` for every host (its doc comment is the
// published schema's description).
/// `recall`: find remembered events by meaning and/or words, metadata and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallRequest {
    /// What to look for; omitted: the newest events matching the filters.
    #[serde(default)]
    pub query: Option<String>,
    /// Metadata the events must contain (containment: nested objects and arrays).
    #[serde(default)]
    pub filter_metadata: Map<String, Value>,
    /// Earliest timestamp (ISO 8601 with a zone).
    #[serde(default)]
    pub ts_start: Option<DateTime<Utc>>,
    /// Latest timestamp (ISO 8601 with a zone).
    #[serde(default)]
    pub ts_end: Option<DateTime<Utc>>,
    /// Results, 1–100 (default 10).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: usize,
    /// Index used (default: hybrid with an embedder, else lexical).
    #[serde(default)]
    pub mode: Option<EventSearchMode>,
    /// Largest L2 distance kept, 0–2 (default: none, the nearest events).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub distance_threshold: Option<f32>,
}

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

impl Default for RecallRequest {
    fn default() -> Self {
        Self {
            query: None,
            filter_metadata: Map::new(),
            ts_start: None,
            ts_end: None,
            limit: DEFAULT_LIMIT,
            mode: None,
            distance_threshold: None,
        }
    }
}

impl RecallRequest {
    /// A recall of `query` with the defaults.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: Some(query.into()),
            ..Self::default()
        }
    }
}

/// What `forget` deletes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Forget {
    /// One event.
    Id(Uuid),
    /// Every event matching a (non-empty) filter.
    Filter(EventFilter),
}

fn object(field: &str, v: &Value) -> Result<Map<String, Value>> {
    match v {
        Value::Object(m) => Ok(m.clone()),
        _ => Err(field_err(field, "must be a JSON object")),
    }
}

impl Memory {
    /// Store `text` with `metadata` (a JSON object or null) and an optional time to live.
    pub async fn remember(
        &self,
        text: &str,
        metadata: Value,
        ttl: Option<Duration>,
    ) -> Result<Added> {
        if text.trim().is_empty() {
            return Err(field_err("text", "must not be empty"));
        }
        let metadata = match metadata {
            Value::Null => Map::new(),
            v => object("metadata", &v)?,
        };
        let expires_at = match ttl {
            None => None,
            Some(d) if d.is_zero() => return Err(field_err("ttl", "must be positive")),
            Some(d) => Some(
                chrono::Duration::from_std(d)
                    .ok()
                    .and_then(|d| Utc::now().checked_add_signed(d))
                    .ok_or_else(|| field_err("ttl", "is too large"))?,
            ),
        };
        let mut content = Map::new();
        content.insert("text".into(), Value::String(text.to_string()));
        self.add(NewEvent {
            content,
            metadata,
            embedding: None,
            timestamp: None,
            expires_at,
        })
        .await
    }

    /// Find events by meaning and/or words, metadata and time.
    pub async fn recall(&self, r: &RecallRequest) -> Result<EventPage> {
        let filter_metadata = (!r.filter_metadata.is_empty()).then(|| r.filter_metadata.clone());
        let query = r.query.clone().filter(|q| !q.trim().is_empty());
        let mode = match (&query, r.mode) {
            (None, _) => EventSearchMode::MetadataOnly,
            (Some(_), Some(m)) => m,
            (Some(_), None) if self.has_embedder() => EventSearchMode::Hybrid,
            (Some(_), None) => EventSearchMode::Lexical,
        };
        let q = EventQuery {
            vector_query: query.map(VectorQuery::Text),
            filter_metadata,
            ts_start: r.ts_start,
            ts_end: r.ts_end,
            distance_threshold: Some(r.distance_threshold.unwrap_or(2.0)),
            limit: r.limit,
            offset: 0,
            mode: Some(mode),
        };
        self.search(&q).await
    }

    /// Delete one event, or every event matching a non-empty filter; returns how many.
    pub async fn forget(&self, what: Forget) -> Result<usize> {
        match what {
            Forget::Id(id) => self.store().delete(&[id]).await,
            Forget::Filter(f) => {
                if f.is_empty() {
                    return Err(field_err(
                        "filter",
                        "must restrict something (metadata or time): forgetting everything is refused",
                    ));
                }
                let mut total = 0;
                loop {
                    let page = self
                        .store()
                        .list(&f, TimeOrder::OldestFirst, 100, 0, Utc::now())
                        .await?;
                    let ids: Vec<Uuid> = page.data.iter().map(|e| e.id).collect();
                    if ids.is_empty() {
                        return Ok(total);
                    }
                    let n = self.store().delete(&ids).await?;
                    total += n;
                    if n == 0 {
                        return Ok(total);
                    }
                }
            }
        }
    }
}
