//! Health of a [`crate::Verity`] and its services (seeds 001 and 004:
//! `GET /v1/health` → `{status: healthy | degraded, services: {…}}`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Overall state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    /// Every configured service answers.
    Healthy,
    /// At least one configured service fails (its entry says which and why).
    Degraded,
}

/// State of one service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceStatus {
    /// It answered its probe.
    Ok,
    /// It failed or did not answer in time (`message` says why).
    Error,
    /// Not configured (e.g. lexical-only: no embedder), which is not a failure.
    NotConfigured,
}

/// Health of one service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServiceHealth {
    /// State.
    pub status: ServiceStatus,
    /// What it is (model, backend, counts) when it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Why it fails, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Time its probe took, in milliseconds.
    pub latency_ms: f64,
}

/// `GET /v1/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HealthResponse {
    /// `healthy` when every configured service is `ok`, else `degraded`.
    pub status: HealthStatus,
    /// When the probes ran.
    pub timestamp: DateTime<Utc>,
    /// Time all probes took, in milliseconds.
    pub duration_ms: f64,
    /// Per service: `store`, `redis` (when used), `embedder`, `memory`
    /// (the event store), `generator`.
    pub services: BTreeMap<String, ServiceHealth>,
}

impl HealthResponse {
    /// `true` when [`HealthStatus::Healthy`].
    pub fn is_healthy(&self) -> bool {
        self.status == HealthStatus::Healthy
    }
}
