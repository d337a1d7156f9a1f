//! Idempotent re-indexing with a shadow index, an evaluation gate and an
//! atomic alias cutover, for both backends ([`IndexCatalog`]).
//!
//! `reindex(name, version V)`:
//! 1. build (or resume) the shadow index `<name>:v<V>` (RediSearch `idx:<name>:v<V>`):
//!    read → chunk → embed → upsert with [`verity_ingest::Ingestor`]; documents
//!    whose fingerprint (content hash, embed version, chunking) is already in the shadow
//!    are skipped, so an interrupted run resumes where it stopped;
//! 2. evaluate the shadow (recall@5 on an evaluation set, retrieval p95);
//! 3. only when the gate passes, point the alias `<name>:current` at the
//!    shadow (`FT.ALIASUPDATE` on Redis, one SQLite transaction on the
//!    embedded store): readers switch atomically; the old index is kept;
//! 4. purge the retrieval and answer caches.
//!
//! A dry run reports what would be (re-)embedded without writing anything.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use redis::aio::ConnectionManager;
use redis::Value;
use serde::{Deserialize, Serialize};
use verity_core::cache::{ANSWER_PREFIX, RETRIEVAL_PREFIX};
use verity_core::{
    Cache, Document, Embedder, Error, Result, SearchMode, SearchQuery, StoreError, VectorStore,
};
use verity_ingest::{
    chunking_fingerprint, fit_chunker, Chunker, ChunkerConfig, IngestProgress, IngestReport,
    IngestSettings, Ingestor,
};
use verity_store::{SqliteStore, StoreOptions};

use crate::conn::{as_string, map_err};
use crate::store::{
    chunk_prefix, doc_key, ft_name, meta_key, validate_name, RedisStore, RedisStoreOptions,
    CATALOG_KEY,
};

/// Name of the shadow index of `name` at embedding version `version`: `<name>:v<version>`.
pub fn versioned_index(name: &str, version: &str) -> String {
    format!("{name}:v{version}")
}

/// Name of the alias readers use: `<name>:current`.
pub fn current_alias(name: &str) -> String {
    format!("{name}:current")
}

/// The index management a re-index needs, implemented by both backends.
#[async_trait]
pub trait IndexCatalog: Send + Sync {
    /// Backend name (`sqlite`, `redis`).
    fn backend(&self) -> &'static str;
    /// Whether its stores index sentence vectors
    /// ([`VectorStore::supports_sentence_vectors`]).
    fn supports_sentence_vectors(&self) -> bool;
    /// Names of the existing indexes.
    async fn index_names(&self) -> Result<Vec<String>>;
    /// The index an alias points at (`None`: not an alias).
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>>;
    /// Create or atomically switch `alias` to `index`.
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()>;
    /// A store bound to `index`, created empty when missing.
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>>;
    /// Drop an index and its content.
    async fn drop_index(&self, index: &str) -> Result<()>;
}

/// [`IndexCatalog`] over the embedded SQLite database of a home directory.
#[derive(Debug)]
pub struct SqliteCatalog {
    home: PathBuf,
    opts: StoreOptions,
    admin: SqliteStore,
}

impl SqliteCatalog {
    /// Open the database of `home`; `opts.index` is the index the catalog's
    /// own handle binds to (it cannot be dropped through this catalog).
    pub fn open(home: &Path, opts: StoreOptions) -> Result<Self> {
        let admin = SqliteStore::open(home, opts.clone())?;
        Ok(Self {
            home: home.to_path_buf(),
            opts,
            admin,
        })
    }
}

#[async_trait]
impl IndexCatalog for SqliteCatalog {
    fn backend(&self) -> &'static str {
        "sqlite"
    }
    fn supports_sentence_vectors(&self) -> bool {
        true
    }
    async fn index_names(&self) -> Result<Vec<String>> {
        Ok(self
            .admin
            .list_indexes()?
            .into_iter()
            .map(|i| i.name)
            .collect())
    }
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>> {
        self.admin.resolve_alias(alias)
    }
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        self.admin.set_alias(alias, index)
    }
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>> {
        Ok(Arc::new(SqliteStore::open(
            &self.home,
            self.opts.clone().index(index),
        )?))
    }
    async fn drop_index(&self, index: &str) -> Result<()> {
        self.admin.drop_index(index)
    }
}

/// [`IndexCatalog`] over a Redis server.
#[derive(Clone)]
pub struct RedisCatalog {
    con: ConnectionManager,
    opts: RedisStoreOptions,
}

impl std::fmt::Debug for RedisCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCatalog").finish_non_exhaustive()
    }
}

impl RedisCatalog {
    /// Connect to `url`.
    pub async fn connect(url: &str, opts: RedisStoreOptions) -> Result<Self> {
        let con = crate::conn::connect(url, &opts.connect).await?;
        Ok(Self { con, opts })
    }

    /// Use an existing connection.
    pub fn with_connection(con: ConnectionManager, opts: RedisStoreOptions) -> Self {
        Self { con, opts }
    }

    /// A [`RedisStore`] bound to `index` or alias (concrete type).
    pub async fn store(&self, index: &str) -> Result<RedisStore> {
        RedisStore::with_connection(self.con.clone(), index, self.opts.clone()).await
    }
}

#[async_trait]
impl IndexCatalog for RedisCatalog {
    fn backend(&self) -> &'static str {
        "redis"
    }
    fn supports_sentence_vectors(&self) -> bool {
        false
    }
    async fn index_names(&self) -> Result<Vec<String>> {
        let mut con = self.con.clone();
        let mut v: Vec<String> = redis::cmd("SMEMBERS")
            .arg(CATALOG_KEY)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "SMEMBERS"))?;
        v.sort();
        Ok(v)
    }
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>> {
        validate_name(alias)?;
        crate::store::resolve_alias(&self.con, alias).await
    }
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        validate_name(alias)?;
        validate_name(index)?;
        if self.index_names().await?.iter().any(|n| n == alias) {
            return Err(Error::invalid_input(format!(
                "`{alias}` is an index name, it cannot be an alias"
            )));
        }
        let mut con = self.con.clone();
        let _: Value = redis::cmd("FT.ALIASUPDATE")
            .arg(ft_name(alias))
            .arg(ft_name(index))
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "FT.ALIASUPDATE"))?;
        Ok(())
    }
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>> {
        Ok(Arc::new(self.store(index).await?))
    }
    async fn drop_index(&self, index: &str) -> Result<()> {
        validate_name(index)?;
        let mut con = self.con.clone();
        let res: redis::RedisResult<Value> = redis::cmd("FT.DROPINDEX")
            .arg(ft_name(index))
            .arg("DD")
            .query_async(&mut con)
            .await;
        if let Err(e) = res {
            let m = e.to_string().to_ascii_lowercase();
            if !(crate::conn::is_unknown_index(&m)) {
                return Err(map_err(e, "FT.DROPINDEX"));
            }
        }
        for pattern in [
            format!("{}*", doc_key(index, "")),
            format!("{}*", chunk_prefix(index)),
        ] {
            let mut cursor: u64 = 0;
            loop {
                let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(500)
                    .query_async(&mut con)
                    .await
                    .map_err(|e| map_err(e, "SCAN"))?;
                if !keys.is_empty() {
                    let _: i64 = redis::cmd("UNLINK")
                        .arg(&keys)
                        .query_async(&mut con)
                        .await
                        .map_err(|e| map_err(e, "UNLINK"))?;
                }
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
        }
        let _: Value = redis::pipe()
            .cmd("DEL")
            .arg(meta_key(index))
            .cmd("SREM")
            .arg(CATALOG_KEY)
            .arg(index)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "dropping the index"))?;
        Ok(())
    }
}

/// One evaluation query with the uids of the documents that answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalQuery {
    /// The query text.
    pub query: String,
    /// Uids of the relevant documents.
    pub relevant_uids: Vec<String>,
}

/// An evaluation set for the gate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalSet {
    /// The queries (those without any relevant uid are ignored).
    pub queries: Vec<EvalQuery>,
}

fn unreadable(path: &Path, e: impl std::fmt::Display) -> Error {
    verity_core::InputError::Unreadable {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
    .into()
}

fn malformed(path: &Path, line: usize, message: impl Into<String>) -> Error {
    verity_core::InputError::MalformedRecord {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
    .into()
}

impl EvalSet {
    /// Read a JSONL file of `{"query": …, "relevant_uids": [...]}` records.
    pub fn from_jsonl(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
        let mut queries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let q: EvalQuery =
                serde_json::from_str(line).map_err(|e| malformed(path, i + 1, e.to_string()))?;
            if !q.relevant_uids.is_empty() {
                queries.push(q);
            }
        }
        Ok(Self { queries })
    }

    /// Read a BEIR split: `queries.jsonl` (`{"_id", "text"}`) and a qrels TSV
    /// (`query-id  corpus-id  score`, header optional; score > 0 is relevant).
    pub fn from_beir(queries: &Path, qrels: &Path) -> Result<Self> {
        let qrels_text = std::fs::read_to_string(qrels).map_err(|e| unreadable(qrels, e))?;
        let mut rel: HashMap<String, Vec<String>> = HashMap::new();
        for (i, line) in qrels_text.lines().enumerate() {
            let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
            let (Some(q), Some(d)) = (cols.first(), cols.get(1)) else {
                continue;
            };
            if i == 0 && q.eq_ignore_ascii_case("query-id") {
                continue;
            }
            let score: f64 = match cols.get(2) {
                Some(s) => s
                    .parse()
                    .map_err(|_| malformed(qrels, i + 1, format!("bad score `{s}`")))?,
                None => 1.0,
            };
            if score > 0.0 {
                rel.entry(q.to_string()).or_default().push(d.to_string());
            }
        }
        let text = std::fs::read_to_string(queries).map_err(|e| unreadable(queries, e))?;
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| malformed(queries, i + 1, e.to_string()))?;
            let id = match v.get("_id") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => return Err(malformed(queries, i + 1, "missing `_id`")),
            };
            let Some(q) = v.get("text").and_then(|t| t.as_str()) else {
                return Err(malformed(queries, i + 1, "missing `text`"));
            };
            if let Some(r) = rel.remove(&id) {
                out.push(EvalQuery {
                    query: q.to_string(),
                    relevant_uids: r,
                });
            }
        }
        Ok(Self { queries: out })
    }
}

/// Thresholds of the cutover gate (seed 001: recall@5 ≥ 0.8, p95 ≤ 2.5 s).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GateConfig {
    /// Minimum mean recall@k.
    pub min_recall: f64,
    /// The `k` of recall@k (distinct documents).
    pub k: usize,
    /// Maximum 95th percentile of retrieval latency (query embedding + search).
    pub max_p95: Duration,
}

impl Default for GateConfig {
    fn default() -> Self {
        Self {
            min_recall: 0.8,
            k: 5,
            max_p95: Duration::from_millis(2500),
        }
    }
}

impl GateConfig {
    /// Parse `recall@5=0.8`, `p95=2.5s` / `p95=800ms`, comma-separated,
    /// over the defaults.
    pub fn parse(spec: &str) -> Result<Self> {
        let mut g = Self::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                Error::invalid_input(format!(
                    "gate `{part}` must look like recall@5=0.8 or p95=2.5s"
                ))
            })?;
            let k = k.trim().to_ascii_lowercase();
            let v = v.trim();
            if let Some(n) = k.strip_prefix("recall@") {
                g.k = n
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| Error::invalid_input(format!("bad k in `{part}`")))?;
                g.min_recall = v
                    .parse::<f64>()
                    .ok()
                    .filter(|r| (0.0..=1.0).contains(r))
                    .ok_or_else(|| {
                        Error::invalid_input(format!("recall in `{part}` must be in [0, 1]"))
                    })?;
            } else if k == "p95" {
                let secs = if let Some(ms) = v.strip_suffix("ms") {
                    ms.trim().parse::<f64>().ok().map(|x| x / 1000.0)
                } else {
                    v.strip_suffix('s').unwrap_or(v).trim().parse::<f64>().ok()
                };
                let secs = secs
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| Error::invalid_input(format!("bad duration in `{part}`")))?;
                g.max_p95 = Duration::from_secs_f64(secs);
            } else {
                return Err(Error::invalid_input(format!(
                    "unknown gate `{k}` (expected recall@K or p95)"
                )));
            }
        }
        Ok(g)
    }
}

/// Outcome of the gate on the shadow index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// Queries evaluated.
    pub queries: usize,
    /// The `k` of recall@k.
    pub k: usize,
    /// Mean recall@k.
    pub recall: f64,
    /// Median retrieval latency.
    pub p50: Duration,
    /// 95th percentile retrieval latency.
    pub p95: Duration,
    /// Search mode used.
    pub mode: SearchMode,
    /// Both thresholds met.
    pub passed: bool,
    /// Why it failed, when it did.
    pub failures: Vec<String>,
}

/// What a dry run found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DryRunPlan {
    /// Documents read.
    pub documents: usize,
    /// Documents that would be chunked and embedded (new or changed in the shadow).
    pub to_embed: usize,
    /// Documents already in the shadow with the same content and embed version.
    pub unchanged: usize,
    /// Chunks that would be embedded.
    pub chunks_to_embed: usize,
    /// Some of the uids that would be embedded (at most 20).
    pub sample: Vec<String>,
}

/// Settings of [`reindex`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReindexOptions {
    /// Logical index name (`default`).
    pub name: String,
    /// `EMBED_VERSION` of the new index; must equal the embedder's version.
    pub version: String,
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
    pub plan: Option<DryRunPlan>,
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
) -> Result<DryRunPlan>
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
        chunking: chunking_fingerprint(&chunker, embedder.is_some(), sentences),
    };
    let mut out = DryRunPlan::default();
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
                d.lang = verity_ingest::detect_lang(&d.content);
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.clamp(1, sorted.len()) - 1)
        .copied()
        .unwrap_or_default()
}

/// Evaluate a store on an evaluation set: mean recall@k over distinct
/// documents and retrieval latency (query embedding + search).
pub async fn evaluate(
    store: &dyn VectorStore,
    embedder: Option<&dyn Embedder>,
    eval: &EvalSet,
    gate: &GateConfig,
    mode: SearchMode,
) -> Result<GateReport> {
    let mut recalls = Vec::with_capacity(eval.queries.len());
    let mut lat = Vec::with_capacity(eval.queries.len());
    let k = gate.k.max(1);
    for q in &eval.queries {
        if q.relevant_uids.is_empty() {
            continue;
        }
        let started = Instant::now();
        let mut sq = SearchQuery::new(q.query.clone())
            .mode(mode)
            .k((k * 4).max(20));
        if mode != SearchMode::Lexical {
            if let Some(e) = embedder {
                sq = sq.vector(e.embed_query(&q.query).await?);
            }
        }
        let hits = store.search(&sq).await?;
        lat.push(started.elapsed());
        let mut top: Vec<&str> = Vec::with_capacity(k);
        for h in &hits {
            if top.len() >= k {
                break;
            }
            if !top.contains(&h.doc.uid.as_str()) {
                top.push(&h.doc.uid);
            }
        }
        let rel: HashSet<&str> = q.relevant_uids.iter().map(String::as_str).collect();
        let found = top.iter().filter(|u| rel.contains(**u)).count();
        recalls.push(found as f64 / rel.len() as f64);
    }
    lat.sort();
    let recall = if recalls.is_empty() {
        0.0
    } else {
        recalls.iter().sum::<f64>() / recalls.len() as f64
    };
    let p50 = percentile(&lat, 50.0);
    let p95 = percentile(&lat, 95.0);
    let mut failures = Vec::new();
    if recalls.is_empty() {
        failures.push("the evaluation set has no query with a relevant document".to_string());
    }
    if recall < gate.min_recall {
        failures.push(format!("recall@{k} = {recall:.3} < {:.3}", gate.min_recall));
    }
    if p95 > gate.max_p95 {
        failures.push(format!(
            "p95 = {:.0} ms > {:.0} ms",
            p95.as_secs_f64() * 1e3,
            gate.max_p95.as_secs_f64() * 1e3
        ));
    }
    Ok(GateReport {
        queries: recalls.len(),
        k,
        recall,
        p50,
        p95,
        mode,
        passed: failures.is_empty(),
        failures,
    })
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
    if let Some(e) = &embedder {
        if e.id().version != opts.version {
            return Err(Error::invalid_input(format!(
                "re-index version `{}` differs from the embedder's EMBED_VERSION `{}` (set them equal)",
                opts.version,
                e.id().version
            )));
        }
    }
    let shadow = versioned_index(&opts.name, &opts.version);
    let alias = current_alias(&opts.name);
    validate_name(&shadow)?;
    validate_name(&alias)?;
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
/// ([`verity_ingest::read_paths`]); unreadable records are listed in the
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
    let errors = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let errs = errors.clone();
    let docs = verity_ingest::read_paths(paths).filter_map(move |r| match r {
        Ok(d) => Some(d),
        Err(e) => {
            errs.lock().push(e.to_string());
            None
        }
    });
    let mut report = reindex(catalog, docs, embedder, cache, opts, progress).await?;
    let read_errors = std::mem::take(&mut *errors.lock());
    if let Some(i) = report.ingest.as_mut() {
        i.errors.extend(read_errors);
    } else if !read_errors.is_empty() {
        report
            .notes
            .push(format!("{} unreadable records", read_errors.len()));
    }
    Ok(report)
}

/// Uids of the documents of a Redis index (for re-indexing from the index itself).
pub async fn redis_document_uids(con: &ConnectionManager, index: &str) -> Result<Vec<String>> {
    let mut con = con.clone();
    let prefix = doc_key(index, "");
    let mut cursor: u64 = 0;
    let mut out = Vec::new();
    loop {
        let (next, keys): (u64, Vec<Value>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}*"))
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "SCAN"))?;
        out.extend(
            keys.iter()
                .filter_map(as_string)
                .filter_map(|k| k.strip_prefix(&prefix).map(str::to_string)),
        );
        cursor = next;
        if cursor == 0 {
            out.sort();
            return Ok(out);
        }
    }
}
