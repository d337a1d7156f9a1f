//! The report check (the seed's post-report evaluator, always on): theme
//! coverage against the brief, every citation resolves to a source that
//! was actually retrieved, every cited sentence judged against the text
//! retrieved from that source through the one judging path of `verity
//! check` ([`Assessor`]: passages, judge, deterministic checks; an LLM judge
//! that fails is replaced by the local judge, with a note). Unsupported
//! sentences are flagged or removed; a sentence that leans on the one
//! before it ("Because …", "This …", "…, he said.":
//! [`verity_core::text::leans_on_previous`]) is dropped unless the sentence
//! it leans on is right before it (for a sentence quoted from a source: the
//! one before it in that source); the final report ends with what is
//! missing and the references list.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use verity_core::text::{leans_on_previous, sentence_spans};
use verity_core::Verdict;
use verity_verify::{Assessor, SourceText};

/// Best sentences of a source handed to the judge per claim.
pub const JUDGE_PASSAGES: usize = 4;

use crate::brief::{strip_numbering, Brief};
use crate::error::Result;
use crate::trace::TraceRecord;
use crate::writer::sentences::source_sentences;
use crate::writer::{Draft, SourceRef};

/// The note of a sentence dropped as a fragment.
pub const FRAGMENT_NOTE: &str =
    "dropped: it leans on a sentence the note does not give right before it (a fragment)";

/// What to do with a cited sentence the judge does not support.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnsupportedPolicy {
    /// Keep it, marked `[unsupported: VERDICT]`.
    #[default]
    Flag,
    /// Drop it from the report (it stays listed in `report.json`).
    Remove,
}

/// The check of one sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentenceCheck {
    /// Theme id of its section (`None` outside theme sections).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// The sentence, citation markers removed.
    pub text: String,
    /// Citation numbers it carries.
    pub citations: Vec<usize>,
    /// Citation numbers that name no retrieved source.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<usize>,
    /// Best verdict over its resolved citations (`None` when uncited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The judge's explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The sentence of the cited source that decides it (its characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_quote: Option<String>,
    /// Which judge decided (`local`, `llm:<model>`; `local` when the LLM
    /// judge failed on it, said in `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// Fallbacks and what the checks changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Whether it is in the final report.
    pub kept: bool,
}

impl SentenceCheck {
    /// A sentence no judge looked at (a fragment, an uncited sentence).
    fn unjudged(
        theme: Option<String>,
        text: String,
        citations: Vec<usize>,
        notes: Vec<String>,
        kept: bool,
    ) -> Self {
        Self {
            theme,
            text,
            citations,
            unresolved: Vec::new(),
            verdict: None,
            explanation: None,
            source_quote: None,
            judge: None,
            notes,
            kept,
        }
    }
}

/// Coverage of one brief theme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThemeCoverage {
    /// Theme id.
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

/// The checked report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckedReport {
    /// Final Markdown, ending with the references list.
    pub markdown: String,
    /// Who wrote the draft.
    pub writer: String,
    /// Judge used.
    pub judge: String,
    /// Per theme.
    pub themes: Vec<ThemeCoverage>,
    /// Per sentence.
    pub sentences: Vec<SentenceCheck>,
    /// Covered themes / themes.
    pub coverage: f32,
    /// Sentences carrying a citation.
    pub cited_sentences: usize,
    /// Of which the judge supports.
    pub supported_sentences: usize,
    /// `supported_sentences / cited_sentences` (1 when nothing is cited).
    pub supported_share: f32,
    /// Sentences with no citation in theme sections.
    pub uncited_sentences: usize,
    /// Citations naming no retrieved source.
    pub unresolved_citations: usize,
    /// References cited by the final report.
    pub references: Vec<SourceRef>,
    /// Sentences an earlier draft of the extractive writer held and the
    /// judge did not support: left out, the writer chose others (their
    /// verdicts as judged). Not counted above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<SentenceCheck>,
}

impl CheckedReport {
    /// Sentences dropped because they lean on a sentence not right before them.
    pub fn fragments_dropped(&self) -> usize {
        self.sentences
            .iter()
            .filter(|s| !s.kept && s.notes.iter().any(|n| n == FRAGMENT_NOTE))
            .count()
    }
}

fn cite_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]").unwrap_or_else(|_| bad_regex()))
}

#[allow(clippy::panic)]
fn bad_regex() -> Regex {
    panic!("constant regex failed to compile")
}

/// Check `draft` against the passages retrieved in `records`.
pub async fn check_report(
    draft: &Draft,
    brief: &Brief,
    records: &[TraceRecord],
    assessor: &Assessor,
    policy: UnsupportedPolicy,
    missing: &[String],
) -> Result<CheckedReport> {
    // Every retrieved excerpt of a source, as one text a reader sees: the
    // judge reads its best sentences for each claim (as citation
    // verification does), not whole chunks.
    let mut texts: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in records.iter().flat_map(|r| r.excerpts.iter()) {
        let v = texts.entry(e.source.as_str()).or_default();
        if !v.contains(&e.text.as_str()) {
            v.push(e.text.as_str());
        }
    }
    let passages: HashMap<&str, SourceText> = texts
        .into_iter()
        .map(|(k, v)| (k, SourceText::from_markdown(&v.join("\n\n"))))
        .collect();
    let by_n: HashMap<usize, &SourceRef> = draft
        .sources
        .iter()
        .filter(|s| passages.contains_key(s.key.as_str()))
        .map(|s| (s.n, s))
        .collect();
    // The sentences of each source in order (as the writer reads them), for
    // what a quoted sentence leans on: its text → the sentences before it
    // (`None`: first of its passage or after a heading).
    let mut before: HashMap<&str, HashMap<String, Vec<Option<String>>>> = HashMap::new();
    for e in records.iter().flat_map(|r| r.excerpts.iter()) {
        let of_source = before.entry(e.source.as_str()).or_default();
        let mut prev: Option<String> = None;
        for s in source_sentences(&e.text) {
            if s.text.is_empty() {
                prev = None;
                continue;
            }
            let slot = of_source.entry(s.text.clone()).or_default();
            if !slot.contains(&prev) {
                slot.push(prev.clone());
            }
            prev = Some(s.text);
        }
    }
    let theme_of = |heading: &str| {
        let h = normalise(heading);
        brief
            .themes
            .iter()
            .find(|t| normalise(&t.title) == h || normalise(&strip_numbering(&t.title)) == h)
            .map(|t| t.id.clone())
    };

    let mut out_md = String::new();
    let mut checks = Vec::new();
    let mut theme: Option<String> = None;
    let mut cited_used: Vec<usize> = Vec::new();
    for line in draft.markdown.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            let level = t.chars().take_while(|c| *c == '#').count();
            if level == 2 {
                theme = theme_of(t.trim_start_matches('#').trim());
            }
            out_md.push_str(line);
            out_md.push('\n');
            continue;
        }
        if t.is_empty() || t.starts_with("```") || t.starts_with('|') || t.starts_with('_') {
            out_md.push_str(line);
            out_md.push('\n');
            continue;
        }
        let prefix_len = line.len() - line.trim_start_matches(['-', '*', '+', ' ']).len();
        let (prefix, body) = line.split_at(prefix_len);
        let mut kept_text = Vec::new();
        // The last sentence kept in this paragraph (citations removed).
        let mut previous: Option<String> = None;
        for r in sentence_spans(body) {
            let raw = &body[r];
            let citations: Vec<usize> = cite_re()
                .captures_iter(raw)
                .flat_map(|c| {
                    c[1].split([',', ';'])
                        .filter_map(|n| n.trim().parse::<usize>().ok())
                        .collect::<Vec<_>>()
                })
                .collect();
            let text = cite_re().replace_all(raw, "").trim().to_string();
            let text_of_claim = text.clone();
            if leans_on_previous(&text) {
                // Quoted from a cited source: the sentence before it there
                // must be right before it here. Not found in one (written
                // by a model): something of the paragraph must come first.
                let known: Vec<&Option<String>> = citations
                    .iter()
                    .filter_map(|n| by_n.get(n))
                    .filter_map(|s| before.get(s.key.as_str())?.get(&squash(&text)))
                    .flatten()
                    .collect();
                let attached = if known.is_empty() {
                    previous.is_some()
                } else {
                    known
                        .iter()
                        .any(|p| p.is_some() && p.as_deref() == previous.as_deref())
                };
                if !attached {
                    checks.push(SentenceCheck::unjudged(
                        theme.clone(),
                        text,
                        citations,
                        vec![FRAGMENT_NOTE.to_string()],
                        false,
                    ));
                    continue;
                }
            }
            if citations.is_empty() {
                if theme.is_some() && text.split_whitespace().count() >= 4 {
                    checks.push(SentenceCheck::unjudged(
                        theme.clone(),
                        text.clone(),
                        citations,
                        Vec::new(),
                        true,
                    ));
                }
                kept_text.push(raw.to_string());
                previous = Some(squash(&text));
                continue;
            }
            let unresolved: Vec<usize> = citations
                .iter()
                .copied()
                .filter(|n| !by_n.contains_key(n))
                .collect();
            let mut best: Option<verity_verify::Assessment> = None;
            for n in citations.iter().filter(|n| by_n.contains_key(n)) {
                let Some(src) = by_n.get(n) else { continue };
                let Some(text) = passages.get(src.key.as_str()) else {
                    continue;
                };
                let a = assessor
                    .assess(&text_of_claim, text, src.url.as_deref())
                    .await;
                let better = match &best {
                    None => true,
                    Some(b) => rank(a.verdict) < rank(b.verdict),
                };
                if better {
                    best = Some(a);
                }
            }
            let (verdict, explanation, quote, judge_name, notes) = match best {
                Some(a) => (
                    a.verdict,
                    Some(a.explanation),
                    a.source_quote,
                    Some(a.judge),
                    a.notes,
                ),
                None => (
                    Verdict::SourceUnavailable,
                    Some("no cited number names a retrieved source".to_string()),
                    None,
                    None,
                    Vec::new(),
                ),
            };
            let supported = verdict == Verdict::Supported;
            let kept = supported || policy == UnsupportedPolicy::Flag;
            if kept {
                let mut s = raw.to_string();
                if !unresolved.is_empty() {
                    s = cite_re()
                        .replace_all(&s, |c: &regex::Captures<'_>| {
                            let ok: Vec<String> = c[1]
                                .split([',', ';'])
                                .filter_map(|n| n.trim().parse::<usize>().ok())
                                .filter(|n| by_n.contains_key(n))
                                .map(|n| n.to_string())
                                .collect();
                            if ok.is_empty() {
                                String::new()
                            } else {
                                format!(" [{}]", ok.join(", "))
                            }
                        })
                        .into_owned();
                }
                if !supported {
                    s.push_str(&format!(" **[unsupported: {verdict}]**"));
                }
                cited_used.extend(citations.iter().copied().filter(|n| by_n.contains_key(n)));
                kept_text.push(s);
                previous = Some(squash(&text));
            }
            checks.push(SentenceCheck {
                theme: theme.clone(),
                text,
                citations,
                unresolved,
                verdict: Some(verdict),
                explanation,
                source_quote: quote,
                judge: judge_name,
                notes,
                kept,
            });
        }
        if !kept_text.is_empty() {
            out_md.push_str(prefix);
            out_md.push_str(&kept_text.join(" "));
            out_md.push('\n');
        }
    }

    let themes: Vec<ThemeCoverage> = brief
        .themes
        .iter()
        .map(|t| {
            let mine = checks
                .iter()
                .filter(|c| c.theme.as_deref() == Some(t.id.as_str()) && c.verdict.is_some());
            let cited = mine.clone().count();
            let supported = mine
                .filter(|c| c.verdict == Some(Verdict::Supported))
                .count();
            ThemeCoverage {
                id: t.id.clone(),
                title: t.title.clone(),
                cited,
                supported,
                covered: supported > 0,
            }
        })
        .collect();
    let cited_sentences = checks.iter().filter(|c| c.verdict.is_some()).count();
    let supported_sentences = checks
        .iter()
        .filter(|c| c.verdict == Some(Verdict::Supported))
        .count();
    let uncited = checks
        .iter()
        .filter(|c| c.verdict.is_none() && c.kept)
        .count();
    let unresolved_citations = checks.iter().map(|c| c.unresolved.len()).sum();
    let covered = themes.iter().filter(|t| t.covered).count();
    let coverage = if themes.is_empty() {
        1.0
    } else {
        covered as f32 / themes.len() as f32
    };

    let mut gaps: Vec<String> = themes
        .iter()
        .filter(|t| !t.covered)
        .map(|t| format!("theme \"{}\" has no supported, cited content", t.title))
        .collect();
    gaps.extend(missing.iter().cloned());
    if !gaps.is_empty() {
        out_md.push_str("\n## What is missing\n\n");
        for g in &gaps {
            out_md.push_str(&format!("- {g}\n"));
        }
    }
    let used: HashSet<usize> = cited_used.into_iter().collect();
    let references: Vec<SourceRef> = draft
        .sources
        .iter()
        .filter(|s| used.contains(&s.n))
        .cloned()
        .collect();
    out_md.push_str("\n## References\n\n");
    if references.is_empty() {
        out_md.push_str("_No source is cited._\n");
    }
    for r in &references {
        out_md.push_str(&format!("{}\n\n", r.line()));
    }
    Ok(CheckedReport {
        markdown: out_md.trim_end().to_string() + "\n",
        writer: draft.writer.clone(),
        judge: assessor.judge().name().to_string(),
        themes,
        sentences: checks,
        coverage,
        cited_sentences,
        supported_sentences,
        supported_share: if cited_sentences == 0 {
            1.0
        } else {
            supported_sentences as f32 / cited_sentences as f32
        },
        uncited_sentences: uncited,
        unresolved_citations,
        references,
        left_out: Vec::new(),
    })
}

/// Lower is better.
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Supported => 0,
        Verdict::Partial => 1,
        Verdict::Inconclusive => 2,
        Verdict::NotSupported => 3,
        Verdict::SourceUnavailable => 4,
    }
}

/// White space collapsed (how the writer's sentences are written).
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn normalise(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace())
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
