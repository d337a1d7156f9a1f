//! Finding and checking a model directory: plain or Hugging Face cache
//! layout, its name, and the architecture its `config.json` names.

use std::path::{Path, PathBuf};

use verity_core::{ConfigError, Result};

use super::{config_invalid, DEFAULT_MODEL, FETCH_HINT};

pub(super) fn read_json(path: &Path) -> Result<serde_json::Value> {
    let bytes = std::fs::read(path)
        .map_err(|e| config_invalid(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| config_invalid(format!("{} is not valid JSON: {e}", path.display())))
}

/// Find the directory that holds the model files: `dir` itself, or the
/// snapshot of a Hugging Face cache entry (`refs/main`, else the newest snapshot).
pub(super) fn resolve_dir(dir: &Path) -> Result<PathBuf> {
    if !dir.is_dir() {
        return Err(ConfigError::Missing {
            what: "model directory".into(),
            detail: format!("{} does not exist; {FETCH_HINT}", dir.display()),
        }
        .into());
    }
    if dir.join("config.json").is_file() {
        return Ok(dir.to_path_buf());
    }
    let snapshots = dir.join("snapshots");
    if snapshots.is_dir() {
        if let Ok(rev) = std::fs::read_to_string(dir.join("refs").join("main")) {
            let p = snapshots.join(rev.trim());
            if p.join("config.json").is_file() {
                return Ok(p);
            }
        }
        let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
        if let Ok(entries) = std::fs::read_dir(&snapshots) {
            for entry in entries.flatten() {
                let p = entry.path();
                if !p.join("config.json").is_file() {
                    continue;
                }
                let t = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                if best.as_ref().is_none_or(|(bt, _)| t > *bt) {
                    best = Some((t, p));
                }
            }
        }
        if let Some((_, p)) = best {
            return Ok(p);
        }
    }
    Ok(dir.to_path_buf())
}

/// Model name from the directory: `all-MiniLM-L6-v2` for `.../all-MiniLM-L6-v2`,
/// `.../models--org--name` or `.../models--org--name/snapshots/<rev>`.
pub(super) fn name_from_dir(requested: &Path, resolved: &Path) -> String {
    let pick = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut candidates = vec![pick(requested)];
    if let Some(grand) = resolved.parent().and_then(Path::parent) {
        candidates.insert(0, pick(grand));
    }
    for c in candidates.into_iter().flatten() {
        if let Some(rest) = c.strip_prefix("models--") {
            return rest.rsplit("--").next().unwrap_or(rest).to_string();
        }
    }
    pick(requested).unwrap_or_else(|| DEFAULT_MODEL.to_string())
}

/// Encoder families whose checkpoints the BERT encoder runs (same layout).
const BERT_FAMILY: [&str; 4] = ["bert", "roberta", "xlm-roberta", "camembert"];

/// Refuse a `config.json` that names another architecture (a GPT, Llama or
/// T5 checkpoint would otherwise fail later with a confusing tensor error).
pub(super) fn check_architecture(path: &Path, bytes: &[u8]) -> Result<()> {
    let v: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| config_invalid(format!("{} is not JSON: {e}", path.display())))?;
    let model_type = v.get("model_type").and_then(serde_json::Value::as_str);
    let architectures: Vec<&str> = v
        .get("architectures")
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    let type_ok = model_type.is_none_or(|t| BERT_FAMILY.contains(&t.to_ascii_lowercase().as_str()));
    let arch_ok = architectures.is_empty()
        || architectures.iter().any(|a| {
            let a = a.to_ascii_lowercase();
            a.starts_with("bert") || a.contains("roberta") || a.starts_with("camembert")
        });
    if type_ok && arch_ok {
        return Ok(());
    }
    Err(config_invalid(format!(
        "{} describes a `{}` model ({}); the local embedder runs BERT-family encoders \
         (model_type one of {}), such as all-MiniLM-L6-v2",
        path.display(),
        model_type.unwrap_or("unknown"),
        if architectures.is_empty() {
            "no architectures listed".to_string()
        } else {
            architectures.join(", ")
        },
        BERT_FAMILY.join(", ")
    )))
}
