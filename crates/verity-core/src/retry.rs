//! Retry with exponential backoff for transient failures.

use std::future::Future;
use std::time::Duration;

use crate::Result;

/// How often and how patiently to retry (seed: 3 tries, exponential).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, the first included (≥ 1).
    pub max_attempts: u32,
    /// Delay before the second attempt; doubles each time.
    pub base_delay: Duration,
    /// Upper bound on one delay.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Delay before attempt `attempt` (1-based; attempt 1 has none).
    pub fn delay(&self, attempt: u32) -> Duration {
        if attempt <= 1 {
            return Duration::ZERO;
        }
        let factor = 2u32.saturating_pow(attempt.saturating_sub(2));
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }

    /// Run `op` until it succeeds, fails permanently, or attempts run out.
    pub async fn run<T, F, Fut>(&self, mut op: F) -> Result<T>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let mut attempt = 1;
        loop {
            match op(attempt).await {
                Ok(v) => return Ok(v),
                Err(e) if e.is_transient() && attempt < self.max_attempts.max(1) => {
                    attempt += 1;
                    tokio::time::sleep(self.delay(attempt)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, ProviderError, ProviderErrorKind};
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn delays_double_and_cap() {
        let p = RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
        };
        assert_eq!(p.delay(1), Duration::ZERO);
        assert_eq!(p.delay(2), Duration::from_millis(100));
        assert_eq!(p.delay(3), Duration::from_millis(200));
        assert_eq!(p.delay(4), Duration::from_millis(300));
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
