//! # verity-memory
//!
//! Event memory for agents (seed 004, the MnemoLite API): an agent writes
//! events (prompts, decisions, observations) and finds them again by meaning,
//! metadata and time. [`Memory`] works on any [`EventStore`]: the embedded
//! `verity_store::SqliteEventStore` or `verity_redis`'s Redis store.
//!
//! * **Write**: the content's text field (`text`, `body`, `message`,
//!   `content`, `title`, configurable) is embedded automatically; a supplied
//!   `embedding` bypasses it (dimension and NaN checked); `timestamp`
//!   defaults to now; content with no text and no embedding is stored,
//!   found by metadata and time, and [`Added::note`] says so.
//! * **Search**: vector (text or vector query), lexical, hybrid or
//!   metadata-only, with containment filters (`@>`) and a time window applied
//!   during the search; the seed's `distance_threshold` (L2 between unit
//!   vectors, default 1.0) with the automatic top-K fallback when a strict
//!   threshold finds nothing on a pure vector search
//!   ([`EventPage::threshold_fallback`]).
//! * **TTL**: events with `expires_at` vanish from every read and are purged.
//! * **Agent tools** (seed 000's AuraCore memory): [`Memory::remember`],
//!   [`Memory::recall`], [`Memory::forget`].
//!
//! ```
//! # use std::sync::Arc;
//! # use verity_core::EventStore;
//! # async fn demo(store: Arc<dyn EventStore>) -> verity_core::Result<()> {
//! use verity_memory::{Memory, RecallRequest};
//! let memory = Memory::builder(store).build()?;
//! let added = memory
//!     .remember("Chose SQLite over Postgres for the demo", serde_json::json!({"event_type": "decision"}), None)
//!     .await?;
//! let page = memory
//!     .recall(&RecallRequest { filter_metadata: serde_json::json!({"event_type": "decision"}).as_object().cloned().unwrap_or_default(), ..RecallRequest::default() })
//!     .await?;
//! assert_eq!(page.data[0].id, added.event.id);
//! # Ok(()) }
//! ```

mod memory;
mod tools;

pub use memory::{
    Added, EmbeddingSource, Memory, MemoryBuilder, MemorySettings, DEFAULT_TEXT_FIELDS,
};
pub use tools::{Forget, RecallRequest};
pub use verity_core::events::{
    Event, EventFilter, EventPage, EventQuery, EventQueryParams, EventSearchMode, EventStore,
    NewEvent, TimeOrder, VectorQuery,
};
