//! The verification pipeline and its builder.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures::stream::{self, StreamExt};
use url::Url;
use verity_core::{
    ChatMessage, ChatRequest, Embedder, Error, FetchError, FetchStatus, Fetcher, GenerationParams,
    Generator, Judge, ParsedDocument, Passage, Result, Verdict,
};
use verity_extract::{parse_bytes, sniff, Sniffed};
use verity_fetch::ResolverConfig;

use crate::assess::{Assessment, Assessor, AssessorBuilder};
use crate::claims::{self, Extraction};
use crate::evidence::{SentenceFeatures, SourceIndex};
use crate::forest::Forest;
use crate::reader::SourceText;
use crate::report::{Report, Statistics, Summary, UnavailableSource};
use crate::sources::fetch_all;
use crate::text::find_verbatim;
use crate::types::{CheckResult, ClaimCitation, SourceContent, SourceStatus};

/// Stage of a run, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Fetching sources (`done` of `total` distinct sources).
    Fetching,
    /// Judging claims (`done` of `total` claims).
    Judging,
}

/// A progress event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Stage.
    pub stage: Stage,
    /// Items done.
    pub done: usize,
    /// Items in the stage.
    pub total: usize,
}

type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Builds a [`Verifier`].
pub struct VerifierBuilder {
    fetcher: Arc<dyn Fetcher>,
    assessor: AssessorBuilder,
    splitter: Option<Arc<dyn Generator>>,
    resolver: ResolverConfig,
    concurrency: usize,
    max_claims: usize,
    progress: Option<ProgressFn>,
    cancel: Option<Arc<AtomicBool>>,
}

impl VerifierBuilder {
    /// The forest that ranks a source's sentences when the embedder gives
    /// word pieces (default: the one fitted on SciFact, [`rank::forest`]).
    pub fn ranking(mut self, forest: Arc<Forest>) -> Self {
        self.assessor = self.assessor.ranking(forest);
        self
    }

    /// Sentence vectors for passage search (BM25 only without one).
    pub fn embedder(mut self, embedder: Option<Arc<dyn Embedder>>) -> Self {
        self.assessor = self.assessor.embedder(embedder);
        self
    }

    /// The judge (default: [`LocalJudge`](crate::LocalJudge)).
    pub fn judge(mut self, judge: Arc<dyn Judge>) -> Self {
        self.assessor = self.assessor.judge(judge);
        self
    }

    /// Split compound sentences into atomic claims with this generator;
    /// parts not found verbatim in the document are dropped and counted.
    pub fn atomic_splitter(mut self, generator: Option<Arc<dyn Generator>>) -> Self {
        self.splitter = generator;
        self
    }

    /// DOI and arXiv resolver bases (default doi.org, arxiv.org).
    pub fn resolver(mut self, resolver: ResolverConfig) -> Self {
        self.resolver = resolver;
        self
    }

    /// Sources fetched (and claims judged) at once (default 4, at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Passages handed to the judge per claim (default 5).
    pub fn top_k(mut self, k: usize) -> Self {
        self.assessor = self.assessor.top_k(k);
        self
    }

    /// Most claims checked in one run (default 5,000); the rest are counted as skipped.
    pub fn max_claims(mut self, n: usize) -> Self {
        self.max_claims = n.max(1);
        self
    }

    /// Called as sources are fetched and claims judged.
    pub fn progress(mut self, f: Arc<dyn Fn(Progress) + Send + Sync>) -> Self {
        self.progress = Some(f);
        self
    }

    /// When this flag turns `true` (Ctrl-C), the run stops and reports what is done.
    pub fn cancel_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// The verifier.
    pub fn build(self) -> Verifier {
        Verifier {
            fetcher: self.fetcher,
            assessor: self.assessor.build(),
            splitter: self.splitter,
            resolver: self.resolver,
            concurrency: self.concurrency,
            max_claims: self.max_claims,
            progress: self.progress,
            cancel: self.cancel,
        }
    }
}

/// Checks the citations of a document: claims → sources → passages → judge → checks → report.
///
/// ```no_run
/// # async fn demo() -> verity_core::Result<()> {
/// use std::sync::Arc;
/// use verity_verify::Verifier;
/// let fetcher = Arc::new(verity_fetch::HttpFetcher::with_defaults()?);
/// let verifier = Verifier::builder(fetcher).concurrency(8).build();
/// let report = verifier
///     .check_text("85 % of companies use AI [1].\n\n## References\n1. https://example.org/survey\n")
///     .await?;
/// println!("{}", verity_verify::render::markdown(&report));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Verifier {
    fetcher: Arc<dyn Fetcher>,
    /// The one judging path (passages, judge, checks).
    assessor: Assessor,
    splitter: Option<Arc<dyn Generator>>,
    resolver: ResolverConfig,
    concurrency: usize,
    max_claims: usize,
    progress: Option<ProgressFn>,
    cancel: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("assessor", &self.assessor)
            .field("concurrency", &self.concurrency)
            .finish()
    }
}

impl Verifier {
    /// A builder with the local judge, no embedder, concurrency 4.
    pub fn builder(fetcher: Arc<dyn Fetcher>) -> VerifierBuilder {
        VerifierBuilder {
            fetcher,
            assessor: Assessor::builder(),
            splitter: None,
            resolver: ResolverConfig::default(),
            concurrency: 4,
            max_claims: 5_000,
            progress: None,
            cancel: None,
        }
    }

    /// This verifier ranking with `forest` (see [`VerifierBuilder::ranking`]);
    /// it shares the source cache.
    pub fn with_ranking(&self, forest: Arc<Forest>) -> Self {
        Self {
            assessor: self.assessor.with_ranking(forest),
            ..self.clone()
        }
    }

    /// The judge in use.
    pub fn judge(&self) -> &Arc<dyn Judge> {
        self.assessor.judge()
    }

    /// The judging path every claim goes through.
    pub fn assessor(&self) -> &Assessor {
        &self.assessor
    }

    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    fn emit(&self, stage: Stage, done: usize, total: usize) {
        if let Some(p) = &self.progress {
            p(Progress { stage, done, total });
        }
    }

    /// Claims that cite in Markdown or plain `text` (no atomic splitting).
    pub fn extract(&self, text: &str) -> Extraction {
        claims::extract(text, &self.resolver)
    }

    /// Check a Markdown or plain-text document. Locations are byte offsets in `text`.
    pub async fn check_text(&self, text: &str) -> Result<Report> {
        let t0 = Instant::now();
        let extraction = self.extract(text);
        self.run(text, extraction, None, t0).await
    }

    /// Check a document given as bytes (PDF, HTML, Markdown, text), sniffed
    /// from magic bytes, `content_type` and `name`. For HTML and PDF, claims
    /// are read from the extracted text, and locations refer to it.
    pub async fn check_bytes(
        &self,
        bytes: &[u8],
        content_type: Option<&str>,
        name: Option<&str>,
    ) -> Result<Report> {
        match sniff(bytes, content_type, name, None) {
            Sniffed::Markdown | Sniffed::Text if !bytes.contains(&0) => {
                let (text, _) = verity_extract::encoding::decode_text(bytes, None);
                let mut r = self.check_text(&text).await?;
                r.document = name.map(str::to_string);
                Ok(r)
            }
            _ => {
                let parsed = parse_bytes(bytes, content_type, name, None)?;
                let mut r = self.check_document(&parsed).await?;
                if r.document.is_none() {
                    r.document = name.map(str::to_string);
                }
                Ok(r)
            }
        }
    }

    /// Check a document given as a string with a seed-002 `content_type`
    /// (`markdown`, `html`, `text`, or a MIME type); `None` sniffs it.
    pub async fn check_content(&self, content: &str, content_type: Option<&str>) -> Result<Report> {
        let mime = content_type.map(|t| match t.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" => "text/markdown".to_string(),
            "html" | "htm" => "text/html".to_string(),
            "text" | "plain" | "txt" => "text/plain".to_string(),
            other => other.to_string(),
        });
        if mime.as_deref() == Some("pdf") || mime.as_deref() == Some("application/pdf") {
            return Err(Error::invalid_input(
                "a PDF cannot be sent as text content; send its bytes (check_bytes) or a URL",
            ));
        }
        match mime.as_deref() {
            Some("text/plain" | "text/markdown") => self.check_text(content).await,
            m => self.check_bytes(content.as_bytes(), m, None).await,
        }
    }

    /// Check a parsed document (its Markdown content).
    pub async fn check_document(&self, doc: &ParsedDocument) -> Result<Report> {
        let content = with_inline_links(&doc.document.content, &doc.document.metadata);
        let mut r = self.check_text(&content).await?;
        r.document = doc
            .document
            .title
            .clone()
            .or_else(|| doc.document.url.clone());
        Ok(r)
    }

    /// Fetch `url` with the verifier's fetcher and check it. A refusal by
    /// the network guard or robots.txt is typed
    /// ([`verity_core::FetchError::Blocked`], `RobotsDisallowed`); any other
    /// outcome that brought no document is a `Network` error naming it.
    pub async fn check_url(&self, url: &Url) -> Result<Report> {
        let f = self.fetcher.fetch(url).await?;
        let parsed = match (f.status, f.parsed) {
            (FetchStatus::Fetched, Some(p)) => p,
            (status, parsed) => {
                // The one reading of fetch outcomes names refusals by type.
                let f = verity_core::FetchedSource { parsed, ..f };
                if let Some(e @ (FetchError::Blocked { .. } | FetchError::RobotsDisallowed(_))) =
                    f.error()
                {
                    return Err(Error::Fetch(e));
                }
                return Err(Error::Fetch(FetchError::Network {
                    url: url.to_string(),
                    message: format!(
                        "the document could not be fetched ({status:?}{})",
                        f.detail.map(|d| format!(": {d}")).unwrap_or_default()
                    ),
                }));
            }
        };
        let mut r = self.check_document(&parsed).await?;
        r.document = parsed
            .document
            .title
            .clone()
            .or_else(|| Some(url.to_string()));
        Ok(r)
    }

    /// Judge one claim against a source's text: passages, judge,
    /// deterministic checks ([`Assessor::assess`]).
    pub async fn assess(
        &self,
        claim: &str,
        source: &SourceText,
        source_url: Option<&str>,
    ) -> Assessment {
        self.assessor.assess(claim, source, source_url).await
    }

    /// The best sentences of `content` for `claim` (index cached by content hash).
    pub async fn passages(&self, claim: &str, content: &str) -> Result<Vec<Passage>> {
        self.assessor.passages(claim, content).await
    }

    /// Ranking features of every sentence of `content` for `claim`, in
    /// source order (see [`SourceIndex::features`]), with the source's
    /// (cached) index, whose [`SourceIndex::sentence`] gives their text.
    pub async fn features(
        &self,
        claim: &str,
        content: &str,
    ) -> Result<(Arc<SourceIndex>, Vec<SentenceFeatures>)> {
        self.assessor.features(claim, content).await
    }

    async fn split_atomic(&self, text: &str, extraction: &mut Extraction) -> usize {
        let Some(generator) = &self.splitter else {
            return 0;
        };
        let mut dropped = 0usize;
        let mut out: Vec<ClaimCitation> = Vec::with_capacity(extraction.claims.len());
        let mut cache: HashMap<String, Vec<String>> = HashMap::new();
        for c in std::mem::take(&mut extraction.claims) {
            if c.claim_text.split_whitespace().count() < 12 {
                out.push(c);
                continue;
            }
            let parts = match cache.get(&c.claim_text) {
                Some(p) => p.clone(),
                None => {
                    let p = ask_split(generator.as_ref(), &c.claim_text).await;
                    cache.insert(c.claim_text.clone(), p.clone());
                    p
                }
            };
            let sentence = text.get(c.location.start..c.location.end).unwrap_or("");
            let mut kept = 0usize;
            for part in &parts {
                match find_verbatim(sentence, part)
                    .or_else(|| find_verbatim(&c.claim_text, part).map(|_| 0..sentence.len()))
                {
                    Some(r) if parts.len() > 1 => {
                        let mut a = c.clone();
                        a.claim_text = part.trim().to_string();
                        a.location.start = c.location.start + r.start;
                        a.location.end = c.location.start + r.end;
                        out.push(a);
                        kept += 1;
                    }
                    Some(_) => {}
                    None => dropped += 1,
                }
            }
            if kept == 0 {
                out.push(c);
            }
        }
        extraction.claims = out;
        dropped
    }

    async fn run(
        &self,
        text: &str,
        mut extraction: Extraction,
        document: Option<String>,
        t0: Instant,
    ) -> Result<Report> {
        let atomic_dropped = self.split_atomic(text, &mut extraction).await;
        let mut claims = extraction.claims;
        let mut skipped = claims.len().saturating_sub(self.max_claims);
        claims.truncate(self.max_claims);

        // Sources, once each.
        let tf = Instant::now();
        let urls: Vec<String> = claims.iter().filter_map(|c| c.target.clone()).collect();
        let on_done = |done: usize, total: usize| self.emit(Stage::Fetching, done, total);
        let cancel = self.cancel.clone();
        let fetcher: Arc<dyn Fetcher> = match cancel {
            Some(flag) => Arc::new(Cancellable {
                inner: self.fetcher.clone(),
                flag,
            }),
            None => self.fetcher.clone(),
        };
        let sources = fetch_all(fetcher, urls, &self.resolver, self.concurrency, &on_done).await;
        let fetch_ms = tf.elapsed().as_secs_f64() * 1e3;

        // Each source indexed (and embedded) once.
        let mut dense = self.assessor.is_dense();
        for s in sources.values() {
            if let Some(content) = &s.content {
                if !self
                    .assessor
                    .prepare(&SourceText::plain(content.clone()))
                    .await
                {
                    dense = false;
                }
            }
        }

        // Claims, judged in order with bounded concurrency.
        let total = claims.len();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let mut results: Vec<(CheckResult, ClaimFlags, bool, u64)> = Vec::with_capacity(total);
        let mut cancelled = false;
        {
            // Indices and `move` closures over plain references: the future
            // stays `Send` for callers that spawn it.
            let (claims_ref, sources_ref, done_ref) = (&claims, &sources, &done);
            let mut stream = stream::iter((0..claims.len()).map(move |i| {
                let (sources, done) = (sources_ref, done_ref);
                async move {
                    let r = self.check_one(&claims_ref[i], sources).await;
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    self.emit(Stage::Judging, n, total);
                    r
                }
            }))
            .buffered(self.concurrency);
            while let Some(r) = stream.next().await {
                results.push(r);
                if self.cancelled() {
                    cancelled = true;
                    break;
                }
            }
        }
        if cancelled {
            skipped += total - results.len();
        }

        // Statistics.
        let mut unavailable: Vec<UnavailableSource> = Vec::new();
        for c in &claims[..results.len()] {
            let (source, status, reason) = match (&c.target, &c.unresolved) {
                (Some(t), _) => match sources.get(t) {
                    Some(s) if s.fetch_status != SourceStatus::Success => (
                        t.clone(),
                        s.fetch_status,
                        s.detail.clone().unwrap_or_default(),
                    ),
                    _ => continue,
                },
                (None, reason) => (
                    c.marker.clone(),
                    SourceStatus::Failed,
                    reason.clone().unwrap_or_default(),
                ),
            };
            match unavailable.iter_mut().find(|u| u.source == source) {
                Some(u) => u.claims += 1,
                None => unavailable.push(UnavailableSource {
                    source,
                    status,
                    reason,
                    claims: 1,
                }),
            }
        }
        let n = results.len();
        let judged_ms: f64 = results.iter().map(|r| r.0.elapsed_ms).sum();
        let elapsed_ms = t0.elapsed().as_secs_f64() * 1e3;
        let statistics = Statistics {
            sentences: extraction.sentences,
            claims: total,
            distinct_sources: sources.len(),
            sources_fetched: sources
                .values()
                .filter(|s| s.fetch_status == SourceStatus::Success)
                .count(),
            unavailable_sources: unavailable,
            missing_entries: extraction.missing_entries,
            quotes_replaced: results.iter().filter(|r| r.1.quote_replaced).count(),
            downgraded: results.iter().filter(|r| r.1.downgraded).count(),
            judge_errors: results.iter().filter(|r| r.2).count(),
            atomic_dropped,
            skipped,
            elapsed_ms,
            fetch_ms,
            ms_per_citation: if n > 0 { judged_ms / n as f64 } else { 0.0 },
            total_ms_per_citation: if n > 0 { elapsed_ms / n as f64 } else { 0.0 },
            judge_tokens: results.iter().map(|r| r.3).sum(),
            judge: self.assessor.judge().name().to_string(),
            dense,
        };
        let results: Vec<CheckResult> = results.into_iter().map(|r| r.0).collect();
        Ok(Report {
            document,
            summary: Summary::of(&results),
            results,
            statistics,
            cancelled,
        })
    }

    /// One claim: (result, what the checks changed, the judge fell back, tokens).
    async fn check_one(
        &self,
        c: &ClaimCitation,
        sources: &HashMap<String, SourceContent>,
    ) -> (CheckResult, ClaimFlags, bool, u64) {
        let t = Instant::now();
        let base = |verdict: Verdict, explanation: String, judge: &str| CheckResult {
            claim: c.claim_text.clone(),
            citation_ref: c.citation_ref.clone(),
            citation_type: c.citation_type,
            source_url: c.target.clone(),
            verdict,
            confidence: 1.0,
            explanation,
            source_quote: None,
            quote_context: None,
            location: c.location,
            judge: judge.to_string(),
            checks: Vec::new(),
            passages: Vec::new(),
            elapsed_ms: 0.0,
        };
        let unavailable = |why: String| {
            (
                base(Verdict::SourceUnavailable, why, "fetch"),
                ClaimFlags::default(),
                false,
                0,
            )
        };
        let Some(target) = &c.target else {
            return unavailable(format!(
                "Source unavailable: {}.",
                c.unresolved
                    .as_deref()
                    .unwrap_or("the citation could not be resolved")
            ));
        };
        let (content, paywall) = match sources.get(target) {
            Some(s) => match (s.fetch_status, &s.content) {
                (SourceStatus::Success, Some(text)) => (
                    SourceText::plain(text.clone()).titled(s.title.as_deref()),
                    None,
                ),
                (SourceStatus::Paywalled, Some(text)) => (
                    SourceText::plain(text.clone()).titled(s.title.as_deref()),
                    Some(s.detail.clone().unwrap_or_else(|| "paywalled".into())),
                ),
                (SourceStatus::Paywalled, None) => {
                    return unavailable(format!(
                        "Source unavailable: paywalled ({}).",
                        s.detail.as_deref().unwrap_or("no text served")
                    ))
                }
                _ => {
                    return unavailable(format!(
                        "Source unavailable: {}.",
                        s.detail
                            .as_deref()
                            .unwrap_or("the source could not be fetched")
                    ))
                }
            },
            None => {
                return unavailable(
                    "Source unavailable: the run was cancelled before it was fetched.".into(),
                )
            }
        };
        let a = self
            .assessor
            .assess(&c.claim_text, &content, Some(target))
            .await;
        let mut notes = a.notes.clone();
        if let Some(why) = paywall {
            // The page holds the passage: a verdict the text decides. A
            // PARTIAL on a short text may be a teaser's half sentence.
            let full = content.as_str().split_whitespace().count() >= verity_fetch::TRUNCATED_WORDS;
            let holds = match a.verdict {
                Verdict::Supported | Verdict::NotSupported => true,
                Verdict::Partial => full,
                _ => false,
            };
            if !holds {
                return unavailable(format!(
                    "Source unavailable: paywalled ({why}); the text served holds no passage about the claim."
                ));
            }
            notes.push(format!(
                "the page carries a paywall marker ({why}); the text served holds the passage, so it was judged"
            ));
        }
        let mut r = base(a.verdict, a.explanation.clone(), &a.judge);
        r.confidence = a.confidence;
        r.source_quote = a.source_quote.clone();
        r.quote_context = a.quote_context.clone();
        r.checks = notes;
        r.passages = a.passages.iter().take(3).cloned().collect();
        r.elapsed_ms = t.elapsed().as_secs_f64() * 1e3;
        let flags = ClaimFlags {
            quote_replaced: a.quote_replaced,
            downgraded: a.downgraded,
        };
        (r, flags, a.fell_back, a.tokens)
    }
}

/// What the checks changed on one claim.
#[derive(Debug, Clone, Copy, Default)]
struct ClaimFlags {
    quote_replaced: bool,
    downgraded: bool,
}

/// A fetcher that stops fetching once the cancel flag is set.
struct Cancellable {
    inner: Arc<dyn Fetcher>,
    flag: Arc<AtomicBool>,
}

#[async_trait::async_trait]
impl Fetcher for Cancellable {
    async fn fetch(&self, url: &Url) -> Result<verity_core::FetchedSource> {
        if self.flag.load(Ordering::Relaxed) {
            return Ok(verity_core::FetchedSource {
                url: url.clone(),
                final_url: url.clone(),
                status: FetchStatus::Failed,
                http_status: None,
                content_type: None,
                parsed: None,
                detail: Some("cancelled".into()),
                refusal: None,
                fetched_at: chrono_now(),
            });
        }
        self.inner.fetch(url).await
    }
}

fn chrono_now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

/// Ask `generator` to split `claim` into atomic claims (verbatim parts).
async fn ask_split(generator: &dyn Generator, claim: &str) -> Vec<String> {
    let req = ChatRequest {
        messages: vec![
            ChatMessage::system(
                "Split the sentence into its atomic factual claims. Each claim must be copied \
                 verbatim from the sentence (a contiguous span). Answer with a JSON array of strings only.",
            ),
            ChatMessage::user(claim.to_string()),
        ],
        params: GenerationParams {
            temperature: 0.0,
            max_tokens: 300,
            ..GenerationParams::default()
        },
        grounding: None,
    };
    let Ok(g) = generator.generate(&req).await else {
        return Vec::new();
    };
    let text = g.text;
    let (Some(a), Some(b)) = (text.find('['), text.rfind(']')) else {
        return Vec::new();
    };
    if b < a {
        return Vec::new();
    }
    serde_json::from_str::<Vec<String>>(&text[a..=b])
        .unwrap_or_default()
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .take(12)
        .collect()
}

/// HTML extraction keeps link targets out of the text (`metadata.links`,
/// in document order); citations need them, so put each back as a Markdown
/// link at its anchor text, searching forward from the previous one.
fn with_inline_links(
    content: &str,
    metadata: &serde_json::Map<String, serde_json::Value>,
) -> String {
    let Some(links) = metadata.get("links").and_then(|l| l.as_array()) else {
        return content.to_string();
    };
    let mut out = String::with_capacity(content.len() + links.len() * 32);
    let mut at = 0;
    for link in links {
        let (Some(text), Some(url)) = (
            link.get("text").and_then(|t| t.as_str()),
            link.get("url").and_then(|u| u.as_str()),
        ) else {
            continue;
        };
        if text.is_empty() {
            continue;
        }
        if let Some(pos) = content[at..].find(text) {
            let start = at + pos;
            out.push_str(&content[at..start]);
            out.push_str(&format!("[{text}]({url})"));
            at = start + text.len();
        }
    }
    out.push_str(&content[at..]);
    out
}
