//! Connections (with timeouts and automatic reconnection) and error mapping.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Value};
use verity_core::{Error, Result, StoreError};

/// Connection settings shared by [`crate::RedisStore`] and [`crate::RedisCache`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConnectOptions {
    /// Deadline of each connection attempt.
    pub connect_timeout: Duration,
    /// Deadline of each command (a command past it fails as unavailable).
    pub response_timeout: Duration,
    /// Reconnection attempts after a dropped connection, with exponential back-off.
    pub reconnect_retries: usize,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(3),
            response_timeout: Duration::from_secs(10),
            reconnect_retries: 3,
        }
    }
}

/// Open a reconnecting, multiplexed connection to `url` (`redis://host:port/db`).
pub async fn connect(url: &str, opts: &ConnectOptions) -> Result<ConnectionManager> {
    let client = redis::Client::open(url)
        .map_err(|e| Error::invalid_input(format!("invalid Redis URL `{}`: {e}", redact(url))))?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(opts.connect_timeout)
        .set_response_timeout(opts.response_timeout)
        .set_number_of_retries(opts.reconnect_retries)
        .set_max_delay(1000);
    let fut = ConnectionManager::new_with_config(client, config);
    match tokio::time::timeout(opts.connect_timeout * 2, fut).await {
        Ok(r) => r.map_err(|e| map_err(e, &format!("connecting to {}", redact(url)))),
        Err(_) => {
            Err(StoreError::Unavailable(format!("connecting to {} timed out", redact(url))).into())
        }
    }
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

/// Map a Redis error: connection refused/reset/dropped, timeouts, `LOADING`,
/// `BUSY`, `TRYAGAIN`, `MASTERDOWN`, `NOSCRIPT` (scripts lost by a restart between
/// load and call) → [`StoreError::Unavailable`] (transient);
/// anything else → [`StoreError::Backend`].
pub fn map_err(e: RedisError, context: &str) -> Error {
    let code = e.code().unwrap_or("");
    let transient = e.is_io_error()
        || e.is_connection_refusal()
        || e.is_connection_dropped()
        || e.is_timeout()
        || matches!(
            e.kind(),
            redis::ErrorKind::BusyLoadingError
                | redis::ErrorKind::TryAgain
                | redis::ErrorKind::MasterDown
        )
        || matches!(code, "LOADING" | "BUSY" | "TRYAGAIN" | "MASTERDOWN");
    if transient {
        StoreError::Unavailable(format!("{context}: {e}")).into()
    } else {
        StoreError::Backend(format!("{context}: {e}")).into()
    }
}

/// Text of a bulk/simple string reply (lossy UTF-8), `None` for nil and others.
pub fn as_string(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        Value::VerbatimString { text, .. } => Some(text.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Double(d) => Some(d.to_string()),
        _ => None,
    }
}

/// Integer value of an integer or numeric string reply.
pub fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        other => as_string(other).and_then(|s| s.trim().parse().ok()),
    }
}

/// Float value of a numeric reply.
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Double(d) => Some(*d),
        Value::Int(i) => Some(*i as f64),
        other => as_string(other).and_then(|s| s.trim().parse().ok()),
    }
}

/// An error that says the server answered something unexpected.
pub fn bad_reply(what: &str) -> Error {
    StoreError::Backend(format!("unexpected Redis reply to {what}")).into()
}

/// Whether a (lower-cased) RediSearch error message says the index does not exist
/// (`Unknown index name`, `Unknown: index name`, `no such index`).
pub(crate) fn is_unknown_index(lower: &str) -> bool {
    (lower.contains("unknown") && lower.contains("index")) || lower.contains("no such index")
}

/// Value of `name` in an `FT.INFO` reply (a flat `[name, value, …]` array).
pub(crate) fn info_field<'a>(info: &'a Value, name: &str) -> Option<&'a Value> {
    let Value::Array(items) = info else {
        return None;
    };
    let mut it = items.iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        if as_string(k).as_deref() == Some(name) {
            return Some(v);
        }
    }
    None
}

/// Longest wait for RediSearch's background scan after an `FT.CREATE` or
/// `FT.ALTER` before writing (see [`wait_scanned`]).
pub(crate) const SCHEMA_SCAN_WAIT: Duration = Duration::from_secs(60);

/// Wait until RediSearch has finished the background scan of index `ft`
/// (started by `FT.CREATE`, `FT.ALTER` or a restart), up to `timeout`.
/// Returns whether it finished.
///
/// A schema change scans the index's key prefix in the background; a hash
/// written while that scan runs is indexed twice (on write, then by the
/// scanner), and the stale copy stays in the term lists until the GC runs,
/// inflating BM25 document frequencies: a freshly re-indexed 3-document
/// corpus ranked the wrong document first in 3 runs out of 50 with five
/// runs at once on 2 cores (`max_doc_id` 5 for 3 documents), 0 out of 80
/// with this wait. Writers call this after every schema change they make.
pub(crate) async fn wait_scanned(
    con: &ConnectionManager,
    ft: &str,
    timeout: Duration,
) -> Result<bool> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let mut c = con.clone();
        let info: Value = redis::cmd("FT.INFO")
            .arg(ft)
            .query_async(&mut c)
            .await
            .map_err(|e| map_err(e, "FT.INFO"))?;
        let indexing = info_field(&info, "indexing")
            .and_then(as_f64)
            .unwrap_or(0.0);
        if indexing == 0.0 {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// [`wait_scanned`] after a schema change this process made; a scan still
/// running at the deadline is logged, and writing goes on.
pub(crate) async fn after_schema_change(con: &ConnectionManager, ft: &str) -> Result<()> {
    if !wait_scanned(con, ft, SCHEMA_SCAN_WAIT).await? {
        tracing::warn!(
            index = %ft,
            "RediSearch is still scanning after a schema change; writing anyway \
             (BM25 statistics may be skewed until its GC runs)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_errors_are_unavailable() {
        let refused = RedisError::from(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "refused",
        ));
        assert!(matches!(
            map_err(refused, "x"),
            Error::Store(StoreError::Unavailable(_))
        ));
        let reset = RedisError::from(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset",
        ));
        assert!(map_err(reset, "x").is_transient());
        let loading = RedisError::from((redis::ErrorKind::BusyLoadingError, "LOADING"));
        assert!(map_err(loading, "x").is_transient());
        let other = RedisError::from((redis::ErrorKind::ResponseError, "WRONGTYPE"));
        assert!(matches!(
            map_err(other, "x"),
            Error::Store(StoreError::Backend(_))
        ));
        assert!(is_unknown_index("unknown: index name"));
        assert!(is_unknown_index("unknown index name"));
        assert!(!is_unknown_index("syntax error"));
        assert_eq!(
            redact("redis://:secret@127.0.0.1:6379/0"),
            "redis://:***@127.0.0.1:6379/0"
        );
    }
}
