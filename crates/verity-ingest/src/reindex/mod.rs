//! Idempotent re-indexing with a shadow index, an evaluation gate and an
//! atomic alias cutover, for every backend (through [`IndexCatalog`]).
//!
//! `reindex(name, version V)`:
//! 1. build (or resume) the shadow index `<name>:v<V>`
//!    ([`versioned_index`]): read → chunk → embed → upsert with
//!    [`Ingestor`]; documents whose fingerprint (content hash, embed version,
//!    chunking) is already in the shadow are skipped, so an interrupted run
//!    resumes where it stopped;
//! 2. evaluate the shadow ([`evaluate`]: recall@k on an evaluation set,
//!    retrieval p95);
//! 3. only when the gate passes, point the alias `<name>:current`
//!    ([`current_alias`]) at the shadow ([`IndexCatalog::set_alias`]: one
//!    SQLite transaction on the embedded store, `FT.ALIASUPDATE` on Redis):
//!    readers switch atomically; the old index is kept;
//! 4. purge the retrieval and answer caches.
//!
//! A dry run reports what would be (re-)embedded without writing anything.

mod gate;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use verity_core::cache::{ANSWER_PREFIX, RETRIEVAL_PREFIX};
pub use verity_core::catalog::{current_alias, versioned_index};
pub use verity_core::IndexCatalog;
use verity_core::{Cache, Document, Embedder, Error, Result, SearchMode, StoreError};

pub use gate::{evaluate, EvalQuery, EvalSet, GateConfig, GateReport};

use crate::{
    chunking_fingerprint, fit_chunker, Chunker, ChunkerConfig, IngestProgress, IngestReport,
    IngestSettings, Ingestor,
};

/// What a dry run found.
// One type for the library and every host (`verity::api::ReindexPlan`); its
// doc comments are the published schema's descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReindexPlan {
    /// Documents read.
    pub documents: usize,
    /// Documents that would be chunked and embedded.
    pub to_embed: usize,
    /// Documents already in the shadow with the same content and embed version.
    pub unchanged: usize,
    /// Chunks that would be embedded.
    pub chunks_to_embed: usize,
    /// Some of the uids that would be embedded.
    pub sample: Vec<String>,
}

/// Settings of [`reindex`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReindexOptions {
    /// Logical index name (`default`).
    pub name: String,
    /// Version of the new index, named `<name>:v<version>`.
    pub version: String,
    /// The `EMBED_VERSION` the embedder was configured with, when it was
    /// (remote embedders: Ollama, OpenAI): `version` must then equal it
    /// (seed 001: the shadow is `idx:…:v{EMBED_VERSION}`). `None`: the
    /// embedder's version is not a declared label (the local embedder's is
    /// the hash of its weights) and `version` is free.
    pub declared_version: Option<String>,
    /// Gate thresholds.
    pub gate: GateConfig,
    /// Evaluation set (`None`: the gate is skipped and noted in the report).
    pub eval: Option<EvalSet>,
    /// Report what would be embedded, write nothing.
    pub dry_run: bool,
    /// Search mode of the gate (default: hybrid with an embedder, lexical without).
    pub mode: Option<SearchMode>,
    /// Documents per store transaction.
    pub batch_size: Option<usize>,
}

impl ReindexOptions {
    /// Options for `name` at `version` with the default gate.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            declared_version: None,
            gate: GateConfig::default(),
            eval: None,
            dry_run: false,
            mode: None,
            batch_size: None,
        }
    }
}

/// What [`reindex`] did.
#[derive(Debug, Clone, Default)]
pub struct ReindexReport {
    /// Backend.
    pub backend: String,
    /// The shadow index (`<name>:v<version>`).
    pub shadow: String,
    /// The alias (`<name>:current`).
    pub alias: String,
    /// Where the alias pointed before (`None`: it did not exist).
    pub previous: Option<String>,
    /// The dry-run findings (dry run only).
    pub plan: Option<ReindexPlan>,
    /// The ingestion into the shadow (not in dry runs).
    pub ingest: Option<IngestReport>,
    /// The gate (`None`: no evaluation set, or dry run).
    pub gate: Option<GateReport>,
    /// The alias now points at the shadow.
    pub cut_over: bool,
    /// Cache entries purged after the cutover.
    pub purged: usize,
    /// Human-readable notes.
    pub notes: Vec<String>,
}

async fn plan<I>(
    catalog: &(impl IndexCatalog + ?Sized),
    shadow: &str,
    docs: I,
    embedder: Option<&Arc<dyn Embedder>>,
) -> Result<ReindexPlan>
where
    I: IntoIterator<Item = Document>,
{
    let store = if catalog.index_names().await?.iter().any(|n| n == shadow) {
        Some(catalog.open(shadow).await?)
    } else {
        None
    };
    // What `Ingestor::builder(store).embedder(..).build()` would use (defaults).
    let sentences = embedder.is_some() && catalog.supports_sentence_vectors();
    let chunker = fit_chunker(
        Chunker::new(ChunkerConfig::default())?,
        embedder.map(|e| e.as_ref()),
        sentences,
    )?;
    let settings = IngestSettings {
        embed_version: embedder.map(|e| e.id().version.clone()),
        chunking: chunking_fingerprint(
            &chunker,
            embedder.is_some(),
            embedder.filter(|_| sentences).map(|e| e.span_mode()),
        ),
    };
    let mut out = ReindexPlan::default();
    let mut seen = HashSet::new();
    let mut iter = docs.into_iter();
    loop {
        let batch: Vec<Document> = iter.by_ref().take(256).collect();
        if batch.is_empty() {
            return Ok(out);
        }
        let uids: Vec<String> = batch.iter().map(|d| d.uid.clone()).collect();
        let known = match &store {
            Some(s) => s.fingerprints(&uids).await?,
            None => HashMap::new(),
        };
        for mut d in batch {
            if d.uid.trim().is_empty() || d.content.trim().is_empty() || !seen.insert(d.uid.clone())
            {
                continue;
            }
            out.documents += 1;
            if d.lang.is_none() {
                d.lang = crate::detect_lang(&d.content);
            }
            let hash = d.content_hash();
            if known
                .get(&d.uid)
                .is_some_and(|fp| settings.is_current(&hash, fp))
            {
                out.unchanged += 1;
                continue;
            }
            out.to_embed += 1;
            out.chunks_to_embed += chunker.chunk_document(&d).len();
            if out.sample.len() < 20 {
                out.sample.push(d.uid.clone());
            }
        }
    }
}

/// Re-index `docs` into the shadow `<name>:v<version>`, gate it, and cut the
/// alias `<name>:current` over to it when the gate passes (see the module docs).
///
/// Errors from the store or the embedder stop the run (what was written
/// stays: re-running resumes). A failed gate is not an error: the report
/// says `cut_over: false` and why.
pub async fn reindex<C, I>(
    catalog: &C,
    docs: I,
    embedder: Option<Arc<dyn Embedder>>,
    cache: Option<&dyn Cache>,
    opts: &ReindexOptions,
    progress: &(dyn Fn(&IngestProgress) + Sync),
) -> Result<ReindexReport>
where
    C: IndexCatalog + ?Sized,
    I: IntoIterator<Item = Document>,
    I::IntoIter: Send,
{
    if opts.version.trim().is_empty() {
        return Err(Error::invalid_input("re-index version must not be empty"));
    }
    if let (Some(_), Some(declared)) = (&embedder, &opts.declared_version) {
        if *declared != opts.version {
            return Err(Error::invalid_input(format!(
                "re-index version `{}` differs from EMBED_VERSION `{declared}`: give `--version {declared}` \
                 or set EMBED_VERSION={} (the shadow index is named after it)",
                opts.version, opts.version
            )));
        }
    }
    let shadow = versioned_index(&opts.name, &opts.version);
    let alias = current_alias(&opts.name);
    let previous = catalog.resolve_alias(&alias).await?;
    let mut report = ReindexReport {
        backend: catalog.backend().to_string(),
        shadow: shadow.clone(),
        alias: alias.clone(),
        previous: previous.clone(),
        ..ReindexReport::default()
    };
    if opts.dry_run {
        report.plan = Some(plan(catalog, &shadow, docs, embedder.as_ref()).await?);
        report.notes.push("dry run: nothing written".into());
        return Ok(report);
    }
    let store = catalog.open(&shadow).await?;
    if let (Some(cur), Some(e)) = (store.embedder().await?, &embedder) {
        if cur.model != e.id().model || cur.dim != e.id().dim {
            return Err(StoreError::EmbedderMismatch {
                expected: cur.to_string(),
                found: e.id().to_string(),
            }
            .into());
        }
    }
    let mut builder = Ingestor::builder(store.clone()).embedder(embedder.clone());
    if let Some(b) = opts.batch_size {
        builder = builder.batch_size(b);
    }
    let ingest = builder.build()?.ingest(docs, progress).await?;
    report.ingest = Some(ingest);

    let mode = opts.mode.unwrap_or(if embedder.is_some() {
        SearchMode::Hybrid
    } else {
        SearchMode::Lexical
    });
    match &opts.eval {
        Some(eval) => {
            let g = evaluate(store.as_ref(), embedder.as_deref(), eval, &opts.gate, mode).await?;
            let passed = g.passed;
            report.gate = Some(g);
            if !passed {
                report.notes.push(format!(
                    "gate failed: the alias `{alias}` keeps pointing at {}",
                    previous.as_deref().unwrap_or("nothing")
                ));
                return Ok(report);
            }
        }
        None => report.notes.push("no evaluation set: gate skipped".into()),
    }
    if previous.as_deref() != Some(shadow.as_str()) {
        catalog.set_alias(&alias, &shadow).await?;
    } else {
        report
            .notes
            .push(format!("`{alias}` already pointed at `{shadow}`"));
    }
    report.cut_over = true;
    if let Some(c) = cache {
        report.purged += c.invalidate_prefix(RETRIEVAL_PREFIX).await?;
        report.purged += c.invalidate_prefix(ANSWER_PREFIX).await?;
    }
    Ok(report)
}

/// [`reindex`] reading the documents from files and directories
/// ([`crate::read_paths`]); unreadable records are listed in the
/// ingest report's errors.
pub async fn reindex_paths<C>(
    catalog: &C,
    paths: &[PathBuf],
    embedder: Option<Arc<dyn Embedder>>,
    cache: Option<&dyn Cache>,
    opts: &ReindexOptions,
    progress: &(dyn Fn(&IngestProgress) + Sync),
) -> Result<ReindexReport>
where
    C: IndexCatalog + ?Sized,
{
    let errors = Arc::new(Mutex::new(Vec::new()));
    let errs = errors.clone();
    let docs = crate::read_paths(paths).filter_map(move |r| match r {
        Ok(d) => Some(d),
        Err(e) => {
            if let Ok(mut v) = errs.lock() {
                v.push(e.to_string());
            }
            None
        }
    });
    let mut report = reindex(catalog, docs, embedder, cache, opts, progress).await?;
    let read_errors = errors
        .lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default();
    if let Some(i) = report.ingest.as_mut() {
        i.errors.extend(read_errors);
    } else if !read_errors.is_empty() {
        report
            .notes
            .push(format!("{} unreadable records", read_errors.len()));
    }
    Ok(report)
}
