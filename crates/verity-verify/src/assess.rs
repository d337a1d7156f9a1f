//! The one judging path: does this source support this claim?
//!
//! ```text
//! claim + SourceText ─► passages (sentences ranked: BM25 ⊕ dense ⊕ word pieces, cached by content hash)
//!                    ─► Judge (local or LLM; an LLM judge that fails or answers off-schema
//!                       is replaced by the local judge, with a note)
//!                    ─► checks (quote is the source's characters, relevance, figures and dates, quote required)
//!                    ─► Assessment {verdict, confidence, explanation, source_quote, quote_context, judge, notes}
//! ```
//!
//! Every caller asks it: `verity check` ([`crate::Verifier`]), the tech
//! watch's `verify_fact`, the research report check and the answers that
//! check themselves (`ask` with `verify`). A fix here is a fix for all.
//!
//! ```
//! # async fn demo() {
//! use verity_verify::assess::Assessor;
//! use verity_verify::reader::SourceText;
//! let assessor = Assessor::builder().build();
//! let source = SourceText::from_markdown(
//!     "# Survey\n\nIn 2023, **78%** of companies had adopted AI in at least one function.",
//! );
//! let a = assessor.assess("85% of companies use AI", &source, None).await;
//! assert_eq!(a.verdict, verity_verify::Verdict::Partial);
//! assert_eq!(
//!     a.source_quote.as_deref(),
//!     Some("In 2023, 78% of companies had adopted AI in at least one function.")
//! );
//! # }
//! ```

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use verity_core::{Embedder, Judge, Judgement, Passage, Result, Verdict};

use crate::checks;
use crate::evidence::{ClaimVectors, EvidenceCache, SentenceFeatures, SourceIndex};
use crate::explain::Explain;
use crate::forest::Forest;
use crate::judge_local::LocalJudge;
use crate::rank;
use crate::reader::SourceText;

/// The decider named in an [`Assessment`] when the source has no passage
/// about the claim: no judge was asked.
pub const NO_PASSAGE_JUDGE: &str = "none (no passage)";
use crate::types::QuoteContext;

/// The verdict on one claim against one source, with everything that backs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Assessment {
    /// The verdict (never `SOURCE_UNAVAILABLE`: that comes from fetching).
    pub verdict: Verdict,
    /// Confidence, 0–1.
    pub confidence: f32,
    /// Why, in the claim's language and words.
    pub explanation: String,
    /// The sentence of the source that decides it: the source's characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_quote: Option<String>,
    /// The quote in its context (offsets in the source's text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote_context: Option<QuoteContext>,
    /// The passages the judge read, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passages: Vec<Passage>,
    /// Which judge decided (`local`, `llm:<model>`).
    pub judge: String,
    /// The judge configured failed and the local judge decided instead.
    #[serde(default)]
    pub fell_back: bool,
    /// What changed the verdict or the quote after the judge, and fallbacks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The judge's quote was not the source's and was replaced.
    #[serde(default)]
    pub quote_replaced: bool,
    /// The checks changed the judge's verdict.
    #[serde(default)]
    pub downgraded: bool,
    /// Tokens the judge spent (LLM judges).
    #[serde(default)]
    pub tokens: u64,
    /// Time spent (passages, judge, checks), ms.
    pub elapsed_ms: f64,
}

/// Builds an [`Assessor`].
pub struct AssessorBuilder {
    judge: Arc<dyn Judge>,
    embedder: Option<Arc<dyn Embedder>>,
    ranking: Option<Arc<Forest>>,
    top_k: usize,
    cache: usize,
}

impl AssessorBuilder {
    /// The judge (default: [`LocalJudge`]).
    pub fn judge(mut self, judge: Arc<dyn Judge>) -> Self {
        self.judge = judge;
        self
    }

    /// Sentence vectors for passage search (BM25 only without one).
    pub fn embedder(mut self, embedder: Option<Arc<dyn Embedder>>) -> Self {
        self.embedder = embedder;
        self
    }

    /// The forest ranking a source's sentences when the embedder gives word
    /// pieces (default: the one fitted on SciFact, [`rank::forest`]).
    pub fn ranking(mut self, forest: Arc<Forest>) -> Self {
        self.ranking = Some(forest);
        self
    }

    /// Passages handed to the judge per claim (default 5).
    pub fn top_k(mut self, k: usize) -> Self {
        self.top_k = k.max(1);
        self
    }

    /// Sources whose sentence index is kept (default 256).
    pub fn cache_capacity(mut self, n: usize) -> Self {
        self.cache = n.max(1);
        self
    }

    /// The assessor.
    pub fn build(self) -> Assessor {
        Assessor {
            judge: self.judge,
            fallback: LocalJudge::new(),
            embedder: self.embedder,
            cache: Arc::new(EvidenceCache::new(self.cache)),
            ranking: self.ranking,
            top_k: self.top_k,
        }
    }
}

/// Passages → judge → checks → verdict, for every caller (see the module doc).
#[derive(Clone)]
pub struct Assessor {
    judge: Arc<dyn Judge>,
    fallback: LocalJudge,
    embedder: Option<Arc<dyn Embedder>>,
    cache: Arc<EvidenceCache>,
    ranking: Option<Arc<Forest>>,
    top_k: usize,
}

impl std::fmt::Debug for Assessor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Assessor")
            .field("judge", &self.judge.name())
            .field("dense", &self.embedder.is_some())
            .field("top_k", &self.top_k)
            .finish()
    }
}

impl Default for Assessor {
    fn default() -> Self {
        Self::builder().build()
    }
}

impl Assessor {
    /// A builder with the local judge, no embedder, 5 passages per claim.
    pub fn builder() -> AssessorBuilder {
        AssessorBuilder {
            judge: Arc::new(LocalJudge::new()),
            embedder: None,
            ranking: None,
            top_k: 5,
            cache: 256,
        }
    }

    /// The judge configured.
    pub fn judge(&self) -> &Arc<dyn Judge> {
        &self.judge
    }

    /// Whether passages use sentence vectors.
    pub fn is_dense(&self) -> bool {
        self.embedder.is_some()
    }

    /// This assessor ranking with `forest`; it shares the source cache.
    pub fn with_ranking(&self, forest: Arc<Forest>) -> Self {
        Self {
            ranking: Some(forest),
            ..self.clone()
        }
    }

    /// This assessor with another judge; it shares the source cache.
    pub fn with_judge(&self, judge: Arc<dyn Judge>) -> Self {
        Self {
            judge,
            ..self.clone()
        }
    }

    /// This assessor handing `k` passages to the judge.
    pub fn with_top_k(&self, k: usize) -> Self {
        Self {
            top_k: k.max(1),
            ..self.clone()
        }
    }

    /// Index `text` now (sentences, and vectors with an embedder), so that
    /// the first claim on it does not wait; falls back to words only when
    /// the embedder fails, and says so (`false`).
    pub async fn prepare(&self, text: &SourceText) -> bool {
        match self
            .cache
            .get_or_build(text.as_str(), self.embedder.as_deref())
            .await
        {
            Ok(_) => true,
            Err(_) => {
                let _ = self.cache.get_or_build(text.as_str(), None).await;
                false
            }
        }
    }

    /// Judge `claim` against `source` (see the module doc). Never fails: an
    /// embedder error ranks by words only, a judge error lets the local
    /// judge decide; both are said in `notes`.
    pub async fn assess(
        &self,
        claim: &str,
        source: &SourceText,
        source_url: Option<&str>,
    ) -> Assessment {
        let t0 = Instant::now();
        let text = source.as_str();
        let mut notes = Vec::new();
        // A French claim searches an English source with its translations too.
        let query = crate::lexicon::retrieval_text(claim);
        let mut passages = match self.passages(&query, text).await {
            Ok(p) => p,
            Err(e) => {
                notes.push(format!(
                    "sentence vectors unavailable ({e}): passages ranked by words only"
                ));
                let idx = SourceIndex::lexical(text);
                idx.passages_ranked(&query, &ClaimVectors::default(), self.top_k, None)
            }
        };
        for p in &mut passages {
            p.source_url = source_url.map(str::to_string);
        }
        let mut fell_back = false;
        // The judge reads the title too (framing words); quotes come from the text.
        let whole = source.with_title();
        // No passage: nothing for any judge to read, so none is asked and
        // none is named as the decider (an LLM judge is not billed for it).
        let judged = if passages.is_empty() {
            Ok(Judgement::new(
                Verdict::Inconclusive,
                0.6,
                Explain::for_claim(claim).no_passage(),
                NO_PASSAGE_JUDGE,
            ))
        } else {
            self.judge.judge_in(claim, &passages, &whole).await
        };
        let mut j = match judged {
            Ok(j) => j,
            Err(e) => {
                fell_back = true;
                notes.push(format!(
                    "the {} judge failed ({e}); the local judge decided",
                    self.judge.name()
                ));
                self.fallback.decide_in(claim, &passages, Some(&whole))
            }
        };
        let outcome = checks::run(claim, &mut j, text, &passages);
        notes.extend(outcome.notes);
        Assessment {
            verdict: j.verdict,
            confidence: j.confidence,
            explanation: j.explanation,
            source_quote: outcome.context.as_ref().map(|c| c.quote.clone()),
            quote_context: outcome.context,
            passages,
            judge: j.judge,
            fell_back,
            notes,
            quote_replaced: outcome.quote_replaced,
            downgraded: outcome.downgraded,
            tokens: u64::from(j.tokens.unwrap_or(0)),
            elapsed_ms: t0.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// The best sentences of `text` for `claim` (index cached by content hash).
    pub async fn passages(&self, claim: &str, text: &str) -> Result<Vec<Passage>> {
        let (idx, query) = self.indexed(claim, text).await?;
        let forest = match &self.ranking {
            Some(f) => Some(f.as_ref()),
            None => rank::forest(),
        };
        Ok(idx.passages_ranked(claim, &query, self.top_k, forest))
    }

    /// Ranking features of every sentence of `text` for `claim`, in source
    /// order ([`SourceIndex::features`]), with the source's cached index.
    pub async fn features(
        &self,
        claim: &str,
        text: &str,
    ) -> Result<(Arc<SourceIndex>, Vec<SentenceFeatures>)> {
        let (idx, query) = self.indexed(claim, text).await?;
        let fs = idx.features(claim, &query);
        Ok((idx, fs))
    }

    async fn indexed(&self, claim: &str, text: &str) -> Result<(Arc<SourceIndex>, ClaimVectors)> {
        let idx = self
            .cache
            .get_or_build(text, self.embedder.as_deref())
            .await?;
        let query = self.claim_vectors(claim, &idx).await?;
        Ok((idx, query))
    }

    /// The claim's vector (and word-piece vectors when the index has them).
    async fn claim_vectors(&self, claim: &str, idx: &SourceIndex) -> Result<ClaimVectors> {
        let Some(e) = self.embedder.as_deref().filter(|_| idx.is_dense()) else {
            return Ok(ClaimVectors::default());
        };
        if idx.has_tokens() {
            if let Some(t) = e
                .embed_tokens(&[claim.to_string()])
                .await?
                .and_then(|mut v| v.pop())
            {
                return Ok(ClaimVectors {
                    vector: Some(t.text.clone()),
                    tokens: Some(t),
                });
            }
        }
        Ok(ClaimVectors {
            vector: Some(e.embed_query(claim).await?),
            tokens: None,
        })
    }
}

/// Whether `v` is a verdict the source decides (SUPPORTED, NOT_SUPPORTED, PARTIAL).
pub fn is_decisive(v: Verdict) -> bool {
    matches!(
        v,
        Verdict::Supported | Verdict::NotSupported | Verdict::Partial
    )
}
