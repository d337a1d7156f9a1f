//! [`ExtractiveGenerator`]: the embedded default generator. No model: it
//! answers by quoting the source sentences that best match the question,
//! each followed by its `[n]` citation, and never writes anything else.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use verity_core::text::{content_terms, fold, sentence_spans};
use verity_core::{
    ChatRequest, ContextBlock, FinishReason, Generation, Generator, Grounding, ProviderErrorKind,
    Result, TokenStream, Usage,
};

use crate::http::perr;

const PROVIDER: &str = "extractive";
const MODEL: &str = "extractive";

/// Answers by quoting the best 1–3 context sentences verbatim (whitespace
/// runs collapsed to one space), each followed by its citation `[n]`.
///
/// Scoring: question terms (lower-cased, accent-folded, stop words removed,
/// light suffix stemming for English and French) are weighted by IDF over all
/// context sentences; a sentence's score is the share of the question's IDF
/// mass it covers, plus small bonuses for earlier blocks, earlier sentences
/// and shorter sentences. When the best sentence covers less than
/// [`ExtractiveGeneratorBuilder::min_coverage`] of the question, the answer
/// says that the sources do not contain enough evidence (in the request's
/// language: English, French, Spanish or German; English otherwise).
///
/// Requires [`ChatRequest::grounding`]; without it the call fails with
/// [`ProviderErrorKind::InvalidRequest`]. `params` (temperature, max_tokens…)
/// are ignored: the output is deterministic.
#[derive(Debug, Clone)]
pub struct ExtractiveGenerator {
    max_sentences: usize,
    min_coverage: f32,
    relative_cutoff: f32,
}

/// Builder of [`ExtractiveGenerator`].
#[derive(Debug, Clone)]
pub struct ExtractiveGeneratorBuilder {
    inner: ExtractiveGenerator,
}

impl Default for ExtractiveGenerator {
    fn default() -> Self {
        Self {
            max_sentences: 3,
            min_coverage: 0.3,
            relative_cutoff: 0.6,
        }
    }
}

impl ExtractiveGeneratorBuilder {
    /// Most sentences quoted (1–3 recommended; default 3, at least 1).
    pub fn max_sentences(mut self, n: usize) -> Self {
        self.inner.max_sentences = n.max(1);
        self
    }

    /// Share of the question's term weight a sentence must cover to be
    /// quoted (default 0.3, clamped to 0–1).
    pub fn min_coverage(mut self, c: f32) -> Self {
        self.inner.min_coverage = if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            0.3
        };
        self
    }

    /// Extra sentences must score at least this fraction of the best one (default 0.6).
    pub fn relative_cutoff(mut self, c: f32) -> Self {
        self.inner.relative_cutoff = if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            0.6
        };
        self
    }

    /// Build.
    pub fn build(self) -> ExtractiveGenerator {
        self.inner
    }
}

impl ExtractiveGenerator {
    /// The generator with default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder.
    pub fn builder() -> ExtractiveGeneratorBuilder {
        ExtractiveGeneratorBuilder {
            inner: Self::default(),
        }
    }

    /// Compose the answer for a grounding (the text `generate` returns).
    pub fn answer(&self, g: &Grounding) -> String {
        let lang = g
            .lang
            .as_deref()
            .map(str::to_ascii_lowercase)
            .unwrap_or_else(|| guess_lang(&g.question).into());
        let chosen = self.relevant_sentences(g);
        if chosen.is_empty() {
            return insufficient(&lang).to_string();
        }
        chosen
            .iter()
            .take(self.max_sentences)
            .map(Quotable::quoted)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The context sentences that answer the question, best first: those
    /// that cover at least `min_coverage` of it and score at least
    /// `relative_cutoff` of the best, near-duplicates left out (not limited
    /// to `max_sentences`). Empty when none does.
    pub(crate) fn relevant_sentences(&self, g: &Grounding) -> Vec<Quotable> {
        let q_terms: Vec<String> = {
            let mut seen = HashSet::new();
            terms(&g.question)
                .into_iter()
                .filter(|t| seen.insert(t.clone()))
                .collect()
        };
        let sentences = collect_sentences(&g.blocks);
        if q_terms.is_empty() || sentences.is_empty() {
            return Vec::new();
        }
        // Document frequency over sentences.
        let mut df: HashMap<&str, usize> = HashMap::new();
        for s in &sentences {
            for t in &s.terms {
                *df.entry(t.as_str()).or_default() += 1;
            }
        }
        let n = sentences.len() as f32;
        // A question word no context sentence uses weighs as much as the
        // rarest word they do use (df = 1): it lowers every sentence's
        // coverage alike and cannot tell sentences apart, so it should not
        // outweigh the words that can ("Comment sont calculés les frais ?"
        // against "Les frais d'un relais valent …": `calcul` is absent).
        let idf = |t: &str| -> f32 {
            let d = df.get(t).copied().unwrap_or(0) as f32;
            (1.0 + n / d.max(1.0)).ln()
        };
        let q_weights: Vec<(&str, f32)> = q_terms.iter().map(|t| (t.as_str(), idf(t))).collect();
        let total: f32 = q_weights.iter().map(|(_, w)| w).sum();
        if total <= 0.0 {
            return Vec::new();
        }
        let mut scored: Vec<(f32, f32, usize)> = sentences
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let covered: f32 = q_weights
                    .iter()
                    .filter(|(t, _)| s.terms.contains(*t))
                    .map(|(_, w)| w)
                    .sum();
                let coverage = covered / total;
                let words = s.quotable.text.split_whitespace().count() as f32;
                let short = if words <= 25.0 {
                    1.0
                } else {
                    ((60.0 - words) / 35.0).clamp(0.0, 1.0)
                };
                let bonus = 0.05 / (1.0 + s.quotable.block_rank as f32)
                    + 0.05 / (1.0 + s.quotable.position as f32)
                    + 0.05 * short;
                (coverage + bonus, coverage, i)
            })
            .collect();
        // Best first; ties broken by block order then position (stable sort keeps input order).
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let Some(&(best_score, best_cov, _)) = scored.first() else {
            return Vec::new();
        };
        if best_cov < self.min_coverage || best_cov <= 0.0 {
            return Vec::new();
        }
        let mut chosen: Vec<usize> = Vec::new();
        for &(score, cov, i) in &scored {
            if cov < self.min_coverage || score < self.relative_cutoff * best_score {
                break;
            }
            let Some(s) = sentences.get(i) else { continue };
            if chosen
                .iter()
                .filter_map(|&c| sentences.get(c))
                .any(|c| near_duplicate(c, s))
            {
                continue;
            }
            chosen.push(i);
        }
        let mut sentences: Vec<Option<Sentence>> = sentences.into_iter().map(Some).collect();
        chosen
            .into_iter()
            .filter_map(|i| sentences.get_mut(i).and_then(Option::take))
            .map(|s| s.quotable)
            .collect()
    }
}

/// One candidate sentence.
struct Sentence {
    quotable: Quotable,
    /// Distinct normalised terms.
    terms: HashSet<String>,
}

fn near_duplicate(a: &Sentence, b: &Sentence) -> bool {
    if a.quotable.text == b.quotable.text {
        return true;
    }
    let inter = a.terms.intersection(&b.terms).count() as f32;
    let union = a.terms.union(&b.terms).count() as f32;
    union > 0.0 && inter / union > 0.8
}

/// A sentence of a context block that an answer may quote.
pub(crate) struct Quotable {
    /// Verbatim text with whitespace runs collapsed and the source's own
    /// reference markers removed.
    pub(crate) text: String,
    /// Citation number (`ContextBlock::index`).
    pub(crate) citation: usize,
    /// Order of the block in the context (0 = first).
    pub(crate) block_rank: usize,
    /// Order of the sentence in its block.
    pub(crate) position: usize,
}

impl Quotable {
    /// The sentence as an answer quotes it: its text, then its citation.
    pub(crate) fn quoted(&self) -> String {
        format!("{} [{}]", self.text, self.citation)
    }
}

/// The sentences of `blocks` an answer may quote, in order: headings and
/// fragments of fewer than three words left out.
pub(crate) fn quotable_sentences(blocks: &[ContextBlock]) -> Vec<Quotable> {
    let mut out = Vec::new();
    for (rank, b) in blocks.iter().enumerate() {
        for (position, raw) in split_sentences(&b.text).into_iter().enumerate() {
            let text = strip_reference_markers(raw)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if text.starts_with('#') || text.split_whitespace().count() < 3 {
                continue; // headings and fragments are not answers
            }
            out.push(Quotable {
                text,
                citation: b.index,
                block_rank: rank,
                position,
            });
        }
    }
    out
}

fn collect_sentences(blocks: &[ContextBlock]) -> Vec<Sentence> {
    quotable_sentences(blocks)
        .into_iter()
        .filter_map(|q| {
            let terms: HashSet<String> = terms(&q.text).into_iter().collect();
            (!terms.is_empty()).then_some(Sentence { terms, quotable: q })
        })
        .collect()
}

/// Remove the source's own numeric reference markers (`[14]`, `[3, 5]`, `[2–4]`) so
/// that they cannot be mistaken for Verity's `[n]` citations of the context.
fn strip_reference_markers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = rest.get(open + 1..).unwrap_or("");
        let inner_len = after.find(']').filter(|&n| n > 0 && n <= 24).filter(|&n| {
            let inner = after.get(..n).unwrap_or("");
            inner.chars().any(|c| c.is_ascii_digit())
                && inner
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, ',' | ' ' | '-' | '–' | ';'))
        });
        match inner_len {
            Some(n) => {
                out.push_str(rest.get(..open).unwrap_or("").trim_end_matches(' '));
                rest = after.get(n + 1..).unwrap_or("");
            }
            None => {
                out.push_str(rest.get(..=open).unwrap_or(""));
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The sentences of a passage ([`verity_core::text::sentence_spans`]).
fn split_sentences(text: &str) -> Vec<&str> {
    sentence_spans(text)
        .into_iter()
        .filter_map(|r| text.get(r))
        .collect()
}

/// Normalised content terms of a text: folded, stop words of either
/// language dropped, light stems ([`verity_core::text::content_terms`]).
fn terms(text: &str) -> Vec<String> {
    content_terms(text)
}

/// Guess `fr` or `en` from function words of the question.
fn guess_lang(question: &str) -> &'static str {
    const FR: &[&str] = &[
        "le", "la", "les", "des", "est", "quel", "quelle", "quels", "quelles", "comment",
        "pourquoi", "qui", "que", "quoi", "une", "du", "au", "aux", "sont", "ce", "cette", "dans",
        "pour", "avec", "combien", "quand", "ou", "et",
    ];
    const EN: &[&str] = &[
        "the", "is", "what", "which", "how", "why", "who", "are", "does", "do", "of", "in", "for",
        "with", "when", "and", "a", "an", "was", "were",
    ];
    let folded = fold(question);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let fr = words.iter().filter(|w| FR.contains(w)).count();
    let en = words.iter().filter(|w| EN.contains(w)).count();
    if fr > en {
        "fr"
    } else {
        "en"
    }
}

/// The "not enough evidence" answer in `lang`.
fn insufficient(lang: &str) -> &'static str {
    match lang.split(['-', '_']).next().unwrap_or("en") {
        "fr" => "Les sources fournies ne contiennent pas suffisamment d'éléments pour répondre à cette question.",
        "es" => "Las fuentes proporcionadas no contienen suficiente evidencia para responder a esta pregunta.",
        "de" => "Die bereitgestellten Quellen enthalten nicht genügend Belege, um diese Frage zu beantworten.",
        _ => "The provided sources do not contain enough evidence to answer this question.",
    }
}

/// Split text into stream pieces: each word with the whitespace that follows it.
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_space = false;
    for c in text.chars() {
        if !c.is_whitespace() && in_space {
            out.push(std::mem::take(&mut cur));
            in_space = false;
        }
        if c.is_whitespace() {
            in_space = true;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl ExtractiveGenerator {
    fn grounding<'a>(&self, req: &'a ChatRequest) -> Result<&'a Grounding> {
        req.grounding.as_ref().ok_or_else(|| {
            perr(
                PROVIDER,
                ProviderErrorKind::InvalidRequest,
                "the extractive generator needs `grounding` (question + numbered context blocks) in the request",
            )
        })
    }
}

#[async_trait]
impl Generator for ExtractiveGenerator {
    fn model(&self) -> &str {
        MODEL
    }

    async fn generate(&self, req: &ChatRequest) -> Result<Generation> {
        let g = self.grounding(req)?;
        Ok(Generation {
            text: self.answer(g),
            model: MODEL.to_string(),
            finish_reason: FinishReason::Stop,
            usage: Usage::default(),
        })
    }

    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream> {
        let g = self.grounding(req)?;
        let parts: Vec<Result<String>> = pieces(&self.answer(g)).into_iter().map(Ok).collect();
        Ok(Box::pin(futures::stream::iter(parts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sentences() {
        let s = split_sentences(
            "Dr. Smith arrived at 3 p.m. today. It rained! Did it? Yes.\n\n- item one\n- item two",
        );
        assert_eq!(
            s,
            vec![
                "Dr. Smith arrived at 3 p.m. today.",
                "It rained!",
                "Did it?",
                "Yes.",
                "- item one",
                "- item two"
            ]
        );
        let s = split_sentences("Version 2.5 is out. The value is 3.14 exactly.");
        assert_eq!(s, vec!["Version 2.5 is out.", "The value is 3.14 exactly."]);
        let s = split_sentences("A wrapped\nline continues here. Next one.");
        assert_eq!(s, vec!["A wrapped\nline continues here.", "Next one."]);
        let s = split_sentences("« Il a dit : bonjour. » Puis il est parti.");
        assert_eq!(s.len(), 2);
        let s = split_sentences("It regulates meiosis. rim1 mutants fail. 3 mg. daily dose.");
        assert_eq!(
            s,
            vec![
                "It regulates meiosis.",
                "rim1 mutants fail.",
                "3 mg. daily dose."
            ]
        );
    }

    #[test]
    fn strips_reference_markers() {
        assert_eq!(
            strip_reference_markers("Mice improved [14] and rats [3, 5–7]. See [a] [x1"),
            "Mice improved and rats. See [a] [x1"
        );
        assert_eq!(strip_reference_markers("No markers."), "No markers.");
    }

    #[test]
    fn stems_and_folds() {
        assert_eq!(
            terms("Énergies renouvelables"),
            terms("énergie renouvelable")
        );
        assert_eq!(
            terms("boils boiling"),
            vec!["boil".to_string(), "boil".to_string()]
        );
        assert!(terms("What is the of").is_empty());
        assert_eq!(terms("cities"), terms("city"));
        assert_eq!(terms("energy"), terms("énergies"));
    }

    #[test]
    fn guesses_language() {
        assert_eq!(guess_lang("Quelle est la capitale de la France ?"), "fr");
        assert_eq!(guess_lang("What is the capital of France?"), "en");
    }

    #[test]
    fn pieces_concatenate() {
        let t = "Water boils at 100 °C.  [1] Next";
        assert_eq!(pieces(t).concat(), t);
        assert!(pieces(t).len() >= 5);
    }
}
