//! Shared helpers for Verity's benchmarks.

use std::path::PathBuf;

/// The evaluation data folder (`../shared/data` beside the repository), or
/// `VERITY_DATA_DIR`. `None` when absent: benchmarks that need it say so and skip.
pub fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    dir.is_dir().then_some(dir)
}
