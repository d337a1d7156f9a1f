//! [`RedisCache`]: the seed-001 cache in Redis (TTL keys, tag sets, prefix busting by `SCAN`).

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::ConnectionManager;
use redis::{Script, Value};
use verity_core::cache::{entry_size, CacheClass, CacheLimits};
use verity_core::{Cache, Error, Result};

use crate::conn::{as_i64, as_string, bad_reply, connect, map_err, ConnectOptions};
use crate::scripts;

/// Prefix of the tag sets: `rag:tag:{tag}` holds the keys carrying `tag`.
pub const TAG_PREFIX: &str = "rag:tag:";

/// Prefix of each class's size bookkeeping: `rag:usage:{class}` (hash:
/// `bytes`, `seq`), `rag:usage:{class}:order` (sorted set of keys by write
/// order), `rag:usage:{class}:sizes` (hash of key → size).
pub const USAGE_PREFIX: &str = "rag:usage:";

/// Keys unlinked per `UNLINK` call and scanned per `SCAN` step.
const BATCH: usize = 500;

/// A [`Cache`] in Redis. Values are plain strings with `PX` TTLs; tags are
/// sets `rag:tag:{tag}` → keys (expiring with their longest-lived entry);
/// [`Cache::invalidate_prefix`] walks the key space with `SCAN` (never
/// `KEYS`) and `UNLINK`s in batches. Each class of entries is kept under its
/// [`CacheLimits`] size by the write script itself ([`crate::scripts::CACHE_PUT`]):
/// past it, the oldest entries of the class are unlinked.
#[derive(Clone)]
pub struct RedisCache {
    con: ConnectionManager,
    put: std::sync::Arc<Script>,
    limits: CacheLimits,
}

impl std::fmt::Debug for RedisCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCache").finish_non_exhaustive()
    }
}

/// Escape glob metacharacters for `SCAN … MATCH`.
pub fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '^' | '-') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl RedisCache {
    /// Connect to `url`.
    pub async fn connect(url: &str, opts: &ConnectOptions) -> Result<Self> {
        Ok(Self::with_connection(connect(url, opts).await?))
    }

    /// Use an existing connection (for instance [`crate::RedisStore::connection`]).
    pub fn with_connection(con: ConnectionManager) -> Self {
        Self {
            con,
            put: std::sync::Arc::new(Script::new(scripts::CACHE_PUT)),
            limits: CacheLimits::default(),
        }
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

    /// Bytes counted against `class`'s limit now (entries removed by TTL, tag
    /// or prefix stay counted until evicted; 0 for an unlimited class).
    pub async fn usage_bytes(&self, class: CacheClass) -> Result<u64> {
        let mut con = self.con.clone();
        let v: Value = redis::cmd("HGET")
            .arg(format!("{USAGE_PREFIX}{}", class.as_str()))
            .arg("bytes")
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "HGET usage"))?;
        Ok(as_i64(&v).map_or(0, |b| u64::try_from(b).unwrap_or(0)))
    }

    /// Remaining time to live of `key` (`None`: absent or no expiry).
    pub async fn ttl(&self, key: &str) -> Result<Option<Duration>> {
        let mut con = self.con.clone();
        let v: Value = redis::cmd("PTTL")
            .arg(key)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "PTTL"))?;
        Ok(as_i64(&v)
            .filter(|ms| *ms >= 0)
            .map(|ms| Duration::from_millis(ms as u64)))
    }

    /// Delete every key matching the (already escaped) glob `pattern`; returns how many.
    async fn unlink_matching(&self, pattern: &str) -> Result<usize> {
        let mut con = self.con.clone();
        let mut cursor: u64 = 0;
        let mut removed = 0usize;
        loop {
            let v: Value = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(pattern)
                .arg("COUNT")
                .arg(BATCH)
                .query_async(&mut con)
                .await
                .map_err(|e| map_err(e, "SCAN"))?;
            let Value::Array(parts) = v else {
                return Err(bad_reply("SCAN"));
            };
            let mut parts = parts.into_iter();
            let next = parts
                .next()
                .as_ref()
                .and_then(as_string)
                .and_then(|s| s.parse::<u64>().ok());
            let Some(next) = next else {
                return Err(bad_reply("SCAN"));
            };
            let keys: Vec<Vec<u8>> = match parts.next() {
                Some(Value::Array(ks)) => ks
                    .into_iter()
                    .filter_map(|k| match k {
                        Value::BulkString(b) => Some(b),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for batch in keys.chunks(BATCH) {
                let n: i64 = redis::cmd("UNLINK")
                    .arg(batch)
                    .query_async(&mut con)
                    .await
                    .map_err(|e| map_err(e, "UNLINK"))?;
                removed += usize::try_from(n).unwrap_or(0);
            }
            cursor = next;
            if cursor == 0 {
                return Ok(removed);
            }
        }
    }
}

#[async_trait]
impl Cache for RedisCache {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let mut con = self.con.clone();
        let v: Value = redis::cmd("GET")
            .arg(key)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "GET"))?;
        match v {
            Value::Nil => Ok(None),
            Value::BulkString(b) => Ok(Some(b)),
            other => Ok(as_string(&other).map(String::into_bytes)),
        }
    }

    async fn put(
        &self,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
        tags: &[String],
    ) -> Result<()> {
        if key.is_empty() {
            return Err(Error::invalid_input("cache key must not be empty"));
        }
        let ms = match ttl {
            None => 0u64,
            Some(d) if d.is_zero() => {
                return Err(Error::invalid_input("cache TTL must be positive"))
            }
            Some(d) => u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1),
        };
        let class = CacheClass::of(key);
        let usage = format!("{USAGE_PREFIX}{}", class.as_str());
        let mut con = self.con.clone();
        let mut inv = self.put.key(key);
        inv.key(format!("{usage}:order"))
            .key(format!("{usage}:sizes"))
            .key(&usage);
        inv.arg(value)
            .arg(ms)
            .arg(TAG_PREFIX)
            .arg(self.limits.of(class).unwrap_or(0))
            .arg(entry_size(key, value));
        for t in tags {
            inv.arg(t);
        }
        let _: Value = inv
            .invoke_async(&mut con)
            .await
            .map_err(|e| map_err(e, "cache put"))?;
        Ok(())
    }

    async fn invalidate_prefix(&self, prefix: &str) -> Result<usize> {
        if prefix.is_empty() {
            return Err(Error::invalid_input(
                "refusing to invalidate the whole cache with an empty prefix",
            ));
        }
        self.unlink_matching(&format!("{}*", glob_escape(prefix)))
            .await
    }

    async fn invalidate_tag(&self, tag: &str) -> Result<usize> {
        let mut con = self.con.clone();
        let set = format!("{TAG_PREFIX}{tag}");
        let mut removed = 0usize;
        loop {
            // Pop in batches so a huge tag never blocks the server.
            let v: Value = redis::cmd("SPOP")
                .arg(&set)
                .arg(BATCH)
                .query_async(&mut con)
                .await
                .map_err(|e| map_err(e, "SPOP"))?;
            let keys: Vec<Vec<u8>> = match v {
                Value::Array(ks) | Value::Set(ks) => ks
                    .into_iter()
                    .filter_map(|k| match k {
                        Value::BulkString(b) => Some(b),
                        _ => None,
                    })
                    .collect(),
                Value::Nil => Vec::new(),
                _ => return Err(bad_reply("SPOP")),
            };
            if keys.is_empty() {
                return Ok(removed);
            }
            let n: i64 = redis::cmd("UNLINK")
                .arg(&keys)
                .query_async(&mut con)
                .await
                .map_err(|e| map_err(e, "UNLINK"))?;
            removed += usize::try_from(n).unwrap_or(0);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glob_is_escaped() {
        assert_eq!(super::glob_escape("rag:a*b?[c]"), "rag:a\\*b\\?\\[c\\]");
    }
}
