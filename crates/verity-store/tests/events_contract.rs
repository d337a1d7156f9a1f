//! The event-store contract (`verity_store_contract::events`) on the embedded
//! SQLite store, in memory and on disk; the Redis backend's tests run the
//! same scenario and compare the two.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use verity_store::{EventStoreOptions, SqliteEventStore};
use verity_store_contract::events;

#[tokio::test]
async fn events_contract_in_memory() {
    let s = SqliteEventStore::open_in_memory(EventStoreOptions::default()).unwrap();
    let observed = events::run(Arc::new(s)).await;
    assert!(observed.is_ok(), "contract broken: {:?}", observed.err());
}

#[tokio::test]
async fn events_contract_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteEventStore::open(dir.path(), EventStoreOptions::default()).unwrap();
    match events::run(Arc::new(s)).await {
        Ok(o) => assert!(o.len() > 100, "{} observations", o.len()),
        Err(e) => panic!("contract broken: {e}"),
    }
}
