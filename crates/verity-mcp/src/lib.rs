//! # verity-mcp
//!
//! The [Model Context Protocol](https://modelcontextprotocol.io) host of
//! Verity, on the official Rust SDK (`rmcp`). It exposes every tool of a
//! [`verity::tools::ToolRegistry`] — nothing is defined here: names,
//! descriptions, input and output schemas and handlers all come from the
//! registry, so a tool added there appears here (and in REST) unchanged.
//!
//! * Results carry the response as `structuredContent` (valid against the
//!   tool's `outputSchema`) plus a readable text part.
//! * A tool that runs and fails answers an `isError` result whose structured
//!   content is `{"error": {"code", "message", "transient", "jsonrpc_code"}}`; the
//!   code is the error kind's stable [`verity::Error::code`].
//! * An unknown tool or arguments that do not match the input schema are
//!   JSON-RPC errors (`-32602`, invalid params) that say what to fix.
//!
//! Transports: [`serve_stdio`] (what `verity mcp` runs) and [`router`], a
//! streamable-HTTP `axum::Router` to nest (the REST server mounts it at
//! `/mcp`), with Host/Origin allow-lists (loopback by default, against DNS
//! rebinding) and a stateless mode.

mod errors;
mod http;
mod server;
mod sessions;
mod stdio;

pub use errors::error_payload;
pub use http::{router, HttpOptions};
pub use server::{serve_stdio, serve_streams, VerityMcp};
pub use sessions::SessionLimits;
