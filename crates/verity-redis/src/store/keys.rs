//! Key and index names of the Redis layout (documented in the crate root).

use verity_core::{Error, Result};

/// Set of the index names this crate created (`SMEMBERS verity:indexes`).
pub const CATALOG_KEY: &str = "verity:indexes";

/// Check an index or alias name: `[A-Za-z0-9_.:-]`, 1 to 200 characters.
pub fn validate_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_input(format!(
            "index name `{name}` must be 1–200 characters among letters, digits, `_`, `.`, `:` and `-`"
        )))
    }
}

/// RediSearch index name of index `name`.
pub fn ft_name(name: &str) -> String {
    format!("idx:{name}")
}

/// Key of a document's JSON.
pub fn doc_key(index: &str, uid: &str) -> String {
    format!("doc:{{{index}}}:{uid}")
}

/// Prefix of the chunk hashes of an index (chunk key = prefix + chunk id).
pub fn chunk_prefix(index: &str) -> String {
    format!("hv:{{{index}}}:")
}

/// Key of an index's meta hash (embedder, counters, generation).
pub fn meta_key(index: &str) -> String {
    format!("meta:{{{index}}}")
}
