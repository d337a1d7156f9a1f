//! The store contract suite on the embedded store (in memory and on disk).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use async_trait::async_trait;
use verity_store::{SqliteCatalog, SqliteStore, StoreOptions};
use verity_store_contract::{StoreFactory, Subject};

/// Every index lives in one database under a temporary home.
struct OnDisk {
    home: tempfile::TempDir,
}

#[async_trait]
impl StoreFactory for OnDisk {
    async fn open(&self, index: &str) -> Subject {
        let opts = StoreOptions::default().index(index);
        let store = SqliteStore::open(self.home.path(), opts.clone()).unwrap();
        let cache = Arc::new(store.cache());
        let catalog = SqliteCatalog::open(self.home.path(), opts).unwrap();
        Subject {
            store: Arc::new(store),
            cache,
            catalog: Some(Arc::new(catalog)),
        }
    }
}

/// A private in-memory database per subject (no catalog).
struct InMemory;

#[async_trait]
impl StoreFactory for InMemory {
    async fn open(&self, index: &str) -> Subject {
        let store = SqliteStore::open_in_memory(StoreOptions::default().index(index)).unwrap();
        Subject {
            cache: Arc::new(store.cache()),
            store: Arc::new(store),
            catalog: None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_on_disk() {
    let f = OnDisk {
        home: tempfile::tempdir().unwrap(),
    };
    verity_store_contract::run_all(&f).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_in_memory() {
    verity_store_contract::run_all(&InMemory).await;
}

#[tokio::test]
async fn contract_on_a_current_thread_runtime() {
    verity_store_contract::ranking(&InMemory).await;
    verity_store_contract::errors(&InMemory).await;
}
