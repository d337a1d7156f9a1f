//! Background jobs: large ingest batches and research runs answer 202 with
//! a job whose progress `GET /v1/jobs/{id}` reports. Ingest jobs run one at
//! a time, research runs one at a time (each on its own queue).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use verity::api::research::ResearchResponse;
use verity::api::{IngestOutcome, IngestRequest};
use verity::research::{LlmState, Progress, ResearchOptions, TaskStatus};
use verity::Verity;

use crate::error::{ApiError, ErrorResponse};

/// Finished jobs kept for their clients to read.
const KEEP_FINISHED: usize = 1_000;
/// Jobs waiting or running at once; beyond, new large batches are refused (503).
const MAX_PENDING: usize = 64;
/// Research runs waiting or running at once; beyond, new runs are refused (503).
const MAX_PENDING_RESEARCH: usize = 8;
/// Progress entries kept per job (a research plan has a few dozen tasks).
const MAX_STEPS: usize = 500;

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// `POST /v1/ingest`: `outcome` when done.
    Ingest,
    /// `POST /v1/research`: `steps` as the run goes, `report` when done.
    Research,
}

/// One finished step or task of a research job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobStep {
    /// Step (`syllabus`, `brief`, `plan`, `execute`, `write`, `check`, `replan`)
    /// or plan task (`E3 FileSearch`).
    pub name: String,
    /// Milliseconds it took.
    pub ms: u64,
    /// For plan tasks: `ok`, `failed` or `skipped`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why a task failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for the previous job to finish.
    Queued,
    /// Ingesting or researching.
    Running,
    /// Done; `outcome` says what was written.
    Succeeded,
    /// Failed; `error` says why and nothing of this job's failing batch was written.
    Failed,
}

/// Progress and result of a job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobStatus {
    /// Job id.
    pub id: String,
    /// What the job does.
    pub kind: JobKind,
    /// State.
    pub state: JobState,
    /// Documents handled so far.
    pub docs_done: usize,
    /// Documents in the batch, when known.
    pub docs_total: Option<usize>,
    /// Current phase: ingest `checking`, `chunking`, `embedding`, `writing`;
    /// research the last finished step or task; then `done`.
    pub phase: String,
    /// Research: the steps and plan tasks finished so far, in order.
    #[serde(default)]
    pub steps: Vec<JobStep>,
    /// Seconds since the job was accepted.
    pub elapsed_secs: f64,
    /// What was ingested (ingest job, when succeeded).
    pub outcome: Option<IngestOutcome>,
    /// The checked report (research job, when succeeded).
    pub report: Option<ResearchResponse>,
    /// Why it failed (when failed).
    pub error: Option<ErrorResponse>,
}

#[derive(Debug)]
struct Job {
    accepted: Instant,
    status: Mutex<JobStatus>,
}

impl Job {
    fn snapshot(&self) -> JobStatus {
        let mut s = match self.status.lock() {
            Ok(s) => s.clone(),
            Err(p) => p.into_inner().clone(),
        };
        s.elapsed_secs = self.accepted.elapsed().as_secs_f64();
        s
    }

    fn update(&self, f: impl FnOnce(&mut JobStatus)) {
        match self.status.lock() {
            Ok(mut s) => f(&mut s),
            Err(p) => f(&mut p.into_inner()),
        }
    }
}

#[derive(Debug, Default)]
struct Registry {
    jobs: HashMap<String, Arc<Job>>,
    finished: VecDeque<String>,
    pending: usize,
    pending_research: usize,
}

/// The job registry.
#[derive(Debug, Clone)]
pub struct Jobs {
    inner: Arc<Mutex<Registry>>,
    run_one: Arc<Semaphore>,
    research_one: Arc<Semaphore>,
    idle: Arc<tokio::sync::Notify>,
}

impl Default for Jobs {
    fn default() -> Self {
        Self {
            inner: Arc::default(),
            run_one: Arc::new(Semaphore::new(1)),
            research_one: Arc::new(Semaphore::new(1)),
            idle: Arc::default(),
        }
    }
}

impl Jobs {
    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Accept `req` (its paths confined to `roots`) as a job running on
    /// `verity`; its first status. `refused` (files left out when confining
    /// the request to the roots) is added to the outcome's read errors.
    pub fn submit(
        &self,
        verity: Arc<Verity>,
        req: IngestRequest,
        refused: Vec<String>,
        roots: Vec<std::path::PathBuf>,
    ) -> Result<JobStatus, ApiError> {
        let total = req.paths.is_empty().then_some(req.documents.len());
        let job = self.accept(JobKind::Ingest, total)?;
        let first = job.snapshot();
        let jobs = self.clone();
        tokio::spawn(async move {
            let permit = jobs.run_one.clone().acquire_owned().await;
            job.update(|s| {
                s.state = JobState::Running;
                s.phase = "checking".into();
            });
            let progress_job = job.clone();
            let progress = move |p: &verity::IngestProgress| {
                progress_job.update(|s| {
                    s.docs_done = p.docs_done;
                    if p.docs_total.is_some() {
                        s.docs_total = p.docs_total;
                    }
                    s.phase = format!("{:?}", p.phase).to_lowercase();
                });
            };
            // Files are opened only inside the roots, checked again at open time.
            let result = caught("ingest job", verity.ingest_within(req, &roots, &progress)).await;
            drop(permit);
            job.update(|s| match result {
                Ok(mut o) => {
                    o.read_errors.extend(refused);
                    s.state = JobState::Succeeded;
                    s.phase = "done".into();
                    s.docs_done = o.inserted + o.replaced + o.unchanged;
                    s.outcome = Some(o);
                }
                Err(e) => {
                    s.state = JobState::Failed;
                    s.error = Some(ApiError::from(e).body);
                }
            });
            jobs.finish(&job.snapshot().id, JobKind::Ingest);
        });
        Ok(first)
    }

    /// Accept a research run of `syllabus` (already confined to the roots)
    /// as a job; its first status. The run is cut after `limit`.
    pub fn submit_research(
        &self,
        verity: Arc<Verity>,
        syllabus: std::path::PathBuf,
        opts: ResearchOptions,
        limit: Duration,
    ) -> Result<JobStatus, ApiError> {
        let job = self.accept(JobKind::Research, None)?;
        let first = job.snapshot();
        let jobs = self.clone();
        tokio::spawn(async move {
            let permit = jobs.research_one.clone().acquire_owned().await;
            job.update(|s| {
                s.state = JobState::Running;
                s.phase = "syllabus".into();
            });
            let progress_job = job.clone();
            let progress = move |p: &Progress| {
                let step = match p {
                    Progress::Step(t) => JobStep {
                        name: t.step.clone(),
                        ms: t.ms,
                        status: None,
                        error: None,
                    },
                    Progress::Llm(l) => JobStep {
                        name: format!("llm {} {}", l.step, l.label),
                        ms: l.elapsed_ms,
                        status: Some(match l.state {
                            LlmState::Running => format!("running, {} tokens", l.tokens),
                            LlmState::Done => format!("done, {} tokens", l.tokens),
                            LlmState::Failed => "failed".into(),
                            LlmState::OverBudget => "over budget".into(),
                        }),
                        error: l.detail.clone(),
                    },
                    Progress::Task(r) => JobStep {
                        name: format!("{} {}", r.task, r.agent),
                        ms: r.elapsed_ms,
                        status: Some(
                            match r.status {
                                TaskStatus::Ok => "ok",
                                TaskStatus::Failed => "failed",
                                TaskStatus::Skipped => "skipped",
                            }
                            .into(),
                        ),
                        error: r.error.clone(),
                    },
                };
                // A running LLM call updates the phase (tokens, time) and
                // its last step; only its end adds a step.
                let running = matches!(p, Progress::Llm(l) if l.state == LlmState::Running);
                progress_job.update(|s| {
                    s.phase = match &step.status {
                        Some(st) if running => format!("{} ({st})", step.name),
                        _ => step.name.clone(),
                    };
                    if !running && s.steps.len() < MAX_STEPS {
                        s.steps.push(step);
                    }
                });
            };
            let run = caught("research job", verity.research(&syllabus, &opts, &progress));
            let result = tokio::time::timeout(limit, run).await;
            drop(permit);
            job.update(|s| match result {
                Ok(Ok(o)) => {
                    s.state = JobState::Succeeded;
                    s.phase = "done".into();
                    s.report = Some(o.into());
                }
                Ok(Err(e)) => {
                    s.state = JobState::Failed;
                    s.error = Some(ApiError::from(e).body);
                }
                Err(_) => {
                    s.state = JobState::Failed;
                    s.error = Some(
                        ApiError::new(
                            axum::http::StatusCode::GATEWAY_TIMEOUT,
                            "timeout",
                            format!(
                                "the research run took longer than the server's \
                                 research_timeout_secs ({} s) and was stopped",
                                limit.as_secs()
                            ),
                        )
                        .body,
                    );
                }
            });
            jobs.finish(&job.snapshot().id, JobKind::Research);
        });
        Ok(first)
    }

    /// Register a new queued job, or refuse it when its queue is full.
    fn accept(&self, kind: JobKind, docs_total: Option<usize>) -> Result<Arc<Job>, ApiError> {
        let id = uuid::Uuid::new_v4().to_string();
        let job = Arc::new(Job {
            accepted: Instant::now(),
            status: Mutex::new(JobStatus {
                id: id.clone(),
                kind,
                state: JobState::Queued,
                docs_done: 0,
                docs_total,
                phase: "queued".into(),
                steps: Vec::new(),
                elapsed_secs: 0.0,
                outcome: None,
                report: None,
                error: None,
            }),
        });
        let mut r = self.registry();
        let full = match kind {
            JobKind::Ingest => (r.pending >= MAX_PENDING).then_some(MAX_PENDING),
            JobKind::Research => {
                (r.pending_research >= MAX_PENDING_RESEARCH).then_some(MAX_PENDING_RESEARCH)
            }
        };
        if let Some(n) = full {
            return Err(ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                format!("{n} {kind:?} jobs are already waiting: retry later").to_lowercase(),
            ));
        }
        r.pending += 1;
        if kind == JobKind::Research {
            r.pending_research += 1;
        }
        r.jobs.insert(id, job.clone());
        Ok(job)
    }

    fn finish(&self, id: &str, kind: JobKind) {
        let mut r = self.registry();
        r.pending = r.pending.saturating_sub(1);
        if kind == JobKind::Research {
            r.pending_research = r.pending_research.saturating_sub(1);
        }
        r.finished.push_back(id.to_string());
        while r.finished.len() > KEEP_FINISHED {
            if let Some(old) = r.finished.pop_front() {
                r.jobs.remove(&old);
            }
        }
        if r.pending == 0 {
            self.idle.notify_waiters();
        }
    }

    /// The status of job `id`.
    pub fn get(&self, id: &str) -> Option<JobStatus> {
        self.registry().jobs.get(id).map(|j| j.snapshot())
    }

    /// Wait (at most `grace`) for queued and running jobs to finish; `true` when they did.
    pub async fn wait_idle(&self, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.idle.notified();
            if self.registry().pending == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.registry().pending == 0;
            }
        }
    }
}

/// `work`, with a panic turned into the facade's `internal_fault` error, so
/// that a job always ends (failed) instead of staying `running`.
async fn caught<T>(
    during: &str,
    work: impl std::future::Future<Output = verity::Result<T>>,
) -> verity::Result<T> {
    use futures::FutureExt;
    match std::panic::AssertUnwindSafe(work).catch_unwind().await {
        Ok(r) => r,
        Err(payload) => Err(verity::Error::from_panic(during, payload.as_ref())),
    }
}
