//! [`Verity::reindex`]: shadow index, evaluation gate, alias switch — on the
//! handle's backend, with its embedder and cache.
//!
//! The re-index machinery itself lives in one backend-agnostic place; this
//! module only turns an [`api::ReindexRequest`] into its options and its
//! report into an [`api::ReindexResponse`].

use crate::api::{self, ReindexRequest, ReindexResponse};
use crate::handle::Progress;
use crate::{Result, Verity};

use verity_ingest::reindex::{self as machinery, EvalSet, GateConfig, ReindexOptions};

impl Verity {
    /// Re-index `req.paths` into the shadow index `<name>:v<version>`, run the
    /// gate on the evaluation set when one is given, and point `<name>:current`
    /// at the shadow when it passes.
    pub async fn reindex(
        &self,
        req: &ReindexRequest,
        progress: Progress<'_>,
    ) -> Result<ReindexResponse> {
        let mut opts = ReindexOptions::new(
            req.name
                .clone()
                .unwrap_or_else(|| self.config().index.clone()),
            req.version.clone(),
        );
        if let Some(g) = &req.gate {
            opts.gate = GateConfig::parse(g)?;
        }
        opts.eval = match (&req.eval, &req.eval_beir) {
            (Some(_), Some(_)) => {
                return Err(crate::Error::invalid_input(
                    "give `eval` or `eval_beir`, not both",
                ))
            }
            (Some(f), None) => Some(EvalSet::from_jsonl(f)?),
            (None, Some(b)) => Some(EvalSet::from_beir(&b.queries, &b.qrels)?),
            (None, None) => None,
        };
        opts.declared_version = match self.config().embedder {
            crate::EmbedderSpec::Ollama(_) | crate::EmbedderSpec::OpenAi(_) => {
                self.config().embed_version.clone()
            }
            _ => None,
        };
        opts.dry_run = req.dry_run;
        opts.mode = req.mode;
        let embedder = self.embedder().cloned();
        let cache = self.cache().as_ref();
        let report = match self.backend() {
            crate::backend::Backend::Sqlite(_) => {
                let catalog = verity_store::SqliteCatalog::open(
                    &self.config().home,
                    verity_store::StoreOptions::default(),
                )?;
                machinery::reindex_paths(
                    &catalog,
                    &req.paths,
                    embedder,
                    Some(cache),
                    &opts,
                    progress,
                )
                .await?
            }
            #[cfg(feature = "redis")]
            crate::backend::Backend::Redis { url } => {
                let catalog = verity_redis::RedisCatalog::connect(url, Default::default()).await?;
                machinery::reindex_paths(
                    &catalog,
                    &req.paths,
                    embedder,
                    Some(cache),
                    &opts,
                    progress,
                )
                .await?
            }
        };
        Ok(response(report))
    }
}

fn response(r: machinery::ReindexReport) -> ReindexResponse {
    ReindexResponse {
        backend: r.backend,
        shadow: r.shadow,
        alias: r.alias,
        previous: r.previous,
        plan: r.plan,
        ingest: r.ingest.map(|i| api::ReindexIngest {
            inserted: i.upsert.inserted,
            replaced: i.upsert.replaced,
            unchanged: i.upsert.unchanged,
            chunks: i.upsert.chunks,
            errors: i.errors,
            seconds: i.seconds,
        }),
        gate: r.gate.map(|g| api::GateOutcome {
            queries: g.queries,
            k: g.k,
            recall: g.recall,
            p50_ms: g.p50.as_secs_f64() * 1000.0,
            p95_ms: g.p95.as_secs_f64() * 1000.0,
            mode: g.mode,
            passed: g.passed,
            failures: g.failures,
        }),
        cut_over: r.cut_over,
        purged: r.purged,
        notes: r.notes,
    }
}
