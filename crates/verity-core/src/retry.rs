//! The one retry policy of every network call: exponential backoff with
//! jitter, and the server's `Retry-After` hint honoured up to a cap.
//!
//! Errors say whether they are worth retrying ([`Retryable::is_transient`])
//! and may carry the delay the server asked for ([`Retryable::retry_after`]:
//! [`ProviderError::retry_after`](crate::ProviderError::retry_after),
//! [`FetchError::Http`](crate::FetchError::Http)'s `retry_after`). The policy
//! waits `max(backoff, retry_after)`; a hint longer than
//! [`RetryPolicy::max_retry_after`] ends the retries at once (waiting the cap
//! would only earn another refusal) and the transient error is returned as is.

use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::Error;

/// An error the retry policy can classify.
pub trait Retryable {
    /// `true` when the same call may succeed later.
    fn is_transient(&self) -> bool;
    /// The delay the server asked for (`Retry-After`), if any.
    fn retry_after(&self) -> Option<Duration> {
        None
    }
}

impl Retryable for Error {
    fn is_transient(&self) -> bool {
        Error::is_transient(self)
    }
    fn retry_after(&self) -> Option<Duration> {
        Error::retry_after(self)
    }
}

/// How often and how patiently to retry (seed: 3 tries, exponential).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, the first included (≥ 1).
    pub max_attempts: u32,
    /// Delay before the second attempt; doubles each time.
    pub base_delay: Duration,
    /// Upper bound on one backoff delay.
    pub max_delay: Duration,
    /// Randomise each backoff delay within `[d/2, d]` so that clients that
    /// failed together do not retry together (default on).
    pub jitter: bool,
    /// Longest `Retry-After` honoured (default 30 s); a longer hint stops the
    /// retries and the error (which carries the hint) is returned.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            jitter: true,
            max_retry_after: Duration::from_secs(30),
        }
    }
}

/// A cheap, non-cryptographic random fraction in `[0, 1)` for jitter.
fn unit_random() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

impl RetryPolicy {
    /// `attempts` tries, the first retry after `base_delay`, each backoff at
    /// most `max_delay`; jitter and the `Retry-After` cap at their defaults.
    pub fn new(attempts: u32, base_delay: Duration, max_delay: Duration) -> Self {
        Self {
            max_attempts: attempts,
            base_delay,
            max_delay,
            ..Self::default()
        }
    }

    /// No retries.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Turn jitter on or off (off gives the exact delays of [`Self::delay`]).
    pub fn with_jitter(mut self, on: bool) -> Self {
        self.jitter = on;
        self
    }

    /// Set the longest `Retry-After` honoured.
    pub fn with_max_retry_after(mut self, cap: Duration) -> Self {
        self.max_retry_after = cap;
        self
    }

    /// Backoff before attempt `attempt` without jitter (1-based; attempt 1 has none).
    pub fn delay(&self, attempt: u32) -> Duration {
        if attempt <= 1 {
            return Duration::ZERO;
        }
        let factor = 2u32.saturating_pow(attempt.saturating_sub(2));
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }

    /// Backoff before attempt `attempt`, jittered when [`Self::jitter`] is on.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let d = self.delay(attempt);
        if self.jitter && !d.is_zero() {
            d.mul_f64(0.5 + 0.5 * unit_random())
        } else {
            d
        }
    }

    /// The wait before attempt `next` after a failure `e`, or `None` when
    /// the call should not be retried (permanent error, attempts spent, or a
    /// `Retry-After` beyond the cap).
    pub fn wait_before<E: Retryable + ?Sized>(&self, next: u32, e: &E) -> Option<Duration> {
        if !e.is_transient() || next > self.max_attempts.max(1) {
            return None;
        }
        let backoff = self.backoff(next);
        match e.retry_after() {
            Some(hint) if hint > self.max_retry_after => None,
            Some(hint) => Some(backoff.max(hint)),
            None => Some(backoff),
        }
    }

    /// Run `op` (given the 1-based attempt number) until it succeeds, fails
    /// permanently, or the policy gives up; the last error is returned.
    pub async fn run<T, E, F, Fut>(&self, mut op: F) -> Result<T, E>
    where
        E: Retryable,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut attempt = 1;
        loop {
            match op(attempt).await {
                Ok(v) => return Ok(v),
                Err(e) => match self.wait_before(attempt + 1, &e) {
                    Some(wait) => {
                        attempt += 1;
                        tokio::time::sleep(wait).await;
                    }
                    None => return Err(e),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ProviderError, ProviderErrorKind, Result};
    use std::sync::atomic::AtomicU32;

    #[test]
    fn delays_double_and_cap() {
        let p = RetryPolicy::new(5, Duration::from_millis(100), Duration::from_millis(300));
        assert_eq!(p.delay(1), Duration::ZERO);
        assert_eq!(p.delay(2), Duration::from_millis(100));
        assert_eq!(p.delay(3), Duration::from_millis(200));
        assert_eq!(p.delay(4), Duration::from_millis(300));
        assert_eq!(p.with_jitter(false).backoff(3), Duration::from_millis(200));
        for _ in 0..50 {
            let d = p.backoff(3);
            assert!(d >= Duration::from_millis(100) && d <= Duration::from_millis(200));
        }
    }

    fn limited(after: u64) -> Error {
        ProviderError::new("x", ProviderErrorKind::RateLimited, "slow down")
            .with_retry_after(Some(Duration::from_secs(after)))
            .into()
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let p = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(20))
            .with_max_retry_after(Duration::from_secs(5));
        assert_eq!(p.wait_before(2, &limited(2)), Some(Duration::from_secs(2)));
        assert_eq!(p.wait_before(2, &limited(6)), None, "beyond the cap");
        assert_eq!(p.wait_before(4, &limited(1)), None, "attempts spent");
        let permanent: Error = ProviderError::new("x", ProviderErrorKind::Auth, "no").into();
        assert_eq!(p.wait_before(2, &permanent), None);
    }

    #[tokio::test(start_paused = true)]
    async fn run_waits_as_told() {
        let p = RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(20));
        let start = tokio::time::Instant::now();
        let r: Result<u32> = p
            .run(|attempt| async move {
                if attempt == 1 {
                    Err(limited(3))
                } else {
                    Ok(attempt)
                }
            })
            .await;
        assert_eq!(r.unwrap(), 2);
        assert!(start.elapsed() >= Duration::from_secs(3));
    }

    #[tokio::test(start_paused = true)]
    async fn retries_transient_only() {
        let p = RetryPolicy::default();
        let calls = AtomicU32::new(0);
        let r: Result<()> = p
            .run(|_| async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(Error::from(ProviderError::new(
                    "x",
                    ProviderErrorKind::Unavailable,
                    "down",
                )))
            })
            .await;
        assert!(r.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 3);

        calls.store(0, Ordering::SeqCst);
        let r: Result<()> = p
            .run(|_| async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(Error::from(ProviderError::new(
                    "x",
                    ProviderErrorKind::ModelNotFound,
                    "nope",
                )))
            })
            .await;
        assert!(r.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);

        let r = p
            .run(|attempt| async move {
                if attempt < 2 {
                    Err(Error::Timeout(Duration::from_secs(1)))
                } else {
                    Ok(attempt)
                }
            })
            .await;
        assert_eq!(r.unwrap(), 2);
    }
}
