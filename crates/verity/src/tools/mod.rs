//! The one tool registry every host exposes.
//!
//! A [`Tool`] is a name, a description, the JSON Schemas of its request and
//! response types (derived with `schemars` from the `verity::api` types, so
//! they cannot drift), and a handler `(&Verity, serde_json::Value) →
//! ToolOutput` that deserializes the request, calls the facade and serializes
//! the response. The MCP server (`verity-mcp`) lists and calls these tools;
//! the REST server routes to the same ones. No host defines a tool itself.
//!
//! Built-in tools: `search`, `ask`, `ingest`, `fetch_url`, `get_document`,
//! `stats`; with the `verify` feature `verify_citations`; with the `memory`
//! feature `remember`, `recall`, `forget`; with the `watch` feature, the
//! tools of seed 000 (`tools/watch/`); with the `research` feature
//! `find_by_name`, `add_reference` and `research` (seed 003).
//!
//! ## Adding a tool (one file)
//!
//! 1. Create `tools/<name>.rs` with `pub(super) fn tool(options: &ToolOptions) -> Tool`
//!    built with [`Tool::new`] over the pipeline's `verity::api` request and
//!    response types (both `Deserialize`/`Serialize` + `JsonSchema`).
//! 2. Add `mod <name>;` and `<name>::tool` to [`BUILTIN`] below.
//!
//! Every host picks it up: it appears in MCP `tools/list` with both schemas,
//! and the shared host tests call every registered tool.
//!
//! ```no_run
//! use verity::tools::{ToolOptions, ToolRegistry};
//!
//! # async fn run(verity: &verity::Verity) -> Result<(), verity::tools::ToolError> {
//! let registry = ToolRegistry::builtin(&ToolOptions::default());
//! let out = registry
//!     .call(verity, "search", serde_json::json!({"query": "routing fees"}))
//!     .await?;
//! println!("{}", out.text);
//! # Ok(()) }
//! ```

mod call;
mod registry;
mod roots;

mod ask;
#[cfg(feature = "sources")]
mod fetch_url;
#[cfg(feature = "memory")]
mod forget;
mod get_document;
mod ingest;
#[cfg(feature = "memory")]
mod recall;
#[cfg(feature = "memory")]
mod remember;
#[cfg(feature = "research")]
mod research;
mod search;
mod stats;
#[cfg(feature = "verify")]
mod verify_citations;
#[cfg(feature = "watch")]
mod watch;

pub use registry::{Tool, ToolError, ToolFuture, ToolHints, ToolOutput, ToolRegistry};
pub use roots::{FileRoots, ResolvedFiles};

/// What the built-in tools need from the host's configuration.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    /// Directories `ingest` and `research` may read files from; empty: inline documents only.
    pub file_roots: FileRoots,
    /// Let `research` and `add_reference` fetch private and loopback
    /// addresses (an operator's choice, never a tool argument).
    pub allow_private_fetch: bool,
    /// Longest a `research` call may run before it stops with a typed
    /// `unavailable` error pointing at `POST /v1/research` (hosts with a
    /// request timeout set it under that timeout); `None`: no limit.
    pub research_time_limit: Option<std::time::Duration>,
}

/// The built-in tools, in the order hosts list them. One line per tool file.
pub const BUILTIN: &[fn(&ToolOptions) -> Tool] = &[
    search::tool,
    ask::tool,
    ingest::tool,
    #[cfg(feature = "sources")]
    fetch_url::tool,
    get_document::tool,
    stats::tool,
    #[cfg(feature = "verify")]
    verify_citations::tool,
    #[cfg(feature = "memory")]
    remember::tool,
    #[cfg(feature = "memory")]
    recall::tool,
    #[cfg(feature = "memory")]
    forget::tool,
    #[cfg(feature = "research")]
    research::find_by_name,
    #[cfg(feature = "research")]
    research::add_reference,
    #[cfg(feature = "research")]
    research::run,
    #[cfg(feature = "watch")]
    watch::rules::get_veille_rules,
    #[cfg(feature = "watch")]
    watch::rules::update_veille_rule,
    #[cfg(feature = "watch")]
    watch::rules::score_article,
    #[cfg(feature = "watch")]
    watch::articles::check_article_exists,
    #[cfg(feature = "watch")]
    watch::articles::log_article,
    #[cfg(feature = "watch")]
    watch::articles::get_articles,
    #[cfg(feature = "watch")]
    watch::articles::log_veille_decision,
    #[cfg(feature = "watch")]
    watch::articles::get_veille_decisions,
    #[cfg(feature = "watch")]
    watch::web::web_search,
    #[cfg(feature = "watch")]
    watch::web::crawl_url,
    #[cfg(feature = "watch")]
    watch::web::verify_fact,
    #[cfg(feature = "watch")]
    watch::auracore::create_project,
    #[cfg(feature = "watch")]
    watch::auracore::list_projects,
    #[cfg(feature = "watch")]
    watch::auracore::get_project,
    #[cfg(feature = "watch")]
    watch::auracore::update_project,
    #[cfg(feature = "watch")]
    watch::auracore::store_context,
    #[cfg(feature = "watch")]
    watch::auracore::query_context,
    #[cfg(feature = "watch")]
    watch::auracore::delete_context,
    #[cfg(feature = "watch")]
    watch::auracore::create_task,
    #[cfg(feature = "watch")]
    watch::auracore::update_task,
    #[cfg(feature = "watch")]
    watch::auracore::get_next_tasks,
    #[cfg(feature = "watch")]
    watch::auracore::log_decision,
    #[cfg(feature = "watch")]
    watch::auracore::get_decisions,
];

impl ToolRegistry {
    /// A registry with every built-in tool ([`BUILTIN`]).
    pub fn builtin(options: &ToolOptions) -> Self {
        let mut registry = Self::new();
        for make in BUILTIN {
            // Built-in names are distinct and valid (checked by a test).
            let _ = registry.register(make(options));
        }
        registry
    }
}

#[cfg(test)]
mod tests;
