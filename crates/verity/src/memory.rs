//! Event memory through the facade (seed 004): [`Verity::memory`] is a
//! [`verity_memory::Memory`] over the same backend the [`Verity`] opened —
//! the event tables of the home's `verity.db`, or a Redis event space named
//! after the configured index — with the same embedder. It is opened on
//! first use, so a `Verity` that never touches memory pays nothing.
//!
//! The methods below are what hosts call: `verity::api` types in and out.
//! The library itself (`verity_memory`) is re-exported here.

use std::time::Duration;

use uuid::Uuid;
use verity_core::{Result, StoreError};
pub use verity_memory::*;

use crate::api::memory::{EventSearchResponse, ForgetRequest, ForgetResponse, RememberRequest};
use crate::backend::Backend;
use crate::Verity;

/// Open the event store of `verity`'s backend and build the memory.
pub(crate) async fn open(verity: &Verity) -> Result<Memory> {
    let store: std::sync::Arc<dyn verity_core::EventStore> = match verity.backend() {
        Backend::Sqlite(_) => {
            let home = verity.config().home.clone();
            let slot = verity.event_store.clone();
            // Loading reads every event and takes the vector index from its
            // dump (a rebuild when the dump is stale: ~70 s at 50k on 2
            // cores): one load per `Verity`, even when waiters give up.
            tokio::task::spawn_blocking(move || {
                let mut loaded = slot
                    .lock()
                    .map_err(|_| StoreError::Backend("event store loader panicked".into()))?;
                if let Some(s) = loaded.as_ref() {
                    return Ok::<_, verity_core::Error>(s.clone());
                }
                let s = std::sync::Arc::new(verity_store::SqliteEventStore::open(
                    &home,
                    Default::default(),
                )?);
                *loaded = Some(s.clone());
                Ok(s)
            })
            .await
            .map_err(|e| StoreError::Backend(format!("event store open task failed: {e}")))??
        }
        #[cfg(feature = "redis")]
        Backend::Redis { url } => std::sync::Arc::new(
            verity_redis::RedisEventStore::connect(
                url,
                &event_space(&verity.config().index),
                Default::default(),
            )
            .await?,
        ),
    };
    let mut builder = Memory::builder(store);
    if let Some(e) = verity.embedder() {
        builder = builder.embedder(e.clone());
    }
    builder.build()
}

/// The Redis event space of an index name (letters, digits, `-`, `_`).
fn event_space(index: &str) -> String {
    let s: String = index
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "default".into()
    } else {
        s
    }
}

impl Verity {
    /// The event memory, opened on first use over this `Verity`'s backend
    /// and embedder.
    pub async fn memory(&self) -> Result<&Memory> {
        self.memory.get_or_try_init(|| open(self)).await
    }

    /// Health of the event memory: opens it if needed and asks its store
    /// something cheap. Returns what it is (`sqlite` or `redis`, the vector
    /// dimension) or the error that says why it is down.
    pub async fn memory_health(&self) -> Result<String> {
        let memory = self.memory().await?;
        let store = memory.store();
        let dim = store.dimension().await?;
        let vectors = match dim {
            Some(d) => format!("vectors of dimension {d}"),
            None => "no vectors yet".to_string(),
        };
        let embedding = if memory.has_embedder() {
            "auto-embedding on"
        } else {
            "auto-embedding off (no embedder)"
        };
        Ok(format!(
            "{} event store, {vectors}, {embedding}",
            store.backend()
        ))
    }

    /// Write one event (seed 004's `POST /v1/events`): auto-embedded from
    /// its text field unless it carries an `embedding`.
    pub async fn memory_add(&self, event: NewEvent) -> Result<Added> {
        self.memory().await?.add(event).await
    }

    /// One event by id (`not_found` when unknown or expired).
    pub async fn memory_get(&self, id: Uuid) -> Result<Event> {
        self.memory().await?.get(id).await
    }

    /// Delete one event (`not_found` when unknown).
    pub async fn memory_delete(&self, id: Uuid) -> Result<()> {
        self.memory().await?.delete(id).await
    }

    /// Merge `patch` (a JSON object) into an event's metadata.
    pub async fn memory_update_metadata(
        &self,
        id: Uuid,
        patch: &serde_json::Value,
    ) -> Result<Event> {
        self.memory().await?.update_metadata(id, patch).await
    }

    /// Search events (seed 004's `GET /v1/search/`).
    pub async fn memory_search(&self, query: &EventQuery) -> Result<EventSearchResponse> {
        Ok(self.memory().await?.search(query).await?.into())
    }

    /// `remember`: store text with metadata and an optional time to live.
    pub async fn remember(&self, req: &RememberRequest) -> Result<Added> {
        if req.ttl_seconds == Some(0) {
            return Err(verity_core::InputError::field(
                "ttl_seconds",
                "must be a positive number of seconds",
            )
            .into());
        }
        let ttl = req.ttl_seconds.map(Duration::from_secs);
        let metadata = serde_json::Value::Object(req.metadata.clone());
        self.memory()
            .await?
            .remember(&req.text, metadata, ttl)
            .await
    }

    /// `recall`: find events by meaning and/or words, metadata and time.
    pub async fn recall(&self, req: &RecallRequest) -> Result<EventSearchResponse> {
        Ok(self.memory().await?.recall(req).await?.into())
    }

    /// `forget`: delete one event by id, or every event matching a filter.
    pub async fn forget(&self, req: &ForgetRequest) -> Result<ForgetResponse> {
        let what = req.to_forget()?;
        let deleted = self.memory().await?.forget(what).await?;
        Ok(ForgetResponse { deleted })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use serde_json::json;

    use super::*;
    use crate::{EmbedderSpec, VerityConfig};

    #[test]
    fn event_spaces_are_redis_safe() {
        assert_eq!(event_space("verity"), "verity");
        assert_eq!(event_space("docs:v2"), "docs_v2");
        assert_eq!(event_space(""), "default");
    }

    #[tokio::test]
    async fn memory_lives_in_the_home_and_survives_reopening() {
        let home = tempfile::tempdir().unwrap();
        let config = VerityConfig {
            home: home.path().to_path_buf(),
            embedder: EmbedderSpec::None,
            ..VerityConfig::default()
        };
        let verity = Verity::open(config.clone()).await.unwrap();
        let added = verity
            .remember(&RememberRequest {
                text: "Chose SQLite for the demo".into(),
                metadata: json!({"event_type": "decision"})
                    .as_object()
                    .cloned()
                    .unwrap(),
                ttl_seconds: None,
            })
            .await
            .unwrap();
        // No embedder: stored without a vector, and said so.
        assert!(added.note.is_some());
        drop(verity);

        let verity = Verity::open(config).await.unwrap();
        let got = verity.memory_get(added.event.id).await.unwrap();
        assert_eq!(got.content["text"], "Chose SQLite for the demo");
        let found = verity.recall(&RecallRequest::new("SQLite")).await.unwrap();
        assert_eq!(found.data.len(), 1);
        assert_eq!(
            found.meta.mode,
            crate::api::memory::EventSearchMode::Lexical
        );
        let gone = verity
            .forget(&ForgetRequest {
                filter_metadata: json!({"event_type": "decision"})
                    .as_object()
                    .cloned()
                    .unwrap(),
                ..ForgetRequest::default()
            })
            .await
            .unwrap();
        assert_eq!(gone.deleted, 1);
        let err = verity.memory_get(added.event.id).await.unwrap_err();
        assert_eq!(err.code(), "not_found");
        let err = verity.forget(&ForgetRequest::default()).await.unwrap_err();
        assert_eq!(err.code(), "invalid_input");
    }

    #[tokio::test]
    async fn memory_tools_run_through_the_registry() {
        use crate::tools::{ToolError, ToolOptions, ToolRegistry};
        let home = tempfile::tempdir().unwrap();
        let verity = Verity::open(VerityConfig {
            home: home.path().to_path_buf(),
            embedder: EmbedderSpec::None,
            ..VerityConfig::default()
        })
        .await
        .unwrap();
        let registry = ToolRegistry::builtin(&ToolOptions::default());
        let out = registry
            .call(
                &verity,
                "remember",
                json!({"text": "The user prefers French answers", "metadata": {"kind": "preference"}}),
            )
            .await
            .unwrap();
        let id = out.structured["event"]["id"].as_str().unwrap().to_string();
        let out = registry
            .call(
                &verity,
                "recall",
                json!({"query": "French", "filter_metadata": {"kind": "preference"}}),
            )
            .await
            .unwrap();
        assert_eq!(out.structured["data"][0]["id"], id.as_str());
        assert!(out.text.contains("prefers French"), "{}", out.text);
        match registry.call(&verity, "forget", json!({})).await {
            Err(ToolError::Failed(e)) => assert_eq!(e.code(), "invalid_input"),
            other => panic!("{other:?}"),
        }
        match registry
            .call(&verity, "recall", json!({"limit": "x"}))
            .await
        {
            Err(ToolError::InvalidArguments { tool, .. }) => assert_eq!(tool, "recall"),
            other => panic!("{other:?}"),
        }
        let out = registry
            .call(&verity, "forget", json!({"id": id}))
            .await
            .unwrap();
        assert_eq!(out.structured["deleted"], 1);
    }
}
