//! What keeps the fetcher polite and cheap: the per-host interval between
//! requests and the response cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use verity_core::FetchedSource;

/// Per-host minimum interval between requests (async-safe, last-request time).
#[derive(Debug, Default)]
pub(super) struct HostLimiter {
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Instant>>>>>,
}

impl HostLimiter {
    pub(super) async fn wait(&self, key: &str, interval: Duration) {
        if interval.is_zero() {
            return;
        }
        let slot = {
            let mut map = match self.slots.lock() {
                Ok(m) => m,
                Err(poisoned) => poisoned.into_inner(),
            };
            if map.len() > 4096 {
                map.retain(|_, s| {
                    Arc::strong_count(s) > 1
                        || s.try_lock()
                            .map(|t| t.is_some_and(|t| t.elapsed() < interval))
                            .unwrap_or(true)
                });
            }
            map.entry(key.to_string()).or_default().clone()
        };
        let mut last = slot.lock().await;
        if let Some(t) = *last {
            let next = t + interval;
            if next > Instant::now() {
                tokio::time::sleep_until(tokio::time::Instant::from_std(next)).await;
            }
        }
        *last = Some(Instant::now());
    }
}

/// Bounded in-memory response cache with TTL.
#[derive(Debug, Default)]
pub(super) struct ResponseCache {
    pub(super) entries: HashMap<String, (Instant, FetchedSource)>,
}

impl ResponseCache {
    pub(super) fn get(&mut self, key: &str, ttl: Duration) -> Option<FetchedSource> {
        match self.entries.get(key) {
            Some((at, v)) if at.elapsed() < ttl => Some(v.clone()),
            Some(_) => {
                self.entries.remove(key);
                None
            }
            None => None,
        }
    }
    pub(super) fn put(&mut self, key: String, value: FetchedSource, capacity: usize) {
        if capacity == 0 {
            return;
        }
        while self.entries.len() >= capacity && !self.entries.contains_key(&key) {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => {
                    self.entries.remove(&k);
                }
                None => break,
            }
        }
        self.entries.insert(key, (Instant::now(), value));
    }
}
