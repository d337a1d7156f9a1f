//! [`ResearchPipeline`]: the builder and the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use verity_core::{Embedder, Fetcher, Generator, Judge, VectorStore, Verdict, WebSearch};
use verity_ingest::Ingestor;
use verity_rag::{Retriever, RetrieverConfig};
use verity_verify::LocalJudge;

use crate::agents::Agents;
use crate::brief::Brief;
use crate::budget::{RunBudget, WithinBudget};
use crate::check::{check_report, CheckedReport, SentenceCheck, UnsupportedPolicy, JUDGE_PASSAGES};
use crate::documentalist::Documentalist;
use crate::error::{ResearchError, Result};
use crate::executor::execute;
use crate::knowledge::KnowledgeBase;
use crate::llm::{LlmCtx, LlmProgress, Metered, MeteredJudge};
use crate::plan::{deterministic_plan, evaluate, Agent, Plan, Task};
use crate::planner::llm_plan;
use crate::syllabus::Syllabus;
use crate::trace::{read_trace, TaskStatus, TraceRecord, TraceWriter};
use crate::writer::evidence::LeftOut;
use crate::writer::{write_extractive, write_extractive_without, write_llm, Draft};

/// A step of a run, for progress display and timings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepTiming {
    /// `syllabus`, `brief`, `plan`, `execute`, `write`, `check`, `replan`.
    pub step: String,
    /// Milliseconds.
    pub ms: u64,
}

/// Progress events of a run.
#[derive(Debug, Clone)]
pub enum Progress {
    /// A step finished.
    Step(StepTiming),
    /// A task of the plan finished.
    Task(Box<TraceRecord>),
    /// An LLM call (planner, writer, judge) is running or ended: tokens
    /// received and time spent, at most once a second while it runs.
    Llm(LlmProgress),
}

/// How the plan was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PlanSource {
    /// The deterministic planner (no LLM configured).
    Deterministic,
    /// The LLM planner, valid after `attempts` attempts.
    Llm {
        /// Attempts used.
        attempts: usize,
    },
    /// The LLM planner failed every attempt; the deterministic plan ran.
    LlmFellBack {
        /// The problems of each attempt.
        problems: Vec<String>,
    },
}

/// What a run returns (also written as `result.json` in the run directory).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResearchOutcome {
    /// Run directory.
    pub run_dir: PathBuf,
    /// The checked report.
    pub report: CheckedReport,
    /// How the plan was made.
    pub plan_source: PlanSource,
    /// `true` when something failed and the report is partial.
    pub degraded: bool,
    /// What is missing (failed tasks, uncovered themes), in words.
    pub missing: Vec<String>,
    /// Syllabus warnings (duplicates dropped, …) and run notes.
    pub notes: Vec<String>,
    /// Time per step.
    pub timings: Vec<StepTiming>,
    /// Tasks run, by status.
    pub tasks_ok: usize,
    /// Failed tasks.
    pub tasks_failed: usize,
    /// Skipped tasks.
    pub tasks_skipped: usize,
}

/// Builder of a [`ResearchPipeline`].
pub struct ResearchPipelineBuilder {
    store: Arc<dyn VectorStore>,
    knowledge_dir: PathBuf,
    embedder: Option<Arc<dyn Embedder>>,
    fetcher: Option<Arc<dyn Fetcher>>,
    web: Option<Arc<dyn WebSearch>>,
    generator: Option<Arc<dyn Generator>>,
    judge: Option<Arc<dyn Judge>>,
    policy: UnsupportedPolicy,
    plan_attempts: usize,
    min_coverage: f32,
    k: usize,
    max_tokens: u32,
    generation_timeout: Option<Duration>,
    budget: Option<Duration>,
}

/// Shares of the time left that one LLM call may take, per step: the
/// planner leaves room for the writer, the writer for the judge, and one
/// judged sentence never takes the whole rest.
const PLAN_SHARE: f32 = 0.25;
const SUMMARY_SHARE: f32 = 0.1;
const WRITE_SHARE: f32 = 0.6;
const JUDGE_SHARE: f32 = 0.1;

impl ResearchPipelineBuilder {
    /// Time budget of a run (default none): every LLM call (plan,
    /// summaries, draft, judge) takes a share of what is left; once it is
    /// spent the run finishes with what it has — deterministic plan,
    /// extractive summaries and writer, local judge — and the note and the
    /// outcome say so (`degraded`).
    pub fn budget(mut self, limit: Option<Duration>) -> Self {
        self.budget = limit;
        self
    }
    /// Embedder of the store (hybrid retrieval); none: lexical.
    pub fn embedder(mut self, e: Option<Arc<dyn Embedder>>) -> Self {
        self.embedder = e;
        self
    }
    /// The fetcher (the one hardened fetcher of the `Verity` handle).
    pub fn fetcher(mut self, f: Option<Arc<dyn Fetcher>>) -> Self {
        self.fetcher = f;
        self
    }
    /// Web search for gaps and WebSearch tasks without a URL.
    pub fn web_search(mut self, w: Option<Arc<dyn WebSearch>>) -> Self {
        self.web = w;
        self
    }
    /// LLM for the planner, the writer and the Documentalist's summaries;
    /// none: deterministic planner, extractive writer and summaries.
    pub fn generator(mut self, g: Option<Arc<dyn Generator>>) -> Self {
        self.generator = g;
        self
    }
    /// The judge of the report check (default: the local judge).
    pub fn judge(mut self, j: Arc<dyn Judge>) -> Self {
        self.judge = Some(j);
        self
    }
    /// Flag (default) or remove unsupported sentences.
    pub fn unsupported(mut self, p: UnsupportedPolicy) -> Self {
        self.policy = p;
        self
    }
    /// LLM planner attempts before the deterministic fallback (default 3).
    pub fn plan_attempts(mut self, n: usize) -> Self {
        self.plan_attempts = n.max(1);
        self
    }
    /// Coverage under which one re-plan fills the gaps (default 1.0: any uncovered theme).
    pub fn min_coverage(mut self, c: f32) -> Self {
        self.min_coverage = c.clamp(0.0, 1.0);
        self
    }
    /// Tokens per generation of the planner and the writer (default 2048);
    /// the Documentalist's summaries take at most the smaller of this and 400.
    /// A small local model on a CPU is slow: lower it to bound a run.
    pub fn max_tokens(mut self, n: u32) -> Self {
        self.max_tokens = n.max(64);
        self
    }
    /// Deadline of each generation (plan, draft, summary; default none): a
    /// call past it fails as a timeout and the run degrades — deterministic
    /// plan, extractive writer or summary — and says so in its notes.
    pub fn generation_timeout(mut self, limit: Option<Duration>) -> Self {
        self.generation_timeout = limit;
        self
    }
    /// Passages per FileSearch (default 6).
    pub fn k(mut self, k: usize) -> Self {
        self.k = k.clamp(1, 50);
        self
    }

    /// Build; opens (creates) the knowledge base directory.
    pub fn build(mut self) -> Result<ResearchPipeline> {
        let kb = KnowledgeBase::open(&self.knowledge_dir)?;
        if let Some(limit) = self.generation_timeout {
            self.generator = self.generator.take().map(|inner| {
                Arc::new(crate::budget::Bounded { inner, limit }) as Arc<dyn Generator>
            });
        }
        let ingestor = Ingestor::builder(self.store.clone())
            .embedder(self.embedder.clone())
            .build()?;
        let retriever = Retriever::new(self.store.clone())
            .with_embedder(self.embedder.clone())
            .with_config(RetrieverConfig {
                rerank: None,
                ..RetrieverConfig::default()
            });
        let documentalist = Documentalist::new(
            kb,
            self.store.clone(),
            Arc::new(ingestor),
            self.fetcher.clone(),
            self.generator.clone(),
        )
        .with_summary_tokens(self.max_tokens.min(400));
        Ok(ResearchPipeline {
            agents: Agents {
                documentalist,
                retriever: Arc::new(retriever),
                lexical_only: self.embedder.is_none(),
                fetcher: self.fetcher,
                web: self.web,
                k: self.k,
            },
            generator: self.generator,
            assessor: verity_verify::Assessor::builder()
                .judge(self.judge.unwrap_or_else(|| Arc::new(LocalJudge::new())))
                .top_k(JUDGE_PASSAGES)
                .build(),
            policy: self.policy,
            plan_attempts: self.plan_attempts,
            min_coverage: self.min_coverage,
            max_tokens: self.max_tokens,
            budget: self.budget,
            generation_timeout: self.generation_timeout,
        })
    }
}

/// The research workflow over one store and one knowledge base.
#[derive(Clone)]
pub struct ResearchPipeline {
    agents: Agents,
    generator: Option<Arc<dyn Generator>>,
    /// The report check's judging path (the one of `verity check`).
    assessor: verity_verify::Assessor,
    policy: UnsupportedPolicy,
    plan_attempts: usize,
    min_coverage: f32,
    max_tokens: u32,
    budget: Option<Duration>,
    generation_timeout: Option<Duration>,
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| ResearchError::run_dir(path, e))
}

fn write_json<T: Serialize>(path: &Path, v: &T) -> Result<()> {
    let s = serde_json::to_string_pretty(v).map_err(|e| ResearchError::run_dir(path, e))?;
    write_file(path, &s)
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let s = std::fs::read_to_string(path).map_err(|e| ResearchError::run_dir(path, e))?;
    serde_json::from_str(&s).map_err(|e| ResearchError::run_dir(path, e))
}

type ProgressFn<'a> = &'a (dyn Fn(&Progress) + Send + Sync);

impl ResearchPipeline {
    /// Start building a pipeline over `store`, keeping the knowledge base in `knowledge_dir`.
    pub fn builder(
        store: Arc<dyn VectorStore>,
        knowledge_dir: impl Into<PathBuf>,
    ) -> ResearchPipelineBuilder {
        ResearchPipelineBuilder {
            store,
            knowledge_dir: knowledge_dir.into(),
            embedder: None,
            fetcher: None,
            web: None,
            generator: None,
            judge: None,
            policy: UnsupportedPolicy::default(),
            plan_attempts: 3,
            min_coverage: 1.0,
            k: 6,
            max_tokens: 2_048,
            generation_timeout: None,
            budget: None,
        }
    }

    /// The knowledge base (for `find_by_name` and adding references).
    pub fn documentalist(&self) -> &crate::documentalist::Documentalist {
        &self.agents.documentalist
    }

    /// Research the syllabus file at `path`, writing the run into `run_dir`.
    pub async fn run_file(
        &self,
        path: &Path,
        run_dir: &Path,
        progress: ProgressFn<'_>,
    ) -> Result<ResearchOutcome> {
        let t = Instant::now();
        let syllabus = Syllabus::from_file(path)?;
        let parse_ms = t.elapsed().as_millis() as u64;
        self.run_with(syllabus, run_dir, parse_ms, progress).await
    }

    /// Research a parsed syllabus, writing the run into `run_dir`.
    pub async fn run(
        &self,
        syllabus: Syllabus,
        run_dir: &Path,
        progress: ProgressFn<'_>,
    ) -> Result<ResearchOutcome> {
        self.run_with(syllabus, run_dir, 0, progress).await
    }

    async fn run_with(
        &self,
        syllabus: Syllabus,
        run_dir: &Path,
        parse_ms: u64,
        progress: ProgressFn<'_>,
    ) -> Result<ResearchOutcome> {
        std::fs::create_dir_all(run_dir).map_err(|e| ResearchError::run_dir(run_dir, e))?;
        let run_start = Instant::now();
        let budget = RunBudget::new(self.budget, self.generation_timeout);
        let ctx = LlmCtx {
            budget: &budget,
            progress,
        };
        let agents = self.agents_within(&budget);
        let mut timings = Vec::new();
        let step = |name: &str, ms: u64, timings: &mut Vec<StepTiming>| {
            let s = StepTiming {
                step: name.into(),
                ms,
            };
            progress(&Progress::Step(s.clone()));
            timings.push(s);
        };
        step("syllabus", parse_ms, &mut timings);
        write_json(&run_dir.join("syllabus.json"), &syllabus)?;

        let t = Instant::now();
        let brief = Brief::from_syllabus(&syllabus);
        write_json(&run_dir.join("brief.json"), &brief)?;
        write_file(&run_dir.join("brief.md"), &brief.to_markdown())?;
        step("brief", t.elapsed().as_millis() as u64, &mut timings);

        let t = Instant::now();
        let (plan, plan_source) = self.plan(&syllabus, &brief, ctx).await;
        write_file(&run_dir.join("plan.xml"), &plan.to_xml())?;
        step("plan", t.elapsed().as_millis() as u64, &mut timings);

        let t = Instant::now();
        let trace = TraceWriter::create(run_dir)?;
        let mut done: HashMap<String, TraceRecord> = HashMap::new();
        let on_task = |r: &TraceRecord| progress(&Progress::Task(Box::new(r.clone())));
        let mut records = execute(&plan, &agents, &mut done, &trace, run_start, &on_task).await?;
        step("execute", t.elapsed().as_millis() as u64, &mut timings);

        let mut notes = syllabus.warnings.clone();
        if let PlanSource::LlmFellBack { problems } = &plan_source {
            notes.push(format!(
                "the LLM planner gave no valid plan in {} attempt(s) ({}); the deterministic plan ran",
                problems.len(),
                problems.last().map(String::as_str).unwrap_or("no answer")
            ));
        }
        if syllabus.references.is_empty()
            && syllabus.internal_files.is_empty()
            && syllabus.ephemeral.is_empty()
        {
            notes.push("the syllabus names no reference: only the knowledge base already indexed and web lookups were searched".into());
        }

        let (mut report, mut draft_writer_note) = self
            .write_and_check(&brief, &records, &mut timings, ctx)
            .await?;
        // One re-plan when coverage is low: broader searches for the gaps
        // (not once the time budget is spent).
        if report.coverage < self.min_coverage && budget.exhausted() {
            budget.mark_reached();
        } else if report.coverage < self.min_coverage {
            let t = Instant::now();
            let mut plan2 = plan.clone();
            let gaps = self.gap_tasks(&mut plan2, &brief, &report);
            if !gaps.is_empty() {
                notes.push(format!(
                    "coverage {:.0} % under {:.0} %: re-planned {} search task(s) for the gaps",
                    report.coverage * 100.0,
                    self.min_coverage * 100.0,
                    gaps.len()
                ));
                write_file(&run_dir.join("plan.xml"), &plan2.to_xml())?;
                records.extend(
                    execute(&plan2, &agents, &mut done, &trace, run_start, &on_task).await?,
                );
                step("replan", t.elapsed().as_millis() as u64, &mut timings);
                (report, draft_writer_note) = self
                    .write_and_check(&brief, &records, &mut timings, ctx)
                    .await?;
            }
        }
        notes.extend(draft_writer_note);
        self.finish(
            run_dir,
            &syllabus.warnings,
            records,
            report,
            plan_source,
            notes,
            timings,
            &budget,
        )
    }

    /// The agents of one run: the Documentalist's summaries within the
    /// run's budget.
    fn agents_within(&self, budget: &RunBudget) -> Agents {
        let mut agents = self.agents.clone();
        if budget.limit().is_some() {
            if let Some(g) = agents.documentalist.generator().cloned() {
                let within: Arc<dyn Generator> = Arc::new(WithinBudget {
                    inner: g,
                    budget: budget.clone(),
                    share: SUMMARY_SHARE,
                });
                agents.documentalist = agents.documentalist.with_generator(Some(within));
            }
        }
        agents
    }

    /// Re-run the writer and the checks from a run directory's brief and
    /// trace: no fetch, no search, no network.
    pub async fn replay(
        &self,
        run_dir: &Path,
        progress: ProgressFn<'_>,
    ) -> Result<ResearchOutcome> {
        let brief: Brief = read_json(&run_dir.join("brief.json"))?;
        let previous: Option<ResearchOutcome> = read_json(&run_dir.join("result.json")).ok();
        let records = read_trace(run_dir)?;
        let mut timings = Vec::new();
        let budget = RunBudget::new(self.budget, self.generation_timeout);
        let ctx = LlmCtx {
            budget: &budget,
            progress,
        };
        let (report, note) = self
            .write_and_check(&brief, &records, &mut timings, ctx)
            .await?;
        let plan_source = previous
            .as_ref()
            .map(|p| p.plan_source.clone())
            .unwrap_or(PlanSource::Deterministic);
        let mut notes = vec!["replayed from the recorded trace (no network)".to_string()];
        notes.extend(note);
        let warnings = read_json::<Syllabus>(&run_dir.join("syllabus.json"))
            .map(|s| s.warnings)
            .unwrap_or_default();
        self.finish(
            run_dir,
            &warnings,
            records,
            report,
            plan_source,
            notes,
            timings,
            &budget,
        )
    }

    async fn plan(
        &self,
        syllabus: &Syllabus,
        brief: &Brief,
        ctx: LlmCtx<'_>,
    ) -> (Plan, PlanSource) {
        let fallback = deterministic_plan(syllabus, brief);
        let Some(g) = &self.generator else {
            return (fallback, PlanSource::Deterministic);
        };
        let metered = Metered::new(ctx, g.as_ref(), "plan", PLAN_SHARE);
        match llm_plan(
            &metered,
            syllabus,
            brief,
            self.plan_attempts,
            self.max_tokens,
        )
        .await
        {
            Ok((p, problems)) => (
                p,
                PlanSource::Llm {
                    attempts: problems.len() + 1,
                },
            ),
            Err(problems) => (fallback, PlanSource::LlmFellBack { problems }),
        }
    }

    /// FileSearch (broader, unrestricted) and, with a web engine, WebSearch
    /// tasks for every uncovered theme, appended before a new Writer.
    fn gap_tasks(&self, plan: &mut Plan, brief: &Brief, report: &CheckedReport) -> Vec<String> {
        plan.tasks
            .retain(|t| Agent::parse(&t.agent) != Some(Agent::Writer));
        let mut added = Vec::new();
        for th in report.themes.iter().filter(|t| !t.covered) {
            let Some(bt) = brief.theme(&th.id) else {
                continue;
            };
            let id = format!("E{}", plan.next_n());
            plan.tasks.push(Task {
                id: id.clone(),
                agent: Agent::FileSearch.as_str().into(),
                theme: Some(th.id.clone()),
                args: vec![
                    ("query".into(), crate::brief::strip_numbering(&bt.title)),
                    ("k".into(), (self.agents.k * 2).to_string()),
                ],
            });
            added.push(format!("#{id}"));
            if self.agents.web.is_some() {
                let id = format!("E{}", plan.next_n());
                plan.tasks.push(Task {
                    id: id.clone(),
                    agent: Agent::WebSearch.as_str().into(),
                    theme: Some(th.id.clone()),
                    args: vec![("query".into(), bt.query())],
                });
                added.push(format!("#{id}"));
            }
        }
        if !added.is_empty() {
            let mut inputs: Vec<String> = plan
                .tasks
                .iter()
                .filter(|t| {
                    matches!(
                        Agent::parse(&t.agent),
                        Some(Agent::FileSearch | Agent::WebSearch)
                    )
                })
                .map(|t| format!("#{}", t.id))
                .collect();
            inputs.dedup();
            let id = format!("E{}", plan.next_n());
            plan.tasks.push(Task {
                id,
                agent: Agent::Writer.as_str().into(),
                theme: None,
                args: vec![("inputs".into(), inputs.join(" "))],
            });
        }
        debug_assert!(evaluate(plan, brief).iter().all(|i| !i.contains("cycle")));
        added
    }

    async fn write_and_check(
        &self,
        brief: &Brief,
        records: &[TraceRecord],
        timings: &mut Vec<StepTiming>,
        ctx: LlmCtx<'_>,
    ) -> Result<(CheckedReport, Option<String>)> {
        let progress = ctx.progress;
        let ok: Vec<TraceRecord> = records
            .iter()
            .filter(|r| r.status == TaskStatus::Ok)
            .cloned()
            .collect();
        let t = Instant::now();
        let mut note = None;
        let draft: Draft = match &self.generator {
            Some(g) => {
                let metered = Metered::new(ctx, g.as_ref(), "write", WRITE_SHARE);
                match write_llm(&metered, brief, &ok, self.max_tokens).await {
                    Ok(d) => d,
                    Err(e) => {
                        note = Some(format!(
                            "the LLM writer failed ({e}); the extractive writer wrote the note"
                        ));
                        write_extractive(brief, &ok)
                    }
                }
            }
            None => write_extractive(brief, &ok),
        };
        let s = StepTiming {
            step: "write".into(),
            ms: t.elapsed().as_millis() as u64,
        };
        progress(&Progress::Step(s.clone()));
        timings.push(s);
        let t = Instant::now();
        // One judging path (the assessor); an LLM judge's calls share the
        // run's budget (the local judge needs none), their progress forwarded
        // while the check runs.
        let inner = self.assessor.judge().clone();
        let local: Arc<dyn Judge> = Arc::new(LocalJudge::new());
        let (events, mut received) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let fell_back = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let assessor = if inner.name() != local.name() {
            self.assessor.with_judge(Arc::new(MeteredJudge {
                budget: ctx.budget.clone(),
                inner: inner.clone(),
                fallback: local,
                share: JUDGE_SHARE,
                calls: std::sync::atomic::AtomicU32::new(0),
                fell_back: fell_back.clone(),
                events,
            }))
        } else {
            drop(events);
            self.assessor.with_judge(inner.clone())
        };
        let policy = self.policy;
        let check = async move {
            // Owns the assessor: its judge's event sender closes with it.
            let assessor = assessor;
            let has_material = ok.iter().any(|r| !r.excerpts.is_empty());
            if draft.writer == "extractive" {
                let report =
                    check_extractive(draft, brief, records, &ok, &assessor, policy).await?;
                return Ok::<_, ResearchError>((report, None));
            }
            let mut missing = missing_of(records);
            missing.extend(draft.gaps.iter().cloned());
            let report = check_report(&draft, brief, &ok, &assessor, policy, &missing).await?;
            // An LLM draft with no supported citation (a small model answering
            // beside the point) is replaced by the extractive note.
            if report.supported_sentences == 0 && has_material {
                let replaced = format!(
                    "the {} draft had no supported citation; the extractive writer wrote the note",
                    draft.writer
                );
                let draft = write_extractive(brief, &ok);
                let report =
                    check_extractive(draft, brief, records, &ok, &assessor, policy).await?;
                return Ok((report, Some(replaced)));
            }
            Ok((report, None))
        };
        let forward = async {
            while let Some(p) = received.recv().await {
                progress(&p);
            }
        };
        let (checked, ()) = futures::join!(check, forward);
        let (report, replaced) = checked?;
        if replaced.is_some() {
            note = replaced;
        }
        if !report.left_out.is_empty() {
            let line = format!(
                "the judge did not support {} sentence(s) of the extractive draft: the writer left them out and chose others",
                report.left_out.len()
            );
            note = Some(match note {
                Some(n) => format!("{n}; {line}"),
                None => line,
            });
        }
        let fell_back = fell_back.load(std::sync::atomic::Ordering::Relaxed);
        if fell_back > 0 {
            let line = format!(
                "the time budget left no time for the {} judge: {fell_back} sentence(s) were judged by the local judge",
                inner.name()
            );
            note = Some(match note {
                Some(n) => format!("{n}; {line}"),
                None => line,
            });
        }
        let s = StepTiming {
            step: "check".into(),
            ms: t.elapsed().as_millis() as u64,
        };
        progress(&Progress::Step(s.clone()));
        timings.push(s);
        Ok((report, note))
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        run_dir: &Path,
        syllabus_warnings: &[String],
        records: Vec<TraceRecord>,
        report: CheckedReport,
        plan_source: PlanSource,
        mut notes: Vec<String>,
        timings: Vec<StepTiming>,
        budget: &RunBudget,
    ) -> Result<ResearchOutcome> {
        let count = |s: TaskStatus| records.iter().filter(|r| r.status == s).count();
        let mut missing = missing_of(&records);
        let mut report = report;
        // What the syllabus got wrong (a duplicate read once, no module
        // heading, a path outside the knowledge base) is said where the
        // reader looks, and makes the run partial.
        for w in syllabus_warnings.iter().rev() {
            let line = format!("syllabus: {w}");
            report.markdown = with_missing_line(&report.markdown, &line);
            missing.push(line);
        }
        if budget.was_reached() {
            let line = format!(
                "the time budget ({} s) ran out: LLM calls past it were skipped or stopped and \
                 their offline path (deterministic plan, extractive summaries and writer, local \
                 judge) took over; the note is partial",
                budget.limit().map(|l| l.as_secs()).unwrap_or_default()
            );
            notes.push(line.clone());
            missing.push(line.clone());
            report.markdown = with_missing_line(&report.markdown, &line);
        }
        let outcome = ResearchOutcome {
            run_dir: run_dir.to_path_buf(),
            degraded: !missing.is_empty() || report.coverage < 1.0,
            missing,
            tasks_ok: count(TaskStatus::Ok),
            tasks_failed: count(TaskStatus::Failed),
            tasks_skipped: count(TaskStatus::Skipped),
            report,
            plan_source,
            notes,
            timings,
        };
        write_file(&run_dir.join("report.md"), &outcome.report.markdown)?;
        write_json(&run_dir.join("result.json"), &outcome)?;
        Ok(outcome)
    }
}

/// Drafts the extractive writer may make per check: the first, and one
/// more each time the judge does not support some of its sentences.
const EXTRACTIVE_DRAFTS: usize = 4;

/// Check an extractive draft; while the judge does not support some of
/// its sentences (and [`EXTRACTIVE_DRAFTS`] allows), the writer drafts
/// again without them — the next best sentences take their place, and
/// nothing leaning on a left-out sentence is quoted. The report lists what
/// was left out (`left_out`); what the last draft still holds unsupported
/// is flagged or removed as `policy` says.
async fn check_extractive(
    mut draft: Draft,
    brief: &Brief,
    records: &[TraceRecord],
    ok: &[TraceRecord],
    assessor: &verity_verify::Assessor,
    policy: UnsupportedPolicy,
) -> Result<CheckedReport> {
    let mut left_out = LeftOut::default();
    let mut dropped = Vec::new();
    let mut round = 1;
    loop {
        let mut missing = missing_of(records);
        missing.extend(draft.gaps.iter().cloned());
        let mut report = check_report(&draft, brief, ok, assessor, policy, &missing).await?;
        let refused: Vec<SentenceCheck> = report
            .sentences
            .iter()
            .filter(|s| s.verdict.is_some_and(|v| v != Verdict::Supported))
            .cloned()
            .collect();
        let mut added = false;
        if round < EXTRACTIVE_DRAFTS {
            for s in &refused {
                for n in &s.citations {
                    if let Some(src) = draft.sources.iter().find(|x| x.n == *n) {
                        added |= left_out.insert(&src.key, &s.text);
                    }
                }
            }
        }
        if !added {
            report.left_out = dropped;
            return Ok(report);
        }
        dropped.extend(refused.into_iter().map(|mut s| {
            s.kept = false;
            s.notes
                .push("left out: the writer chose another sentence in its place".into());
            s
        }));
        draft = write_extractive_without(brief, ok, &left_out);
        round += 1;
    }
}

/// `markdown` with `line` added to its "What is missing" section (made
/// before the References when there is none).
fn with_missing_line(markdown: &str, line: &str) -> String {
    let item = format!("- {line}\n");
    if let Some(i) = markdown.find("\n## What is missing\n\n") {
        let at = i + "\n## What is missing\n\n".len();
        return format!("{}{item}{}", &markdown[..at], &markdown[at..]);
    }
    match markdown.find("\n## References\n") {
        Some(i) => format!(
            "{}\n## What is missing\n\n{item}{}",
            &markdown[..i],
            &markdown[i..]
        ),
        None => format!("{markdown}\n## What is missing\n\n{item}"),
    }
}

/// Failed and skipped tasks, in words.
fn missing_of(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter(|r| r.status != TaskStatus::Ok || r.error.is_some())
        .map(|r| {
            let what = r
                .input
                .iter()
                .chain(r.args.iter())
                .find(|(k, _)| k == "url" || k == "name" || k == "query")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            format!(
                "{} {} ({}) {}: {}",
                r.agent,
                r.task,
                what,
                match r.status {
                    TaskStatus::Ok => "ran with a warning",
                    TaskStatus::Failed => "failed",
                    TaskStatus::Skipped => "was skipped",
                },
                r.error.as_deref().unwrap_or("")
            )
        })
        .collect()
}
