//! Integration tests of `verity-store`, linked into one test binary.
//!
//! One binary per crate instead of one per file: each binary statically
//! links the whole dependency tree (~100 MB in debug), so 61 binaries
//! filled the CI disk and spent most of the build linking.

mod async_hygiene;
mod cache;
mod contract;
mod durability;
mod events_contract;
mod events_persist;
mod hnsw;
mod lexical;
mod store;
mod watch_contract;
