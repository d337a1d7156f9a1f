//! The Writer sub-agent: a draft note from the brief and the retrieved
//! excerpts, with numbered citations.
//!
//! Both writers start from the same evidence ([`evidence::select`]): per
//! theme, the best self-contained sentences across every source retrieved
//! for it, grouped into key facts and details per topic, with the figures
//! they hold.
//!
//! - [`write_extractive`] (no LLM): the evidence verbatim, ordered into a
//!   short section per theme (key facts, then details per topic, then a
//!   "Key figures" list), every sentence cited. The report check judges it
//!   and the writer chooses again without the sentences the judge did not
//!   support ([`write_extractive_without`]), so the note keeps only
//!   sentences the judge supports.
//! - [`write_llm`]: the configured [`Generator`] writes the note from that
//!   numbered evidence; every sentence is checked afterwards by the Judge.
//!
//! Citation numbers are dense: sources are numbered in the order the note
//! first cites them, so the same trace always gives the same numbers.

pub mod evidence;
pub mod figures;
pub mod sentences;

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use verity_core::{ChatMessage, ChatRequest, GenerationParams, Generator};

use crate::brief::{strip_numbering, Brief, BriefTheme};
use crate::error::Result;
use crate::trace::{Excerpt, TraceRecord};

use evidence::{Attachment, LeftOut, Quote, ThemeEvidence};

/// A numbered source of the draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    /// Citation number.
    pub n: usize,
    /// Source key (`kb:<file>` or URL).
    pub key: String,
    /// Title.
    pub title: String,
    /// URL, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Knowledge-base file name, for internal files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

impl SourceRef {
    /// The references-list line (`[1] Title — URL` or file name).
    pub fn line(&self) -> String {
        let place = match (&self.url, &self.filename) {
            (Some(u), Some(f)) => format!("<{u}> (knowledge base: `{f}`)"),
            (Some(u), None) => format!("<{u}>"),
            (None, Some(f)) => format!("`{f}` (knowledge base)"),
            (None, None) => self.key.clone(),
        };
        format!("[{}] {} — {}", self.n, self.title, place)
    }
}

/// A draft: Markdown with `## theme` sections and `[n]` citations, and its sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// Body (title and theme sections, no references list).
    pub markdown: String,
    /// Numbered sources the body may cite.
    pub sources: Vec<SourceRef>,
    /// Who wrote it (`extractive`, `llm:<model>`).
    pub writer: String,
    /// What the writer found missing (topics no source sentence covers),
    /// for the note's "What is missing".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<String>,
}

/// Excerpts of successful records, grouped by theme (`None` for untagged).
pub fn excerpts_by_theme(records: &[TraceRecord]) -> HashMap<Option<String>, Vec<Excerpt>> {
    let mut out: HashMap<Option<String>, Vec<Excerpt>> = HashMap::new();
    for r in records {
        out.entry(r.theme.clone())
            .or_default()
            .extend(r.excerpts.iter().cloned());
    }
    out
}

/// Number every distinct source of `records`, in first-seen order.
pub fn number_sources(records: &[TraceRecord]) -> Vec<SourceRef> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in records.iter().flat_map(|r| r.excerpts.iter()) {
        if seen.insert(e.source.clone()) {
            out.push(source_ref(out.len() + 1, e));
        }
    }
    out
}

fn source_ref(n: usize, e: &Excerpt) -> SourceRef {
    SourceRef {
        n,
        key: e.source.clone(),
        title: e.title.clone(),
        url: e.url.clone(),
        filename: e.filename.clone(),
    }
}

/// The evidence of every theme of `brief`, in brief order, nothing of
/// `left_out` quoted.
pub fn select_evidence(
    brief: &Brief,
    records: &[TraceRecord],
    left_out: &LeftOut,
) -> Vec<ThemeEvidence> {
    brief
        .themes
        .iter()
        .map(|t| {
            let mine: Vec<&TraceRecord> = records
                .iter()
                .filter(|r| r.theme.as_deref() == Some(t.id.as_str()))
                .collect();
            evidence::select(t, &mine, &Attachment::of(t, &brief.themes), left_out)
        })
        .collect()
}

/// Citation numbers in the order the evidence first cites each source.
struct Numbering<'a> {
    by_key: HashMap<String, usize>,
    sources: Vec<SourceRef>,
    excerpts: HashMap<&'a str, &'a Excerpt>,
}

impl<'a> Numbering<'a> {
    fn new(records: &'a [TraceRecord]) -> Self {
        let mut excerpts = HashMap::new();
        for e in records.iter().flat_map(|r| r.excerpts.iter()) {
            excerpts.entry(e.source.as_str()).or_insert(e);
        }
        Numbering {
            by_key: HashMap::new(),
            sources: Vec::new(),
            excerpts,
        }
    }

    /// The number of `source`, given on first use.
    fn of(&mut self, source: &str) -> Option<usize> {
        if let Some(n) = self.by_key.get(source) {
            return Some(*n);
        }
        let e = self.excerpts.get(source)?;
        let n = self.sources.len() + 1;
        self.sources.push(source_ref(n, e));
        self.by_key.insert(source.to_string(), n);
        Some(n)
    }

    fn cite(&mut self, q: &Quote) -> String {
        match self.of(&q.source) {
            Some(n) => format!("{} [{n}]", q.text),
            None => q.text.clone(),
        }
    }
}

/// What the note says of a theme with no evidence.
pub const NO_MATERIAL: &str = "_No source material was found for this theme._";

/// The extractive writer: every sentence verbatim from a source, cited.
pub fn write_extractive(brief: &Brief, records: &[TraceRecord]) -> Draft {
    write_extractive_without(brief, records, &LeftOut::default())
}

/// The extractive writer, quoting nothing of `left_out` (sentences the
/// judge did not support in an earlier draft) nor anything leaning on it.
pub fn write_extractive_without(
    brief: &Brief,
    records: &[TraceRecord],
    left_out: &LeftOut,
) -> Draft {
    let evidence = select_evidence(brief, records, left_out);
    let mut num = Numbering::new(records);
    let mut md = format!("# Research note: {}\n", brief.title);
    let mut gaps = Vec::new();
    for (t, ev) in brief.themes.iter().zip(&evidence) {
        md.push_str(&format!("\n## {}\n\n", t.title));
        if ev.is_empty() {
            md.push_str(NO_MATERIAL);
            md.push('\n');
            gaps.extend(topic_gaps(t, ev));
            continue;
        }
        md.push_str(&paragraph(&ev.key_facts, &mut num));
        for (label, quotes) in &ev.details {
            if let Some(label) = label {
                md.push_str(&format!("\n### {label}\n\n"));
            } else {
                md.push('\n');
            }
            md.push_str(&paragraph(quotes, &mut num));
        }
        if !ev.figures.is_empty() {
            md.push_str("\n### Key figures\n\n");
            for f in &ev.figures {
                md.push_str(&format!("- {}\n", num.cite(f)));
            }
        }
        if !ev.uncovered_topics.is_empty() {
            md.push_str(&format!(
                "\n_Not found in the sources: {}._\n",
                ev.uncovered_topics.join("; ")
            ));
        }
        gaps.extend(topic_gaps(t, ev));
    }
    Draft {
        markdown: md,
        sources: num.sources,
        writer: "extractive".into(),
        gaps,
    }
}

/// "What is missing" lines of a theme: the topics its evidence leaves out.
fn topic_gaps(t: &BriefTheme, ev: &ThemeEvidence) -> Vec<String> {
    ev.uncovered_topics
        .iter()
        .map(|label| {
            format!(
                "theme \"{}\": no source sentence covers \"{label}\"",
                strip_numbering(&t.title)
            )
        })
        .collect()
}

fn paragraph(quotes: &[Quote], num: &mut Numbering<'_>) -> String {
    let mut p = quotes
        .iter()
        .map(|q| num.cite(q))
        .collect::<Vec<_>>()
        .join(" ");
    p.push('\n');
    p
}

/// The request of the LLM writer: the brief, and per theme the selected
/// evidence (key facts, details, reserve), each sentence with the number of
/// its source; the numbered sources it may cite.
pub fn llm_request(
    brief: &Brief,
    records: &[TraceRecord],
    max_tokens: u32,
) -> (ChatRequest, Vec<SourceRef>, Vec<String>) {
    let evidence = select_evidence(brief, records, &LeftOut::default());
    let mut num = Numbering::new(records);
    let mut ctx = String::new();
    let mut gaps = Vec::new();
    for (t, ev) in brief.themes.iter().zip(&evidence) {
        ctx.push_str(&format!("## {}\n", t.title));
        if ev.is_empty() {
            ctx.push_str("(no evidence: write only that no source material was found)\n\n");
        }
        for q in ev.quotes().chain(ev.reserve.iter()) {
            ctx.push_str(&format!("- {}\n", num.cite(q)));
        }
        ctx.push('\n');
        gaps.extend(topic_gaps(t, ev));
    }
    let system =
        "You are the Writer of a research team. Write a research note in Markdown from the \
        evidence only. Use one `## ` section per theme, with the theme title exactly as given. \
        Open each section with its key facts, then the details. \
        End every sentence that states a fact with the number of its source in brackets, like [2]. \
        Never cite a number that is not in the evidence. Do not write a references list.";
    let listed: String = num
        .sources
        .iter()
        .map(|s| format!("[{}] {}\n", s.n, s.title))
        .collect();
    let user = format!(
        "{}\n\nEvidence, per theme:\n\n{ctx}Sources:\n\n{listed}\n\
         Write the note now, starting with `# Research note: {}`.",
        brief.to_markdown(),
        brief.title
    );
    let mut req = ChatRequest::new(vec![ChatMessage::system(system), ChatMessage::user(user)]);
    req.params = GenerationParams {
        temperature: 0.2,
        max_tokens,
        ..GenerationParams::default()
    };
    (req, num.sources, gaps)
}

/// The LLM writer: the brief and the selected evidence in, a Markdown note
/// with `## <theme title>` sections and `[n]` citations out (at most
/// `max_tokens`).
pub async fn write_llm(
    generator: &dyn Generator,
    brief: &Brief,
    records: &[TraceRecord],
    max_tokens: u32,
) -> Result<Draft> {
    let (req, sources, gaps) = llm_request(brief, records, max_tokens);
    let out = generator.generate(&req).await?;
    Ok(Draft {
        markdown: out.text,
        sources,
        writer: format!("llm:{}", generator.model()),
        gaps,
    })
}
