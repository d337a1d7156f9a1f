//! Evaluation runs: retrieval quality on BEIR datasets through the same
//! ingest and search path as production.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use verity_core::{EmbedderId, Error, Result, SearchMode};
use verity_eval::{EvalOptions, EvalReport};

use crate::api::EvalBeirRequest;
use crate::{Verity, VerityConfig};

/// Result of [`beir`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BeirRun {
    /// Dataset directory.
    pub dataset: PathBuf,
    /// Split evaluated.
    pub split: String,
    /// Documents in the corpus.
    pub documents: usize,
    /// Seconds spent ingesting (near 0 when the evaluation store was already built).
    pub ingest_seconds: f64,
    /// Embedder used (None: lexical only).
    pub embedder: Option<EmbedderId>,
    /// One report per mode.
    pub reports: Vec<EvalReport>,
    /// Modes skipped and why.
    pub skipped: Vec<String>,
}

/// Ingest a BEIR dataset into its own embedded evaluation store
/// (`<home>/eval/<dataset-name>`, reused across runs) and evaluate each mode.
pub async fn beir(
    config: &VerityConfig,
    req: &EvalBeirRequest,
    progress: &(dyn Fn(&verity_ingest::IngestProgress) + Sync),
) -> Result<BeirRun> {
    let (dir, split, modes, limit) = (req.dir.as_path(), req.split.as_str(), &req.modes, req.limit);
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("dataset")
        .to_string();
    let mut cfg = config.clone();
    cfg.home = config.home.join("eval").join(&name);
    cfg.cache = false;
    cfg.redis_url = None;
    let verity = Verity::open(cfg).await?;
    let split_data = {
        let dir = dir.to_path_buf();
        let split = split.to_string();
        tokio::task::spawn_blocking(move || verity_eval::load_split(&dir, &split))
            .await
            .map_err(|e| Error::invalid_input(format!("loader task failed: {e}")))??
    };
    let corpus = dir.join("corpus.jsonl");
    let outcome = verity.ingest_paths(&[corpus], false, progress).await?;
    let documents = outcome.inserted + outcome.replaced + outcome.unchanged;
    let mut reports = Vec::new();
    let mut skipped = Vec::new();
    for &mode in modes.iter() {
        if mode != SearchMode::Lexical && verity.embedder().is_none() {
            skipped.push(format!(
                "{mode}: no embedder (install the local model with scripts/fetch-models.sh)"
            ));
            continue;
        }
        let opts = EvalOptions {
            mode,
            limit,
            ..EvalOptions::default()
        };
        let report = verity_eval::evaluate(
            verity.store().as_ref(),
            verity.embedder().cloned(),
            &split_data,
            &opts,
        )
        .await?;
        reports.push(report);
    }
    Ok(BeirRun {
        dataset: dir.to_path_buf(),
        split: split.to_string(),
        documents,
        ingest_seconds: outcome.seconds,
        embedder: verity.embedder().map(|e| e.id().clone()),
        reports,
        skipped,
    })
}

impl Verity {
    /// Evaluate retrieval on a BEIR dataset with this handle's configuration
    /// (embedder, retrieval settings) in its own embedded evaluation store.
    pub async fn eval_beir(
        &self,
        req: &EvalBeirRequest,
        progress: &(dyn Fn(&verity_ingest::IngestProgress) + Sync),
    ) -> Result<BeirRun> {
        beir(self.config(), req, progress).await
    }
}
