//! Background ingest jobs: large batches answer 202 with a job whose
//! progress `GET /v1/jobs/{id}` reports.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use verity::api::{IngestOutcome, IngestRequest};
use verity::Verity;

use crate::error::{ApiError, ErrorResponse};

/// Finished jobs kept for their clients to read.
const KEEP_FINISHED: usize = 1_000;
/// Jobs waiting or running at once; beyond, new large batches are refused (503).
const MAX_PENDING: usize = 64;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for the previous job to finish.
    Queued,
    /// Ingesting.
    Running,
    /// Done; `outcome` says what was written.
    Succeeded,
    /// Failed; `error` says why and nothing of this job's failing batch was written.
    Failed,
}

/// Progress and result of an ingest job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobStatus {
    /// Job id.
    pub id: String,
    /// State.
    pub state: JobState,
    /// Documents handled so far.
    pub docs_done: usize,
    /// Documents in the batch, when known.
    pub docs_total: Option<usize>,
    /// Current phase (`checking`, `chunking`, `embedding`, `writing`, `done`).
    pub phase: String,
    /// Seconds since the job was accepted.
    pub elapsed_secs: f64,
    /// What was ingested (when succeeded).
    pub outcome: Option<IngestOutcome>,
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
}

/// The job registry.
#[derive(Debug, Clone)]
pub struct Jobs {
    inner: Arc<Mutex<Registry>>,
    run_one: Arc<Semaphore>,
    idle: Arc<tokio::sync::Notify>,
}

impl Default for Jobs {
    fn default() -> Self {
        Self {
            inner: Arc::default(),
            run_one: Arc::new(Semaphore::new(1)),
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

    /// Accept `req` as a job running on `verity`; its first status. `refused`
    /// (files left out when confining the request to the roots) is added to
    /// the outcome's read errors.
    pub fn submit(
        &self,
        verity: Arc<Verity>,
        req: IngestRequest,
        refused: Vec<String>,
    ) -> Result<JobStatus, ApiError> {
        let id = uuid::Uuid::new_v4().to_string();
        let total = req.paths.is_empty().then_some(req.documents.len());
        let job = Arc::new(Job {
            accepted: Instant::now(),
            status: Mutex::new(JobStatus {
                id: id.clone(),
                state: JobState::Queued,
                docs_done: 0,
                docs_total: total,
                phase: "queued".into(),
                elapsed_secs: 0.0,
                outcome: None,
                error: None,
            }),
        });
        {
            let mut r = self.registry();
            if r.pending >= MAX_PENDING {
                return Err(ApiError::new(
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    format!("{MAX_PENDING} ingest jobs are already waiting: retry later"),
                ));
            }
            r.pending += 1;
            r.jobs.insert(id.clone(), job.clone());
        }
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
            let result = verity.ingest(req, &progress).await;
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
            jobs.finish(&job.snapshot().id);
        });
        Ok(first)
    }

    fn finish(&self, id: &str) {
        let mut r = self.registry();
        r.pending = r.pending.saturating_sub(1);
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
