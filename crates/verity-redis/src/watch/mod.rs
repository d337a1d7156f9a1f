//! [`RedisWatchStore`]: tech-watch and AuraCore records in plain Redis
//! structures (no module needed), under a key prefix (default `watch`):
//!
//! | key | type | holds |
//! |---|---|---|
//! | `{p}:rules` | hash | rule name → rule JSON |
//! | `{p}:article:{id}` | string | article JSON |
//! | `{p}:art:urls` | hash | canonical URL (own or alias) → article id |
//! | `{p}:art:time` | sorted set | article ids by `processed_at` (ms) |
//! | `{p}:art:band:{b}:{v}` | set | article ids whose SimHash band `b` is `v` |
//! | `{p}:decision:{id}` | string | decision JSON, written once (`SET NX`) |
//! | `{p}:dec:time`, `{p}:dec:art:{article}` | sorted sets | decision ids by `created_at` |
//! | `{p}:prj`, `{p}:ctx`, `{p}:task`, `{p}:pdec` | hashes | id → project / context / task / decision JSON |
//! | `{p}:prj:{id}:ctx`, `…:task`, `…:pdec` | sorted sets | a project's ids by `created_at` |

mod articles;
mod projects;

use redis::aio::ConnectionManager;
use redis::Cmd;
use serde::de::DeserializeOwned;
use serde::Serialize;
use verity_core::{Error, Result, StoreError};

use crate::conn::{connect, map_err, ConnectOptions};

/// Default key prefix.
pub const DEFAULT_WATCH_PREFIX: &str = "watch";

/// Rules, articles, decisions and AuraCore projects in Redis.
/// Implements [`verity_core::RuleStore`], [`verity_core::WatchStore`] and
/// [`verity_core::ProjectStore`]. Cheap to clone.
#[derive(Clone)]
pub struct RedisWatchStore {
    con: ConnectionManager,
    prefix: String,
}

impl std::fmt::Debug for RedisWatchStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisWatchStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisWatchStore {
    /// Connect to `url` with the default prefix.
    pub async fn connect(url: &str, opts: &ConnectOptions) -> Result<Self> {
        Ok(Self::with_connection(connect(url, opts).await?))
    }

    /// Use an existing connection (for instance `RedisStore::connection`).
    pub fn with_connection(con: ConnectionManager) -> Self {
        Self {
            con,
            prefix: DEFAULT_WATCH_PREFIX.into(),
        }
    }

    /// Use another key prefix (several watches in one database).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Result<Self> {
        let p = prefix.into();
        if p.is_empty() || p.contains(char::is_whitespace) {
            return Err(Error::invalid_input(format!(
                "Redis key prefix `{p}` must be non-empty without spaces"
            )));
        }
        self.prefix = p;
        Ok(self)
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub(crate) fn key(&self, parts: &[&str]) -> String {
        let mut k = self.prefix.clone();
        for p in parts {
            k.push(':');
            k.push_str(p);
        }
        k
    }

    pub(crate) async fn query<T: redis::FromRedisValue>(&self, cmd: &Cmd, what: &str) -> Result<T> {
        let mut con = self.con.clone();
        cmd.query_async::<T>(&mut con)
            .await
            .map_err(|e| map_err(e, what))
    }

    pub(crate) async fn exec(&self, pipe: &redis::Pipeline, what: &str) -> Result<()> {
        let mut con = self.con.clone();
        pipe.query_async::<()>(&mut con)
            .await
            .map_err(|e| map_err(e, what))
    }

    /// `MGET` of JSON records, skipping keys that vanished meanwhile.
    pub(crate) async fn mget<T: DeserializeOwned>(&self, keys: &[String]) -> Result<Vec<T>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let raw: Vec<Option<String>> = self.query(redis::cmd("MGET").arg(keys), "MGET").await?;
        raw.into_iter().flatten().map(|s| from_json(&s)).collect()
    }

    /// `HMGET` of JSON records.
    pub(crate) async fn hmget<T: DeserializeOwned>(
        &self,
        hash: &str,
        ids: &[String],
    ) -> Result<Vec<T>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let raw: Vec<Option<String>> = self
            .query(redis::cmd("HMGET").arg(hash).arg(ids), "HMGET")
            .await?;
        raw.into_iter().flatten().map(|s| from_json(&s)).collect()
    }
}

pub(crate) fn to_json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| StoreError::Backend(format!("cannot encode: {e}")).into())
}

pub(crate) fn from_json<T: DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| {
        Error::from(StoreError::Corrupt(format!(
            "bad watch record in Redis: {e}"
        )))
    })
}

/// Sorted-set score of an instant (ms since the epoch; exact below 2^53).
pub(crate) fn score(t: chrono::DateTime<chrono::Utc>) -> i64 {
    t.timestamp_millis()
}
