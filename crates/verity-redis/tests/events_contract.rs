//! The event-store contract (`verity_store_contract::events`) on a real
//! Redis 8 (RediSearch), compared with the embedded SQLite store: both pass
//! every step and observe the same results.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::sync::Arc;

use verity_core::EventStore;
use verity_redis::{RedisEventOptions, RedisEventStore};
use verity_store::{EventStoreOptions, SqliteEventStore};
use verity_store_contract::events::{self, Observation};

async fn run(store: Arc<dyn EventStore>) -> Vec<Observation> {
    match events::run(store).await {
        Ok(o) => o,
        Err(e) => panic!("contract broken: {e}"),
    }
}

#[tokio::test]
async fn sqlite_and_redis_pass_the_events_contract_and_agree() {
    let Some(srv) = common::server("sqlite_and_redis_pass_the_events_contract_and_agree") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteEventStore::open(dir.path(), EventStoreOptions::default()).unwrap();
    let a = run(Arc::new(sqlite)).await;
    let redis = RedisEventStore::connect(&srv.url(), "contract", RedisEventOptions::default())
        .await
        .unwrap();
    let b = run(Arc::new(redis)).await;
    assert!(a.len() > 100, "{} observations", a.len());
    if let Err(e) = events::compare(&a, &b, 1e-3) {
        panic!("backends disagree: {e}");
    }
}
