//! The verification report (seed 002 output): summary, per-claim results, statistics.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use verity_core::Verdict;

use crate::types::{CheckResult, SourceStatus};

/// Counts per verdict (`summary {total, supported, issues}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Claims checked.
    pub total: usize,
    /// SUPPORTED.
    pub supported: usize,
    /// Everything but SUPPORTED.
    pub issues: usize,
    /// PARTIAL.
    pub partial: usize,
    /// NOT_SUPPORTED.
    pub not_supported: usize,
    /// INCONCLUSIVE.
    pub inconclusive: usize,
    /// SOURCE_UNAVAILABLE.
    pub unavailable: usize,
    /// A sentence for people ("3 of 5 claims are supported", "the document cites no source").
    pub message: String,
}

/// A source that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnavailableSource {
    /// URL or reference.
    pub source: String,
    /// `failed` or `paywalled`.
    pub status: SourceStatus,
    /// Why.
    pub reason: String,
    /// Claims that cite it.
    pub claims: usize,
}

/// Run statistics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Statistics {
    /// Sentences read in the document.
    pub sentences: usize,
    /// Claims that cite (after atomic splitting, if any).
    pub claims: usize,
    /// Distinct sources cited.
    pub distinct_sources: usize,
    /// Sources fetched with content.
    pub sources_fetched: usize,
    /// Sources (or references) that could not be read.
    pub unavailable_sources: Vec<UnavailableSource>,
    /// Citations whose reference entry is missing (`[7]` with no entry 7).
    pub missing_entries: usize,
    /// Quotes not found verbatim and replaced by the real sentence.
    pub quotes_replaced: usize,
    /// Verdicts lowered by the deterministic checks.
    pub downgraded: usize,
    /// Judge failures (reported as INCONCLUSIVE).
    pub judge_errors: usize,
    /// Atomic claims from the splitter dropped because they were not in the text.
    pub atomic_dropped: usize,
    /// Claims left unchecked because the run was cancelled or the claim cap was hit.
    pub skipped: usize,
    /// Total time, ms.
    pub elapsed_ms: f64,
    /// Time fetching sources (wall clock), ms.
    pub fetch_ms: f64,
    /// Time per citation after fetching (retrieval + judge + checks), mean ms.
    pub ms_per_citation: f64,
    /// Total wall time divided by the number of citations, ms.
    pub total_ms_per_citation: f64,
    /// Tokens spent by a model judge (0 for the local judge).
    pub judge_tokens: u64,
    /// Judge used.
    pub judge: String,
    /// Whether passages were found with sentence vectors (else BM25 only).
    pub dense: bool,
}

/// The report of one verification run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// Document title or name, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// Counts.
    pub summary: Summary,
    /// One result per claim–citation pair, in document order.
    pub results: Vec<CheckResult>,
    /// Statistics.
    pub statistics: Statistics,
    /// `true` when the run stopped early (cancelled); results hold what was done.
    #[serde(default)]
    pub cancelled: bool,
}

impl Summary {
    /// Count `results`.
    pub fn of(results: &[CheckResult]) -> Self {
        let count = |v: Verdict| results.iter().filter(|r| r.verdict == v).count();
        let total = results.len();
        let supported = count(Verdict::Supported);
        let mut message = if total == 0 {
            "The document cites no source: there is no claim to check.".to_string()
        } else {
            format!(
                "{supported} of {total} cited claim{} supported by their source.",
                if total == 1 { " is" } else { "s are" }
            )
        };
        let guarded = |r: &CheckResult| {
            r.verdict == Verdict::SourceUnavailable && r.explanation.contains("network guard")
        };
        if total > 0 && results.iter().all(guarded) {
            message.push_str(
                " Every source was refused as a private or loopback address: to check an \
                 intranet or local document, allow them with --allow-private (CLI) or \
                 `allow_private` (REST, Python, Node).",
            );
        }
        Self {
            total,
            supported,
            issues: total - supported,
            partial: count(Verdict::Partial),
            not_supported: count(Verdict::NotSupported),
            inconclusive: count(Verdict::Inconclusive),
            unavailable: count(Verdict::SourceUnavailable),
            message,
        }
    }
}

impl Report {
    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Whether any result has one of `verdicts` (for `--fail-on`).
    pub fn has_any(&self, verdicts: &[Verdict]) -> bool {
        self.results.iter().any(|r| verdicts.contains(&r.verdict))
    }

    /// The JSON schema of the report.
    pub fn json_schema() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(Report)).unwrap_or_default()
    }
}
