//! # verity-research
//!
//! The research workflow of seed 003: a syllabus goes in, a complete,
//! sourced research note comes out, checked against its sources before it
//! is returned.
//!
//! ```text
//! syllabus ─► Syllabus (themes, internal files, long-term refs, ephemeral URLs)
//!          ─► Documentalist (knowledge_db.json, download → Markdown → index once)
//!          ─► Brief (themes, sub-themes, research axes)            brief.json / brief.md
//!          ─► Plan (ReWOO XML, #E{n} variables) ─► evaluator       plan.xml
//!          ─► Executor (sub-agents, independent tasks concurrently) trace.jsonl
//!          ─► Writer (extractive or LLM, numbered citations)
//!          ─► ReportCheck (coverage, citations resolve, Judge per sentence) report.md / report.json
//! ```
//!
//! Everything a run saw is in its run directory, so `replay` re-runs the
//! writer and the checks with no network.

pub mod agents;
pub mod brief;
mod budget;
pub mod check;
pub mod documentalist;
pub mod error;
pub mod executor;
pub mod extract;
pub mod knowledge;
mod llm;
mod pipeline;
pub mod plan;
pub mod planner;
mod reference_line;
pub mod syllabus;
pub mod trace;
pub mod writer;

pub use brief::{Brief, BriefTheme};
pub use budget::RunBudget;
pub use check::{CheckedReport, SentenceCheck, ThemeCoverage, UnsupportedPolicy};
pub use documentalist::{DocOutcome, Documentalist};
pub use error::{ResearchError, Result};
pub use knowledge::{KnowledgeBase, KnowledgeEntry};
pub use llm::{LlmProgress, LlmState};
pub use pipeline::{
    PlanSource, Progress, ResearchOutcome, ResearchPipeline, ResearchPipelineBuilder, StepTiming,
};
pub use plan::{Agent, Plan, Task};
pub use syllabus::{SubTheme, Syllabus, Theme, UrlRef};
pub use trace::{Excerpt, SourceKind, TaskStatus, TraceRecord};
pub use writer::{Draft, SourceRef};
