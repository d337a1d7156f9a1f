//! The one way a run calls its LLM (planner, summaries, writer): within
//! the run's budget, with progress while it runs.
//!
//! Each call gets an allowance from the [`RunBudget`] (a share of the time
//! left, within the per-generation cap); an allowance too small to start
//! with is refused at once, and a call past its allowance is cancelled —
//! both as [`LlmError::OverBudget`], so the caller takes its offline path
//! and the run says so. While the call runs, [`Progress::Llm`] reports the
//! tokens received (streaming generators) and the time spent, at most
//! once a second, then how it ended.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::future::Either;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use verity_core::{
    ChatRequest, Error, FinishReason, Generation, Generator, Judge, Judgement, Passage,
    TokenStream, Usage,
};

use crate::budget::RunBudget;
use crate::pipeline::Progress;

/// How often a running call reports.
const TICK: Duration = Duration::from_secs(1);

/// Where an LLM call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmState {
    /// Generating.
    Running,
    /// Finished.
    Done,
    /// Failed (the caller falls back).
    Failed,
    /// Stopped, or not started, for the run's time budget (the caller falls back).
    OverBudget,
}

/// Progress of one LLM call of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmProgress {
    /// Step: `plan`, `summary`, `write` or `judge`.
    pub step: String,
    /// What the call is for (`attempt 1`, `module T2`, `sentence 4 of 30`).
    pub label: String,
    /// Tokens received so far (0 when the generator does not stream).
    pub tokens: u32,
    /// Milliseconds since the call started.
    pub elapsed_ms: u64,
    /// Running, then how it ended.
    pub state: LlmState,
    /// Why it failed or stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Why an LLM call gave no text.
#[derive(Debug)]
pub(crate) enum LlmError {
    /// The run's budget left no time for it, or it ran past its allowance.
    OverBudget(String),
    /// The generator failed.
    Failed(verity_core::Error),
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::OverBudget(m) => f.write_str(m),
            LlmError::Failed(e) => write!(f, "{e}"),
        }
    }
}

/// What a run's LLM calls share: the budget and the progress callback.
#[derive(Clone, Copy)]
pub(crate) struct LlmCtx<'a> {
    pub(crate) budget: &'a RunBudget,
    pub(crate) progress: &'a (dyn Fn(&Progress) + Send + Sync),
}

impl LlmCtx<'_> {
    /// Generate with `g` within `share` of the run's remaining time.
    pub(crate) async fn generate(
        &self,
        g: &dyn Generator,
        req: &ChatRequest,
        step: &str,
        label: &str,
        share: f32,
    ) -> Result<Generation, LlmError> {
        let allowance = self.budget.allowance(share);
        let report = |tokens: u32, started: Instant, state: LlmState, detail: Option<String>| {
            (self.progress)(&Progress::Llm(LlmProgress {
                step: step.to_string(),
                label: label.to_string(),
                tokens,
                elapsed_ms: started.elapsed().as_millis() as u64,
                state,
                detail,
            }));
        };
        let started = Instant::now();
        if allowance == Some(Duration::ZERO) {
            self.budget.mark_reached();
            let why = format!(
                "not started: the run's time budget ({}) is spent",
                budget_words(self.budget)
            );
            report(0, started, LlmState::OverBudget, Some(why.clone()));
            return Err(LlmError::OverBudget(why));
        }
        report(0, started, LlmState::Running, None);
        let tokens = Arc::new(AtomicU32::new(0));
        let counted = tokens.clone();
        let work = async move {
            match g.stream(req).await {
                Ok(mut stream) => {
                    let mut text = String::new();
                    while let Some(delta) = stream.next().await {
                        text.push_str(&delta?);
                        counted.fetch_add(1, Ordering::Relaxed);
                    }
                    let n = counted.load(Ordering::Relaxed);
                    Ok(Generation {
                        text,
                        model: g.model().to_string(),
                        finish_reason: FinishReason::Stop,
                        usage: Usage {
                            prompt_tokens: None,
                            completion_tokens: Some(n),
                        },
                    })
                }
                // A generator that does not stream answers in one piece.
                Err(e) if !e.is_transient() => g.generate(req).await,
                Err(e) => Err(e),
            }
        };
        let ticking = async {
            let mut work = std::pin::pin!(work);
            loop {
                let tick = std::pin::pin!(tokio::time::sleep(TICK));
                match futures::future::select(work.as_mut(), tick).await {
                    Either::Left((res, _)) => break res,
                    Either::Right(((), _)) => report(
                        tokens.load(Ordering::Relaxed),
                        started,
                        LlmState::Running,
                        None,
                    ),
                }
            }
        };
        let result = match allowance {
            Some(limit) => match tokio::time::timeout(limit, ticking).await {
                Ok(r) => r,
                Err(_) => {
                    self.budget.mark_cut(limit);
                    let why = if self.budget.run_limited(limit) {
                        format!(
                            "timed out after {:.1} s, its share of the run's time budget ({})",
                            limit.as_secs_f64(),
                            budget_words(self.budget)
                        )
                    } else {
                        format!(
                            "timed out after {:.1} s (the per-generation deadline)",
                            limit.as_secs_f64()
                        )
                    };
                    report(
                        tokens.load(Ordering::Relaxed),
                        started,
                        LlmState::OverBudget,
                        Some(why.clone()),
                    );
                    return Err(LlmError::OverBudget(why));
                }
            },
            None => ticking.await,
        };
        let n = tokens.load(Ordering::Relaxed);
        match result {
            Ok(g) => {
                report(
                    n.max(g.usage.completion_tokens.unwrap_or(0)),
                    started,
                    LlmState::Done,
                    None,
                );
                Ok(g)
            }
            Err(e) => {
                report(n, started, LlmState::Failed, Some(e.to_string()));
                Err(LlmError::Failed(e))
            }
        }
    }
}

/// `300 s`, or `a per-generation cap` when the run has no limit.
fn budget_words(b: &RunBudget) -> String {
    match b.limit() {
        Some(l) => format!("{} s", l.as_secs()),
        None => "the per-generation cap".to_string(),
    }
}

/// A generator whose every call goes through [`LlmCtx::generate`]: what the
/// planner and the writer are handed during a run.
pub(crate) struct Metered<'a> {
    pub(crate) ctx: LlmCtx<'a>,
    pub(crate) inner: &'a dyn Generator,
    /// `plan`, `write`.
    pub(crate) step: &'static str,
    /// Share of the remaining time one call may take.
    pub(crate) share: f32,
    pub(crate) calls: AtomicU32,
}

impl<'a> Metered<'a> {
    pub(crate) fn new(
        ctx: LlmCtx<'a>,
        inner: &'a dyn Generator,
        step: &'static str,
        share: f32,
    ) -> Self {
        Self {
            ctx,
            inner,
            step,
            share,
            calls: AtomicU32::new(0),
        }
    }
}

#[async_trait]
impl Generator for Metered<'_> {
    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn generate(&self, req: &ChatRequest) -> verity_core::Result<Generation> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let label = format!("call {n}");
        self.ctx
            .generate(self.inner, req, self.step, &label, self.share)
            .await
            .map_err(|e| match e {
                LlmError::OverBudget(why) => Error::from(verity_core::ProviderError::new(
                    self.inner.model(),
                    verity_core::ProviderErrorKind::Timeout,
                    why,
                )),
                LlmError::Failed(e) => e,
            })
    }

    async fn stream(&self, req: &ChatRequest) -> verity_core::Result<TokenStream> {
        self.inner.stream(req).await
    }
}

/// The run's judge within the budget: each call takes at most `share` of
/// the time left; a call that cannot start or runs past it is judged by
/// `fallback` (the local judge) instead, and the run says so. Owned, so that
/// the one judging path (`verity_verify::Assessor`) can hold it; its progress
/// events go to `events`, forwarded to the run's progress while the check runs.
pub(crate) struct MeteredJudge {
    pub(crate) budget: RunBudget,
    pub(crate) inner: Arc<dyn Judge>,
    pub(crate) fallback: Arc<dyn Judge>,
    pub(crate) share: f32,
    pub(crate) calls: AtomicU32,
    /// Calls the fallback judged.
    pub(crate) fell_back: Arc<AtomicU32>,
    pub(crate) events: tokio::sync::mpsc::UnboundedSender<Progress>,
}

#[async_trait]
impl Judge for MeteredJudge {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn judge(&self, claim: &str, passages: &[Passage]) -> verity_core::Result<Judgement> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let started = Instant::now();
        let report = |state: LlmState, detail: Option<String>| {
            let _ = self.events.send(Progress::Llm(LlmProgress {
                step: "judge".into(),
                label: format!("sentence {n}"),
                tokens: 0,
                elapsed_ms: started.elapsed().as_millis() as u64,
                state,
                detail,
            }));
        };
        let allowance = self.budget.allowance(self.share);
        if allowance == Some(Duration::ZERO) {
            self.budget.mark_reached();
            self.fell_back.fetch_add(1, Ordering::Relaxed);
            return self.fallback.judge(claim, passages).await;
        }
        report(LlmState::Running, None);
        let res = match allowance {
            Some(limit) => {
                match tokio::time::timeout(limit, self.inner.judge(claim, passages)).await {
                    Ok(r) => r,
                    Err(_) => {
                        self.budget.mark_cut(limit);
                        self.fell_back.fetch_add(1, Ordering::Relaxed);
                        report(
                            LlmState::OverBudget,
                            Some(format!(
                                "stopped after {:.1} s; the local judge judged it",
                                limit.as_secs_f64()
                            )),
                        );
                        return self.fallback.judge(claim, passages).await;
                    }
                }
            }
            None => self.inner.judge(claim, passages).await,
        };
        match &res {
            Ok(_) => report(LlmState::Done, None),
            Err(e) => report(LlmState::Failed, Some(e.to_string())),
        }
        res
    }
}
