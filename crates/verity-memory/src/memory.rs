//! [`Memory`]: validation, auto-embedding, threshold fallback and TTL on top of an [`EventStore`].

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;
use verity_core::events::{
    check_vector, field_err, DEFAULT_DISTANCE_THRESHOLD, MAX_DISTANCE, MAX_LIMIT,
};
use verity_core::{
    Embedder, Event, EventFilter, EventPage, EventQuery, EventRecord, EventSearch, EventSearchMode,
    EventStore, NewEvent, Result, StoreError, TimeOrder, VectorQuery,
};

/// Content fields read for auto-embedding, in priority order (seed 004).
pub const DEFAULT_TEXT_FIELDS: &[&str] = &["text", "body", "message", "content", "title"];

/// Tunables of a [`Memory`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemorySettings {
    /// Content fields embedded, first non-empty string wins.
    pub text_fields: Vec<String>,
    /// Largest serialised `content`, in bytes.
    pub max_content_bytes: usize,
    /// Largest serialised `metadata`, in bytes.
    pub max_metadata_bytes: usize,
    /// Seed 004's fallback: a strict threshold that finds nothing on a pure
    /// vector search returns the plain top-K instead (flagged).
    pub threshold_fallback: bool,
    /// Expired events are purged at most this often, on writes.
    pub purge_interval: Duration,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            text_fields: DEFAULT_TEXT_FIELDS.iter().map(|s| s.to_string()).collect(),
            max_content_bytes: 256 * 1024,
            max_metadata_bytes: 64 * 1024,
            threshold_fallback: true,
            purge_interval: Duration::from_secs(60),
        }
    }
}

/// Where an event's vector came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EmbeddingSource {
    /// The caller supplied it.
    Supplied,
    /// Embedded from this content field.
    Auto {
        /// The field read.
        field: String,
    },
    /// No vector: no text field and none supplied, or no embedder.
    None,
}

/// A written event and how it was indexed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Added {
    /// The stored event.
    pub event: Event,
    /// Where its vector came from.
    pub embedding_source: EmbeddingSource,
    /// Said when the event is only findable by metadata and time (or lexically).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Builds a [`Memory`].
pub struct MemoryBuilder {
    store: Arc<dyn EventStore>,
    embedder: Option<Arc<dyn Embedder>>,
    settings: MemorySettings,
}

impl MemoryBuilder {
    /// Embed text content and text queries with this embedder.
    pub fn embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// Replace all settings.
    pub fn settings(mut self, settings: MemorySettings) -> Self {
        self.settings = settings;
        self
    }

    /// Content fields read for auto-embedding, in priority order.
    pub fn text_fields<I: IntoIterator<Item = S>, S: Into<String>>(mut self, fields: I) -> Self {
        self.settings.text_fields = fields.into_iter().map(Into::into).collect();
        self
    }

    /// Largest serialised content, in bytes.
    pub fn max_content_bytes(mut self, n: usize) -> Self {
        self.settings.max_content_bytes = n;
        self
    }

    /// Turn the seed's top-K fallback on or off.
    pub fn threshold_fallback(mut self, on: bool) -> Self {
        self.settings.threshold_fallback = on;
        self
    }

    /// Check the settings and build.
    pub fn build(self) -> Result<Memory> {
        if self
            .settings
            .text_fields
            .iter()
            .any(|f| f.trim().is_empty())
        {
            return Err(field_err("text_fields", "must not contain an empty name"));
        }
        if self.settings.max_content_bytes == 0 {
            return Err(field_err("max_content_bytes", "must be positive"));
        }
        Ok(Memory {
            store: self.store,
            embedder: self.embedder,
            settings: self.settings,
            last_purge: AtomicI64::new(0),
        })
    }
}

/// Event memory over one [`EventStore`].
pub struct Memory {
    store: Arc<dyn EventStore>,
    embedder: Option<Arc<dyn Embedder>>,
    settings: MemorySettings,
    last_purge: AtomicI64,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("backend", &self.store.backend())
            .field(
                "embedder",
                &self.embedder.as_ref().map(|e| e.id().to_string()),
            )
            .finish()
    }
}

fn not_found(id: &Uuid) -> verity_core::Error {
    StoreError::NotFound {
        what: "event",
        id: id.to_string(),
    }
    .into()
}

fn json_len(m: &Map<String, Value>) -> usize {
    serde_json::to_vec(m).map_or(usize::MAX, |v| v.len())
}

impl Memory {
    /// Start building a memory over `store`.
    pub fn builder(store: Arc<dyn EventStore>) -> MemoryBuilder {
        MemoryBuilder {
            store,
            embedder: None,
            settings: MemorySettings::default(),
        }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// The settings in force.
    pub fn settings(&self) -> &MemorySettings {
        &self.settings
    }

    /// Whether text is embedded (vector search by text possible).
    pub fn has_embedder(&self) -> bool {
        self.embedder.is_some()
    }

    /// The content's text field (name and text), by priority.
    pub fn text_of<'a>(&self, content: &'a Map<String, Value>) -> Option<(&'a str, &'a str)> {
        self.settings.text_fields.iter().find_map(|f| {
            let (k, v) = content.get_key_value(f.as_str())?;
            v.as_str()
                .filter(|s| !s.trim().is_empty())
                .map(|s| (k.as_str(), s))
        })
    }

    async fn expected_dim(&self) -> Result<Option<usize>> {
        match &self.embedder {
            Some(e) => Ok(Some(e.id().dim)),
            None => self.store.dimension().await,
        }
    }

    /// Write one event.
    pub async fn add(&self, new: NewEvent) -> Result<Added> {
        let mut out = self.add_many(vec![new]).await?;
        out.pop()
            .ok_or_else(|| StoreError::Backend("write returned nothing".into()).into())
    }

    /// Write events in one atomic store call (texts embedded in one batch).
    /// Any invalid event fails the whole call, naming the field; nothing is written.
    pub async fn add_many(&self, events: Vec<NewEvent>) -> Result<Vec<Added>> {
        let now = Utc::now();
        let dim = self.expected_dim().await?;
        let many = events.len() > 1;
        let at = |i: usize, f: &str| {
            if many {
                format!("{i}.{f}")
            } else {
                f.to_string()
            }
        };
        let mut to_embed: Vec<(usize, String)> = Vec::new();
        let mut prepared = Vec::with_capacity(events.len());
        for (i, ev) in events.into_iter().enumerate() {
            let n = json_len(&ev.content);
            if n > self.settings.max_content_bytes {
                return Err(field_err(
                    at(i, "content"),
                    format!(
                        "is {n} bytes, the limit is {}",
                        self.settings.max_content_bytes
                    ),
                ));
            }
            let n = json_len(&ev.metadata);
            if n > self.settings.max_metadata_bytes {
                return Err(field_err(
                    at(i, "metadata"),
                    format!(
                        "is {n} bytes, the limit is {}",
                        self.settings.max_metadata_bytes
                    ),
                ));
            }
            if let Some(x) = ev.expires_at {
                if x <= now {
                    return Err(field_err(at(i, "expires_at"), "is not in the future"));
                }
            }
            let text = self
                .text_of(&ev.content)
                .map(|(f, t)| (f.to_string(), t.to_string()));
            let source = match (&ev.embedding, &text, &self.embedder) {
                (Some(v), _, _) => {
                    check_vector(&at(i, "embedding"), v, dim)?;
                    EmbeddingSource::Supplied
                }
                (None, Some((f, t)), Some(_)) => {
                    to_embed.push((i, t.clone()));
                    EmbeddingSource::Auto { field: f.clone() }
                }
                _ => EmbeddingSource::None,
            };
            let note = match (&source, &text) {
                (EmbeddingSource::None, None) => Some(format!(
                    "no text field ({}) and no embedding: stored without a vector, found by metadata and time only",
                    self.settings.text_fields.join(", ")
                )),
                (EmbeddingSource::None, Some(_)) => Some(
                    "no embedder configured: stored without a vector, found lexically and by metadata and time"
                        .to_string(),
                ),
                _ => None,
            };
            let event = Event {
                id: Uuid::new_v4(),
                timestamp: ev.timestamp.unwrap_or(now),
                content: ev.content,
                metadata: ev.metadata,
                embedding: ev.embedding,
                similarity_score: None,
                rank_score: None,
                expires_at: ev.expires_at,
            };
            prepared.push((
                EventRecord {
                    event,
                    text: text.map(|t| t.1),
                },
                source,
                note,
            ));
        }
        if let (Some(emb), false) = (&self.embedder, to_embed.is_empty()) {
            let texts: Vec<String> = to_embed.iter().map(|(_, t)| t.clone()).collect();
            let vectors = emb.embed(&texts).await?;
            for ((i, _), v) in to_embed.iter().zip(vectors) {
                if let Some(p) = prepared.get_mut(*i) {
                    p.0.event.embedding = Some(v);
                }
            }
        }
        let records: Vec<EventRecord> = prepared.iter().map(|p| p.0.clone()).collect();
        self.store.write(records).await?;
        self.maybe_purge(now).await;
        Ok(prepared
            .into_iter()
            .map(|(r, embedding_source, note)| Added {
                event: r.event,
                embedding_source,
                note,
            })
            .collect())
    }

    async fn maybe_purge(&self, now: DateTime<Utc>) {
        let last = self.last_purge.load(Ordering::Relaxed);
        let every = i64::try_from(self.settings.purge_interval.as_millis()).unwrap_or(i64::MAX);
        if now.timestamp_millis().saturating_sub(last) < every {
            return;
        }
        self.last_purge
            .store(now.timestamp_millis(), Ordering::Relaxed);
        if let Err(e) = self.store.purge_expired(now).await {
            tracing::warn!(error = %e, "purging expired events failed; retried on a later write");
        }
    }

    /// One event (`not_found` when unknown or expired).
    pub async fn get(&self, id: Uuid) -> Result<Event> {
        self.store
            .get(id, Utc::now())
            .await?
            .ok_or_else(|| not_found(&id))
    }

    /// Delete one event (`not_found` when unknown).
    pub async fn delete(&self, id: Uuid) -> Result<()> {
        match self.store.delete(&[id]).await? {
            0 => Err(not_found(&id)),
            _ => Ok(()),
        }
    }

    /// Merge `patch` (a JSON object) into an event's metadata.
    pub async fn update_metadata(&self, id: Uuid, patch: &Value) -> Result<Event> {
        let Value::Object(patch) = patch else {
            return Err(field_err("metadata", "must be a JSON object"));
        };
        let mut probe = patch.clone();
        if let Ok(ev) = self.get(id).await {
            probe.extend(ev.metadata);
        }
        if json_len(&probe) > self.settings.max_metadata_bytes {
            return Err(field_err(
                "metadata",
                format!(
                    "merged metadata would exceed {} bytes",
                    self.settings.max_metadata_bytes
                ),
            ));
        }
        self.store
            .merge_metadata(id, patch, Utc::now())
            .await?
            .ok_or_else(|| not_found(&id))
    }

    /// Search (seed 004's `GET /v1/search/`).
    pub async fn search(&self, q: &EventQuery) -> Result<EventPage> {
        q.validate()?;
        let filter = q.filter();
        let mut notes = Vec::new();
        let mut mode = q.mode.unwrap_or(if q.vector_query.is_some() {
            EventSearchMode::Vector
        } else {
            EventSearchMode::MetadataOnly
        });
        let mut vector = None;
        let mut text = None;
        match (&q.vector_query, mode) {
            (_, EventSearchMode::MetadataOnly) => {}
            (None, m) => {
                return Err(field_err(
                    "vector_query",
                    format!("{m} search needs a query"),
                ));
            }
            (Some(VectorQuery::Vector(v)), m) => {
                if matches!(m, EventSearchMode::Lexical | EventSearchMode::Hybrid) {
                    return Err(field_err(
                        "vector_query",
                        format!("{m} search needs text, not a vector"),
                    ));
                }
                let dim = self
                    .store
                    .dimension()
                    .await?
                    .or(self.embedder.as_ref().map(|e| e.id().dim));
                check_vector("vector_query", v, dim)?;
                vector = Some(v.clone());
            }
            (Some(VectorQuery::Text(t)), m) => {
                text = Some(t.clone());
                if m != EventSearchMode::Lexical {
                    match &self.embedder {
                        Some(e) => vector = Some(e.embed_query(t).await?),
                        None => {
                            notes.push(format!(
                                "no embedder configured: ran lexical instead of {m}"
                            ));
                            mode = EventSearchMode::Lexical;
                        }
                    }
                }
            }
        }
        let threshold = q.distance_threshold.unwrap_or(DEFAULT_DISTANCE_THRESHOLD);
        let max_distance = (threshold < MAX_DISTANCE).then_some(threshold);
        let mut search = EventSearch {
            mode,
            vector,
            text,
            filter,
            max_distance,
            limit: q.limit,
            offset: q.offset,
            now: Utc::now(),
        };
        let mut page = self.store.search(&search).await?;
        let pure_vector = mode == EventSearchMode::Vector && search.filter.is_empty();
        if pure_vector
            && self.settings.threshold_fallback
            && search.max_distance.is_some()
            && page.data.is_empty()
            && page.total_hits.unwrap_or(0) == 0
        {
            search.max_distance = None;
            page = self.store.search(&search).await?;
            page.threshold_fallback = true;
            notes.push(format!(
                "no event within distance {threshold}: returned the nearest {} instead",
                q.limit
            ));
        }
        page.notes.extend(notes);
        Ok(page)
    }

    /// Events matching `filter`, in time order.
    pub async fn list(
        &self,
        filter: &EventFilter,
        order: TimeOrder,
        limit: usize,
        offset: usize,
    ) -> Result<EventPage> {
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(field_err("limit", format!("must be in 1..={MAX_LIMIT}")));
        }
        self.store
            .list(filter, order, limit, offset, Utc::now())
            .await
    }

    /// Delete every expired event now; returns how many.
    pub async fn purge_expired(&self) -> Result<usize> {
        let now = Utc::now();
        self.last_purge
            .store(now.timestamp_millis(), Ordering::Relaxed);
        self.store.purge_expired(now).await
    }
}
