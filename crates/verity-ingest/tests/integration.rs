//! Integration tests of `verity-ingest`, linked into one test binary.
//!
//! One binary per crate instead of one per file: each binary statically
//! links the whole dependency tree (~100 MB in debug), so 61 binaries
//! filled the CI disk and spent most of the build linking.

mod chunking_props;
mod pipeline;
mod read_files;
mod token_counts;
