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
//! `stats`, `verify_citations`.
//! `stats`, and with the `memory` feature `remember`, `recall`, `forget`.
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
mod search;
mod stats;
#[cfg(feature = "verify")]
mod verify_citations;

pub use registry::{Tool, ToolError, ToolFuture, ToolHints, ToolOutput, ToolRegistry};
pub use roots::{FileRoots, ResolvedFiles};

/// What the built-in tools need from the host's configuration.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    /// Directories `ingest` may read files from; empty: inline documents only.
    pub file_roots: FileRoots,
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
