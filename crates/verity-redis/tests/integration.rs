//! Integration tests of `verity-redis`, linked into one test binary.
//!
//! One binary per crate instead of one per file: each binary statically
//! links the whole dependency tree (~100 MB in debug), so 61 binaries
//! filled the CI disk and spent most of the build linking.

mod cache;
mod common;
mod contract;
mod events_contract;
mod rag;
mod reindex;
mod store;
mod watch_contract;
