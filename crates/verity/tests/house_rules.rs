//! Rules of the house that a reviewer would otherwise have to remember,
//! checked over the sources.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// Files that read the environment without being a `config.rs`, and why.
const ENV_READERS: &[(&str, &str)] = &[
    (
        "crates/verity-net/src/model_dir.rs",
        "the model directory: one lookup (VERITY_MODEL_DIR, VERITY_CACHE, HOME, USERPROFILE) for every provider",
    ),
    (
        "crates/verity-redis/src/server.rs",
        "the throw-away Redis server of tests and benchmarks",
    ),
    (
        "crates/verity-testkit/",
        "test support: evaluation data and VERITY_REQUIRE_DATA",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Library and host sources: every `src/` of the crates and bindings.
fn sources() -> Vec<(String, String)> {
    let root = root();
    let mut files = Vec::new();
    for parent in ["crates", "bindings"] {
        for e in std::fs::read_dir(root.join(parent)).unwrap().flatten() {
            rust_files(&e.path().join("src"), &mut files);
        }
    }
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Configuration is read in one place per crate: the environment only in a
/// `config.rs` (and the few files listed in [`ENV_READERS`]), so that a
/// setting has one home, one parser and one error message.
#[test]
fn the_environment_is_read_only_in_config_modules() {
    let sources = sources();
    assert!(
        sources.len() > 200,
        "the walk found {} files",
        sources.len()
    );
    let reads = |text: &str| {
        text.lines()
            .enumerate()
            .filter(|(_, l)| {
                let code = l.split("//").next().unwrap_or("");
                ["env::var(", "env::var_os(", "env::vars("]
                    .iter()
                    .any(|p| code.contains(p))
            })
            .map(|(n, _)| n + 1)
            .collect::<Vec<_>>()
    };
    let mut offenders = Vec::new();
    let mut config_readers = 0;
    for (path, text) in &sources {
        let lines = reads(text);
        if lines.is_empty() {
            continue;
        }
        if path.ends_with("/config.rs") {
            config_readers += 1;
            continue;
        }
        if ENV_READERS.iter().any(|(p, _)| path.starts_with(p)) {
            continue;
        }
        offenders.extend(lines.iter().map(|n| format!("{path}:{n}")));
    }
    assert!(
        offenders.is_empty(),
        "the environment is read outside a config.rs (move the read into the \
         crate's config.rs, or list the file in ENV_READERS with its reason):\n{}",
        offenders.join("\n")
    );
    // The check sees the reads it allows (it cannot pass by matching nothing).
    assert!(
        config_readers >= 4,
        "{config_readers} config.rs files read the environment"
    );
}
