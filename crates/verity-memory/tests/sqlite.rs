//! Embedded store specifics: the catalog survives a reopen and follows
//! writes made by another handle on the same database.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use chrono::Utc;
use verity_core::{EventFilter, EventSearch, EventSearchMode, EventStore, TimeOrder};
use verity_store::{EventStoreOptions, SqliteEventStore};
use verity_store_contract::events::{dataset, now, toy_vector};

#[tokio::test]
async fn reopen_and_second_handle_see_the_same_events() {
    let dir = tempfile::tempdir().unwrap();
    let a = SqliteEventStore::open(dir.path(), EventStoreOptions::default()).unwrap();
    let b = SqliteEventStore::open(dir.path(), EventStoreOptions::default()).unwrap();
    let data = dataset();
    a.write(data[..10].to_vec()).await.unwrap();
    // `b` opened before the write: it reloads on its next read.
    let page = b
        .list(
            &EventFilter::default(),
            TimeOrder::OldestFirst,
            100,
            0,
            Utc::now(),
        )
        .await
        .unwrap();
    assert_eq!(page.total_hits, Some(10));
    b.delete(&[data[0].event.id]).await.unwrap();
    let search = EventSearch {
        mode: EventSearchMode::Vector,
        vector: Some(toy_vector(data[1].text.as_deref().unwrap())),
        text: None,
        filter: EventFilter::default(),
        max_distance: None,
        limit: 3,
        offset: 0,
        now: now(),
    };
    let hits = a.search(&search).await.unwrap();
    assert_eq!(hits.data[0].id, data[1].event.id);
    assert!(hits.data.iter().all(|e| e.id != data[0].event.id));
    drop((a, b));
    let c = SqliteEventStore::open(dir.path(), EventStoreOptions::default()).unwrap();
    assert_eq!(c.len(), 9);
    assert_eq!(
        c.dimension().await.unwrap(),
        Some(verity_store_contract::events::DIM)
    );
    let hits = c.search(&search).await.unwrap();
    assert_eq!(hits.data[0].id, data[1].event.id);
    assert!(hits.data[0].similarity_score.unwrap() < 1e-3);
}
