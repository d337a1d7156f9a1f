//! `verity check FILE|URL`: citation verification (seed 002) through the
//! facade's [`Verity::check`], with a progress bar while fetching and
//! judging, the report in the asked format, and exit statuses a script can use.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use verity::api::error::exit;
use verity::api::verify::{
    parse_verdicts, render, JudgeChoice, Progress, ReportFormat, Stage, EXIT_FAIL_ON,
};
use verity::api::{CheckRequest, ConfigOverrides};
use verity::Verity;

/// `verity check`: does each cited source support the claim that cites it?
///
/// Exit status: 0 the check ran and no claim has a verdict named by
/// --fail-on; 9 some claim has one; 7 interrupted (Ctrl-C: the report of
/// what was done is still written); 3 bad input (unreadable file, bad flag,
/// private address without --allow-private); 5 the document URL could not be
/// fetched; 6 configuration error (e.g. a generator that is not available).
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The document: a file (PDF, Markdown, HTML, text) or an http(s) URL.
    pub target: String,
    /// Report format: terminal, json, markdown (md) or html (default terminal; --json implies json).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Write the report to FILE instead of stdout (the summary goes to stderr).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Generator of the LLM judge: local[:FILE.gguf], ollama:MODEL:TAG, openai:MODEL
    /// (default: the local judge, no model).
    #[arg(long, env = "VERITY_GENERATOR")]
    pub generator: Option<String>,
    /// Judge: auto (LLM when a model generator is set), local or llm.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<String>,
    /// Sources fetched and claims judged at once (1–32).
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Exit with status 9 when a claim gets one of these verdicts
    /// (comma-separated: not_supported, partial, inconclusive, unavailable, supported).
    #[arg(long, value_name = "VERDICTS", value_delimiter = ',')]
    pub fail_on: Vec<String>,
    /// Allow the document and its sources on private and loopback addresses
    /// (disables the SSRF guard; for intranets and tests).
    #[arg(long)]
    pub allow_private: bool,
}

/// Run `verity check`; the exit status.
pub async fn run(
    a: &CheckArgs,
    mut overrides: ConfigOverrides,
    json: bool,
    quiet: bool,
) -> verity::Result<u8> {
    let format = match (&a.format, json) {
        (Some(f), _) => f.parse::<ReportFormat>()?,
        (None, true) => ReportFormat::Json,
        (None, false) => ReportFormat::Terminal,
    };
    let fail_on = parse_verdicts(&a.fail_on)?;
    let judge = parse_judge(a.judge.as_deref())?;
    if a.generator.is_some() {
        overrides.generator = a.generator.clone();
    }
    let mut req = CheckRequest::target(&a.target);
    req.concurrency = Some(a.concurrency);
    req.allow_private = a.allow_private;
    req.judge = Some(judge);
    req.format = Some(format);
    req.input()?;
    req.concurrency()?;

    let verity = Verity::open_with(&overrides).await?;
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, Ordering::Relaxed);
        }
    });
    let bar = CheckBar::new(quiet);
    let report = verity
        .check_cancellable(&req, &|p| bar.update(p), Some(cancel))
        .await;
    bar.finish();
    ctrl_c.abort();
    let report = report?;

    match &a.output {
        Some(path) => {
            let text = render(&report, format, false);
            std::fs::write(path, text).map_err(|e| {
                verity::Error::invalid_input(format!("cannot write {}: {e}", path.display()))
            })?;
            eprintln!(
                "{} Report written to {}.",
                report.summary.message,
                path.display()
            );
        }
        None => {
            let color = format == ReportFormat::Terminal
                && std::io::stdout().is_terminal()
                && !crate::config::no_color();
            out!("{}", render(&report, format, color));
        }
    }
    Ok(if report.cancelled {
        exit::PARTIAL
    } else if report.has_any(&fail_on) {
        EXIT_FAIL_ON
    } else {
        exit::OK
    })
}

/// A progress bar on stderr: sources fetched, then claims judged.
struct CheckBar {
    bar: Option<ProgressBar>,
}

impl CheckBar {
    fn new(quiet: bool) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Self { bar: None };
        }
        let bar = ProgressBar::new(0);
        let style = ProgressStyle::with_template("{msg:<18} [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        Self { bar: Some(bar) }
    }

    fn update(&self, p: Progress) {
        if let Some(bar) = &self.bar {
            bar.set_message(match p.stage {
                Stage::Fetching => "fetching sources",
                Stage::Judging => "judging claims",
            });
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `--judge`: auto (default), local or llm.
pub fn parse_judge(s: Option<&str>) -> verity::Result<JudgeChoice> {
    match s {
        None | Some("auto") => Ok(JudgeChoice::Auto),
        Some("local") => Ok(JudgeChoice::Local),
        Some("llm") => Ok(JudgeChoice::Llm),
        Some(other) => Err(verity::Error::invalid_input(format!(
            "judge `{other}`: expected auto, local or llm"
        ))),
    }
}
