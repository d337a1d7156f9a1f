//! [`Bounded`]: the pipeline's generator with a deadline per generation, so
//! a slow model (a small local model on a CPU) cannot hold a run: a call
//! past the deadline fails with a transient timeout and the caller degrades
//! (deterministic plan, extractive writer, extractive summary), said so.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use verity_core::{Error, GenerateRequest, Generation, Generator, Result, TokenStream};

/// `inner` with at most `limit` per [`Generator::generate`]; dropping the
/// call cancels the generation (the local generator stops between tokens).
pub(crate) struct Bounded {
    pub(crate) inner: Arc<dyn Generator>,
    pub(crate) limit: Duration,
}

#[async_trait]
impl Generator for Bounded {
    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn generate(&self, req: &GenerateRequest) -> Result<Generation> {
        tokio::time::timeout(self.limit, self.inner.generate(req))
            .await
            .map_err(|_| Error::Timeout(self.limit))?
    }

    async fn stream(&self, req: &GenerateRequest) -> Result<TokenStream> {
        self.inner.stream(req).await
    }

    async fn health(&self) -> Result<()> {
        self.inner.health().await
    }
}
