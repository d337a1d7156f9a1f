//! The grounded RAG pipeline (seed 001):
//! question → retrieve top-k → re-rank → keep the top context blocks →
//! guardrail → strict prompt → generate (fallback on timeout, failure or low
//! confidence) → citations checked → [`Answer`], with an answer cache.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use tracing::{info_span, warn, Instrument};
use verity_core::cache::{answer_key, uid_tag};
use verity_core::{
    Answer, Cache, ChatRequest, Error, Generation, GenerationParams, Generator, Grounding,
    ProviderErrorKind, Result, ScoredChunk, SearchMode, SearchQuery, SearchResults, Timings,
    VerifyMode,
};

use crate::citations;
use crate::injection::{quote_inert, InjectionFilter, InjectionPolicy};
use crate::prompt;
use crate::retrieve::{CacheCounters, Retriever};

pub use crate::config::{
    AnswerCheck, LowEvidencePolicy, RagConfig, RagEvent, RagQuestion, RagStream, TimeoutPolicy,
};

mod generation;

/// Counters exposed by the pipeline.
#[derive(Debug, Default)]
pub struct RagCounters {
    /// Answer cache hits and misses.
    pub answer_cache: CacheCounters,
    generations: std::sync::atomic::AtomicU64,
    timeouts: std::sync::atomic::AtomicU64,
    fallbacks: std::sync::atomic::AtomicU64,
    uncited: std::sync::atomic::AtomicU64,
    caught: std::sync::atomic::AtomicU64,
}

impl RagCounters {
    /// Answer sentences the check caught (not supported by what they cite).
    pub fn caught(&self) -> u64 {
        self.caught.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// `(generations, timeouts, fallbacks, answers without a valid citation)`.
    pub fn snapshot(&self) -> (u64, u64, u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.generations.load(Relaxed),
            self.timeouts.load(Relaxed),
            self.fallbacks.load(Relaxed),
            self.uncited.load(Relaxed),
        )
    }
}

struct Inner {
    retriever: Retriever,
    generator: Arc<dyn Generator>,
    fallback: Option<Arc<dyn Generator>>,
    cache: Option<Arc<dyn Cache>>,
    config: RagConfig,
    injection: InjectionFilter,
    latencies: Mutex<VecDeque<f64>>,
    counters: RagCounters,
    checker: Option<Arc<dyn AnswerCheck>>,
}

/// The RAG pipeline. Cheap to clone (shared state behind an `Arc`).
#[derive(Clone)]
pub struct RagPipeline {
    inner: Arc<Inner>,
}

/// Builder of [`RagPipeline`].
pub struct RagPipelineBuilder {
    retriever: Retriever,
    generator: Arc<dyn Generator>,
    fallback: Option<Arc<dyn Generator>>,
    cache: Option<Arc<dyn Cache>>,
    config: RagConfig,
    checker: Option<Arc<dyn AnswerCheck>>,
}

impl RagPipelineBuilder {
    /// The check answers go through before they are returned ([`AnswerCheck`]).
    pub fn answer_check(mut self, c: Option<Arc<dyn AnswerCheck>>) -> Self {
        self.checker = c;
        self
    }
    /// Generator tried when the main one times out, fails or answers with low confidence.
    pub fn fallback(mut self, g: Option<Arc<dyn Generator>>) -> Self {
        self.fallback = g;
        self
    }
    /// Answer cache.
    pub fn cache(mut self, c: Option<Arc<dyn Cache>>) -> Self {
        self.cache = c;
        self
    }
    /// Settings.
    pub fn config(mut self, c: RagConfig) -> Self {
        self.config = c;
        self
    }
    /// Build.
    pub fn build(self) -> RagPipeline {
        RagPipeline {
            inner: Arc::new(Inner {
                retriever: self.retriever,
                generator: self.generator,
                fallback: self.fallback,
                cache: self.cache,
                config: self.config,
                injection: InjectionFilter::new(),
                latencies: Mutex::new(VecDeque::new()),
                counters: RagCounters::default(),
                checker: self.checker,
            }),
        }
    }
}

/// Everything prepared before generation.
struct Prepared {
    lang: String,
    hits: Vec<ScoredChunk>,
    retrieval: SearchResults,
    request: ChatRequest,
    /// Where the answer is cached (`None`: not cached).
    cache_key: Option<String>,
    notes: Vec<String>,
    timings: Timings,
}

enum Preparation {
    Ready(Box<Prepared>),
    /// Answered without generating: the guardrail's refusal, or a cached
    /// answer with the context it was generated from.
    Answered(Box<Answer>, Vec<ScoredChunk>),
}

impl RagPipeline {
    /// Start building a pipeline from a retriever and a generator.
    pub fn builder(retriever: Retriever, generator: Arc<dyn Generator>) -> RagPipelineBuilder {
        RagPipelineBuilder {
            retriever,
            generator,
            fallback: None,
            cache: None,
            config: RagConfig::default(),
            checker: None,
        }
    }

    /// The retriever (search without generation keeps working when generators are down).
    pub fn retriever(&self) -> &Retriever {
        &self.inner.retriever
    }

    /// Settings.
    pub fn config(&self) -> &RagConfig {
        &self.inner.config
    }

    /// Model of the main generator.
    pub fn model(&self) -> &str {
        self.inner.generator.model()
    }

    /// The main generator (shared with other uses, e.g. a judge).
    pub fn generator(&self) -> &Arc<dyn Generator> {
        &self.inner.generator
    }

    /// Counters.
    pub fn counters(&self) -> &RagCounters {
        &self.inner.counters
    }

    /// Passages and questions flagged by the injection filter so far.
    pub fn injections_flagged(&self) -> u64 {
        self.inner.injection.flagged()
    }

    /// Answer a question from the sources.
    pub async fn ask(&self, req: &RagQuestion) -> Result<Answer> {
        let started = Instant::now();
        let p = match self.prepare(req, started).await? {
            Preparation::Answered(mut a, hits) => {
                self.verify(&mut a, &hits, req).await;
                return Ok(*a);
            }
            Preparation::Ready(p) => *p,
        };
        let gen_started = Instant::now();
        let (generation, degraded, mut notes) = self.generate_with_fallback(&p).await?;
        let mut timings = p.timings;
        timings.generation_ms = ms(gen_started.elapsed());
        notes.splice(0..0, p.notes.iter().cloned());
        let mode = req.verify.unwrap_or(self.inner.config.verify);
        self.finish(&p, generation, degraded, notes, timings, started, mode)
            .await
    }

    /// Check `answer` against `context` in the request's mode (else the
    /// configured one), when a check is plugged in; counts what it caught in
    /// `answer_hallucination_flag`.
    async fn verify(&self, answer: &mut Answer, context: &[ScoredChunk], req: &RagQuestion) {
        let lang = req
            .lang
            .as_deref()
            .unwrap_or(&self.inner.config.default_lang);
        let mode = req.verify.unwrap_or(self.inner.config.verify);
        self.check(answer, context, mode, lang).await;
    }

    /// [`verify`](Self::verify) in a resolved mode. An answer none of whose
    /// checked sentences is supported by what it cites becomes "not enough
    /// evidence" (in `lang`), its verification kept to show why: a wrong
    /// answer is worse than none.
    async fn check(
        &self,
        answer: &mut Answer,
        context: &[ScoredChunk],
        mode: VerifyMode,
        lang: &str,
    ) {
        let Some(checker) = &self.inner.checker else {
            return;
        };
        if mode == VerifyMode::Off || answer.not_enough_evidence || answer.citations.is_empty() {
            return;
        }
        let started = Instant::now();
        checker.check(answer, context, mode).await;
        if let Some(v) = &answer.verification {
            if v.flagged > 0 {
                metrics::counter!("answer_hallucination_flag").increment(v.flagged as u64);
                self.inner
                    .counters
                    .caught
                    .fetch_add(v.flagged as u64, std::sync::atomic::Ordering::Relaxed);
                answer.notes.push(format!(
                    "{} of {} cited sentences are not supported by what they cite ({})",
                    v.flagged,
                    v.checked,
                    match v.mode {
                        VerifyMode::Strip => "removed",
                        _ => "marked",
                    }
                ));
            }
            if v.checked > 0 && v.supported == 0 {
                answer.notes.push(format!(
                    "none of the {} checked sentences is supported by what it cites: not enough evidence",
                    v.checked
                ));
                answer.text = prompt::not_enough_evidence_text(lang).to_string();
                answer.citations.clear();
                answer.not_enough_evidence = true;
            }
        }
        answer.timings.total_ms += ms(started.elapsed());
    }

    /// Answer a question, streaming the text as it is generated. Returns
    /// once the first event is there: an error before any text (generator
    /// down, timeout before the first token) is this call's error, as
    /// [`ask`](Self::ask) would return it, never an event of a stream that
    /// looked like a success.
    pub async fn ask_stream(&self, req: &RagQuestion) -> Result<RagStream> {
        let started = Instant::now();
        let p = match self.prepare(req, started).await? {
            Preparation::Answered(mut a, hits) => {
                self.verify(&mut a, &hits, req).await;
                let text = a.text.clone();
                let events = vec![Ok(RagEvent::Delta(text)), Ok(RagEvent::Done(a))];
                return Ok(Box::pin(futures::stream::iter(events)));
            }
            Preparation::Ready(p) => *p,
        };
        let this = self.clone();
        let mode = req.verify;
        let (tx, rx) = futures::channel::mpsc::unbounded::<Result<RagEvent>>();
        tokio::spawn(async move {
            let gen_started = Instant::now();
            let outcome = this.stream_generation(&p, &tx).await;
            let result = match outcome {
                Ok((generation, degraded, mut notes)) => {
                    let mut timings = p.timings;
                    timings.generation_ms = ms(gen_started.elapsed());
                    notes.splice(0..0, p.notes.iter().cloned());
                    let mode = mode.unwrap_or(this.inner.config.verify);
                    // The deltas were the generation as it came; the final
                    // answer is checked (and may come from the fallback).
                    this.finish(&p, generation, degraded, notes, timings, started, mode)
                        .await
                        .map(|a| RagEvent::Done(Box::new(a)))
                }
                Err(e) => Err(e),
            };
            let _ = tx.unbounded_send(result);
        });
        let mut rx = rx;
        match rx.next().await {
            Some(Err(e)) => Err(e),
            Some(Ok(first)) => Ok(Box::pin(
                futures::stream::once(async { Ok(first) }).chain(rx),
            )),
            None => Err(verity_core::ProviderError::new(
                "generator",
                ProviderErrorKind::Unavailable,
                "the generation task ended before producing anything",
            )
            .into()),
        }
    }

    async fn prepare(&self, req: &RagQuestion, started: Instant) -> Result<Preparation> {
        let cfg = &self.inner.config;
        let question = req.question.trim();
        if question.is_empty() {
            return Err(Error::invalid_input("the question is empty"));
        }
        if cfg.reject_injected_questions && self.inner.injection.screen(question) {
            return Err(Error::invalid_input(
                "the question looks like a prompt injection (e.g. \"ignore the context\"); rephrase it",
            ));
        }
        let lang = req.lang.clone().unwrap_or_else(|| cfg.default_lang.clone());
        let mut notes = Vec::new();
        // The index's state before retrieving: part of the answer's cache key,
        // so that no write leaves an answer computed before it reachable.
        let generation = match &self.inner.cache {
            Some(_) => self.inner.retriever.generation().await?,
            None => None,
        };

        // Retrieve, preferring documents in the answer language.
        let t0 = Instant::now();
        let mut query = SearchQuery::new(question)
            .k(req.k.unwrap_or(cfg.k))
            .mode(req.mode.unwrap_or(cfg.mode));
        query.filters = req.filters.clone();
        let retrieval = if req.lang.is_some() && query.filters.langs.is_empty() {
            let mut in_lang = query.clone();
            in_lang.filters.langs = vec![lang.clone()];
            let r = self.inner.retriever.retrieve(&in_lang).await?;
            if r.hits.is_empty() || r.not_enough_evidence {
                notes.push(format!(
                    "no strong sources in `{lang}`: searched all languages"
                ));
                self.inner.retriever.retrieve(&query).await?
            } else {
                r
            }
        } else {
            self.inner.retriever.retrieve(&query).await?
        };
        let retrieval_ms = ms(t0.elapsed());
        notes.extend(retrieval.notes.iter().cloned());

        // Screen passages for injections, keep the best context blocks.
        let t1 = Instant::now();
        let hits = self.screen(
            retrieval.hits.iter().cloned(),
            cfg.context_chunks,
            &mut notes,
        );
        let rerank_ms = ms(t1.elapsed());
        let timings = Timings {
            retrieval_ms,
            rerank_ms,
            generation_ms: 0.0,
            total_ms: 0.0,
        };

        let weak = retrieval.not_enough_evidence || hits.is_empty();
        if weak && (cfg.low_evidence == LowEvidencePolicy::Refuse || hits.is_empty()) {
            let best = hits.iter().map(|h| h.relevance).fold(0.0f32, f32::max);
            metrics::counter!("rag_not_enough_evidence_total").increment(1);
            return Ok(Preparation::Answered(
                Box::new(Answer {
                    text: prompt::not_enough_evidence_text(&lang).to_string(),
                    citations: vec![],
                    confidence: best,
                    degraded: false,
                    not_enough_evidence: true,
                    invalid_citations: vec![],
                    model: "guardrail".into(),
                    cached: false,
                    timings: Timings {
                        total_ms: ms(started.elapsed()),
                        ..timings
                    },
                    notes,
                    verification: None,
                }),
                Vec::new(),
            ));
        }

        let (request, cache_key) = self.request_for(
            question,
            &lang,
            &hits,
            cfg.params.clone(),
            &format!("{weak}|{}", generation.as_deref().unwrap_or_default()),
        );
        if let (Some(cache), false, Some(_)) = (&self.inner.cache, req.no_cache, &generation) {
            if let Some(bytes) = cache.get(&cache_key).await? {
                if let Ok(mut a) = serde_json::from_slice::<Answer>(&bytes) {
                    self.inner.counters.answer_cache.hit();
                    metrics::counter!("verity_cache_hits_total", "cache" => "answer").increment(1);
                    metrics::gauge!("cache_hit_ratio", "cache" => "answer")
                        .set(self.inner.counters.answer_cache.ratio());
                    a.cached = true;
                    a.timings = Timings {
                        total_ms: ms(started.elapsed()),
                        ..timings
                    };
                    // Cached unchecked: the check follows the request's mode.
                    a.verification = None;
                    return Ok(Preparation::Answered(Box::new(a), hits));
                }
            }
            self.inner.counters.answer_cache.miss();
            metrics::counter!("verity_cache_misses_total", "cache" => "answer").increment(1);
            metrics::gauge!("cache_hit_ratio", "cache" => "answer")
                .set(self.inner.counters.answer_cache.ratio());
        }
        if weak {
            notes.push("the sources are weak for this question".into());
        }
        Ok(Preparation::Ready(Box::new(Prepared {
            lang,
            hits,
            retrieval,
            request,
            cache_key: generation.map(|_| cache_key),
            notes,
            timings,
        })))
    }

    /// Keep up to `limit` passages, dropping or quoting those that look like
    /// prompt injections (as configured), with a note for each.
    fn screen(
        &self,
        hits: impl Iterator<Item = ScoredChunk>,
        limit: usize,
        notes: &mut Vec<String>,
    ) -> Vec<ScoredChunk> {
        let mut kept = Vec::new();
        for mut h in hits {
            if self.inner.injection.screen(&h.chunk.text) {
                match self.inner.config.injection {
                    InjectionPolicy::Drop => {
                        notes.push(format!(
                            "dropped passage {} (looks like a prompt injection)",
                            h.chunk.id
                        ));
                        continue;
                    }
                    InjectionPolicy::QuoteInert => {
                        notes.push(format!(
                            "quoted passage {} inertly (looks like a prompt injection)",
                            h.chunk.id
                        ));
                        h.chunk.text = quote_inert(&h.chunk.text);
                    }
                    InjectionPolicy::Allow => {}
                }
            }
            kept.push(h);
            if kept.len() == limit.max(1) {
                break;
            }
        }
        kept
    }

    /// The strict prompt over `hits`, and its answer-cache key (over the
    /// model, the parameters, the prompt and `state`: the guardrail's verdict
    /// and the index's write generation).
    fn request_for(
        &self,
        question: &str,
        lang: &str,
        hits: &[ScoredChunk],
        params: GenerationParams,
        state: &str,
    ) -> (ChatRequest, String) {
        let blocks = prompt::context_blocks(hits);
        let messages = prompt::messages(question, lang, hits, &blocks);
        let request = ChatRequest {
            messages,
            params,
            grounding: Some(Grounding {
                question: question.to_string(),
                blocks,
                lang: Some(lang.to_string()),
            }),
        };
        let cache_key = answer_key(&format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{state}",
            self.inner.generator.model(),
            serde_json::to_string(&request.params).unwrap_or_default(),
            serde_json::to_string(&request.messages).unwrap_or_default()
        ));
        (request, cache_key)
    }

    /// Answer `question` from given passages, without retrieval (seed 001
    /// `/v1/generate`): the same injection screening, strict prompt,
    /// generation with fallback and citation checks as [`ask`](Self::ask);
    /// `[n]` cites the n-th passage kept. `params` defaults to the configured ones.
    pub async fn answer_from(
        &self,
        question: &str,
        lang: Option<&str>,
        passages: Vec<ScoredChunk>,
        params: Option<GenerationParams>,
    ) -> Result<Answer> {
        let started = Instant::now();
        let cfg = &self.inner.config;
        let question = question.trim();
        if question.is_empty() {
            return Err(Error::invalid_input("the question is empty"));
        }
        if passages.is_empty() {
            return Err(Error::invalid_input(
                "no context passages: send at least one",
            ));
        }
        if cfg.reject_injected_questions && self.inner.injection.screen(question) {
            return Err(Error::invalid_input(
                "the question looks like a prompt injection (e.g. \"ignore the context\"); rephrase it",
            ));
        }
        let lang = lang
            .map(str::to_string)
            .unwrap_or_else(|| cfg.default_lang.clone());
        let mut notes = Vec::new();
        let n = passages.len();
        let hits = self.screen(passages.into_iter(), n, &mut notes);
        if hits.is_empty() {
            return Err(Error::invalid_input(
                "every passage looks like a prompt injection: nothing left to answer from",
            ));
        }
        let (request, _) = self.request_for(
            question,
            &lang,
            &hits,
            params.unwrap_or_else(|| cfg.params.clone()),
            "given passages",
        );
        // Answers from given passages are not looked up: not cached either.
        let cache_key = None;
        let p = Prepared {
            lang,
            retrieval: SearchResults {
                hits: hits.clone(),
                mode: SearchMode::default(),
                not_enough_evidence: false,
                notes: Vec::new(),
            },
            hits,
            request,
            cache_key,
            notes,
            timings: Timings::default(),
        };
        let gen_started = Instant::now();
        let (generation, degraded, mut notes) = self.generate_with_fallback(&p).await?;
        let mut timings = p.timings;
        timings.generation_ms = ms(gen_started.elapsed());
        notes.splice(0..0, p.notes.iter().cloned());
        // Answers from given passages are returned as generated (unchecked).
        self.finish(
            &p,
            generation,
            degraded,
            notes,
            timings,
            started,
            VerifyMode::Off,
        )
        .await
    }

    /// Whether `text` cites at least one of the `hits` it was given.
    fn cites(&self, text: &str, hits: &[ScoredChunk]) -> bool {
        !citations::parse(text, hits.len()).cited.is_empty()
    }

    fn confidence_of(&self, text: &str, hits: &[ScoredChunk]) -> f32 {
        let parsed = citations::parse(text, hits.len());
        confidence(&parsed, hits, text)
    }

    /// The answer of `generation`, checked in `mode` against what it cites,
    /// and cached (unchecked: a cached answer is checked in the mode of the
    /// request that reads it). When the check leaves no supported sentence
    /// in the main generator's answer, the fallback generator answers
    /// instead (`degraded`, with a note saying why): a cited answer whose
    /// every sentence its sources do not support is not an answer. When the
    /// fallback's is not either, the answer is "not enough evidence"
    /// ([`check`](Self::check)).
    #[allow(clippy::too_many_arguments)]
    async fn finish(
        &self,
        p: &Prepared,
        generation: Generation,
        degraded: bool,
        notes: Vec<String>,
        timings: Timings,
        started: Instant,
        mode: VerifyMode,
    ) -> Result<Answer> {
        let unchecked = self.compose(p, generation, degraded, notes.clone(), timings, started);
        let mut answer = unchecked.clone();
        self.check(&mut answer, &p.hits, mode, &p.lang).await;
        let unsupported = answer
            .verification
            .as_ref()
            .filter(|v| v.checked > 0 && v.supported == 0);
        let (Some(v), Some(fb), false) = (unsupported, &self.inner.fallback, degraded) else {
            self.store(p, &unchecked).await?;
            return Ok(answer);
        };
        let mut notes = notes;
        notes.push(format!(
            "no sentence of {}'s answer is supported by what it cites ({} of {} caught by the {} judge): \
             answered by fallback {}",
            answer.model,
            v.flagged,
            v.checked,
            v.judge,
            fb.model()
        ));
        let gen_started = Instant::now();
        let span = info_span!("fallback", reason = "unsupported");
        let g = match self.run_once(fb, &p.request).instrument(span).await {
            Ok(g) if self.cites(&g.text, &p.hits) => g,
            other => {
                if let Err(e) = other {
                    warn!(error = %e, "fallback failed after an unsupported answer");
                }
                // Nothing better: the checked answer stays ("not enough
                // evidence", its verification saying why).
                answer
                    .notes
                    .push("the fallback gave no cited answer either".into());
                self.store(p, &unchecked).await?;
                return Ok(answer);
            }
        };
        self.note_fallback();
        let mut timings = timings;
        timings.generation_ms += ms(gen_started.elapsed());
        let unchecked = self.compose(p, g, true, notes, timings, started);
        let mut answer = unchecked.clone();
        self.check(&mut answer, &p.hits, mode, &p.lang).await;
        self.store(p, &unchecked).await?;
        Ok(answer)
    }

    /// Cache `answer` under the key of `p`, when answers are cached.
    async fn store(&self, p: &Prepared, answer: &Answer) -> Result<()> {
        if let (Some(cache), Some(key)) = (&self.inner.cache, &p.cache_key) {
            if let Ok(bytes) = serde_json::to_vec(answer) {
                let tags: Vec<String> = p.hits.iter().map(|h| uid_tag(&h.doc.uid)).collect();
                cache
                    .put(key, &bytes, Some(self.inner.config.answer_ttl), &tags)
                    .await?;
            }
        }
        Ok(())
    }

    /// The answer of `generation`: citations parsed and resolved, an
    /// uncited or empty text replaced by "not enough evidence".
    fn compose(
        &self,
        p: &Prepared,
        generation: Generation,
        degraded: bool,
        mut notes: Vec<String>,
        mut timings: Timings,
        started: Instant,
    ) -> Answer {
        let parsed = citations::parse(&generation.text, p.hits.len());
        let cites = citations::resolve(&parsed, &p.hits);
        if !parsed.invalid.is_empty() {
            notes.push(format!(
                "removed citations to nonexistent sources: {:?}",
                parsed.invalid
            ));
        }
        let confidence = confidence(&parsed, &p.hits, &generation.text);
        let mut weak = p.retrieval.not_enough_evidence;
        let mut text = parsed.text.clone();
        if cites.is_empty() {
            // An empty or uncited generation is never returned as an answer:
            // the user gets the "not enough evidence" answer and a note saying why.
            self.inner
                .counters
                .uncited
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            metrics::counter!("answer_hallucination_flag").increment(1);
            notes.push(if generation.text.trim().is_empty() {
                format!("{} returned an empty answer: not enough evidence is reported instead", generation.model)
            } else {
                format!(
                    "the answer of {} cites no valid source: it is not returned; not enough evidence is reported instead",
                    generation.model
                )
            });
            text = prompt::not_enough_evidence_text(&p.lang).to_string();
            weak = true;
        } else if weak {
            text.push_str("\n\n");
            text.push_str(prompt::request_for_sources_text(&p.lang));
        }
        timings.total_ms = ms(started.elapsed());
        Answer {
            text,
            citations: cites,
            confidence,
            degraded: degraded || p.retrieval.not_enough_evidence,
            not_enough_evidence: weak,
            invalid_citations: parsed.invalid.clone(),
            model: generation.model,
            cached: false,
            timings,
            notes,
            verification: None,
        }
    }
}

/// Confidence in `[0, 1]`: mean relevance of the cited blocks, scaled by the
/// share of sentences that carry a citation; 0 without any valid citation.
pub fn confidence(
    parsed: &citations::ParsedCitations,
    hits: &[ScoredChunk],
    raw_text: &str,
) -> f32 {
    if parsed.cited.is_empty() {
        return 0.0;
    }
    let rel: Vec<f32> = parsed
        .cited
        .iter()
        .filter_map(|&n| hits.get(n - 1))
        .map(|h| h.relevance.clamp(0.0, 1.0))
        .collect();
    if rel.is_empty() {
        return 0.0;
    }
    let mean = rel.iter().sum::<f32>() / rel.len() as f32;
    let coverage = citations::cited_sentence_ratio(raw_text);
    (mean * (0.5 + 0.5 * coverage)).clamp(0.0, 1.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
