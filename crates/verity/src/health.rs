//! [`Verity::health`]: one probe per service, each bounded in time, and the
//! warm-up of a remote generator (seed 001: "healthcheck + warmup prompt au
//! démarrage").

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use verity_core::{ChatRequest, GenerationParams, Grounding};

use crate::api::health::{HealthResponse, HealthStatus, ServiceHealth, ServiceStatus};
use crate::config::GeneratorSpec;
use crate::{Result, Verity};

/// Time each health probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

async fn probe<T>(f: impl std::future::Future<Output = Result<T>>) -> (Result<T, String>, f64) {
    let t = Instant::now();
    let r = match tokio::time::timeout(PROBE_TIMEOUT, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {PROBE_TIMEOUT:?}")),
    };
    (r, t.elapsed().as_secs_f64() * 1e3)
}

fn service<T>(r: Result<T, String>, ms: f64, detail: impl FnOnce(T) -> String) -> ServiceHealth {
    match r {
        Ok(v) => ServiceHealth {
            status: ServiceStatus::Ok,
            detail: Some(detail(v)),
            message: None,
            latency_ms: ms,
        },
        Err(e) => ServiceHealth {
            status: ServiceStatus::Error,
            detail: None,
            message: Some(e),
            latency_ms: ms,
        },
    }
}

impl Verity {
    /// Probe every service: the store (and Redis behind it), the embedder
    /// (one query embedded), the event memory, the generator (loaded on
    /// first use, then asked for its health: Ollama's `/api/tags`, the
    /// OpenAI-compatible `/v1/models`). Each probe has [`PROBE_TIMEOUT`].
    pub async fn health(&self) -> HealthResponse {
        let started = Instant::now();
        let timestamp = chrono::Utc::now();
        let mut services = BTreeMap::new();
        let (stats, ms) = probe(self.stats()).await;
        let redis = stats.as_ref().ok().and_then(|st| st.redis.clone());
        let store = service(stats, ms, |st| {
            format!(
                "{} documents, {} chunks",
                st.store.documents, st.store.chunks
            )
        });
        if let Some(url) = redis {
            services.insert(
                "redis".into(),
                ServiceHealth {
                    detail: Some(url),
                    ..store.clone()
                },
            );
        }
        services.insert("store".into(), store);
        let embedder = match self.embedder() {
            None => ServiceHealth {
                status: ServiceStatus::NotConfigured,
                detail: Some("lexical-only: no embedder".into()),
                message: None,
                latency_ms: 0.0,
            },
            Some(e) => {
                let id = e.id().to_string();
                let (r, ms) = probe(e.embed_query("health check")).await;
                service(r, ms, |_| id)
            }
        };
        services.insert("embedder".into(), embedder);
        #[cfg(feature = "memory")]
        {
            let (r, ms) = probe(self.memory_health()).await;
            services.insert("memory".into(), service(r, ms, |d| d));
        }
        let (r, ms) = probe(self.generator_health()).await;
        services.insert("generator".into(), service(r, ms, |model| model));
        let healthy = services.values().all(|h| h.status != ServiceStatus::Error);
        HealthResponse {
            status: if healthy {
                HealthStatus::Healthy
            } else {
                HealthStatus::Degraded
            },
            timestamp,
            duration_ms: started.elapsed().as_secs_f64() * 1e3,
            services,
        }
    }

    /// Whether the configured generator runs on another server (Ollama,
    /// OpenAI-compatible), where the first request loads the model.
    pub fn remote_generator(&self) -> bool {
        matches!(
            self.config().generator,
            GeneratorSpec::Ollama(_) | GeneratorSpec::OpenAi(_)
        )
    }

    /// Seed 001's warm-up prompt: when the generator is remote, send it one
    /// tiny request so that the server loads the model before the first
    /// question; returns the model and the milliseconds it took. `Ok(None)`
    /// for a local or extractive generator (nothing to warm up).
    pub async fn warm_up(&self) -> Result<Option<(String, f64)>> {
        if !self.remote_generator() {
            return Ok(None);
        }
        let started = Instant::now();
        let rag = self.rag().await?;
        let request = ChatRequest {
            messages: vec![verity_core::ChatMessage::user("Reply with OK.")],
            params: GenerationParams {
                max_tokens: 1,
                ..rag.config().params.clone()
            },
            grounding: None::<Grounding>,
        };
        rag.generator().generate(&request).await?;
        Ok(Some((
            rag.model().to_string(),
            started.elapsed().as_secs_f64() * 1e3,
        )))
    }
}
