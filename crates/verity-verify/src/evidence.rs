//! Evidence: a source split into sentences once (and embedded once when an
//! embedder is given), then the best sentences for a claim, each with its
//! byte offsets in the source.
//!
//! A sentence's score is its similarity to the claim — BM25 over content
//! terms (short forms the source defines count as their long forms, see
//! [`rank::abbreviations`]) divided by the best sentence's, and, with
//! vectors, cosine similarity min–max normalised over the source's
//! sentences, mixed
//! [`DENSE_WEIGHT`] to dense — adjusted by its rhetorical role
//! ([`rank::roles`]): background, aims and methods name a claim's topic
//! without deciding it ([`BACKGROUND_PENALTY`]), stated findings do
//! ([`FINDING_BONUS`]). Sentences with no similarity at all are not passages.
//!
//! When the embedder gives word-piece vectors ([`Embedder::embed_tokens`],
//! the local models), the claim's word pieces are also aligned with each
//! sentence's ([`align`]) and the score is a boosted forest fitted on
//! SciFact ([`rank::forest`], see [`scores`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use verity_core::embed::cosine;
use verity_core::{Embedder, Passage, Result, TokenEmbeddings};

use crate::align::{self, Alignment};
use crate::forest::Forest;
use crate::rank::{self, FeatureSet, Role};
use crate::text::sentence_spans;

/// Share of the dense (cosine) similarity in the mixed similarity, when
/// sentence vectors are present.
pub const DENSE_WEIGHT: f64 = 0.7;
/// Subtracted from the score of a background, aim or method sentence.
pub const BACKGROUND_PENALTY: f64 = 0.5;
/// Added to the score of a sentence that states a finding.
pub const FINDING_BONUS: f64 = 0.1;

/// Sentences shorter than this (in words) are not passages.
const MIN_WORDS: usize = 3;
/// Longest sentence kept as one passage (bytes); longer runs are cut.
const MAX_SENTENCE: usize = 1200;

/// A sentence's word-piece vectors and their weights ([`align::piece_weights`]).
type SentencePieces = (Vec<Vec<f32>>, Vec<f64>);

/// A source ready for passage search.
#[derive(Debug)]
pub struct SourceIndex {
    content: String,
    /// Sentence byte ranges in `content`.
    spans: Vec<std::ops::Range<usize>>,
    /// Term frequencies per sentence.
    tf: Vec<HashMap<String, u32>>,
    lens: Vec<usize>,
    df: HashMap<String, u32>,
    avg_len: f64,
    vectors: Option<Vec<Vec<f32>>>,
    /// Word-piece vectors and their weights per sentence, when the embedder
    /// gives them ([`Embedder::embed_tokens`]).
    tokens: Option<Vec<SentencePieces>>,
    /// Rhetorical role per sentence.
    roles: Vec<Role>,
    /// Words per sentence (a ranking feature; counted once, not per claim).
    words: Vec<usize>,
    /// Per sentence: reports a statistic ([`rank::reports_statistic`]), has a digit.
    figures: Vec<(bool, bool)>,
    /// Short forms defined in the source → long forms.
    abbrevs: HashMap<String, String>,
}

impl SourceIndex {
    /// Index `content` (lexical only).
    pub fn lexical(content: &str) -> Self {
        let all = sentence_spans(content);
        let all_roles = rank::roles(&all.iter().map(|r| &content[r.clone()]).collect::<Vec<_>>());
        let mut spans = Vec::new();
        let mut roles = Vec::new();
        for (r, role) in all.into_iter().zip(all_roles) {
            let s = &content[r.clone()];
            if s.split_whitespace().count() < MIN_WORDS {
                continue;
            }
            if s.len() <= MAX_SENTENCE {
                spans.push(r);
                roles.push(role);
                continue;
            }
            // Cut run-on text (tables, lists without punctuation) on char boundaries.
            let mut a = r.start;
            while a < r.end {
                let mut b = (a + MAX_SENTENCE).min(r.end);
                while !content.is_char_boundary(b) {
                    b -= 1;
                }
                if let Some(ws) = content[a..b]
                    .rfind(char::is_whitespace)
                    .filter(|&p| p > 0 && b < r.end)
                {
                    b = a + ws;
                }
                spans.push(a..b);
                roles.push(role);
                a = b;
                while a < r.end && content[a..].starts_with(char::is_whitespace) {
                    a += content[a..].chars().next().map_or(1, char::len_utf8);
                }
            }
        }
        let abbrevs = rank::abbreviations(content);
        let mut tf = Vec::with_capacity(spans.len());
        let mut lens = Vec::with_capacity(spans.len());
        let mut df: HashMap<String, u32> = HashMap::new();
        let words: Vec<usize> = spans
            .iter()
            .map(|r| content[r.clone()].split_whitespace().count())
            .collect();
        let figures: Vec<(bool, bool)> = spans
            .iter()
            .map(|r| {
                let t = &content[r.clone()];
                (
                    rank::reports_statistic(t),
                    t.bytes().any(|b| b.is_ascii_digit()),
                )
            })
            .collect();
        for r in &spans {
            let terms = rank::expanded_terms(&content[r.clone()], &abbrevs);
            lens.push(terms.len());
            let mut m: HashMap<String, u32> = HashMap::new();
            for t in terms {
                *m.entry(t).or_default() += 1;
            }
            for k in m.keys() {
                *df.entry(k.clone()).or_default() += 1;
            }
            tf.push(m);
        }
        let avg_len = if lens.is_empty() {
            1.0
        } else {
            lens.iter().sum::<usize>() as f64 / lens.len() as f64
        };
        Self {
            content: content.to_string(),
            spans,
            tf,
            lens,
            df,
            avg_len: avg_len.max(1.0),
            vectors: None,
            tokens: None,
            roles,
            words,
            figures,
            abbrevs,
        }
    }

    /// Index `content` and embed its sentences with `embedder`.
    pub async fn build(content: &str, embedder: Option<&dyn Embedder>) -> Result<Self> {
        let mut idx = Self::lexical(content);
        if let Some(e) = embedder {
            let texts: Vec<String> = idx
                .spans
                .iter()
                .map(|r| content[r.clone()].to_string())
                .collect();
            let mut vectors = Vec::with_capacity(texts.len());
            let mut tokens = Vec::with_capacity(texts.len());
            for batch in texts.chunks(64) {
                match e.embed_tokens(batch).await? {
                    Some(ts) if ts.len() == batch.len() => {
                        for (t, text) in ts.into_iter().zip(batch) {
                            let w = align::piece_weights(text, &t.offsets, |_| 1.0);
                            vectors.push(t.text);
                            tokens.push((t.tokens, w));
                        }
                    }
                    _ => vectors.extend(e.embed(batch).await?),
                }
            }
            if vectors.len() == texts.len() {
                idx.vectors = Some(vectors);
            }
            if tokens.len() == texts.len() {
                idx.tokens = Some(tokens);
            }
        }
        Ok(idx)
    }

    /// The source text.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Sentence `i` (as numbered in [`SentenceFeatures::index`]).
    pub fn sentence(&self, i: usize) -> Option<&str> {
        self.spans.get(i).and_then(|r| self.content.get(r.clone()))
    }

    /// Number of sentences indexed.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// `true` when no sentence was indexed.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Whether sentence vectors are present.
    pub fn is_dense(&self) -> bool {
        self.vectors.is_some()
    }

    /// Whether word-piece vectors are present (token alignment).
    pub fn has_tokens(&self) -> bool {
        self.tokens.is_some()
    }

    /// Inverse sentence frequency of a (stemmed) term in this source; a
    /// term the source lacks gets the highest.
    fn idf(&self, term: &str) -> f64 {
        let n = self.spans.len() as f64;
        let df = f64::from(self.df.get(term).copied().unwrap_or(0));
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    fn bm25(&self, terms: &[String]) -> Vec<f64> {
        let n = self.spans.len() as f64;
        let (k1, b) = (1.2, 0.75);
        let mut uniq = terms.to_vec();
        uniq.sort();
        uniq.dedup();
        (0..self.spans.len())
            .map(|i| {
                uniq.iter()
                    .map(|t| {
                        let f = f64::from(self.tf[i].get(t).copied().unwrap_or(0));
                        if f == 0.0 {
                            return 0.0;
                        }
                        let df = f64::from(self.df.get(t).copied().unwrap_or(0));
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = 1.0 - b + b * self.lens[i] as f64 / self.avg_len;
                        idf * f * (k1 + 1.0) / (f + k1 * norm)
                    })
                    .sum()
            })
            .collect()
    }

    /// Ranking features of every sentence for `claim`: `query` is the
    /// claim's embedding (same embedder as the index) for dense fusion, its
    /// word-piece vectors for token alignment.
    pub fn features(&self, claim: &str, query: &ClaimVectors) -> Vec<SentenceFeatures> {
        let terms = rank::expanded_terms(claim, &self.abbrevs);
        let lex = self.bm25(&terms);
        let max_lex = lex.iter().copied().fold(0.0, f64::max);
        let cos: Option<Vec<f64>> = match (&self.vectors, query.vector.as_deref()) {
            (Some(vs), Some(q)) => Some(vs.iter().map(|v| f64::from(cosine(v, q))).collect()),
            _ => None,
        };
        let dense = cos.as_deref().map(min_max);
        let aligned: Option<Vec<Alignment>> = match (&self.tokens, &query.tokens) {
            (Some(ts), Some(q)) => {
                let qw = align::piece_weights(claim, &q.offsets, |t| self.idf(t));
                Some(
                    ts.iter()
                        .map(|(v, w)| align::align(&q.tokens, &qw, v, w))
                        .collect(),
                )
            }
            _ => None,
        };
        let n = self.spans.len();
        (0..n)
            .map(|i| SentenceFeatures {
                index: i,
                lexical: if max_lex > 0.0 { lex[i] / max_lex } else { 0.0 },
                cosine: cos.as_ref().map(|c| c[i]),
                dense: dense.as_ref().map(|d| d[i]),
                alignment: aligned.as_ref().map(|a| a[i]),
                role: self.roles[i],
                position: i as f64 / n.saturating_sub(1).max(1) as f64,
                words: self.words[i],
                statistic: self.figures[i].0,
                digits: self.figures[i].1,
            })
            .collect()
    }

    /// The `k` best sentences for `claim`, best first. `query_vector` is the
    /// claim's embedding (same embedder as the index) for dense fusion.
    pub fn passages(&self, claim: &str, query_vector: Option<&[f32]>, k: usize) -> Vec<Passage> {
        let query = ClaimVectors {
            vector: query_vector.map(<[f32]>::to_vec),
            tokens: None,
        };
        self.passages_for(claim, &query, k)
    }

    /// The `k` best sentences for `claim` with its vectors (see [`features`](Self::features)).
    pub fn passages_for(&self, claim: &str, query: &ClaimVectors, k: usize) -> Vec<Passage> {
        self.passages_ranked(claim, query, k, rank::forest())
    }

    /// [`passages_for`](Self::passages_for) with word pieces ranked by
    /// `forest` rather than the shipped one (evaluation swaps in forests
    /// fitted without the claims it scores).
    pub fn passages_ranked(
        &self,
        claim: &str,
        query: &ClaimVectors,
        k: usize,
        forest: Option<&Forest>,
    ) -> Vec<Passage> {
        if self.spans.is_empty() || k == 0 {
            return Vec::new();
        }
        let fs = self.features(claim, query);
        let set = match fs.first() {
            Some(f) if f.alignment.is_some() => FeatureSet::Tokens,
            Some(f) if f.dense.is_some() => FeatureSet::Dense,
            _ => FeatureSet::Lexical,
        };
        let mut scored: Vec<(usize, f64)> = scores_ranked(&fs, set, forest)
            .into_iter()
            .zip(&fs)
            .filter_map(|(s, f)| s.map(|s| (f.index, s)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(k)
            .map(|(i, s)| {
                let r = self.spans[i].clone();
                Passage {
                    text: self.content[r.clone()].to_string(),
                    start: r.start,
                    end: r.end,
                    score: s as f32,
                    source_url: None,
                }
            })
            .collect()
    }
}

/// A claim's vectors for [`SourceIndex::passages_for`].
#[derive(Debug, Clone, Default)]
pub struct ClaimVectors {
    /// The claim's embedding.
    pub vector: Option<Vec<f32>>,
    /// The claim's word-piece vectors.
    pub tokens: Option<TokenEmbeddings>,
}

/// What the ranking knows of one sentence against one claim.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SentenceFeatures {
    /// Sentence number in the source.
    pub index: usize,
    /// BM25 divided by the source's best sentence's (0–1).
    pub lexical: f64,
    /// Cosine of the sentence and claim vectors.
    pub cosine: Option<f64>,
    /// The cosine min–max normalised over the source's sentences (0–1).
    pub dense: Option<f64>,
    /// Word-piece alignment with the claim.
    pub alignment: Option<Alignment>,
    /// Rhetorical role.
    pub role: Role,
    /// Place in the source, 0 (first sentence) to 1 (last).
    pub position: f64,
    /// Words in the sentence.
    pub words: usize,
    /// The sentence reports a statistic ([`rank::reports_statistic`]).
    #[serde(default)]
    pub statistic: bool,
    /// The sentence has a digit.
    #[serde(default)]
    pub digits: bool,
}

/// A sentence's hand-set ranking score (words, and the 0.3/0.7 mix with
/// vectors), `None` when it has no similarity at all to the claim (not a
/// passage).
pub fn score(f: &SentenceFeatures) -> Option<f64> {
    let sim = match f.dense {
        Some(d) => (1.0 - DENSE_WEIGHT) * f.lexical + DENSE_WEIGHT * d,
        None => f.lexical,
    };
    if sim <= 0.0 {
        return None;
    }
    let role = match f.role {
        Role::Background => -BACKGROUND_PENALTY,
        Role::Finding => FINDING_BONUS,
        Role::Neutral => 0.0,
    };
    Some(sim + role)
}

/// Each sentence's score (`None`: not a passage). Words, or words and
/// sentence vectors: [`score`]. With word pieces too: the fitted forest's
/// log-odds ([`rank::forest`]) as a likelihood relative to the best
/// sentence's, `exp(s − best)` (1 for the best; the judge weighs a passage
/// by its score over the best one's).
pub fn scores(fs: &[SentenceFeatures], set: FeatureSet) -> Vec<Option<f64>> {
    scores_ranked(fs, set, rank::forest())
}

/// [`scores`] with word pieces ranked by `forest` (`None`: the hand-set score).
pub fn scores_ranked(
    fs: &[SentenceFeatures],
    set: FeatureSet,
    forest: Option<&Forest>,
) -> Vec<Option<f64>> {
    let forest = match (set, forest) {
        (FeatureSet::Tokens, Some(forest)) => forest,
        _ => return fs.iter().map(score).collect(),
    };
    let logits: Vec<Option<f64>> = fs
        .iter()
        .zip(rank::forest_rows(fs, set))
        .map(|(f, x)| score(f).map(|_| forest.score(&x)))
        .collect();
    let best = logits
        .iter()
        .flatten()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    logits
        .into_iter()
        .map(|s| s.map(|s| (s - best).exp()))
        .collect()
}

/// `xs` rescaled to 0–1 (all 1 when they are equal and positive, else 0).
pub(crate) fn min_max(xs: &[f64]) -> Vec<f64> {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi > lo {
        xs.iter().map(|x| (x - lo) / (hi - lo)).collect()
    } else {
        vec![if hi > 0.0 { 1.0 } else { 0.0 }; xs.len()]
    }
}

/// Source indexes cached by content hash, so a source shared by many claims
/// (or many runs) is split and embedded once.
#[derive(Debug, Default)]
pub struct EvidenceCache {
    map: Mutex<HashMap<String, Arc<SourceIndex>>>,
    capacity: usize,
}

impl EvidenceCache {
    /// A cache holding at most `capacity` sources (cleared when full).
    pub fn new(capacity: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// The index of `content`, built on first use.
    pub async fn get_or_build(
        &self,
        content: &str,
        embedder: Option<&dyn Embedder>,
    ) -> Result<Arc<SourceIndex>> {
        let key = format!(
            "{}:{}",
            verity_core::hash::sha1_hex(content.as_bytes()),
            embedder.map_or_else(String::new, |e| e.id().to_string())
        );
        if let Some(hit) = self.map.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(hit);
        }
        let idx = Arc::new(SourceIndex::build(content, embedder).await?);
        if let Ok(mut m) = self.map.lock() {
            if m.len() >= self.capacity {
                m.clear();
            }
            m.insert(key, idx.clone());
        }
        Ok(idx)
    }

    /// Sources cached.
    pub fn len(&self) -> usize {
        self.map.lock().map_or(0, |m| m.len())
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_sentence_with_offsets() {
        let src = "Intro text about nothing in particular. In 2023, 78 % of companies had adopted AI in at least one function. Weather was mild that year overall.";
        let idx = SourceIndex::lexical(src);
        assert_eq!(idx.len(), 3);
        let p = idx.passages("85 % of companies use AI", None, 2);
        assert_eq!(
            p[0].text,
            "In 2023, 78 % of companies had adopted AI in at least one function."
        );
        assert_eq!(&src[p[0].start..p[0].end], p[0].text);
        assert!(idx.passages("", None, 3).is_empty());
    }

    #[test]
    fn findings_outrank_the_background_that_repeats_the_claim() {
        let src = "BACKGROUND Exercise is thought to lower cancer mortality, but whether \
                   exercise lowers cancer mortality in older women is unknown. \
                   METHODS We followed 7,000 women aged 60 to 80 years for ten years. \
                   RESULTS Women who exercised daily had a lower risk of death from cancer \
                   (hazard ratio 0.71, 95% CI 0.60-0.84). \
                   CONCLUSIONS Regular exercise reduces cancer mortality in older women.";
        let idx = SourceIndex::lexical(src);
        let p = idx.passages("Exercise lowers cancer mortality in older women.", None, 4);
        assert!(p[0].text.starts_with("CONCLUSIONS"), "{p:#?}");
        let background = p.iter().position(|x| x.text.starts_with("BACKGROUND"));
        assert!(background.is_some_and(|b| b >= 1), "{p:#?}");
        // Scores stay ordered and passages stay verbatim.
        assert!(p.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(p.iter().all(|x| src[x.start..x.end] == x.text));
    }

    #[test]
    fn a_short_form_matches_the_long_form_of_the_claim() {
        let src = "Pyridostatin (PDS) stabilizes G-quadruplexes in telomeres. \
                   Replication stalls at telomeres in many cell types. \
                   We show that PDS induces accumulation of breaks in BRCA2-deficient cells.";
        let idx = SourceIndex::lexical(src);
        let p = idx.passages("Pyridostatin induces the accumulation of breaks.", None, 3);
        assert!(p[0].text.starts_with("We show that PDS"), "{p:#?}");
    }

    #[test]
    fn one_sentence_and_dense_only_sources_still_give_passages() {
        let one = SourceIndex::lexical("Mars has two small moons named Phobos and Deimos.");
        assert_eq!(one.passages("Mars has two moons", None, 3).len(), 1);
        let mut idx = SourceIndex::lexical("Cats purr when content. Dogs bark at strangers.");
        idx.vectors = Some(vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        // No shared word: the dense side alone ranks, the weaker sentence is cut.
        let p = idx.passages("felines", Some(&[0.9, 0.1]), 3);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].text, "Cats purr when content.");
    }

    fn features_of(lex: &[f64], dense: &[f64], recall: &[f64]) -> Vec<SentenceFeatures> {
        (0..lex.len())
            .map(|i| SentenceFeatures {
                index: i,
                lexical: lex[i],
                cosine: Some(0.3 + dense[i] / 4.0),
                dense: Some(dense[i]),
                alignment: Some(Alignment {
                    recall: recall[i],
                    precision: 0.5,
                }),
                role: Role::Neutral,
                position: i as f64 / (lex.len() - 1) as f64,
                words: 20,
                statistic: false,
                digits: false,
            })
            .collect()
    }

    #[test]
    fn fitted_scores_are_relative_likelihoods_and_alignment_decides_a_paraphrase() {
        // Sentence 1 shares the claim's words; sentence 2 says the claim in
        // other words (no shared word, the closest vector and word pieces);
        // sentence 0 has nothing of it at all and is no passage.
        let fs = features_of(
            &[0.0, 1.0, 0.0, 0.2],
            &[0.0, 0.5, 1.0, 0.3],
            &[0.30, 0.45, 0.85, 0.35],
        );
        let s = scores(&fs, FeatureSet::Tokens);
        assert_eq!(s[0], None);
        assert_eq!(s[2], Some(1.0), "{s:?}");
        assert!(s[1].is_some_and(|x| x > 0.0 && x < 1.0), "{s:?}");
        // Sentence vectors alone: the hand-set mix, 0.3 · BM25 + 0.7 · cosine.
        let d = scores(&fs, FeatureSet::Dense);
        assert_eq!(d[0], None);
        assert!((d[1].unwrap_or(0.0) - 0.65).abs() < 1e-9, "{d:?}");
        assert!((d[2].unwrap_or(0.0) - 0.7).abs() < 1e-9, "{d:?}");
        // Words only: the hand-set score, unchanged.
        let words_only: Vec<SentenceFeatures> = fs
            .iter()
            .map(|f| SentenceFeatures {
                cosine: None,
                dense: None,
                alignment: None,
                ..*f
            })
            .collect();
        let l = scores(&words_only, FeatureSet::Lexical);
        assert_eq!(l, vec![None, Some(1.0), None, Some(0.2)]);
    }
}
