//! Integration tests of `verity-cli`, linked into one test binary.
//!
//! One binary per crate instead of one per file: each binary statically
//! links the whole dependency tree (~100 MB in debug), so 61 binaries
//! filled the CI disk and spent most of the build linking.

mod check;
mod cli;
mod first_try;
mod help_errors;
mod mcp_stdio;
mod private_fetch;
mod research;
mod seed_002;
