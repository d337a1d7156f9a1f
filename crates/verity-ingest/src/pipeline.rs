//! The ingest pipeline: fingerprint → chunk → embed → upsert, batch by batch.
//!
//! Two batches are in flight: while batch k is written, batch k + 1 is
//! checked, chunked and embedded. Writes stay in order, one at a time.
//!
//! Resumable by construction: each batch is committed by the store before the
//! next one is written, and documents whose content hash and embedding version
//! are unchanged are skipped, so re-running an interrupted job only does the
//! remaining work.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use verity_core::embed::validate_embeddings;
use verity_core::{
    Chunk, Document, Embedder, EmbedderId, Error, Fingerprint, IndexedDocument, ProviderError,
    ProviderErrorKind, Result, SpanEmbeddings, SpanMode, SpanText, UpsertReport, VectorStore,
};

use crate::chunk::{Chunker, ChunkerConfig};
use crate::progress::{IngestPhase, IngestProgress};
use crate::sentences::sentence_spans;
use verity_extract::detect_lang;

/// Default number of documents per store transaction.
pub const DEFAULT_BATCH_SIZE: usize = 64;
/// Texts per embedder call of an embedder that gives no hint (the default of
/// [`Embedder::texts_per_call`]).
pub const DEFAULT_EMBED_BATCH_SIZE: usize = 32;

/// Outcome of [`Ingestor::ingest`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IngestReport {
    /// Store counts (inserted, replaced, unchanged, chunks).
    pub upsert: UpsertReport,
    /// Documents refused (empty content, empty uid, duplicates), one message each.
    pub errors: Vec<String>,
    /// `true` when no embedder was set: only the full-text index is built.
    pub lexical_only: bool,
    /// Wall-clock duration.
    pub seconds: f64,
    /// Content bytes seen.
    pub bytes: u64,
    /// Documents whose content was unchanged but that had been indexed with
    /// another embedding version or chunking ([`Ingestor::chunking`]), and
    /// were therefore chunked and embedded again.
    pub reprocessed: usize,
}

/// Builds an [`Ingestor`].
pub struct IngestorBuilder {
    store: Arc<dyn VectorStore>,
    embedder: Option<Arc<dyn Embedder>>,
    chunker: Option<Chunker>,
    batch_size: usize,
    embed_batch_size: Option<usize>,
    embed_context: bool,
    sentence_vectors: Option<bool>,
}

impl IngestorBuilder {
    /// The embedder (`None`: lexical-only index).
    pub fn embedder(mut self, embedder: Option<Arc<dyn Embedder>>) -> Self {
        self.embedder = embedder;
        self
    }

    /// The chunker (default: bundled WordPiece tokenizer, 700–900 tokens, overlap 120).
    /// With an embedder, its budget is further capped to the embedder's `max_tokens()`.
    pub fn chunker(mut self, chunker: Chunker) -> Self {
        self.chunker = Some(chunker);
        self
    }

    /// Documents per store transaction (default 64, at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Texts (chunks and sentences) per embedder call (default: the
    /// embedder's [`Embedder::texts_per_call`]; at least 1).
    pub fn embed_batch_size(mut self, n: usize) -> Self {
        self.embed_batch_size = Some(n.max(1));
        self
    }

    /// Whether the text sent to the embedder is prefixed with the document
    /// title and the chunk's heading path (see [`embedding_input`]; default
    /// `true`). The stored chunk text is `content[start..end]` either way;
    /// only the vector changes.
    pub fn embed_context(mut self, yes: bool) -> Self {
        self.embed_context = yes;
        self
    }

    /// Whether each sentence of a chunk also gets a vector ("small-to-big":
    /// a chunk's dense score is the best of its own vector and its
    /// sentences'). Default: on when there is an embedder and the store
    /// [supports it](VectorStore::supports_sentence_vectors). With sentence
    /// vectors the chunker keeps its own budget (700–900 tokens by default)
    /// instead of being capped to the embedder's window: the chunk's own
    /// vector reads its first `max_tokens`, its sentences cover the rest.
    ///
    /// On SciFact (all-MiniLM-L6-v2) dense nDCG@10 goes from 0.670 to 0.698
    /// and hybrid from 0.731 to 0.746 (docs/benchmarks.d/quality.md), for about
    /// 5× more vectors and 1.5× the embedding time. Changing it re-processes
    /// every document on its next ingest (see [`Ingestor::chunking`]).
    pub fn sentence_vectors(mut self, yes: bool) -> Self {
        self.sentence_vectors = Some(yes);
        self
    }

    /// Build the ingestor.
    pub fn build(self) -> Result<Ingestor> {
        let supported = self.store.supports_sentence_vectors();
        let sentence_vectors = match (self.sentence_vectors, &self.embedder) {
            (_, None) => false,
            (Some(true), Some(_)) if !supported => {
                return Err(Error::invalid_input(format!(
                    "the {} store does not index sentence vectors; turn them off",
                    self.store.backend()
                )))
            }
            (Some(yes), Some(_)) => yes,
            (None, Some(_)) => supported,
        };
        let chunker = match self.chunker {
            Some(c) => c,
            None => Chunker::new(ChunkerConfig::default())?,
        };
        let chunker = fit_chunker(chunker, self.embedder.as_deref(), sentence_vectors)?;
        let settings = IngestSettings {
            embed_version: self.embedder.as_ref().map(|e| e.id().version.clone()),
            chunking: chunking_fingerprint(
                &chunker,
                self.embedder.is_some() && self.embed_context,
                self.embedder
                    .as_ref()
                    .filter(|_| sentence_vectors)
                    .map(|e| e.span_mode()),
            ),
        };
        Ok(Ingestor {
            store: self.store,
            embedder: self.embedder,
            chunker,
            batch_size: self.batch_size,
            embed_batch_size: self.embed_batch_size,
            embed_context: self.embed_context,
            sentence_vectors,
            settings,
        })
    }
}

/// Runs the ingest pipeline into a [`VectorStore`].
pub struct Ingestor {
    store: Arc<dyn VectorStore>,
    embedder: Option<Arc<dyn Embedder>>,
    chunker: Chunker,
    batch_size: usize,
    embed_batch_size: Option<usize>,
    embed_context: bool,
    sentence_vectors: bool,
    settings: IngestSettings,
}

/// The chunker an ingest uses: `chunker` as is without an embedder or with
/// sentence vectors, otherwise capped to the embedder's window
/// ([`ChunkerConfig::for_embedder`]). Dry runs use it to predict the work.
pub fn fit_chunker(
    chunker: Chunker,
    embedder: Option<&dyn Embedder>,
    sentence_vectors: bool,
) -> Result<Chunker> {
    match embedder {
        Some(e) if !sentence_vectors => {
            let cap = ChunkerConfig::for_embedder(e.max_tokens());
            if cap.max_tokens < chunker.config().max_tokens {
                chunker.with_config(cap)
            } else {
                Ok(chunker)
            }
        }
        _ => Ok(chunker),
    }
}

/// What a stored document must have been indexed with for an ingest to skip
/// it: the embedder's version and the chunking fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestSettings {
    /// Embedding version (`None`: lexical only).
    pub embed_version: Option<String>,
    /// [`chunking_fingerprint`].
    pub chunking: String,
}

impl IngestSettings {
    /// Whether a stored document with fingerprint `fp` is up to date for
    /// content hashed `content_hash` ([`Document::content_hash`]): same
    /// content, embedding version and chunking. Anything else is re-processed
    /// by the next ingest, and its cached retrievals and answers are stale.
    pub fn is_current(&self, content_hash: &str, fp: &Fingerprint) -> bool {
        fp.content_hash == content_hash
            && fp.embed_version == self.embed_version
            && fp.chunking.as_deref() == Some(self.chunking.as_str())
    }
}

/// The chunking fingerprint an ingest records on each document
/// ([`IndexedDocument::chunking`]): the chunker's own
/// ([`Chunker::fingerprint`]) plus how embedded texts are built — with the
/// title context or not, and sentence vectors off (`None`), embedded
/// separately or pooled from the chunk's pass.
pub fn chunking_fingerprint(
    chunker: &Chunker,
    embed_context: bool,
    sentence_vectors: Option<SpanMode>,
) -> String {
    let sentences = match sentence_vectors {
        None => "0",
        Some(SpanMode::Separate) => "1",
        Some(SpanMode::Pooled) => "pooled",
    };
    format!(
        "{} context={} sentences={sentences}",
        chunker.fingerprint(),
        u8::from(embed_context),
    )
}

impl std::fmt::Debug for Ingestor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ingestor")
            .field("store", &self.store.backend())
            .field(
                "embedder",
                &self.embedder.as_ref().map(|e| e.id().to_string()),
            )
            .field("chunker", &self.chunker)
            .field("batch_size", &self.batch_size)
            .field("embed_context", &self.embed_context)
            .field("sentence_vectors", &self.sentence_vectors)
            .finish()
    }
}

/// A batch ready to be written.
struct Staged {
    indexed: Vec<IndexedDocument>,
    /// Documents skipped as up to date.
    unchanged: usize,
    /// Documents with unchanged content processed again (other settings).
    reprocessed: usize,
}

/// What the store write of a batch reports back.
struct Written {
    upsert: UpsertReport,
    /// Documents and content bytes of the batch.
    n: usize,
    bytes: u64,
}

/// The store write of one batch, running while the next batch is staged.
type PendingWrite<'a> = Pin<Box<dyn Future<Output = Result<Written>> + Send + 'a>>;

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A document ready for embedding.
struct Prepared {
    doc: Document,
    hash: String,
    chunks: Vec<Chunk>,
}

impl Ingestor {
    /// Start building an ingestor writing into `store`.
    pub fn builder(store: Arc<dyn VectorStore>) -> IngestorBuilder {
        IngestorBuilder {
            store,
            embedder: None,
            chunker: None,
            batch_size: DEFAULT_BATCH_SIZE,
            embed_batch_size: None,
            embed_context: true,
            sentence_vectors: None,
        }
    }

    /// The chunker in use (budget already capped for the embedder).
    pub fn chunker(&self) -> &Chunker {
        &self.chunker
    }

    /// Whether sentence vectors are computed (see [`IngestorBuilder::sentence_vectors`]).
    pub fn sentence_vectors(&self) -> bool {
        self.sentence_vectors
    }

    /// The chunking fingerprint recorded on every document this ingestor
    /// writes (see [`chunking_fingerprint`]). A document stored with another
    /// one (other sizes, tokenizer, context or sentence vectors, or written
    /// before fingerprints existed) is re-chunked and re-embedded by the next
    /// ingest even if its content is unchanged, and counted in
    /// [`IngestReport::reprocessed`]: one index never mixes two chunkings
    /// once a corpus has been re-ingested.
    pub fn chunking(&self) -> &str {
        &self.settings.chunking
    }

    /// What a stored document must match to be skipped (see
    /// [`IngestSettings::is_current`]).
    pub fn settings(&self) -> &IngestSettings {
        &self.settings
    }

    /// Whether `doc`, as it would be given to [`ingest`](Self::ingest), is
    /// stored up to date under `fp`: hashed the way the ingest hashes it (a
    /// missing language detected first), then [`IngestSettings::is_current`].
    /// Callers deciding what a re-ingest makes stale (cache busting) use it.
    pub fn is_current(&self, doc: &Document, fp: &Fingerprint) -> bool {
        let hash = if doc.lang.is_none() {
            let mut d = doc.clone();
            d.lang = detect_lang(&d.content);
            d.content_hash()
        } else {
            doc.content_hash()
        };
        self.settings.is_current(&hash, fp)
    }

    /// Ingest documents: per batch, skip unchanged ones (same content hash,
    /// embedding version and chunking), chunk, embed, and upsert. Documents with an empty
    /// uid or whitespace-only content are refused and listed in
    /// [`IngestReport::errors`]; store and embedder failures stop the run with
    /// an error (batches already written stay written: re-running resumes).
    ///
    /// Chunking runs on tokio's blocking pool when called inside a runtime.
    pub async fn ingest<I>(
        &self,
        docs: I,
        progress: &(dyn Fn(&IngestProgress) + Sync),
    ) -> Result<IngestReport>
    where
        I: IntoIterator<Item = Document>,
        I::IntoIter: Send,
    {
        let started = Instant::now();
        let mut iter = docs.into_iter();
        let (lo, hi) = iter.size_hint();
        let mut state = IngestProgress {
            docs_total: (Some(lo) == hi).then_some(lo),
            embedder: self.embedder.as_ref().map(|e| e.id().clone()),
            ..IngestProgress::default()
        };
        let mut report = IngestReport {
            lexical_only: self.embedder.is_none(),
            ..IngestReport::default()
        };
        // Two batches in flight: batch k is written (SQLite, then the dense
        // index) while batch k + 1 is checked, chunked and embedded, so that
        // a remote embedder's requests and the graph insertion overlap. With
        // an instant embedder, HNSW insertion was 84 % of the CPU of a
        // SciFact ingest and everything else waited for it; the overlap
        // saved 7 % (1k abstracts) and 3 % (5k) there, the graph being the
        // critical path (docs/benchmarks.d/ingest.md).
        let mut writing: Option<PendingWrite<'_>> = None;
        loop {
            let batch: Vec<Document> = iter.by_ref().take(self.batch_size).collect();
            if batch.is_empty() {
                break;
            }
            let n = batch.len();
            let bytes: u64 = batch.iter().map(|d| d.content.len() as u64).sum();
            state.batch += 1;
            state.docs_read += n;
            state.phase = IngestPhase::Checking;
            progress(&state);
            let batch = self.validate(batch, &mut report.errors);
            let stage = self.stage(batch, &mut state, progress);
            let (staged, written) = match writing.take() {
                Some(w) => {
                    let (staged, written) = tokio::join!(stage, w);
                    (staged, Some(written))
                }
                None => (stage.await, None),
            };
            if let Some(written) = written {
                self.account(written?, &mut state, &mut report);
                progress(&state);
            }
            let staged = staged?;
            report.upsert.unchanged += staged.unchanged;
            report.reprocessed += staged.reprocessed;
            writing = Some(self.write(staged.indexed, n, bytes));
        }
        if let Some(w) = writing.take() {
            state.phase = IngestPhase::Writing;
            progress(&state);
            let written = w.await?;
            self.account(written, &mut state, &mut report);
        }
        state.phase = IngestPhase::Done;
        progress(&state);
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Everything a batch needs before it is written: fingerprints of the
    /// stored documents, chunks of the new or changed ones, their vectors.
    async fn stage(
        &self,
        batch: Vec<Document>,
        state: &mut IngestProgress,
        progress: &(dyn Fn(&IngestProgress) + Sync),
    ) -> Result<Staged> {
        let n = batch.len();
        let started = Instant::now();
        let uids: Vec<String> = batch.iter().map(|d| d.uid.clone()).collect();
        let known = if uids.is_empty() {
            HashMap::new()
        } else {
            self.store.fingerprints(&uids).await?
        };
        let checked = started.elapsed();

        state.phase = IngestPhase::Chunking;
        progress(state);
        let chunker = self.chunker.clone();
        let settings = self.settings.clone();
        let work = move || prepare(&chunker, batch, &known, &settings);
        let (prepared, unchanged, reprocessed) = match tokio::runtime::Handle::try_current() {
            Ok(h) => h
                .spawn_blocking(work)
                .await
                .map_err(|e| Error::invalid_input(format!("chunking task failed: {e}")))?,
            Err(_) => work(),
        };
        state.docs_chunked += n;
        let chunked = started.elapsed();

        let embeddings = match &self.embedder {
            Some(embedder) if !prepared.is_empty() => {
                state.phase = IngestPhase::Embedding;
                Some(
                    self.embed_all(embedder.as_ref(), &prepared, state, progress)
                        .await?,
                )
            }
            _ => None,
        };
        tracing::debug!(
            batch = state.batch,
            docs = n,
            to_write = prepared.len(),
            fingerprints_ms = ms(checked),
            chunking_ms = ms(chunked.saturating_sub(checked)),
            embedding_ms = ms(started.elapsed().saturating_sub(chunked)),
            "ingest batch staged"
        );
        let embedder_id = self.embedder.as_ref().map(|e| e.id().clone());
        let mut vectors = embeddings.map(|e| e.into_iter());
        let mut indexed = Vec::with_capacity(prepared.len());
        for p in prepared {
            let (embeddings, sentence_embeddings) = match vectors.as_mut().and_then(Iterator::next)
            {
                Some((chunks, sentences)) => (Some(chunks), sentences),
                None => (None, None),
            };
            indexed.push(IndexedDocument {
                document: p.doc,
                chunks: p.chunks,
                embeddings,
                sentence_embeddings,
                embedder: embedder_id.clone(),
                content_hash: p.hash,
                chunking: Some(self.settings.chunking.clone()),
            });
        }
        Ok(Staged {
            indexed,
            unchanged,
            reprocessed,
        })
    }

    /// The store write of a staged batch of `n` documents and `bytes` content bytes.
    fn write(&self, indexed: Vec<IndexedDocument>, n: usize, bytes: u64) -> PendingWrite<'_> {
        let store = &self.store;
        Box::pin(async move {
            let started = Instant::now();
            let upsert = if indexed.is_empty() {
                UpsertReport::default()
            } else {
                store.upsert(indexed).await?
            };
            tracing::debug!(
                docs = n,
                chunks = upsert.chunks,
                write_ms = ms(started.elapsed()),
                "ingest batch written"
            );
            Ok(Written { upsert, n, bytes })
        })
    }

    /// Count a written batch in the progress and the report.
    fn account(&self, w: Written, state: &mut IngestProgress, report: &mut IngestReport) {
        report.upsert.merge(&w.upsert);
        state.docs_done += w.n;
        state.bytes_done += w.bytes;
        report.bytes += w.bytes;
    }

    /// Drop refused documents (recording why) and duplicate uids (last one wins).
    fn validate(&self, batch: Vec<Document>, errors: &mut Vec<String>) -> Vec<Document> {
        let mut last: HashMap<String, usize> = HashMap::new();
        for (i, d) in batch.iter().enumerate() {
            if last.insert(d.uid.clone(), i).is_some() {
                errors.push(format!(
                    "document `{}`: duplicate uid in the same batch, the last occurrence is kept",
                    d.uid
                ));
            }
        }
        batch
            .into_iter()
            .enumerate()
            .filter_map(|(i, d)| {
                if last.get(&d.uid) != Some(&i) {
                    return None;
                }
                if d.uid.trim().is_empty() {
                    errors.push(format!("document from `{}`: empty uid", d.source));
                    return None;
                }
                if d.content.trim().is_empty() {
                    errors.push(format!("document `{}`: empty content", d.uid));
                    return None;
                }
                Some(d)
            })
            .collect()
    }

    /// Embed all texts of a batch (chunks, then sentences when on) in
    /// sub-batches, checking what comes back. One entry per document: its
    /// chunk vectors and, when on, its sentence vectors per chunk.
    async fn embed_all(
        &self,
        embedder: &dyn Embedder,
        prepared: &[Prepared],
        state: &mut IngestProgress,
        progress: &(dyn Fn(&IngestProgress) + Sync),
    ) -> Result<Vec<DocVectors>> {
        // One item per chunk: its embedded text and, when on, its sentences
        // (a one-sentence chunk is already its own vector).
        let mut items: Vec<SpanText> = Vec::new();
        for p in prepared {
            let title = p.doc.title.as_deref();
            for c in &p.chunks {
                let text = if self.embed_context {
                    embedding_input(title, &c.heading_path, &c.text)
                } else {
                    c.text.clone()
                };
                let context = text.len().saturating_sub(c.text.len());
                let spans = if self.sentence_vectors {
                    sentence_spans(&c.text)
                } else {
                    Vec::new()
                };
                let spans = if spans.len() > 1 {
                    group_spans(spans)
                } else {
                    Vec::new()
                };
                items.push(SpanText {
                    spans: spans
                        .into_iter()
                        .map(|r| r.start + context..r.end + context)
                        .collect(),
                    text,
                    context,
                });
            }
        }
        // The embedder's work per item, in word pieces, for the progress
        // estimate (counted with the chunker's tokenizer, capped at the window).
        let window = embedder.max_tokens().max(1) as u64;
        let pooled = embedder.span_mode() == SpanMode::Pooled;
        state.int8_speedup = embedder.int8_speedup();
        let work: Vec<u64> = items
            .iter()
            .map(|i| self.word_pieces(i, window, pooled))
            .collect();
        state.word_pieces_pending = work.iter().sum();
        state.pooled_word_pieces += if pooled {
            state.word_pieces_pending
        } else {
            items
                .iter()
                .map(|i| self.chunker.count_tokens(&i.text) as u64 + 2)
                .sum::<u64>()
        };
        progress(state);
        let per_call = self
            .embed_batch_size
            .unwrap_or_else(|| embedder.texts_per_call())
            .max(1);
        let mut out: Vec<SpanEmbeddings> = Vec::with_capacity(items.len());
        let mut rest = items.as_slice();
        let mut rest_work = work.as_slice();
        while !rest.is_empty() {
            // About `per_call` texts per call: chunks and sentences, but
            // chunks alone when the embedder pools its sentence vectors from
            // the chunk's own pass (they cost it nothing more). Counting the
            // sentences there left ~3 chunks, one short pass, per call.
            let (mut n, mut texts, mut cost) = (0, 0, 0);
            while n < rest.len() && (n == 0 || cost < per_call) {
                let spans = rest.get(n).map_or(0, |i| i.spans.len());
                texts += 1 + spans;
                cost += if pooled { 1 } else { 1 + spans };
                n += 1;
            }
            let (sub, tail) = rest.split_at(n);
            rest = tail;
            let (sub_work, tail_work) = rest_work.split_at(n.min(rest_work.len()));
            rest_work = tail_work;
            let v = embedder.embed_spans(sub).await?;
            check_span_vectors(embedder.id(), sub, &v)?;
            out.extend(v);
            let done: u64 = sub_work.iter().sum();
            state.chunks_embedded += texts;
            state.word_pieces_embedded += done;
            state.word_pieces_pending = state.word_pieces_pending.saturating_sub(done);
            state.embedder = Some(embedder.id().clone());
            progress(state);
        }
        let mut vectors = out.into_iter();
        let mut docs = Vec::with_capacity(prepared.len());
        for p in prepared {
            let mut chunks = Vec::with_capacity(p.chunks.len());
            let mut sentences = Vec::with_capacity(p.chunks.len());
            for v in vectors.by_ref().take(p.chunks.len()) {
                chunks.push(v.text);
                sentences.push(v.spans);
            }
            docs.push((chunks, self.sentence_vectors.then_some(sentences)));
        }
        Ok(docs)
    }
}

impl Ingestor {
    /// Word pieces the embedder reads for `item`: its text up to the window,
    /// and each span (context + sentence, up to the window) when spans are
    /// embedded separately; when they are pooled, the text's windows only.
    fn word_pieces(&self, item: &SpanText, window: u64, pooled: bool) -> u64 {
        let count = |t: &str| self.chunker.count_tokens(t) as u64;
        let text = count(&item.text) + 2;
        if pooled {
            // Later windows repeat the context prefix; ignored.
            return text;
        }
        let context = item.text.get(..item.context).map_or(0, &count);
        let spans: u64 = item
            .spans
            .iter()
            .filter_map(|r| item.text.get(r.clone()))
            .map(|s| (context + count(s) + 2).min(window))
            .sum();
        text.min(window) + spans
    }
}

/// What an embedder returned for a sub-batch: one result per item, one
/// vector per span, every vector checked ([`validate_embeddings`]).
fn check_span_vectors(id: &EmbedderId, items: &[SpanText], got: &[SpanEmbeddings]) -> Result<()> {
    let spans_match = got.len() == items.len()
        && items
            .iter()
            .zip(got)
            .all(|(i, g)| i.spans.len() == g.spans.len());
    if !spans_match {
        let expected: usize = items.iter().map(|i| 1 + i.spans.len()).sum();
        let returned: usize = got.iter().map(|g| 1 + g.spans.len()).sum();
        return Err(ProviderError::new(
            id.model.clone(),
            ProviderErrorKind::BadResponse,
            format!(
                "expected {} texts with {expected} vectors in all, got {} texts with {returned}",
                items.len(),
                got.len(),
            ),
        )
        .into());
    }
    for g in got {
        validate_embeddings(&id.model, id, 1, std::slice::from_ref(&g.text))?;
        validate_embeddings(&id.model, id, g.spans.len(), &g.spans)?;
    }
    Ok(())
}

/// Vectors of one document: one per chunk, and per chunk its sentences' (when on).
type DocVectors = (Vec<Vec<f32>>, Option<Vec<Vec<Vec<f32>>>>);

/// Most sentence vectors per chunk; longer runs of sentences are grouped.
pub const MAX_SENTENCE_VECTORS_PER_CHUNK: usize = 255;

/// Group consecutive spans so that at most [`MAX_SENTENCE_VECTORS_PER_CHUNK`] remain.
fn group_spans(spans: Vec<std::ops::Range<usize>>) -> Vec<std::ops::Range<usize>> {
    if spans.len() <= MAX_SENTENCE_VECTORS_PER_CHUNK {
        return spans;
    }
    let per = spans.len().div_ceil(MAX_SENTENCE_VECTORS_PER_CHUNK);
    spans
        .chunks(per)
        .filter_map(|g| Some(g.first()?.start..g.last()?.end))
        .collect()
}

/// The text embedded for a chunk when context is on: the document title and
/// the heading path (outermost first, headings equal to the title or already
/// at the start of the chunk left out), joined with ` > `, then a blank line
/// and the chunk text. Without title or headings, the chunk text alone.
///
/// Embedders then read the title as context, as BEIR embeds "title text"
/// (SciFact, all-MiniLM-L6-v2, dense nDCG@10 0.670; see docs/benchmarks.d/quality.md).
pub fn embedding_input(title: Option<&str>, heading_path: &[String], text: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if let Some(t) = title.map(str::trim).filter(|t| !t.is_empty()) {
        parts.push(t);
    }
    let has_title = !parts.is_empty();
    for h in heading_path {
        let h = h.trim();
        if h.is_empty() || parts.contains(&h) {
            continue;
        }
        parts.push(h);
    }
    // A chunk that starts a section already begins with its heading.
    let body = text.trim_start().trim_start_matches('#').trim_start();
    if parts.len() > usize::from(has_title) && parts.last().is_some_and(|h| body.starts_with(h)) {
        parts.pop();
    }
    if parts.is_empty() {
        return text.to_string();
    }
    format!("{}\n\n{text}", parts.join(" > "))
}

/// Fill missing languages, skip unchanged documents, chunk the others.
/// Returns the documents to write, how many were unchanged and how many have
/// unchanged content but were indexed with other settings.
fn prepare(
    chunker: &Chunker,
    batch: Vec<Document>,
    known: &HashMap<String, Fingerprint>,
    settings: &IngestSettings,
) -> (Vec<Prepared>, usize, usize) {
    let (mut unchanged, mut reprocessed) = (0, 0);
    let mut out = Vec::with_capacity(batch.len());
    for mut doc in batch {
        if doc.lang.is_none() {
            doc.lang = detect_lang(&doc.content);
        }
        let hash = doc.content_hash();
        if let Some(fp) = known.get(&doc.uid) {
            if settings.is_current(&hash, fp) {
                unchanged += 1;
                continue;
            }
            if fp.content_hash == hash {
                reprocessed += 1;
            }
        }
        let chunks = chunker.chunk_document(&doc);
        out.push(Prepared { doc, hash, chunks });
    }
    (out, unchanged, reprocessed)
}

#[cfg(test)]
mod tests {
    use super::embedding_input;

    #[test]
    fn embedding_input_prefixes_title_and_headings() {
        let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(embedding_input(None, &[], "Body."), "Body.");
        assert_eq!(embedding_input(Some("  "), &[], "Body."), "Body.");
        assert_eq!(
            embedding_input(Some("Fees"), &[], "Routing fees went up."),
            "Fees\n\nRouting fees went up."
        );
        assert_eq!(
            embedding_input(Some("Guide"), &h(&["Guide", "Install"]), "Run it."),
            "Guide > Install\n\nRun it."
        );
        // A chunk that starts with its heading does not repeat it.
        assert_eq!(
            embedding_input(Some("Guide"), &h(&["Install"]), "## Install\n\nRun it."),
            "Guide\n\n## Install\n\nRun it."
        );
        assert_eq!(
            embedding_input(None, &h(&["Install"]), "Install\n\nRun it."),
            "Install\n\nRun it."
        );
    }
}
