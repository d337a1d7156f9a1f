//! # verity-store-contract
//!
//! Every store contract of Verity, in one crate, run by each backend's own
//! tests (`tests/contract.rs`, `tests/events_contract.rs`,
//! `tests/watch_contract.rs` of `verity-store` and `verity-redis`):
//!
//! - the crate root: [`VectorStore`], [`Cache`] and [`IndexCatalog`]
//!   ([`run_all`], [`compare`]);
//! - [`events`]: the `EventStore` of event memory (`run`, `compare`);
//! - [`watch`]: the tech-watch stores, `RuleStore`, `WatchStore` and
//!   `ProjectStore` (`run` and its parts).
//!
//! A new backend runs the contract of every trait it implements.
//!
//! What every Verity store must do, as async checks a backend's own tests
//! run: each check takes a [`StoreFactory`] that opens a fresh, empty
//! [`VectorStore`] (with the [`Cache`] and, when the backend has one, the
//! [`IndexCatalog`] of the same backend) and panics with a precise message
//! when the store breaks the contract.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use verity_store_contract::{StoreFactory, Subject};
//! # async fn demo(factory: &dyn StoreFactory) {
//! // In a backend's tests/contract.rs, on a tokio runtime:
//! verity_store_contract::run_all(factory).await;
//! # }
//! ```
//!
//! [`compare`] runs the same fixtures on two backends and checks they agree
//! (same hits in the same order, dense scores within [`SCORE_TOLERANCE`]).
//!
//! This crate is test support: its functions assert and panic by design.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod checks;
pub mod events;
mod fixtures;
pub mod watch;

use std::sync::Arc;

use async_trait::async_trait;
use verity_core::{Cache, IndexCatalog, VectorStore};

pub use checks::{
    cache_busting, catalog_aliases, compare, deletes, errors, filters, ranking, sentence_vectors,
    stats, writes, SCORE_TOLERANCE,
};
pub use fixtures::{corpus, fixture_embedder, query_vector, DIM};

/// One backend under test: a store bound to a fresh index, the backend's
/// cache and (optionally) its catalog.
#[derive(Clone)]
pub struct Subject {
    /// A store bound to a new, empty index.
    pub store: Arc<dyn VectorStore>,
    /// The backend's cache (shared between subjects is fine: checks use
    /// their own keys).
    pub cache: Arc<dyn Cache>,
    /// The backend's index catalog, when it has one.
    pub catalog: Option<Arc<dyn IndexCatalog>>,
}

/// Opens subjects for the checks.
#[async_trait]
pub trait StoreFactory: Send + Sync {
    /// A subject whose store is bound to the new, empty index `index`
    /// (names are unique per call and made of `[a-z0-9-]`).
    async fn open(&self, index: &str) -> Subject;
}

/// Run every check, in order; panics at the first broken rule.
pub async fn run_all(factory: &dyn StoreFactory) {
    writes(factory).await;
    deletes(factory).await;
    filters(factory).await;
    ranking(factory).await;
    stats(factory).await;
    errors(factory).await;
    sentence_vectors(factory).await;
    catalog_aliases(factory).await;
    cache_busting(factory).await;
}
