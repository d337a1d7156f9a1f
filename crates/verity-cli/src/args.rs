//! Command-line arguments (clap). Kept apart from what the commands do.
//!
//! The doc comments below are the `--help` text, written for a terminal:
//! `local[:DIR]` and `queries_<split>.jsonl` are meant literally, not as
//! Markdown links or HTML, so rustdoc's checks for those are off here.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Verity: a source of truth for LLM applications.
///
/// Ingest documents, search them (BM25, dense, hybrid) and get answers that
/// cite their sources — or say that the evidence is missing.
#[derive(Debug, Parser)]
#[command(
    name = "verity",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Store directory (default `./.verity`).
    #[arg(long, global = true, env = "VERITY_HOME")]
    pub home: Option<PathBuf>,

    /// Index (or alias) to use; its `<INDEX>:current` alias is followed once `reindex` made one.
    #[arg(long, global = true, env = "VERITY_INDEX")]
    pub index: Option<String>,

    /// Embedder: auto, none, local[:DIR], ollama:MODEL:TAG, openai:MODEL.
    #[arg(long, global = true, env = "VERITY_EMBEDDER")]
    pub embedder: Option<String>,

    /// Use Redis (RediSearch) instead of the embedded store: ingest, search,
    /// ask, stats, delete and reindex run there (index and caches).
    #[arg(long, global = true, env = "REDIS_URL", value_name = "URL")]
    pub redis: Option<String>,

    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    pub json: bool,

    /// No progress bars.
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// More logging (-v info, -vv debug); RUST_LOG also works.
    #[arg(long, short, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ingest files, directories (JSONL, Markdown, text) and URLs.
    Ingest(IngestArgs),
    /// Search the store.
    Search(SearchArgs),
    /// Answer a question from the sources, with citations.
    Ask(AskArgs),
    /// Show what the store holds.
    Stats,
    /// Delete documents by uid.
    Delete(DeleteArgs),
    /// Fetch a URL or parse a local file and print it as Markdown or JSON.
    Fetch(FetchArgs),
    /// Check that each cited source supports the claim citing it (exit 9 on --fail-on verdicts).
    Check(crate::check::CheckArgs),
    /// Research a syllabus: knowledge base, brief, plan, sub-agents, a sourced and checked report.
    Research(crate::research::ResearchArgs),
    /// Evaluate retrieval or extraction quality.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Show where the local models are expected and whether they are installed.
    Models,
    /// Re-index into a shadow index, check it against an evaluation set, then switch the alias.
    #[command(disable_version_flag = true)]
    Reindex(ReindexArgs),
    /// Serve the tools (search, ask, ingest, fetch_url, …) over MCP on stdin/stdout.
    Mcp(McpArgs),
    /// Serve the REST API (/v1 of seed 001, OpenAPI at /v1/openapi.json, docs at /v1/docs).
    Serve(ServeArgs),
}

/// `verity mcp`: a Model Context Protocol server on stdio for assistants and IDEs.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Directory the `ingest` tool may read files from (repeatable); none: inline documents only.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Let the `research` and `add_reference` tools fetch references on
    /// private and loopback addresses (intranets, tests; off by default).
    #[arg(long)]
    pub allow_private_fetch: bool,
}

/// `verity serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (default 127.0.0.1:8080; a non-loopback address needs a token).
    #[arg(long)]
    pub addr: Option<std::net::SocketAddr>,
    /// Configuration file (TOML; see docs/server.md).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log format: text or json.
    #[arg(long, value_name = "FORMAT")]
    pub log_format: Option<String>,
    /// Let research runs (`POST /v1/research`) and the `add_reference` tool
    /// fetch references on private and loopback addresses (the config's
    /// `allow_private_fetch`; off by default).
    #[arg(long)]
    pub allow_private_fetch: bool,
}

/// `verity reindex`: shadow index `idx:<name>:v<version>`, gate, alias `idx:<name>:current`.
#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Files and directories to ingest into the new index (JSONL, Markdown, text).
    #[arg(required = true)]
    pub paths: Vec<std::path::PathBuf>,
    /// Version of the new index `<name>:v<version>` (with a remote embedder
    /// and EMBED_VERSION set, it must equal EMBED_VERSION).
    #[arg(long)]
    pub version: String,
    /// Logical index name.
    #[arg(long, default_value = "default")]
    pub name: String,
    /// Gate thresholds, e.g. `recall@5=0.8,p95=2.5s` (default: the seed's).
    #[arg(long)]
    pub gate: Option<String>,
    /// Evaluation set as JSONL lines `{"query": …, "relevant_uids": [uid, …]}`.
    #[arg(long, value_name = "FILE")]
    pub eval: Option<std::path::PathBuf>,
    /// Evaluation set in BEIR format: a queries JSONL file and a qrels TSV file.
    #[arg(long, num_args = 2, value_names = ["QUERIES", "QRELS"], conflicts_with = "eval")]
    pub eval_beir: Option<Vec<std::path::PathBuf>>,
    /// Report what would be embedded; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Search mode of the gate: lexical, dense or hybrid (default: hybrid with an embedder).
    #[arg(long)]
    pub mode: Option<String>,
}

/// `verity ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files, directories or http(s) URLs.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Refuse the whole batch when any record is malformed (default: skip and report).
    #[arg(long)]
    pub strict: bool,
}

/// Retrieval options shared by `search` and `ask`.
#[derive(Debug, Args, Clone)]
pub struct RetrievalArgs {
    /// Number of chunks to retrieve.
    #[arg(long, short)]
    pub k: Option<usize>,
    /// lexical, dense or hybrid (default: hybrid, lexical when no embedder).
    #[arg(long)]
    pub mode: Option<String>,
    /// Metadata filter `key=value` or `key=v1|v2` (repeatable).
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub filters: Vec<String>,
    /// Keep documents from this source (repeatable).
    #[arg(long)]
    pub source: Vec<String>,
    /// Keep documents with this tag (repeatable; any of them).
    #[arg(long)]
    pub tag: Vec<String>,
    /// Keep documents at or after this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub since: Option<String>,
    /// Keep documents at or before this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub until: Option<String>,
}

/// `verity search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query.
    pub query: String,
    /// Retrieval options.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
    /// Keep documents in this language (repeatable).
    #[arg(long)]
    pub lang: Vec<String>,
}

/// `verity ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// Print the answer as it is generated.
    #[arg(long)]
    pub stream: bool,
    /// Generator: extractive, local[:FILE.gguf], ollama:MODEL:TAG, openai:MODEL.
    #[arg(long, env = "VERITY_GENERATOR")]
    pub generator: Option<String>,
    /// Fallback generator used on timeout, failure or low confidence.
    #[arg(long, env = "VERITY_FALLBACK")]
    pub fallback: Option<String>,
    /// Answer language (retrieval prefers documents in it).
    #[arg(long)]
    pub lang: Option<String>,
    /// Do not use the answer cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Retrieval options.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
}

/// `verity delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// Document uids.
    #[arg(required = true)]
    pub uids: Vec<String>,
}

/// Output format of `verity fetch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FetchFormat {
    /// The content as Markdown.
    Markdown,
    /// The whole parsed document and fetch status as JSON.
    Json,
}

/// `verity fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// An http(s) URL or a local file.
    pub target: String,
    /// Output format (default markdown; --json implies json).
    #[arg(long, value_enum)]
    pub format: Option<FetchFormat>,
    /// Allow private and loopback addresses (disables the SSRF guard).
    #[arg(long)]
    pub allow_private: bool,
}

/// `verity eval …`.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Retrieval quality on a BEIR-format dataset (corpus.jsonl, queries*.jsonl, qrels/*.tsv).
    Beir(EvalBeirArgs),
    /// Main-content extraction quality on the article-extraction benchmark layout.
    Extraction(EvalExtractionArgs),
    /// Citation verification quality and speed: SciFact claims, numeric
    /// distortions of real page sentences, citations to loopback sources.
    Verify(EvalVerifyArgs),
}

/// `verity eval beir`.
#[derive(Debug, Args)]
pub struct EvalBeirArgs {
    /// Dataset directory.
    pub dir: PathBuf,
    /// Split (queries_<split>.jsonl and qrels/<split>.tsv).
    #[arg(long, default_value = "train")]
    pub split: String,
    /// Modes to evaluate (comma-separated): lexical, dense, hybrid.
    #[arg(long, value_delimiter = ',', default_value = "lexical,dense,hybrid")]
    pub modes: Vec<String>,
    /// Evaluate only the first N queries.
    #[arg(long)]
    pub limit: Option<usize>,
}

/// `verity eval extraction`.
#[derive(Debug, Args)]
pub struct EvalExtractionArgs {
    /// Directory with html/<id>.html.gz and ground-truth.json.
    pub dir: PathBuf,
}

/// `verity eval verify`.
#[derive(Debug, Args)]
pub struct EvalVerifyArgs {
    /// Data directory holding scifact/ and article-extraction/.
    #[arg(default_value = "../shared/data")]
    pub dir: PathBuf,
    /// Sets to run (comma-separated): scifact, distortion, speed.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "scifact,distortion,speed"
    )]
    pub sets: Vec<String>,
    /// SciFact: the first N claims; distortion: the first N pages.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Citations in the speed document.
    #[arg(long, default_value_t = 200)]
    pub citations: usize,
    /// Judge: auto (LLM when a model generator is set), local or llm.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<String>,
    /// Generator of the LLM judge: local[:FILE.gguf], ollama:MODEL:TAG, openai:MODEL.
    #[arg(long, env = "VERITY_GENERATOR")]
    pub generator: Option<String>,
}
