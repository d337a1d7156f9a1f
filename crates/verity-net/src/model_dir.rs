//! Where local model files live, for every local provider (the GGUF
//! generator, the BERT embedder) and the scripts that fetch them.

use std::ffi::OsString;
use std::path::PathBuf;

/// The directory that holds the local models:
///
/// 1. `VERITY_MODEL_DIR`, when set and not empty;
/// 2. else `VERITY_CACHE/models`, when `VERITY_CACHE` is set and not empty;
/// 3. else `.cache/verity/models` under the home directory: `HOME`, else
///    `USERPROFILE` (Windows), else a relative `.cache/verity/models`.
///
/// This is where `scripts/fetch-models.sh` puts them.
pub fn models_dir() -> PathBuf {
    models_dir_from(&|key| std::env::var_os(key))
}

/// [`models_dir`] with the variables read from `var` (tests, hosts that
/// carry their own environment).
pub fn models_dir_from(var: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    let set = |key: &str| var(key).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set("VERITY_MODEL_DIR") {
        return dir;
    }
    if let Some(cache) = set("VERITY_CACHE") {
        return cache.join("models");
    }
    set("HOME")
        .or_else(|| set("USERPROFILE"))
        .unwrap_or_default()
        .join(".cache")
        .join("verity")
        .join("models")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> PathBuf {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        models_dir_from(&move |key| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_order_of_the_variables() {
        let home = PathBuf::from("/home/u/.cache/verity/models");
        assert_eq!(
            with(&[
                ("VERITY_MODEL_DIR", "/m"),
                ("VERITY_CACHE", "/c"),
                ("HOME", "/home/u")
            ]),
            PathBuf::from("/m")
        );
        assert_eq!(
            with(&[
                ("VERITY_MODEL_DIR", ""),
                ("VERITY_CACHE", "/c"),
                ("HOME", "/home/u")
            ]),
            PathBuf::from("/c/models"),
            "an empty variable counts as unset"
        );
        assert_eq!(with(&[("HOME", "/home/u")]), home);
        assert_eq!(
            with(&[("HOME", "/home/u"), ("USERPROFILE", r"C:\Users\u")]),
            home,
            "HOME wins over USERPROFILE"
        );
        assert_eq!(
            with(&[("USERPROFILE", r"C:\Users\u")]),
            PathBuf::from(r"C:\Users\u")
                .join(".cache")
                .join("verity")
                .join("models"),
            "without HOME (Windows) the profile directory is the home"
        );
        assert_eq!(
            with(&[("HOME", ""), ("USERPROFILE", "/p")]),
            PathBuf::from("/p/.cache/verity/models")
        );
        assert_eq!(with(&[]), PathBuf::from(".cache/verity/models"));
    }
}
