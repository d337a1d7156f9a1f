//! [`SqliteWatchStore`]: the tech-watch and AuraCore records (rules,
//! articles, decisions, projects, context, tasks) in their own tables of
//! `verity.db`, versioned separately from the document schema.

mod articles;
mod projects;
mod schema;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use verity_core::{Error, Result, StoreError};

use crate::db::Db;

/// Rules, articles, decisions and AuraCore projects in SQLite.
/// Implements [`verity_core::RuleStore`], [`verity_core::WatchStore`] and
/// [`verity_core::ProjectStore`]. Cheap to clone.
#[derive(Clone)]
pub struct SqliteWatchStore {
    db: Arc<Db>,
}

impl std::fmt::Debug for SqliteWatchStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteWatchStore")
            .field("path", &self.db.path())
            .finish()
    }
}

impl SqliteWatchStore {
    /// Open (creating) the watch tables in `home/verity.db`.
    pub fn open(home: &Path) -> Result<Self> {
        std::fs::create_dir_all(home)
            .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", home.display())))?;
        let db = Db::open(&home.join(crate::DB_FILE), Duration::from_secs(10))?;
        Self::init(db)
    }

    /// A private in-memory store (tests, ephemeral use).
    pub fn open_in_memory() -> Result<Self> {
        Self::init(Db::open_in_memory()?)
    }

    fn init(db: Db) -> Result<Self> {
        db.write(schema::migrate)?;
        Ok(Self { db: Arc::new(db) })
    }
}

pub(crate) fn to_json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| StoreError::Backend(format!("cannot encode: {e}")).into())
}

pub(crate) fn from_json<T: DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s)
        .map_err(|e| Error::from(StoreError::Corrupt(format!("bad watch record: {e}"))))
}

pub(crate) fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

#[allow(dead_code)]
pub(crate) fn from_ms(ms: i64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(ms).single()
}

pub(crate) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
