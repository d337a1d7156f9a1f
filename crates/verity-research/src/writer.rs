//! The Writer sub-agent: a draft note from the brief and the retrieved
//! excerpts, with numbered citations.
//!
//! - [`write_extractive`] (no LLM): per theme (and sub-theme), the excerpt
//!   sentences that best match it, verbatim, each followed by its `[n]`.
//! - [`write_llm`]: the configured [`Generator`] writes the note from the
//!   numbered sources; the citations it writes are checked afterwards.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use verity_core::{ChatMessage, GenerateRequest, GenerationParams, Generator};

use crate::brief::{strip_numbering, Brief, BriefTheme};
use crate::error::Result;
use crate::extract;
use crate::trace::{Excerpt, TraceRecord};

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
            out.push(SourceRef {
                n: out.len() + 1,
                key: e.source.clone(),
                title: e.title.clone(),
                url: e.url.clone(),
                filename: e.filename.clone(),
            });
        }
    }
    out
}

/// Sentences per theme overview, and per sub-theme.
const THEME_SENTENCES: usize = 4;
const SUB_SENTENCES: usize = 2;
/// Sentences taken from one source in one paragraph.
const PER_SOURCE: usize = 2;

/// The extractive writer: every sentence verbatim from an excerpt, cited.
pub fn write_extractive(brief: &Brief, records: &[TraceRecord]) -> Draft {
    let sources = number_sources(records);
    let num: HashMap<&str, usize> = sources.iter().map(|s| (s.key.as_str(), s.n)).collect();
    let by_theme = excerpts_by_theme(records);
    let mut md = format!("# Research note: {}\n", brief.title);
    let mut used: HashSet<String> = HashSet::new();
    for t in &brief.themes {
        md.push_str(&format!("\n## {}\n\n", t.title));
        let mut pool: Vec<&Excerpt> = by_theme
            .get(&Some(t.id.clone()))
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        pool.sort_by(|a, b| b.score.total_cmp(&a.score));
        let candidates: Vec<(String, &Excerpt)> = pool
            .iter()
            .flat_map(|e| {
                extract::prose_sentences(&e.text)
                    .into_iter()
                    .map(move |s| (s, *e))
            })
            .collect();
        let overview = pick(&candidates, &theme_terms(t), THEME_SENTENCES, &mut used);
        if overview.is_empty() {
            md.push_str("_No source material was found for this theme._\n");
            continue;
        }
        md.push_str(&paragraph(&overview, &num));
        for s in &t.sub_themes {
            let terms = extract::terms(s);
            let picked = pick(&candidates, &terms, SUB_SENTENCES, &mut used);
            if !picked.is_empty() {
                md.push_str(&format!("\n### {s}\n\n"));
                md.push_str(&paragraph(&picked, &num));
            }
        }
    }
    Draft {
        markdown: md,
        sources,
        writer: "extractive".into(),
    }
}

fn theme_terms(t: &BriefTheme) -> HashSet<String> {
    let mut terms = extract::terms(&strip_numbering(&t.title));
    for k in &t.keywords {
        terms.extend(extract::terms(k));
    }
    terms
}

/// Best sentences for `terms`: overlap first, then excerpt order; at most
/// [`PER_SOURCE`] per source; never a sentence used before.
fn pick<'a>(
    candidates: &[(String, &'a Excerpt)],
    terms: &HashSet<String>,
    n: usize,
    used: &mut HashSet<String>,
) -> Vec<(String, &'a Excerpt)> {
    let mut scored: Vec<(f32, usize)> = candidates
        .iter()
        .enumerate()
        .filter(|(_, (s, _))| !used.contains(s))
        .map(|(i, (s, _))| (extract::overlap(terms, s), i))
        .filter(|(o, _)| *o > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut per: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (_, i) in scored {
        let (s, e) = &candidates[i];
        if used.contains(s) {
            continue;
        }
        let c = per.entry(e.source.as_str()).or_default();
        if *c >= PER_SOURCE {
            continue;
        }
        *c += 1;
        used.insert(s.clone());
        out.push((s.clone(), *e));
        if out.len() == n {
            break;
        }
    }
    out
}

fn paragraph(sents: &[(String, &Excerpt)], num: &HashMap<&str, usize>) -> String {
    let mut p = sents
        .iter()
        .map(|(s, e)| match num.get(e.source.as_str()) {
            Some(n) => format!("{s} [{n}]"),
            None => s.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    p.push('\n');
    p
}

/// Characters of source text given to the LLM writer per source.
const LLM_SOURCE_CHARS: usize = 2_500;

/// The LLM writer: the brief and the numbered sources in, a Markdown note
/// with `## <theme title>` sections and `[n]` citations out (at most
/// `max_tokens`).
pub async fn write_llm(
    generator: &dyn Generator,
    brief: &Brief,
    records: &[TraceRecord],
    max_tokens: u32,
) -> Result<Draft> {
    let sources = number_sources(records);
    let mut ctx = String::new();
    for s in &sources {
        let text: String = records
            .iter()
            .flat_map(|r| r.excerpts.iter())
            .filter(|e| e.source == s.key)
            .map(|e| e.text.trim())
            .collect::<Vec<_>>()
            .join("\n\n")
            .chars()
            .take(LLM_SOURCE_CHARS)
            .collect();
        ctx.push_str(&format!("[{}] {}\n{}\n\n", s.n, s.title, text));
    }
    let system =
        "You are the Writer of a research team. Write a research note in Markdown from the \
        sources only. Use one `## ` section per theme, with the theme title exactly as given. \
        End every sentence that states a fact with the number of its source in brackets, like [2]. \
        Never cite a number that is not in the source list. Do not write a references list.";
    let user = format!(
        "{}\n\nSources:\n\n{ctx}Write the note now, starting with `# Research note: {}`.",
        brief.to_markdown(),
        brief.title
    );
    let mut req = GenerateRequest::new(vec![ChatMessage::system(system), ChatMessage::user(user)]);
    req.params = GenerationParams {
        temperature: 0.2,
        max_tokens,
        ..GenerationParams::default()
    };
    let out = generator.generate(&req).await?;
    Ok(Draft {
        markdown: out.text,
        sources,
        writer: format!("llm:{}", generator.model()),
    })
}
