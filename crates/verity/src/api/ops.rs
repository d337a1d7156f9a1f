//! Delete, get, stats, fetch, re-index and evaluation requests and responses.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{Document, EmbedderId, FetchedSource, SearchMode, StoreStats};

/// Delete documents by uid (`verity delete`, `store.delete`, `DELETE /documents`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteRequest {
    /// Document uids (none may be empty).
    pub uids: Vec<String>,
}

/// What a delete did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteResponse {
    /// Documents that existed and were deleted.
    pub deleted: usize,
    /// Uids asked for.
    pub requested: usize,
}

/// One document by uid (`store.get`, `GET /documents/{uid}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocumentRequest {
    /// The document uid.
    pub uid: String,
}

/// The document, when it exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetDocumentResponse {
    /// `None` when no document has this uid.
    pub document: Option<Document>,
}

/// What the store holds and how it is configured (`verity stats`, `store.stats`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatsResponse {
    /// Store counts.
    pub store: StoreStats,
    /// Embedder configured for queries and ingestion, if any.
    pub embedder: Option<EmbedderId>,
    /// Generator answering questions (its configured spec; loaded on the first question).
    pub generator: String,
    /// Store directory (embedded store) — also where evaluation stores go.
    pub home: PathBuf,
    /// Redis URL (password masked) when the store lives in Redis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redis: Option<String>,
    /// Warnings about the configuration (lexical-only, embedder mismatch, …).
    pub notes: Vec<String>,
}

/// Fetch a URL, or parse a local file with the same parsers (`verity fetch`, `verity.fetch`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchRequest {
    /// An http(s) URL or a local path.
    pub target: String,
    /// Allow private and loopback addresses (disables the SSRF guard; default `false`).
    #[serde(default)]
    pub allow_private: bool,
}

/// The fetched and parsed source, with its status.
pub type FetchResponse = FetchedSource;

/// An evaluation set in BEIR format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BeirEvalFiles {
    /// Queries JSONL file.
    pub queries: PathBuf,
    /// Qrels TSV file.
    pub qrels: PathBuf,
}

/// Re-index into a shadow index, check it against an evaluation set, then
/// switch the alias (`verity reindex`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReindexRequest {
    /// Files and directories to ingest into the new index.
    pub paths: Vec<PathBuf>,
    /// Version of the new index `<name>:v<version>` (with a remote embedder
    /// and `EMBED_VERSION` set, it must equal `EMBED_VERSION`).
    pub version: String,
    /// Logical index name (default `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Gate thresholds, e.g. `recall@5=0.8,p95=2.5s` (default `recall@5=0.8,p95=2.5s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Evaluation set as JSONL lines `{"query": …, "relevant_uids": [uid, …]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<PathBuf>,
    /// Evaluation set in BEIR format (exclusive with `eval`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_beir: Option<BeirEvalFiles>,
    /// Report what would be embedded; write nothing (default `false`).
    #[serde(default)]
    pub dry_run: bool,
    /// Search mode of the gate (default: hybrid with an embedder, lexical without).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
}

/// What a dry run found (the library's own type).
pub use verity_ingest::reindex::ReindexPlan;

/// The ingestion into the shadow index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReindexIngest {
    /// New documents.
    pub inserted: usize,
    /// Replaced documents.
    pub replaced: usize,
    /// Unchanged documents.
    pub unchanged: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Records or documents refused.
    pub errors: Vec<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The evaluation gate's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GateOutcome {
    /// Queries evaluated.
    pub queries: usize,
    /// The `k` of recall@k.
    pub k: usize,
    /// Mean recall@k.
    pub recall: f64,
    /// Median retrieval latency, ms.
    pub p50_ms: f64,
    /// 95th percentile retrieval latency, ms.
    pub p95_ms: f64,
    /// Search mode used.
    pub mode: SearchMode,
    /// Both thresholds met.
    pub passed: bool,
    /// Why it failed, when it did.
    pub failures: Vec<String>,
}

/// What a re-index did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReindexResponse {
    /// Backend (`sqlite`, `redis`).
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
    pub ingest: Option<ReindexIngest>,
    /// The gate (`None`: no evaluation set, or dry run).
    pub gate: Option<GateOutcome>,
    /// The alias now points at the shadow.
    pub cut_over: bool,
    /// Cache entries purged after the cutover.
    pub purged: usize,
    /// Human-readable notes.
    pub notes: Vec<String>,
}

impl ReindexResponse {
    /// The gate ran and refused the new index (CLI exit status 8).
    pub fn gate_failed(&self) -> bool {
        self.gate.as_ref().is_some_and(|g| !g.passed)
    }
}

/// Evaluate retrieval quality on a BEIR-format dataset (`verity eval beir`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalBeirRequest {
    /// Dataset directory (corpus.jsonl, queries*.jsonl, qrels/*.tsv).
    pub dir: PathBuf,
    /// Split (default `train`).
    #[serde(default = "default_split")]
    pub split: String,
    /// Modes to evaluate (default: lexical, dense, hybrid).
    #[serde(default = "all_modes")]
    pub modes: Vec<SearchMode>,
    /// Evaluate only the first N queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

fn default_split() -> String {
    "train".into()
}

fn all_modes() -> Vec<SearchMode> {
    vec![SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid]
}

impl EvalBeirRequest {
    /// Every mode of the `train` split of `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            split: default_split(),
            modes: all_modes(),
            limit: None,
        }
    }
}

/// Results of a BEIR evaluation.
pub type EvalBeirResponse = crate::eval::BeirRun;

/// Evaluate main-content extraction on the article-extraction benchmark layout
/// (`verity eval extraction`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalExtractionRequest {
    /// Directory with `html/<id>.html.gz` and `ground-truth.json`.
    pub dir: PathBuf,
}

/// Extraction quality over the benchmark pages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvalExtractionResponse {
    /// Pages scored.
    pub pages: usize,
    /// Mean precision over pages.
    pub precision: f64,
    /// Mean recall over pages.
    pub recall: f64,
    /// F1 of the mean precision and mean recall.
    pub f1: f64,
    /// Uncompressed HTML bytes.
    pub bytes: usize,
    /// Seconds spent extracting.
    pub seconds: f64,
    /// Throughput, MB/s of HTML.
    pub mb_per_s: f64,
}

/// The local models: where they are read from and whether they are there (`verity models`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelsResponse {
    /// The local embedding model (all-MiniLM-L6-v2 by default).
    pub embedder: LocalModel,
    /// The local generation model (SmolLM2 GGUF by default).
    pub generator: LocalModel,
}

/// One local model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LocalModel {
    /// Directory or file it is read from.
    pub path: PathBuf,
    /// Whether its files are present.
    pub installed: bool,
    /// What runs it on this CPU: the embedder's kernels (`avx2+fma kernels`),
    /// the generator's engine (`llama.cpp engine`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernels: Option<String>,
}
