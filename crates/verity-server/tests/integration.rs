//! Integration tests of `verity-server`, linked into one test binary.
//!
//! One binary per crate instead of one per file: each binary statically
//! links the whole dependency tree (~100 MB in debug), so 61 binaries
//! filled the CI disk and spent most of the build linking.

mod bad_input;
mod cancel;
mod common;
mod cross_site;
mod docs_page;
mod generator_down;
mod limits;
mod mcp_mount;
mod memory;
mod n8n_workflow;
mod operations;
mod protocol;
mod research;
mod research_llm;
mod routes;
mod security;
mod seed_001;
mod unicode;
mod verify;
mod watch;
