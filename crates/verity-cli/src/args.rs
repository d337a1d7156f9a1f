//! Command-line arguments (clap). Kept apart from what the commands do.
//!
//! The doc comments below are the `--help` text, written for a terminal:
//! `local[:DIR]` and `queries_<split>.jsonl` are meant literally, not as
//! Markdown links or HTML, so rustdoc's checks for those are off here.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

/// Verity: a source of truth for LLM applications.
///
/// Ingest documents, search them (BM25, dense, hybrid) and get answers that
/// cite their sources — or say that the evidence is missing.
#[derive(Debug, Parser)]
#[command(
    name = "verity",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = "Examples:
  verity ingest examples/data
  verity ask \"How is the fee of a forward computed?\"

Each command has its own examples: verity help ingest, verity search --help, …"
)]
pub struct Cli {
    /// Store directory (default `./.verity` of the current directory).
    #[arg(long, global = true, env = "VERITY_HOME", help_heading = GLOBAL)]
    pub home: Option<PathBuf>,

    /// Index (or alias) to use; its `<INDEX>:current` alias is followed once `reindex` made one.
    #[arg(long, global = true, env = "VERITY_INDEX", help_heading = GLOBAL)]
    pub index: Option<String>,

    /// Embedder: auto, none, local[:DIR], ollama:MODEL:TAG, openai:MODEL.
    #[arg(long, global = true, env = "VERITY_EMBEDDER", help_heading = GLOBAL)]
    pub embedder: Option<String>,

    /// Use Redis (RediSearch) instead of the embedded store: ingest, search,
    /// ask, stats, delete and reindex run there (index and caches).
    #[arg(long, global = true, env = "REDIS_URL", value_name = "URL", help_heading = GLOBAL)]
    pub redis: Option<String>,

    /// Machine-readable JSON output.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,

    /// No progress bars.
    #[arg(long, short, global = true, help_heading = GLOBAL)]
    pub quiet: bool,

    /// More logging (-v info, -vv debug); RUST_LOG also works.
    #[arg(long, short, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Heading of the options every command takes.
pub const GLOBAL: &str = "Global options";

/// Footer of each command's help: the global options are listed once, by `verity --help`.
pub const GLOBAL_FOOTER: &str =
    "Global options (--home, --redis, --index, --embedder, --json, --quiet, --verbose) go \
before or after the command: see verity --help.";

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ingest files, directories (JSONL, Markdown, text, HTML, PDF) and URLs.
    #[command(after_help = "Examples:
  verity ingest examples/data
  verity ingest notes/ https://example.org/post --strict")]
    Ingest(IngestArgs),
    /// Search the store.
    #[command(after_help = "Examples:
  verity search \"routing fee formula\" -k 5
  verity search fees --mode lexical --tag fees --since 2025-01-01")]
    Search(SearchArgs),
    /// Answer a question from the sources, with citations.
    #[command(after_help = "Examples:
  verity ask \"How is the fee of a forward computed?\"
  verity ask \"How are fees computed?\" --generator ollama:llama3.1:8b-instruct-q4_K_M --stream")]
    Ask(AskArgs),
    /// Show what the store holds.
    #[command(after_help = "Examples:
  verity stats
  verity --redis redis://127.0.0.1:6379 stats --json")]
    Stats,
    /// Delete documents by uid.
    #[command(after_help = "Example:
  verity delete ln-fees-003 ln-fees-004")]
    Delete(DeleteArgs),
    /// Fetch a URL or parse a local file and print it as Markdown or JSON.
    #[command(after_help = "Examples:
  verity fetch https://example.org/post
  verity fetch page.html --format json")]
    Fetch(FetchArgs),
    /// Check that each cited source supports the claim citing it (exit 9 on --fail-on verdicts).
    #[command(
        after_help = "Examples:
  verity check notes.md
  verity check https://example.org/post --format html -o report.html --fail-on not_supported",
        visible_alias = "verify"
    )]
    Check(crate::check::CheckArgs),
    /// Research a syllabus: knowledge base, brief, plan, sub-agents, a sourced and checked report.
    #[command(after_help = "Examples:
  verity research syllabus.md -o runs/r1
  verity research --replay runs/r1")]
    Research(crate::research::ResearchArgs),
    /// Evaluate retrieval, extraction or citation-verification quality.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Show where the local models are expected and whether they are installed.
    #[command(after_help = "Example:
  verity models   # then scripts/fetch-models.sh if one is missing")]
    Models,
    /// Re-index into a shadow index, check it against an evaluation set, then switch the alias.
    #[command(after_help = "Examples:
  verity reindex --embed-version 2 --eval checks.jsonl --gate recall@5=0.8,p95=2.5s examples/data
  verity reindex --embed-version 2 --dry-run examples/data

Exit status 8: the gate refused the new index (the alias still points at the old one).")]
    Reindex(ReindexArgs),
    /// Serve the tools (search, ask, ingest, fetch_url, …) over MCP on stdin/stdout.
    #[command(after_help = "Examples:
  verity mcp --root ~/notes
  VERITY_HOME=~/.verity verity mcp --root ~/notes --root ~/papers")]
    Mcp(McpArgs),
    /// Serve the REST API (/v1, /api for n8n, /mcp; OpenAPI at /v1/openapi.json, docs at /v1/docs).
    #[command(after_help = "Examples:
  verity serve
  VERITY_API_TOKENS=$TOKEN verity serve --addr 0.0.0.0:3100 --config verity.toml

The store is the global --home (VERITY_HOME; default ./.verity of the current directory): its
absolute path is printed at start. Configuration: docs/server.md and examples/deploy/verity.toml.")]
    Serve(ServeArgs),
}

/// `verity mcp`: a Model Context Protocol server on stdio for assistants and IDEs.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Directory the `ingest` tool may read files from (repeatable; it must
    /// exist); none: inline documents only.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Let the `research`, `add_reference`, `crawl_url` and `verify_fact`
    /// tools fetch private and loopback addresses (intranets, tests; off by
    /// default; VERITY_ALLOW_PRIVATE).
    #[arg(long)]
    pub allow_private: bool,
}

/// `verity serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (VERITY_ADDR, or port AURACORE_PORT; default 127.0.0.1:8080;
    /// a non-loopback address needs a token).
    #[arg(long, value_name = "IP:PORT")]
    pub addr: Option<std::net::SocketAddr>,
    /// Configuration file (TOML; see docs/server.md and examples/deploy/verity.toml).
    #[arg(long, value_name = "FILE", env = "VERITY_CONFIG")]
    pub config: Option<PathBuf>,
    /// Log format: text or json (VERITY_LOG_FORMAT).
    #[arg(long, value_name = "FORMAT")]
    pub log_format: Option<String>,
    /// Let clients and tools fetch private and loopback addresses: research
    /// runs, `add_reference`, `crawl_url`, `verify_fact`, and `allow_private`
    /// in `POST /v1/verify` (config `allow_private`, VERITY_ALLOW_PRIVATE;
    /// intranets and tests; off by default).
    #[arg(long)]
    pub allow_private: bool,
}

/// `verity reindex`: shadow index `idx:<name>:v<version>`, gate, alias `idx:<name>:current`.
#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Files and directories to ingest into the new index (JSONL, Markdown, text).
    #[arg(required = true)]
    pub paths: Vec<std::path::PathBuf>,
    /// EMBED_VERSION of the new index (must equal the embedder's when one is
    /// configured). Formerly `--version`.
    #[arg(long, value_name = "VERSION", env = "EMBED_VERSION")]
    pub embed_version: String,
    /// Logical index name.
    #[arg(long, default_value = "default")]
    pub name: String,
    /// Gate thresholds (default `recall@5=0.8,p95=2.5s`).
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
    /// Fast profile for large corpora: the local embedder's 8-bit products
    /// and sentence vectors pooled from the chunk's pass (~2.5× less time,
    /// hybrid nDCG@10 0.742 instead of 0.748 on SciFact). Searches of that
    /// index use the same precision. A new index, or one built with --fast.
    #[arg(long)]
    pub fast: bool,
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
    /// Check the answer against its sources before printing it: flag
    /// (default: unsupported sentences marked [unsupported: VERDICT]), strip
    /// (removed), off.
    #[arg(long, value_name = "MODE")]
    pub verify: Option<String>,
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
    /// The content as Markdown (or `md`).
    #[value(alias = "md")]
    Markdown,
    /// The whole parsed document and fetch status as JSON.
    Json,
}

/// `verity fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// An http(s) URL or a local file.
    pub target: String,
    /// Output format: markdown (md) or json (default markdown; --json implies json).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FetchFormat>,
    /// Allow private and loopback addresses (disables the SSRF guard).
    #[arg(long)]
    pub allow_private: bool,
}

/// `verity eval …`.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Retrieval quality on a BEIR-format dataset (corpus.jsonl, queries*.jsonl, qrels/*.tsv).
    #[command(after_help = "Examples:
  verity eval beir ../shared/data/scifact --split test
  verity eval beir ../shared/data/scifact --modes lexical,hybrid --limit 100")]
    Beir(EvalBeirArgs),
    /// Main-content extraction quality on the article-extraction benchmark layout.
    #[command(after_help = "Example:
  verity eval extraction ../shared/data/article-extraction")]
    Extraction(EvalExtractionArgs),
    /// Citation verification quality and speed: SciFact claims, numeric
    /// distortions of real page sentences, citations to loopback sources.
    #[command(after_help = "Examples:
  verity eval verify
  verity eval verify ../shared/data --sets scifact --limit 50")]
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
    /// Sets to run (comma-separated): scifact, distortion, speed, claims.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "scifact,distortion,speed,claims"
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

/// The command line: the derived [`Cli`] with the global options listed once
/// (by `verity --help`) rather than in every command's help: each command
/// gets hidden copies of them, which clap's propagation then leaves alone,
/// and a footer pointing at `verity --help`.
pub fn command() -> clap::Command {
    let cmd = Cli::command();
    let globals: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.clone().hide(true))
        .collect();
    cmd.mut_subcommands(|sc| hide_globals(sc, &globals))
}

fn hide_globals(mut sc: clap::Command, globals: &[clap::Arg]) -> clap::Command {
    for a in globals {
        sc = sc.arg(a.clone());
    }
    let footer = match sc.get_after_help() {
        Some(h) => format!("{h}\n\n{GLOBAL_FOOTER}"),
        None => GLOBAL_FOOTER.to_string(),
    };
    sc.after_help(footer)
        .mut_subcommands(|s| hide_globals(s, globals))
}

/// Parse `args` (deprecated spellings already rewritten); exits with clap's
/// message on a usage error, like `Cli::parse`.
pub fn parse_from(args: Vec<std::ffi::OsString>) -> Cli {
    let matches = command().get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}
