//! Evaluation data and local models for tests, and the one rule for a test
//! that cannot run without them.
//!
//! Data is found at `VERITY_DATA_DIR`, else at `shared/data` beside the
//! checkout; models where the library looks (`VERITY_MODEL_DIR`, else `~/.cache/verity/models`)
//! (where `scripts/fetch-models.sh` puts them). A test missing either calls
//! [`skip`]: on a developer machine it prints `SKIPPED` and returns; with
//! `VERITY_REQUIRE_DATA=1` (set by CI) it fails, so a suite cannot pass by
//! skipping what it should check.

use std::path::{Path, PathBuf};

/// The evaluation data directory (`VERITY_DATA_DIR`, else `../shared/data`
/// beside the repository), whether or not it exists.
pub fn data_dir() -> PathBuf {
    std::env::var_os("VERITY_DATA_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

/// `data_dir()/rel` when it exists.
pub fn data(rel: &str) -> Option<PathBuf> {
    let p = data_dir().join(rel);
    p.exists().then_some(p)
}

/// The local models directory, whether or not it exists: the library's
/// own lookup ([`verity_net::models_dir`]: `VERITY_MODEL_DIR`, else
/// `VERITY_CACHE/models`, else `~/.cache/verity/models` under `HOME` or
/// `USERPROFILE`).
pub fn model_dir() -> PathBuf {
    verity_net::models_dir()
}

/// Whether missing data or models must fail tests (`VERITY_REQUIRE_DATA=1`).
pub fn data_required() -> bool {
    matches!(
        std::env::var("VERITY_REQUIRE_DATA").as_deref(),
        Ok("1") | Ok("true")
    )
}

/// A test cannot run: `what` names the test and the missing input. Prints
/// `SKIPPED …` (the caller then returns), or panics when [`data_required`].
#[track_caller]
#[allow(clippy::panic)]
pub fn skip(what: &str) {
    if data_required() {
        panic!("{what} (VERITY_REQUIRE_DATA=1: a missing input fails the test)");
    }
    eprintln!("SKIPPED {what}");
}
