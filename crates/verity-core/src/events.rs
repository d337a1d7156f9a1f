//! Event memory (seed 004, the MnemoLite API): [`Event`]s an agent writes and
//! finds again by meaning, metadata and time, and the [`EventStore`] trait the
//! embedded (SQLite) and Redis backends implement.
//!
//! Distances are L2 between unit vectors (`0` identical, `2` opposite,
//! `√2` orthogonal), so a threshold keeps the same meaning on every backend:
//! `l2 = √(2 − 2·cos)`.

mod filter;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

pub use filter::{json_contains, metadata_contains, metadata_terms, EventFilter, MAX_TERM_LEN};

use crate::{Error, InputError, Result};

/// Default number of results of a search.
pub const DEFAULT_LIMIT: usize = 10;
/// Largest `limit` a search accepts.
pub const MAX_LIMIT: usize = 100;
/// Default `distance_threshold` (MnemoLite's "balanced").
pub const DEFAULT_DISTANCE_THRESHOLD: f32 = 1.0;
/// Largest meaningful L2 distance between unit vectors (a threshold of 2 keeps everything).
pub const MAX_DISTANCE: f32 = 2.0;

/// L2 distance between unit vectors of cosine similarity `cos`.
pub fn l2_from_cosine(cos: f32) -> f32 {
    (2.0 - 2.0 * cos.clamp(-1.0, 1.0)).max(0.0).sqrt()
}

/// Cosine similarity of unit vectors at L2 distance `l2`.
pub fn cosine_from_l2(l2: f32) -> f32 {
    1.0 - l2 * l2 / 2.0
}

/// One stored event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Event {
    /// Identifier.
    pub id: Uuid,
    /// When it happened (UTC).
    pub timestamp: DateTime<Utc>,
    /// Free JSON object; its text field (`text`, `body`, `message`, …) is embedded.
    pub content: Map<String, Value>,
    /// Tags, external ids, … (filtered with containment semantics).
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// The event's vector (`None`: no text and none supplied).
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    /// L2 distance to the query vector when a vector search ran (lower = more similar).
    #[serde(default)]
    pub similarity_score: Option<f32>,
    /// Rank score of lexical (BM25 relevance in `[0, 1)`) and hybrid (fused) searches, higher = better.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_score: Option<f32>,
    /// When the event expires (vanishes from every read, then purged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// What a caller writes (MnemoLite's `NewEvent`, plus an optional expiry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEvent {
    /// Content object (required).
    pub content: Map<String, Value>,
    /// Metadata object.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// A vector of the store's dimension; bypasses auto-embedding.
    #[serde(default, deserialize_with = "wire::vector")]
    #[schemars(with = "Option<Vec<f32>>")]
    pub embedding: Option<Vec<f32>>,
    /// Event time (default: now). Must carry a zone when given as text.
    #[serde(default, deserialize_with = "wire::timestamp")]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub timestamp: Option<DateTime<Utc>>,
    /// Expiry time (TTL), if any.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "wire::timestamp"
    )]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub expires_at: Option<DateTime<Utc>>,
}

impl NewEvent {
    /// An event with this content and no metadata.
    pub fn new(content: Map<String, Value>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// Parse a JSON body (REST, bindings): typed errors name the field.
    pub fn from_json(body: &Value) -> Result<Self> {
        let Value::Object(obj) = body else {
            return Err(field_err("body", "must be a JSON object"));
        };
        let mut ev = NewEvent::default();
        for (k, v) in obj {
            match k.as_str() {
                "content" => match v {
                    Value::Object(m) => ev.content = m.clone(),
                    _ => return Err(field_err("content", "must be a JSON object")),
                },
                // The published schema says `object` (default `{}`), not
                // nullable: a `null` is refused like any other non-object.
                "metadata" => match v {
                    Value::Object(m) => ev.metadata = m.clone(),
                    _ => return Err(field_err("metadata", "must be a JSON object")),
                },
                "embedding" => match v {
                    Value::Null => {}
                    Value::Array(a) => ev.embedding = Some(parse_vector("embedding", a)?),
                    _ => return Err(field_err("embedding", "must be an array of numbers")),
                },
                "timestamp" | "expires_at" => {
                    let t = match v {
                        Value::Null => None,
                        Value::String(s) => Some(parse_timestamp(k, s)?),
                        _ => return Err(field_err(k, "must be an ISO 8601 date-time string")),
                    };
                    if k == "timestamp" {
                        ev.timestamp = t;
                    } else {
                        ev.expires_at = t;
                    }
                }
                other => return Err(field_err(other, "unknown field")),
            }
        }
        if !obj.contains_key("content") {
            return Err(field_err("content", "field required"));
        }
        Ok(ev)
    }
}

/// An event as handed to a store: complete (id, timestamp, vector resolved)
/// with the text the lexical index reads.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRecord {
    /// The event (its `similarity_score`/`rank_score` are ignored).
    pub event: Event,
    /// Text indexed for lexical search (`None`: not lexically searchable).
    pub text: Option<String>,
}

/// The query vector: text to embed, or a vector. Read from JSON as an
/// array of numbers (whose elements may name the non-finite floats JSON
/// cannot hold, [`wire`], for the vector check to refuse) or a string
/// ([`VectorQuery::parse`]: a JSON array string is a vector).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum VectorQuery {
    /// A vector of the store's dimension.
    Vector(Vec<f32>),
    /// Text, embedded by the memory's embedder (and read by lexical search).
    Text(String),
}

impl<'de> Deserialize<'de> for VectorQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        match Value::deserialize(d)? {
            Value::String(s) => VectorQuery::parse(&s).map_err(|e| match e {
                Error::Input(InputError::Field { message, .. }) => D::Error::custom(message),
                other => D::Error::custom(other),
            }),
            Value::Array(a) => wire::elements(&a)
                .map(VectorQuery::Vector)
                .map_err(D::Error::custom),
            _ => Err(D::Error::custom(
                "expected text or an array of numbers (a vector)",
            )),
        }
    }
}

impl VectorQuery {
    /// MnemoLite's `vector_query` parameter: a JSON array string (`"[0.1,0.2]"`)
    /// is a vector, anything else is text.
    pub fn parse(s: &str) -> Result<Self> {
        let t = s.trim();
        if t.starts_with('[') {
            let v: Value = serde_json::from_str(t).map_err(|e| {
                field_err(
                    "vector_query",
                    format!("looks like a JSON vector but is not: {e}"),
                )
            })?;
            let Value::Array(a) = v else {
                return Err(field_err("vector_query", "must be text or a JSON array"));
            };
            return Ok(VectorQuery::Vector(parse_vector("vector_query", &a)?));
        }
        if t.is_empty() {
            return Err(field_err("vector_query", "must not be empty"));
        }
        Ok(VectorQuery::Text(s.to_string()))
    }
}

/// Which index answers a search.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum EventSearchMode {
    /// Vector similarity (MnemoLite's search); the default when a query is given.
    #[default]
    Vector,
    /// BM25 over the events' text.
    Lexical,
    /// Vector and lexical, fused.
    Hybrid,
    /// Metadata and time filters only, newest first.
    #[serde(alias = "metadata_only", alias = "metadata")]
    MetadataOnly,
}

impl std::fmt::Display for EventSearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EventSearchMode::Vector => "vector",
            EventSearchMode::Lexical => "lexical",
            EventSearchMode::Hybrid => "hybrid",
            EventSearchMode::MetadataOnly => "metadata-only",
        })
    }
}

impl EventSearchMode {
    /// Every mode, in the order the OpenAPI enum lists them.
    pub const ALL: [EventSearchMode; 4] = [
        EventSearchMode::Vector,
        EventSearchMode::Lexical,
        EventSearchMode::Hybrid,
        EventSearchMode::MetadataOnly,
    ];

    /// Parse a query-string value: exactly one of the documented names (the
    /// lenient aliases of [`FromStr`](std::str::FromStr) are for humans at a CLI).
    pub fn from_wire(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.to_string() == s)
            .ok_or_else(|| {
                field_err(
                    "mode",
                    format!("unknown mode `{s}` (vector, lexical, hybrid, metadata-only)"),
                )
            })
    }
}

impl std::str::FromStr for EventSearchMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "vector" | "dense" => Ok(Self::Vector),
            "lexical" | "bm25" => Ok(Self::Lexical),
            "hybrid" => Ok(Self::Hybrid),
            "metadata-only" | "metadata" => Ok(Self::MetadataOnly),
            other => Err(field_err(
                "mode",
                format!("unknown mode `{other}` (vector, lexical, hybrid, metadata-only)"),
            )),
        }
    }
}

/// A search as a caller asks it (MnemoLite's `GET /v1/search/` parameters, plus `mode`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EventQuery {
    /// Text or vector; absent: metadata/time listing.
    #[serde(default)]
    pub vector_query: Option<VectorQuery>,
    /// Keep events whose metadata contains this object.
    #[serde(default)]
    pub filter_metadata: Option<Map<String, Value>>,
    /// Earliest timestamp (inclusive).
    #[serde(default, deserialize_with = "wire::timestamp")]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub ts_start: Option<DateTime<Utc>>,
    /// Latest timestamp (inclusive).
    #[serde(default, deserialize_with = "wire::timestamp")]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub ts_end: Option<DateTime<Utc>>,
    /// Largest L2 distance kept, `0..=2` (default 1.0; 2 = plain top-K).
    #[serde(default)]
    pub distance_threshold: Option<f32>,
    /// Results per page, `1..=100` (default 10).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Results skipped.
    #[serde(default)]
    pub offset: usize,
    /// Index used (default: vector when `vector_query` is set, else metadata-only).
    #[serde(default)]
    pub mode: Option<EventSearchMode>,
}

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

impl Default for EventQuery {
    fn default() -> Self {
        Self {
            vector_query: None,
            filter_metadata: None,
            ts_start: None,
            ts_end: None,
            distance_threshold: None,
            limit: DEFAULT_LIMIT,
            offset: 0,
            mode: None,
        }
    }
}

/// Raw string parameters (query string, CLI flags) of a search.
///
/// Every field is read as text and parsed by [`EventQuery::from_params`];
/// the JSON Schema says what each one must hold once parsed (the REST
/// server publishes it as the query parameters of `GET /v1/search/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EventQueryParams {
    /// Text (embedded by the server) or a JSON vector string (`[0.1,0.2,…]`); empty means absent.
    pub vector_query: Option<String>,
    /// JSON object string; events whose metadata contains it (nested objects and arrays).
    pub filter_metadata: Option<String>,
    /// Earliest timestamp, ISO 8601 with a zone.
    #[schemars(extend("format" = "date-time"))]
    pub ts_start: Option<String>,
    /// Latest timestamp, ISO 8601 with a zone.
    #[schemars(extend("format" = "date-time"))]
    pub ts_end: Option<String>,
    /// Largest L2 distance between unit vectors (0–2, lower = more similar).
    /// A strict threshold that finds nothing on a pure vector search falls
    /// back to the top-K (`meta.threshold_fallback`).
    #[schemars(with = "Option<f64>", range(min = 0.0, max = 2.0), extend("default" = 1.0))]
    pub distance_threshold: Option<String>,
    /// Results per page.
    #[schemars(with = "Option<u32>", range(min = 1, max = 100), extend("default" = 10))]
    pub limit: Option<String>,
    /// Results skipped.
    #[schemars(with = "Option<u32>", range(min = 0, max = 4294967295u32), extend("default" = 0))]
    pub offset: Option<String>,
    /// Index (Verity extension): `vector` (default with a query), `lexical`,
    /// `hybrid`, `metadata-only` (default without).
    #[schemars(extend("enum" = ["vector", "lexical", "hybrid", "metadata-only"]))]
    pub mode: Option<String>,
}

impl EventQuery {
    /// A vector search for `text` (embedded by the memory).
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            vector_query: Some(VectorQuery::Text(text.into())),
            ..Self::default()
        }
    }

    /// Parse string parameters; every error names its field.
    pub fn from_params(p: &EventQueryParams) -> Result<Self> {
        fn opt(s: &Option<String>) -> Option<&str> {
            s.as_deref().filter(|s| !s.trim().is_empty())
        }
        let mut q = EventQuery {
            vector_query: opt(&p.vector_query).map(VectorQuery::parse).transpose()?,
            ..Self::default()
        };
        if let Some(f) = opt(&p.filter_metadata) {
            q.filter_metadata = Some(parse_filter_metadata(f)?);
        }
        // A date-time given empty is refused (as FastAPI does), not ignored.
        q.ts_start = p
            .ts_start
            .as_deref()
            .map(|s| parse_timestamp("ts_start", s))
            .transpose()?;
        q.ts_end = p
            .ts_end
            .as_deref()
            .map(|s| parse_timestamp("ts_end", s))
            .transpose()?;
        // Numbers given empty (`?offset=`) are refused like FastAPI does.
        if let Some(d) = p.distance_threshold.as_deref() {
            q.distance_threshold = Some(
                d.trim()
                    .parse::<f32>()
                    .map_err(|_| field_err("distance_threshold", "must be a number"))?,
            );
        }
        if let Some(l) = p.limit.as_deref() {
            q.limit = l.trim().parse().map_err(|_| {
                field_err("limit", format!("must be an integer in 1..={MAX_LIMIT}"))
            })?;
        }
        if let Some(o) = p.offset.as_deref() {
            q.offset = o
                .trim()
                .parse()
                .map_err(|_| field_err("offset", "must be a non-negative integer"))?;
        }
        // The wire takes the OpenAPI enum's spellings exactly; empty is refused, not ignored.
        q.mode = p
            .mode
            .as_deref()
            .map(EventSearchMode::from_wire)
            .transpose()?;
        q.validate()?;
        Ok(q)
    }

    /// Check ranges (limit, offset, threshold, window, vector values).
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_LIMIT).contains(&self.limit) {
            return Err(field_err(
                "limit",
                format!("must be in 1..={MAX_LIMIT}, got {}", self.limit),
            ));
        }
        if self.offset > u32::MAX as usize {
            return Err(field_err("offset", "is too large"));
        }
        if let Some(d) = self.distance_threshold {
            if !d.is_finite() || !(0.0..=MAX_DISTANCE).contains(&d) {
                return Err(field_err(
                    "distance_threshold",
                    format!("must be in 0..=2 (L2 between unit vectors), got {d}"),
                ));
            }
        }
        if let (Some(s), Some(e)) = (self.ts_start, self.ts_end) {
            if s > e {
                return Err(field_err("ts_start", "is after ts_end"));
            }
        }
        if let Some(VectorQuery::Vector(v)) = &self.vector_query {
            check_vector("vector_query", v, None)?;
        }
        if let Some(VectorQuery::Text(t)) = &self.vector_query {
            if t.trim().is_empty() {
                return Err(field_err("vector_query", "must not be empty"));
            }
        }
        Ok(())
    }

    /// The metadata/time part of the query.
    pub fn filter(&self) -> EventFilter {
        EventFilter {
            metadata: self.filter_metadata.clone(),
            ts_start: self.ts_start,
            ts_end: self.ts_end,
        }
    }
}

/// A search as a store receives it: the query vector is resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct EventSearch {
    /// Which index answers (vector and hybrid need `vector`, lexical and hybrid need `text`).
    pub mode: EventSearchMode,
    /// Query vector.
    pub vector: Option<Vec<f32>>,
    /// Query text (lexical part).
    pub text: Option<String>,
    /// Metadata and time restrictions.
    pub filter: EventFilter,
    /// Largest L2 distance kept for vector candidates (`None`: no threshold, top-K).
    pub max_distance: Option<f32>,
    /// Page size.
    pub limit: usize,
    /// Results skipped.
    pub offset: usize,
    /// Reference time for expiry.
    pub now: DateTime<Utc>,
}

/// Order of a metadata/time listing.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TimeOrder {
    /// Newest first (MnemoLite's order for filter-only searches).
    #[default]
    NewestFirst,
    /// Oldest first.
    OldestFirst,
}

/// One page of results (MnemoLite's `{data, meta: {total_hits, limit, offset}}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EventPage {
    /// Events of this page, best (or newest) first.
    pub data: Vec<Event>,
    /// Matching events before pagination, when known exactly (approximate
    /// graph searches over large sets leave it `None`).
    pub total_hits: Option<u64>,
    /// Page size asked.
    pub limit: usize,
    /// Offset asked.
    pub offset: usize,
    /// Index that answered.
    #[serde(default)]
    pub mode: EventSearchMode,
    /// `true` when a strict threshold found nothing on a pure vector search
    /// and the plain top-K was returned instead (MnemoLite's fallback).
    #[serde(default)]
    pub threshold_fallback: bool,
    /// Honest notes (a text query on a memory without embedder ran lexical, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where events live. Writes are atomic per call (all or nothing); expired
/// events are invisible to every read before they are purged.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Backend name (`sqlite`, `redis`).
    fn backend(&self) -> &'static str;

    /// Dimension of the stored vectors (`None` until a vector is written).
    async fn dimension(&self) -> Result<Option<usize>>;

    /// Insert or replace events by id, all or nothing. Vectors must have the
    /// store's dimension and finite, non-zero values.
    async fn write(&self, events: Vec<EventRecord>) -> Result<()>;

    /// One event (`None`: unknown or expired at `now`).
    async fn get(&self, id: Uuid, now: DateTime<Utc>) -> Result<Option<Event>>;

    /// Delete events; returns how many existed.
    async fn delete(&self, ids: &[Uuid]) -> Result<usize>;

    /// Merge `patch` into an event's metadata (keys added or replaced, others
    /// kept); returns the updated event, `None` when unknown or expired.
    async fn merge_metadata(
        &self,
        id: Uuid,
        patch: &Map<String, Value>,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>>;

    /// Vector, lexical or hybrid search with filters applied during the search.
    async fn search(&self, search: &EventSearch) -> Result<EventPage>;

    /// Events matching `filter`, in time order.
    async fn list(
        &self,
        filter: &EventFilter,
        order: TimeOrder,
        limit: usize,
        offset: usize,
        now: DateTime<Utc>,
    ) -> Result<EventPage>;

    /// Delete every event expired at `now`; returns how many.
    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<usize>;
}

/// A typed error naming `field`.
pub fn field_err(field: impl Into<String>, message: impl Into<String>) -> Error {
    InputError::field(field, message).into()
}

/// Parse an ISO 8601 / RFC 3339 timestamp that carries a zone; a timestamp
/// without one is refused (its instant would be a guess).
pub fn parse_timestamp(field: &str, s: &str) -> Result<DateTime<Utc>> {
    wire::parse_time(s).map_err(|m| field_err(field, m))
}

/// Parse `filter_metadata` (a JSON object string).
pub fn parse_filter_metadata(s: &str) -> Result<Map<String, Value>> {
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(field_err("filter_metadata", "must be a JSON object")),
        Err(e) => Err(field_err("filter_metadata", format!("invalid JSON: {e}"))),
    }
}

fn parse_vector(field: &str, a: &[Value]) -> Result<Vec<f32>> {
    let out = wire::elements(a).map_err(|m| field_err(field, m))?;
    check_vector(field, &out, None)?;
    Ok(out)
}

/// How events' vectors and instants are read from JSON, by
/// [`NewEvent::from_json`], [`VectorQuery::parse`] and serde alike.
///
/// JSON has no NaN or infinity: a host that holds one (a Python float)
/// passes its name as a string, `NaN`, `Infinity` or `-Infinity` (as
/// JavaScript and Python's `json` spell them). A vector element so
/// named is read as that float, so that [`check_vector`] refuses it with
/// the typed error naming the field and the element, whichever way the
/// vector came in; any other non-number is refused here.
pub mod wire {
    use chrono::{DateTime, NaiveDateTime, Utc};
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// The float a name of [`wire`](self) stands for.
    pub fn non_finite(name: &str) -> Option<f32> {
        match name {
            "NaN" => Some(f32::NAN),
            "Infinity" => Some(f32::INFINITY),
            "-Infinity" => Some(f32::NEG_INFINITY),
            _ => None,
        }
    }

    /// The elements of a JSON vector: numbers, or non-finite floats by name.
    pub fn elements(a: &[Value]) -> Result<Vec<f32>, String> {
        a.iter()
            .enumerate()
            .map(|(i, x)| {
                let f = match x {
                    Value::Number(n) => n.as_f64().map(|f| f as f32),
                    Value::String(s) => non_finite(s),
                    _ => None,
                };
                f.ok_or_else(|| format!("element {i} is not a number"))
            })
            .collect()
    }

    /// serde: an optional vector ([`elements`]); the vector check comes later.
    pub fn vector<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f32>>, D::Error> {
        use serde::de::Error as _;
        match Option::<Vec<Value>>::deserialize(d)? {
            None => Ok(None),
            Some(a) => elements(&a).map(Some).map_err(D::Error::custom),
        }
    }

    /// serde: an optional instant, ISO 8601 with a zone ([`parse_time`]).
    pub fn timestamp<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        use serde::de::Error as _;
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) => parse_time(&s).map(Some).map_err(D::Error::custom),
        }
    }

    /// An ISO 8601 / RFC 3339 instant that carries a zone; one without is
    /// refused (its instant would be a guess), saying what to add.
    pub fn parse_time(s: &str) -> Result<DateTime<Utc>, String> {
        let t = s.trim();
        if let Ok(d) = DateTime::parse_from_rfc3339(t) {
            return Ok(d.with_timezone(&Utc));
        }
        let t2 = t.replacen(' ', "T", 1);
        if let Ok(d) = DateTime::parse_from_rfc3339(&t2) {
            return Ok(d.with_timezone(&Utc));
        }
        if NaiveDateTime::parse_from_str(&t2, "%Y-%m-%dT%H:%M:%S%.f").is_ok()
            || NaiveDateTime::parse_from_str(&t2, "%Y-%m-%dT%H:%M").is_ok()
        {
            return Err(format!(
                "timestamp `{t}` has no time zone (add `Z` or an offset such as `+02:00`)"
            ));
        }
        Err(format!("`{t}` is not an ISO 8601 date-time with a zone"))
    }
}

/// Check a vector: non-empty, finite, non-zero, and of dimension `dim` when given.
pub fn check_vector(field: &str, v: &[f32], dim: Option<usize>) -> Result<()> {
    if v.is_empty() {
        return Err(field_err(field, "must not be empty"));
    }
    if let Some(d) = dim {
        if v.len() != d {
            return Err(field_err(
                field,
                format!("has dimension {}, expected {d}", v.len()),
            ));
        }
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(field_err(field, format!("element {i} is NaN or infinite")));
    }
    if v.iter().all(|x| *x == 0.0) {
        return Err(field_err(field, "is the zero vector (no direction)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_of(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(Error::Input(e)) => e.field_name().unwrap_or("").to_string(),
            other => format!("not a field error: {other:?}"),
        }
    }

    #[test]
    fn named_non_finite_elements_reach_the_vector_check_on_every_path() {
        // serde (bindings), the JSON body (REST) and the query string: the
        // same typed error naming the field, from the vector check.
        let de: NewEvent =
            serde_json::from_value(json!({"content": {}, "embedding": [1.0, "NaN"]})).unwrap();
        let v = de.embedding.unwrap();
        assert!(v[1].is_nan());
        let e = check_vector("embedding", &v, None).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(
            e.to_string().contains("element 1 is NaN or infinite"),
            "{e}"
        );
        let body = NewEvent::from_json(&json!({"content": {}, "embedding": [1.0, "-Infinity"]}));
        assert_eq!(field_of(body), "embedding");
        let q: EventQuery =
            serde_json::from_value(json!({"vector_query": ["Infinity", 1.0]})).unwrap();
        let e = q.validate().unwrap_err();
        assert!(e.to_string().contains("`vector_query`"), "{e}");
        assert!(
            e.to_string().contains("element 0 is NaN or infinite"),
            "{e}"
        );
        // Other strings are not numbers; text stays text.
        assert!(serde_json::from_value::<NewEvent>(
            json!({"content": {}, "embedding": [1.0, "nan"]})
        )
        .is_err());
        let q: EventQuery = serde_json::from_value(json!({"vector_query": "NaN"})).unwrap();
        assert_eq!(q.vector_query, Some(VectorQuery::Text("NaN".into())));
        let q: EventQuery = serde_json::from_value(json!({"vector_query": "[0.5, 1]"})).unwrap();
        assert_eq!(q.vector_query, Some(VectorQuery::Vector(vec![0.5, 1.0])));
        assert!(serde_json::from_value::<EventQuery>(json!({"vector_query": 3})).is_err());
        // Instants read by serde say what is missing, like the JSON body's.
        let e = serde_json::from_value::<NewEvent>(
            json!({"content": {}, "timestamp": "2025-01-01T10:00:00"}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("has no time zone"), "{e}");
    }

    #[test]
    fn params_errors_name_their_field() {
        let p = |f: fn(&mut EventQueryParams)| {
            let mut p = EventQueryParams::default();
            f(&mut p);
            EventQuery::from_params(&p)
        };
        assert_eq!(
            field_of(p(|p| p.filter_metadata = Some("{bad".into()))),
            "filter_metadata"
        );
        assert_eq!(
            field_of(p(|p| p.filter_metadata = Some("[1]".into()))),
            "filter_metadata"
        );
        assert_eq!(field_of(p(|p| p.limit = Some("0".into()))), "limit");
        assert_eq!(field_of(p(|p| p.limit = Some("101".into()))), "limit");
        assert_eq!(field_of(p(|p| p.offset = Some("-1".into()))), "offset");
        assert_eq!(field_of(p(|p| p.offset = Some(String::new()))), "offset");
        assert_eq!(field_of(p(|p| p.limit = Some(" ".into()))), "limit");
        assert_eq!(
            field_of(p(|p| p.distance_threshold = Some(String::new()))),
            "distance_threshold"
        );
        assert_eq!(
            field_of(p(|p| p.ts_start = Some("2025-01-01T10:00:00".into()))),
            "ts_start"
        );
        assert_eq!(
            field_of(p(|p| p.ts_end = Some("yesterday".into()))),
            "ts_end"
        );
        assert_eq!(
            field_of(p(|p| p.distance_threshold = Some("2.5".into()))),
            "distance_threshold"
        );
        assert_eq!(
            field_of(p(|p| p.vector_query = Some("[0.1, \"x\"]".into()))),
            "vector_query"
        );
        assert_eq!(
            field_of(p(|p| p.vector_query = Some("[0.0, 0.0]".into()))),
            "vector_query"
        );
        assert_eq!(field_of(p(|p| p.mode = Some("fuzzy".into()))), "mode");
        assert_eq!(field_of(p(|p| p.mode = Some(String::new()))), "mode");
        assert_eq!(field_of(p(|p| p.mode = Some("Vector".into()))), "mode");
        for m in EventSearchMode::ALL {
            let q = EventQuery::from_params(&EventQueryParams {
                mode: Some(m.to_string()),
                ..EventQueryParams::default()
            });
            assert_eq!(q.ok().and_then(|q| q.mode), Some(m));
        }
        let ok = p(|p| {
            p.vector_query = Some("[0.1,0.2]".into());
            p.filter_metadata = Some(r#"{"event_type": "decision"}"#.into());
            p.ts_start = Some("2025-01-01T10:00:00+02:00".into());
            p.limit = Some("5".into());
        });
        let Ok(q) = ok else {
            unreachable!("valid parameters refused: {ok:?}")
        };
        assert_eq!(q.vector_query, Some(VectorQuery::Vector(vec![0.1, 0.2])));
        assert_eq!(q.limit, 5);
        assert_eq!(
            q.ts_start.map(|t| t.to_rfc3339()).as_deref(),
            Some("2025-01-01T08:00:00+00:00")
        );
    }

    #[test]
    fn new_event_json_errors_name_their_field() {
        assert_eq!(
            field_of(NewEvent::from_json(&json!({"metadata": {}}))),
            "content"
        );
        assert_eq!(
            field_of(NewEvent::from_json(&json!({"content": "x"}))),
            "content"
        );
        assert_eq!(
            field_of(NewEvent::from_json(
                &json!({"content": {}, "timestamp": "2025-01-01 10:00"})
            )),
            "timestamp"
        );
        assert_eq!(
            field_of(NewEvent::from_json(
                &json!({"content": {}, "embedding": [1, null]})
            )),
            "embedding"
        );
        assert_eq!(
            field_of(NewEvent::from_json(&json!({"content": {}, "extra": 1}))),
            "extra"
        );
        // schemathesis ST201: `metadata: null` violates the published schema.
        assert_eq!(
            field_of(NewEvent::from_json(
                &json!({"content": {}, "metadata": null, "timestamp": null})
            )),
            "metadata"
        );
        let ok = NewEvent::from_json(&json!({"content": {"text": "x"}, "metadata": {"a": 1},
            "timestamp": "2025-03-01T12:00:00Z", "embedding": null}));
        assert!(matches!(ok, Ok(e) if e.metadata.len() == 1 && e.timestamp.is_some()));
    }

    #[test]
    fn distances_round_trip() {
        assert!((l2_from_cosine(1.0)).abs() < 1e-6);
        assert!((l2_from_cosine(-1.0) - 2.0).abs() < 1e-6);
        assert!((l2_from_cosine(0.0) - 2f32.sqrt()).abs() < 1e-6);
        assert!((cosine_from_l2(l2_from_cosine(0.3)) - 0.3).abs() < 1e-5);
        let js = serde_json::to_value(EventSearchMode::MetadataOnly).ok();
        assert_eq!(js, Some(json!("metadata-only")));
    }
}
