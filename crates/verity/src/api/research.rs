//! Research workflow requests and responses (seed 003): the tools
//! `find_by_name`, `add_reference` and `research`, and `POST /v1/research`.
//!
//! The workflow's own types ([`crate::research::ResearchOutcome`],
//! [`crate::research::KnowledgeEntry`]) are mirrored here with JSON Schemas.

use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::research::{DocOutcome, KnowledgeEntry, PlanSource, Reference, ResearchOutcome, UrlRef};
use crate::{Error, Result};

/// Options of a research run and of the knowledge-base calls (`research`,
/// `find_by_name`, `add_reference` of [`crate::Verity`]): the keywords of
/// the Python methods, the options object of the Node ones, the flags of
/// `verity research`.
/// Servers do not take them from clients (paths on the server, the SSRF
/// guard): `POST /v1/research` and the MCP tools set them from their
/// configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchOptions {
    /// Run directory (brief, plan, trace, report); default `<home>/runs/<timestamp>`.
    #[serde(default)]
    pub run_dir: Option<PathBuf>,
    /// Knowledge base directory; default: the configuration's
    /// (`VERITY_KNOWLEDGE_DIR`), else `<home>/knowledge`.
    #[serde(default)]
    pub knowledge_dir: Option<PathBuf>,
    /// Let references on private and loopback addresses be fetched
    /// (disables the SSRF guard; intranets and tests; default `false`).
    #[serde(default)]
    pub allow_private: bool,
    /// Remove unsupported sentences instead of flagging them (default `false`).
    #[serde(default)]
    pub remove_unsupported: bool,
    /// Re-run the writer and the checks of `run_dir` from its trace, offline.
    #[serde(default)]
    pub replay: bool,
    /// Judge of the report check (default `auto`: the LLM judge when a
    /// model generator is configured, else the local judge).
    #[serde(default)]
    pub judge: crate::api::verify::JudgeChoice,
    /// Time budget of the run in seconds (default 300): past it, the LLM
    /// steps give way to their offline path and the note says it is partial.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub budget_secs: Option<u64>,
}

impl ResearchOptions {
    /// The run's time budget ([`crate::research::DEFAULT_RESEARCH_BUDGET`] unless set).
    pub fn budget(&self) -> Duration {
        self.budget_secs
            .map(Duration::from_secs)
            .unwrap_or(crate::research::DEFAULT_RESEARCH_BUDGET)
    }

    /// Check the options of a run of `syllabus` (empty: none given): a
    /// syllabus unless replaying, `run_dir` when replaying, a budget of at
    /// least a second; typed errors naming the field.
    pub fn check_run(&self, syllabus: &std::path::Path) -> Result<()> {
        if !self.replay && syllabus.as_os_str().is_empty() {
            return Err(Error::invalid_input(
                "`syllabus` is required (or `replay` with `run_dir`, the run to replay)",
            ));
        }
        if self.replay && self.run_dir.is_none() {
            return Err(Error::invalid_input(
                "`replay` needs `run_dir`, the run to replay",
            ));
        }
        if self.budget_secs == Some(0) {
            return Err(
                verity_core::InputError::field("budget_secs", "must be at least 1 second").into(),
            );
        }
        Ok(())
    }
}

/// `find_by_name`: look a knowledge-base entry up by file name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindByNameRequest {
    /// File name in the knowledge base (e.g. `Prompt_Engineering_for_Developers.md`).
    pub filename: String,
}

/// One knowledge-base entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KnowledgeEntryView {
    /// File name in the knowledge base directory.
    pub filename: String,
    /// Where it was downloaded from (absent for files placed by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Title.
    pub title: String,
    /// Keywords.
    pub keywords: Vec<String>,
    /// Summary.
    pub summary: String,
    /// Store id once indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
}

impl From<KnowledgeEntry> for KnowledgeEntryView {
    fn from(e: KnowledgeEntry) -> Self {
        Self {
            filename: e.filename,
            url: e.url,
            title: e.title,
            keywords: e.keywords,
            summary: e.summary,
            file_id: e.file_id,
        }
    }
}

/// Answer of `find_by_name`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FindByNameResponse {
    /// `true` when the knowledge base has the file.
    pub found: bool,
    /// The entry, when found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<KnowledgeEntryView>,
}

/// `add_reference`: add a reference to the knowledge base — either `url`
/// (downloaded, saved as Markdown, indexed) or `filename` (a file already in
/// the knowledge base directory, registered and indexed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddReferenceRequest {
    /// http(s) URL of the reference.
    #[serde(default)]
    pub url: Option<String>,
    /// Or the name of a file already in the knowledge base directory.
    #[serde(default)]
    pub filename: Option<String>,
    /// Title (else the page's title).
    #[serde(default)]
    pub title: Option<String>,
    /// Summary (else one is generated).
    #[serde(default)]
    pub description: Option<String>,
    /// Keywords (else they are extracted).
    #[serde(default)]
    pub keywords: Vec<String>,
}

impl AddReferenceRequest {
    /// The reference asked for; a typed error naming the fields when it is
    /// neither or both of `url` and `filename`, or when the URL is not http(s).
    pub fn reference(&self) -> Result<Reference> {
        fn nonempty(o: &Option<String>) -> Option<&str> {
            o.as_deref().map(str::trim).filter(|s| !s.is_empty())
        }
        match (nonempty(&self.url), nonempty(&self.filename)) {
            (Some(_), Some(_)) => Err(Error::invalid_input(
                "give either `url` or `filename`, not both",
            )),
            (None, None) => Err(Error::invalid_input("`url` or `filename` is required")),
            (Some(url), None) => {
                let parsed = url::Url::parse(url)
                    .map_err(|e| Error::invalid_input(format!("`url`: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(Error::invalid_input("`url` must be http(s)"));
                }
                Ok(Reference::Url(UrlRef {
                    url: url.to_string(),
                    title: self.title.clone(),
                    description: self.description.clone(),
                    keywords: self.keywords.clone(),
                    theme: None,
                    line: 0,
                }))
            }
            (None, Some(name)) => {
                if name.contains(['/', '\\']) || name.starts_with('.') {
                    return Err(Error::invalid_input(
                        "`filename` must be a plain file name in the knowledge base",
                    ));
                }
                Ok(Reference::File(name.to_string()))
            }
        }
    }
}

/// Answer of `add_reference`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AddReferenceResponse {
    /// The knowledge-base entry after the operation.
    pub entry: KnowledgeEntryView,
    /// `true` when the document was downloaded by this call.
    pub downloaded: bool,
    /// `true` when it was indexed by this call (`false`: already indexed).
    pub indexed: bool,
    /// How summary and keywords were filled (`syllabus`, `extractive`, `llm:<model>`, `kept`).
    pub enriched_by: String,
}

impl From<DocOutcome> for AddReferenceResponse {
    fn from(d: DocOutcome) -> Self {
        Self {
            entry: d.entry.into(),
            downloaded: d.downloaded,
            indexed: d.indexed,
            enriched_by: d.enriched_by,
        }
    }
}

/// `research`: run the research workflow on a syllabus file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchRequest {
    /// Path of the syllabus (Markdown, PDF or HTML) inside the allowed file roots.
    pub syllabus: String,
    /// Remove unsupported sentences instead of flagging them (default false).
    #[serde(default)]
    pub remove_unsupported: bool,
}

/// Coverage of one theme of the brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThemeCoverageView {
    /// Theme id (`T1`…).
    pub id: String,
    /// Title.
    pub title: String,
    /// Cited sentences in its section.
    pub cited: usize,
    /// Of which the judge supports.
    pub supported: usize,
    /// At least one supported, cited sentence.
    pub covered: bool,
}

/// Answer of `research`: the checked report and how the run went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResearchResponse {
    /// Run directory (brief, plan, trace, report, `result.json`).
    pub run_dir: String,
    /// The report in Markdown, ending with its references.
    pub markdown: String,
    /// Covered themes / themes.
    pub coverage: f32,
    /// Share of cited sentences the judge supports.
    pub supported_share: f32,
    /// Sentences carrying a citation.
    pub cited_sentences: usize,
    /// Of which the judge supports.
    pub supported_sentences: usize,
    /// Per theme.
    pub themes: Vec<ThemeCoverageView>,
    /// Who wrote the draft and which judge checked it.
    pub writer: String,
    /// Judge used.
    pub judge: String,
    /// `true` when something failed and the report is partial.
    pub degraded: bool,
    /// What is missing, in words.
    pub missing: Vec<String>,
    /// Syllabus warnings and run notes.
    pub notes: Vec<String>,
    /// Tasks that succeeded, failed, were skipped.
    pub tasks_ok: usize,
    /// Failed tasks.
    pub tasks_failed: usize,
    /// Skipped tasks.
    pub tasks_skipped: usize,
    /// How the plan was made: `deterministic`, `llm` (valid after
    /// `plan_attempts` attempts) or `llm_fell_back` (every LLM plan was
    /// invalid; the deterministic plan ran — `notes` say why).
    pub planner: String,
    /// Attempts the LLM planner used (0 for the deterministic planner).
    pub plan_attempts: usize,
    /// Citations naming no retrieved source (0 in a checked report).
    pub unresolved_citations: usize,
    /// The references the report cites, by number.
    pub references: Vec<ReferenceView>,
    /// Time per step (`syllabus`, `brief`, `plan`, `execute`, `write`, `check`, …).
    pub timings: Vec<StepTimingView>,
}

/// One reference of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReferenceView {
    /// Citation number (`[n]` in the text).
    pub n: usize,
    /// Title.
    pub title: String,
    /// URL, for web sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Knowledge-base file name, for internal files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

/// Duration of one step of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepTimingView {
    /// Step name.
    pub step: String,
    /// Milliseconds.
    pub ms: u64,
}

impl From<ResearchOutcome> for ResearchResponse {
    fn from(o: ResearchOutcome) -> Self {
        let (planner, plan_attempts) = match &o.plan_source {
            PlanSource::Deterministic => ("deterministic", 0),
            PlanSource::Llm { attempts } => ("llm", *attempts),
            PlanSource::LlmFellBack { problems } => ("llm_fell_back", problems.len()),
        };
        let r = o.report;
        Self {
            run_dir: o.run_dir.display().to_string(),
            markdown: r.markdown,
            coverage: r.coverage,
            supported_share: r.supported_share,
            cited_sentences: r.cited_sentences,
            supported_sentences: r.supported_sentences,
            themes: r
                .themes
                .into_iter()
                .map(|t| ThemeCoverageView {
                    id: t.id,
                    title: t.title,
                    cited: t.cited,
                    supported: t.supported,
                    covered: t.covered,
                })
                .collect(),
            writer: r.writer,
            judge: r.judge,
            degraded: o.degraded,
            missing: o.missing,
            notes: o.notes,
            tasks_ok: o.tasks_ok,
            tasks_failed: o.tasks_failed,
            tasks_skipped: o.tasks_skipped,
            planner: planner.to_string(),
            plan_attempts,
            unresolved_citations: r.unresolved_citations,
            references: r
                .references
                .into_iter()
                .map(|s| ReferenceView {
                    n: s.n,
                    title: s.title,
                    url: s.url,
                    filename: s.filename,
                })
                .collect(),
            timings: o
                .timings
                .into_iter()
                .map(|t| StepTimingView {
                    step: t.step,
                    ms: t.ms,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn research_options_are_read_with_the_library_defaults_and_checked() {
        let o: ResearchOptions = serde_json::from_value(json!({})).unwrap();
        assert_eq!(o, ResearchOptions::default());
        assert_eq!(o.budget(), crate::research::DEFAULT_RESEARCH_BUDGET);
        let o: ResearchOptions = serde_json::from_value(json!({
            "run_dir": "runs/a", "replay": true, "judge": "local", "budget_secs": 60,
        }))
        .unwrap();
        assert_eq!(o.run_dir, Some(PathBuf::from("runs/a")));
        assert_eq!(o.judge, crate::api::verify::JudgeChoice::Local);
        assert_eq!(o.budget(), Duration::from_secs(60));
        o.check_run(std::path::Path::new("")).unwrap();
        // Unknown fields (a camelCase spelling included) are refused.
        let e = serde_json::from_value::<ResearchOptions>(json!({"runDir": "r"})).unwrap_err();
        assert!(e.to_string().contains("runDir"), "{e}");
        let no_syllabus = ResearchOptions::default().check_run(std::path::Path::new(""));
        assert_eq!(no_syllabus.unwrap_err().code(), "invalid_input");
        let replay = ResearchOptions {
            replay: true,
            ..ResearchOptions::default()
        };
        let e = replay.check_run(std::path::Path::new("")).unwrap_err();
        assert!(e.to_string().contains("run_dir"), "{e}");
        let zero = ResearchOptions {
            budget_secs: Some(0),
            ..ResearchOptions::default()
        };
        let e = zero.check_run(std::path::Path::new("s.md")).unwrap_err();
        assert!(e.to_string().contains("budget_secs"), "{e}");
    }
}
