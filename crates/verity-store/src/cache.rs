//! [`SqliteCache`]: the [`verity_core::Cache`] of the embedded store.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};
use verity_core::cache::{entry_size, CacheClass, CacheLimits};
use verity_core::{Cache, Result, StoreError};

use crate::db::{db_err, Db};
use crate::schema::{migrate, DEFAULT_TOKENIZER};
use crate::store::blocking;

pub use verity_core::CacheStats;

/// Bytes and entries of one cache class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassUsage {
    /// Key and value bytes ([`verity_core::cache::entry_size`]).
    pub bytes: u64,
    /// Entries (live or expired but not yet removed).
    pub entries: u64,
}

/// A TTL key-value cache with tags, stored in the `cache` tables of
/// `verity.db`. Expired entries are removed lazily (on read, and in bulk
/// every few hundred writes). Each class of entries is kept under its
/// [`CacheLimits`] size: a write past it evicts the oldest entries of the
/// class (first written first) in the same transaction.
#[derive(Clone)]
pub struct SqliteCache {
    db: Arc<Db>,
    limits: CacheLimits,
    hits: Arc<AtomicU64>,
    misses: Arc<AtomicU64>,
    puts: Arc<AtomicU64>,
}

impl std::fmt::Debug for SqliteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteCache")
            .field("path", &self.db.path())
            .field("stats", &self.stats())
            .finish()
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

impl SqliteCache {
    pub(crate) fn from_db(db: Arc<Db>) -> Self {
        Self {
            db,
            limits: CacheLimits::default(),
            hits: Arc::default(),
            misses: Arc::default(),
            puts: Arc::default(),
        }
    }

    /// Open (creating) the cache in `home/verity.db`.
    pub fn open(home: &Path) -> Result<Self> {
        std::fs::create_dir_all(home)
            .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", home.display())))?;
        let db = Db::open(&home.join(crate::DB_FILE), Duration::from_secs(10))?;
        db.write(|c| migrate(c, DEFAULT_TOKENIZER).map(|_| ()))?;
        Ok(Self::from_db(Arc::new(db)))
    }

    /// A private in-memory cache.
    pub fn open_in_memory() -> Result<Self> {
        let db = Db::open_in_memory()?;
        db.write(|c| migrate(c, DEFAULT_TOKENIZER).map(|_| ()))?;
        Ok(Self::from_db(Arc::new(db)))
    }

    /// The same cache with other size limits (default [`CacheLimits::default`]).
    pub fn with_limits(mut self, limits: CacheLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Size limits in force.
    pub fn limits(&self) -> CacheLimits {
        self.limits
    }

    /// Bytes and entries of `class` now.
    pub fn usage(&self, class: CacheClass) -> Result<ClassUsage> {
        self.db.read(|c| {
            c.query_row(
                "SELECT bytes, entries FROM cache_usage WHERE class = ?1",
                [class.as_str()],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .optional()
            .map_err(db_err)
            .map(|row| {
                row.map(|(b, e)| ClassUsage {
                    bytes: u64::try_from(b).unwrap_or(0),
                    entries: u64::try_from(e).unwrap_or(0),
                })
                .unwrap_or_default()
            })
        })
    }

    /// Hits and misses seen through this handle (and its clones).
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// Remove every expired entry now; returns how many.
    pub fn purge_expired(&self) -> Result<usize> {
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            let n = tx
                .execute(
                    "DELETE FROM cache WHERE expires_at IS NOT NULL AND expires_at <= ?1",
                    [now_ms()],
                )
                .map_err(db_err)?;
            tx.commit().map_err(db_err)?;
            Ok(n)
        })
    }

    /// Number of live entries.
    pub fn len(&self) -> Result<usize> {
        self.db.read(|c| {
            c.query_row(
                "SELECT count(*) FROM cache WHERE expires_at IS NULL OR expires_at > ?1",
                [now_ms()],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(db_err)
        })
    }

    /// `true` when no live entry exists.
    pub fn is_empty(&self) -> Result<bool> {
        self.len().map(|n| n == 0)
    }
}

impl SqliteCache {
    fn get_sync(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let now = now_ms();
        let row: Option<(Vec<u8>, Option<i64>)> = self.db.read(|c| {
            c.query_row(
                "SELECT value, expires_at FROM cache WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(db_err)
        })?;
        match row {
            Some((v, exp)) if exp.is_none_or(|e| e > now) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Ok(Some(v))
            }
            Some(_) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                self.db.write(|c| {
                    c.execute("DELETE FROM cache WHERE key = ?1 AND expires_at IS NOT NULL AND expires_at <= ?2", params![key, now])
                        .map_err(db_err)
                })?;
                Ok(None)
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                Ok(None)
            }
        }
    }

    fn put_sync(
        &self,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
        tags: &[String],
    ) -> Result<()> {
        let now = now_ms();
        let expires =
            ttl.map(|t| now.saturating_add(i64::try_from(t.as_millis()).unwrap_or(i64::MAX)));
        let class = CacheClass::of(key);
        let size = entry_size(key, value);
        let limit = self.limits.of(class);
        if limit.is_some_and(|l| size > l) {
            // Larger than its whole class may hold: not cached (a cache may forget).
            return Ok(());
        }
        let purge = self.puts.fetch_add(1, Ordering::Relaxed) % 256 == 255;
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            // REPLACE deletes the old row, and with it (cascade) its old tags.
            tx.execute("DELETE FROM cache WHERE key = ?1", [key])
                .map_err(db_err)?;
            tx.execute(
                "INSERT INTO cache(key, value, expires_at, class, size) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![key, value, expires, class.as_str(), i64::try_from(size).unwrap_or(i64::MAX)],
            )
            .map_err(db_err)?;
            for t in tags {
                tx.execute(
                    "INSERT OR IGNORE INTO cache_tags(tag, key) VALUES (?1, ?2)",
                    params![t, key],
                )
                .map_err(db_err)?;
            }
            if purge {
                tx.execute(
                    "DELETE FROM cache WHERE expires_at IS NOT NULL AND expires_at <= ?1",
                    [now],
                )
                .map_err(db_err)?;
            }
            if let Some(limit) = limit {
                evict(&tx, class, limit, now, key)?;
            }
            tx.commit().map_err(db_err)
        })
    }

    fn get_many_sync(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        let now = now_ms();
        let rows = self.db.read(|c| {
            let mut st = c
                .prepare_cached("SELECT value, expires_at FROM cache WHERE key = ?1")
                .map_err(db_err)?;
            keys.iter()
                .map(|k| {
                    st.query_row([k], |r| {
                        Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Option<i64>>(1)?))
                    })
                    .optional()
                    .map_err(db_err)
                })
                .collect::<Result<Vec<_>>>()
        })?;
        let out: Vec<Option<Vec<u8>>> = rows
            .into_iter()
            .map(|row| row.and_then(|(v, exp)| exp.is_none_or(|e| e > now).then_some(v)))
            .collect();
        let hits = out.iter().filter(|v| v.is_some()).count() as u64;
        self.hits.fetch_add(hits, Ordering::Relaxed);
        self.misses
            .fetch_add(out.len() as u64 - hits, Ordering::Relaxed);
        Ok(out)
    }

    fn put_many_sync(&self, entries: &[(String, Vec<u8>)], ttl: Option<Duration>) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let now = now_ms();
        let expires =
            ttl.map(|t| now.saturating_add(i64::try_from(t.as_millis()).unwrap_or(i64::MAX)));
        self.puts.fetch_add(entries.len() as u64, Ordering::Relaxed);
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            {
                // As `put`: the old row goes, and with it (cascade) its tags.
                let mut del = tx
                    .prepare_cached("DELETE FROM cache WHERE key = ?1")
                    .map_err(db_err)?;
                let mut ins = tx
                    .prepare_cached("INSERT INTO cache(key, value, expires_at) VALUES (?1, ?2, ?3)")
                    .map_err(db_err)?;
                for (k, v) in entries {
                    del.execute([k]).map_err(db_err)?;
                    ins.execute(params![k, v, expires]).map_err(db_err)?;
                }
            }
            tx.commit().map_err(db_err)
        })
    }

    fn invalidate_prefix_sync(&self, prefix: &str) -> Result<usize> {
        if prefix.is_empty() {
            return Err(verity_core::Error::invalid_input(
                "refusing to invalidate the whole cache with an empty prefix",
            ));
        }
        // Range scan on the primary key: [prefix, prefix + U+10FFFF).
        let upper = format!("{prefix}\u{10FFFF}");
        self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let n = tx
                .execute("DELETE FROM cache WHERE key >= ?1 AND key < ?2 AND substr(key, 1, length(?1)) = ?1", params![prefix, upper])
                .map_err(db_err)?;
            tx.commit().map_err(db_err)?;
            Ok(n)
        })
    }

    fn invalidate_tag_sync(&self, tag: &str) -> Result<usize> {
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            let n = tx
                .execute(
                    "DELETE FROM cache WHERE key IN (SELECT key FROM cache_tags WHERE tag = ?1)",
                    [tag],
                )
                .map_err(db_err)?;
            tx.commit().map_err(db_err)?;
            Ok(n)
        })
    }
}

/// Bring `class` under `limit` bytes: expired entries of the class first,
/// then the oldest (smallest rowid: first written) in batches. Eviction goes
/// down to 7/8 of the limit, so that a full class does not evict on every
/// write; the entry just written (`keep`) stays.
fn evict(
    tx: &rusqlite::Transaction<'_>,
    class: CacheClass,
    limit: u64,
    now: i64,
    keep: &str,
) -> Result<()> {
    let bytes = |tx: &rusqlite::Transaction<'_>| -> Result<u64> {
        tx.query_row(
            "SELECT bytes FROM cache_usage WHERE class = ?1",
            [class.as_str()],
            |r| r.get::<_, i64>(0),
        )
        .optional()
        .map_err(db_err)
        .map(|b| b.map_or(0, |b| u64::try_from(b).unwrap_or(0)))
    };
    if bytes(tx)? <= limit {
        return Ok(());
    }
    tx.execute(
        "DELETE FROM cache WHERE class = ?1 AND expires_at IS NOT NULL AND expires_at <= ?2",
        params![class.as_str(), now],
    )
    .map_err(db_err)?;
    let target = limit - limit / 8;
    while bytes(tx)? > target {
        let n = tx
            .execute(
                "DELETE FROM cache WHERE rowid IN \
                 (SELECT rowid FROM cache WHERE class = ?1 AND key <> ?2 ORDER BY rowid LIMIT 32)",
                params![class.as_str(), keep],
            )
            .map_err(db_err)?;
        if n == 0 {
            break;
        }
    }
    Ok(())
}

/// The SQLite work runs on tokio's blocking threads.
#[async_trait]
impl Cache for SqliteCache {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let (this, key) = (self.clone(), key.to_string());
        blocking(move || this.get_sync(&key)).await
    }

    async fn put(
        &self,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
        tags: &[String],
    ) -> Result<()> {
        let (this, key, value, tags) =
            (self.clone(), key.to_string(), value.to_vec(), tags.to_vec());
        blocking(move || this.put_sync(&key, &value, ttl, &tags)).await
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        let (this, keys) = (self.clone(), keys.to_vec());
        blocking(move || this.get_many_sync(&keys)).await
    }

    async fn put_many(&self, entries: &[(String, Vec<u8>)], ttl: Option<Duration>) -> Result<()> {
        let (this, entries) = (self.clone(), entries.to_vec());
        blocking(move || this.put_many_sync(&entries, ttl)).await
    }

    async fn invalidate_prefix(&self, prefix: &str) -> Result<usize> {
        let (this, prefix) = (self.clone(), prefix.to_string());
        blocking(move || this.invalidate_prefix_sync(&prefix)).await
    }

    async fn invalidate_tag(&self, tag: &str) -> Result<usize> {
        let (this, tag) = (self.clone(), tag.to_string());
        blocking(move || this.invalidate_tag_sync(&tag)).await
    }
}
