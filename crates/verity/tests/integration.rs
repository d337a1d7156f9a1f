//! Integration tests of `verity`, linked into one test binary.
//!
//! One binary per crate instead of one per file: each binary statically
//! links the whole dependency tree (~100 MB in debug), so 61 binaries
//! filled the CI disk and spent most of the build linking.

mod binding_types;
mod cache_coherence;
mod facade;
mod house_rules;
mod http_client;
mod local_ask;
mod watch;
mod web_config;
