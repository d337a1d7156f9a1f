//! Time budgets of a run.
//!
//! - [`RunBudget`]: the run's deadline (`--budget`), checked between steps
//!   and handed to every LLM call as its allowance; past it the run
//!   finishes with what it has (deterministic plan, extractive summaries and
//!   writer, local judge), marked degraded and said so.
//! - [`Bounded`]: the pipeline's generator with a deadline per generation
//!   (`generation_timeout`), for the calls made outside a run (a reference
//!   added on its own).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use verity_core::{ChatRequest, Error, Generation, Generator, Result, TokenStream};

/// Shortest allowance worth starting an LLM call with: below it the caller
/// takes its offline path at once.
pub(crate) const MIN_CALL: Duration = Duration::from_millis(500);

/// The deadline of one run and the cap of each generation.
#[derive(Debug, Clone)]
pub struct RunBudget {
    started: Instant,
    limit: Option<Duration>,
    per_call: Option<Duration>,
    reached: Arc<AtomicBool>,
}

impl RunBudget {
    /// A budget of `limit` for the run (`None`: no deadline), each
    /// generation capped at `per_call`.
    pub fn new(limit: Option<Duration>, per_call: Option<Duration>) -> Self {
        Self {
            started: Instant::now(),
            limit,
            per_call,
            reached: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The run's limit.
    pub fn limit(&self) -> Option<Duration> {
        self.limit
    }

    /// Time left (`None`: no deadline).
    pub fn remaining(&self) -> Option<Duration> {
        self.limit.map(|l| l.saturating_sub(self.started.elapsed()))
    }

    /// Time spent since the run started.
    pub fn spent(&self) -> Duration {
        self.started.elapsed()
    }

    /// The time one LLM call may take: `share` (0–1) of what is left,
    /// within the per-generation cap; `None` means no limit at all. A
    /// share of the run under [`MIN_CALL`] is `Some(ZERO)`: the call is skipped.
    pub fn allowance(&self, share: f32) -> Option<Duration> {
        // Only the run's share can be too small to start with; a
        // per-generation cap is the caller's choice and kept as given.
        let from_run = self.remaining().map(|r| {
            let a = r.mul_f32(share.clamp(0.0, 1.0));
            if a < MIN_CALL {
                Duration::ZERO
            } else {
                a
            }
        });
        match (from_run, self.per_call) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the deadline has passed.
    pub fn exhausted(&self) -> bool {
        self.remaining().is_some_and(|r| r.is_zero())
    }

    /// Record that something was cut or skipped for the budget.
    pub fn mark_reached(&self) {
        self.reached.store(true, Ordering::Relaxed);
    }

    /// Record that a call stopped after `allowance`, when that allowance
    /// came from the run's deadline (not from the per-generation cap).
    pub(crate) fn mark_cut(&self, allowance: Duration) {
        if self.run_limited(allowance) {
            self.mark_reached();
        }
    }

    /// Whether `allowance` came from the run's deadline rather than from
    /// the per-generation cap.
    pub(crate) fn run_limited(&self, allowance: Duration) -> bool {
        self.limit.is_some() && self.per_call.is_none_or(|p| allowance < p)
    }

    /// Whether anything was cut or skipped for the budget.
    pub fn was_reached(&self) -> bool {
        self.reached.load(Ordering::Relaxed)
    }
}

/// `inner` within a run's budget, for the calls made where no progress
/// callback reaches (the Documentalist's summaries): each generation takes
/// at most `share` of the time left, and none starts once it is spent.
pub(crate) struct WithinBudget {
    pub(crate) inner: Arc<dyn Generator>,
    pub(crate) budget: RunBudget,
    pub(crate) share: f32,
}

#[async_trait]
impl Generator for WithinBudget {
    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn generate(&self, req: &ChatRequest) -> Result<Generation> {
        match self.budget.allowance(self.share) {
            Some(Duration::ZERO) => {
                self.budget.mark_reached();
                Err(Error::Timeout(self.budget.spent()))
            }
            Some(limit) => match tokio::time::timeout(limit, self.inner.generate(req)).await {
                Ok(r) => r,
                Err(_) => {
                    self.budget.mark_cut(limit);
                    Err(Error::Timeout(limit))
                }
            },
            None => self.inner.generate(req).await,
        }
    }

    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream> {
        self.inner.stream(req).await
    }

    async fn health(&self) -> Result<()> {
        self.inner.health().await
    }
}

/// `inner` with at most `limit` per [`Generator::generate`]; dropping the
/// call cancels the generation (the local generator stops between tokens).
pub(crate) struct Bounded {
    pub(crate) inner: Arc<dyn Generator>,
    pub(crate) limit: Duration,
}

#[async_trait]
impl Generator for Bounded {
    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn generate(&self, req: &ChatRequest) -> Result<Generation> {
        tokio::time::timeout(self.limit, self.inner.generate(req))
            .await
            .map_err(|_| Error::Timeout(self.limit))?
    }

    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream> {
        self.inner.stream(req).await
    }

    async fn health(&self) -> Result<()> {
        self.inner.health().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowances_are_a_share_of_what_is_left_within_the_cap() {
        let b = RunBudget::new(
            Some(Duration::from_secs(100)),
            Some(Duration::from_secs(10)),
        );
        let a = b.allowance(0.5).unwrap_or_default();
        assert!(
            a <= Duration::from_secs(10) && a > Duration::from_secs(9),
            "{a:?}"
        );
        let b = RunBudget::new(Some(Duration::from_secs(4)), None);
        let a = b.allowance(0.25).unwrap_or_default();
        assert!(
            a <= Duration::from_secs(1) && a > Duration::from_millis(900),
            "{a:?}"
        );
        assert_eq!(RunBudget::new(None, None).allowance(0.1), None);
        let spent = RunBudget::new(Some(Duration::ZERO), None);
        assert!(spent.exhausted());
        assert_eq!(spent.allowance(1.0), Some(Duration::ZERO));
        assert!(!spent.was_reached());
        spent.mark_reached();
        assert!(spent.was_reached());
    }
}
