//! `verity research SYLLABUS`: the research workflow (seed 003) through the
//! facade's [`Verity::research`], one progress line per step and task on
//! stderr, the checked report on stdout (or `result.json` with `--json`).

use std::path::PathBuf;

use clap::Args;
use verity::api::error::exit;
use verity::api::ConfigOverrides;
use verity::research::{Progress, TaskStatus};
use verity::{ResearchOptions, Verity};

/// `verity research`: syllabus → knowledge base → brief → plan → sub-agents →
/// a sourced report, checked against its sources before it is printed.
///
/// Exit status: 0 the report covers every theme with nothing missing; 7 the
/// report is partial (a reference could not be obtained, a theme is not
/// covered: see "What is missing"); 3 bad input (unreadable syllabus, no
/// theme); 6 configuration error.
#[derive(Debug, Args)]
pub struct ResearchArgs {
    /// The syllabus: Markdown, PDF or HTML.
    #[arg(required_unless_present = "replay")]
    pub syllabus: Option<PathBuf>,
    /// Run directory (brief, plan.xml, trace.jsonl, report.md); default `<home>/runs/<time>`.
    #[arg(long, short, value_name = "RUN_DIR")]
    pub output: Option<PathBuf>,
    /// Re-run the writer and the checks of RUN_DIR from its trace, with no network.
    #[arg(long, value_name = "RUN_DIR", conflicts_with = "output")]
    pub replay: Option<PathBuf>,
    /// Knowledge base directory (knowledge_db.json and its files); default
    /// `VERITY_KNOWLEDGE_DIR`, else `<home>/knowledge`.
    #[arg(long, visible_alias = "knowledge-dir", value_name = "DIR")]
    pub knowledge: Option<PathBuf>,
    /// Generator for the planner and the writer: local[:FILE.gguf], ollama:MODEL:TAG,
    /// openai:MODEL (default: deterministic planner and extractive writer).
    #[arg(long, env = "VERITY_GENERATOR")]
    pub generator: Option<String>,
    /// Judge of the report check: auto (the LLM judge when a model generator
    /// is set, else local), local or llm. An LLM judge that answers badly is
    /// replaced by the local judge for that sentence, said in report.json.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<String>,
    /// Remove sentences the judge does not support (default: flag them).
    #[arg(long)]
    pub remove_unsupported: bool,
    /// Allow references on private and loopback addresses
    /// (disables the SSRF guard; for intranets and tests).
    #[arg(long)]
    pub allow_private: bool,
    /// Time budget of the run in seconds (default 300): past it, the LLM
    /// steps give way to the deterministic plan, the extractive writer and
    /// the local judge, and the note says it is partial.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: Option<u64>,
}

/// Run `verity research`; the exit status.
pub async fn run(
    a: &ResearchArgs,
    mut overrides: ConfigOverrides,
    json: bool,
    quiet: bool,
) -> verity::Result<u8> {
    if a.generator.is_some() {
        overrides.generator = a.generator.clone();
    }
    let verity = Verity::open_with(&overrides).await?;
    let opts = ResearchOptions {
        run_dir: a.replay.clone().or_else(|| a.output.clone()),
        knowledge_dir: a.knowledge.clone(),
        allow_private: a.allow_private,
        remove_unsupported: a.remove_unsupported,
        replay: a.replay.is_some(),
        judge: crate::check::parse_judge(a.judge.as_deref())?,
        budget_secs: a.budget,
    };
    let progress = |p: &Progress| {
        if quiet {
            return;
        }
        match p {
            Progress::Step(s) => eprintln!("[{:>8}] {} ms", s.step, s.ms),
            Progress::Llm(l) => eprintln!(
                "  llm {} {} {:?}: {} tokens, {:.1} s{}",
                l.step,
                l.label,
                l.state,
                l.tokens,
                l.elapsed_ms as f64 / 1000.0,
                l.detail
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
            Progress::Task(r) => {
                let mark = match r.status {
                    TaskStatus::Ok => "ok",
                    TaskStatus::Failed => "FAILED",
                    TaskStatus::Skipped => "skipped",
                };
                eprintln!(
                    "  {} {:<13} {:>6} ms {}{}",
                    r.task,
                    r.agent,
                    r.elapsed_ms,
                    mark,
                    r.error
                        .as_deref()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                );
            }
        }
    };
    let syllabus = a.syllabus.clone().unwrap_or_default();
    let out = verity.research(&syllabus, &opts, &progress).await?;
    if json {
        let text = serde_json::to_string_pretty(&out)
            .map_err(|e| verity::Error::invalid_input(e.to_string()))?;
        outln!("{text}");
    } else {
        outln!("{}", out.report.markdown);
        eprintln!(
            "coverage {:.0} %, {} of {} cited sentences supported ({}); run directory {}",
            out.report.coverage * 100.0,
            out.report.supported_sentences,
            out.report.cited_sentences,
            out.report.judge,
            out.run_dir.display()
        );
        for n in &out.notes {
            eprintln!("note: {n}");
        }
    }
    Ok(if out.degraded {
        exit::PARTIAL
    } else {
        exit::OK
    })
}
