//! `verity serve`: the REST API of seed 001 over the [`verity`] facade.
//!
//! The server is a shell: each handler turns a `verity::api` request into a
//! facade call and its result into a `verity::api` response; errors go
//! through the facade's one table. What lives here is only what HTTP adds:
//! authentication, rate limits, CORS, body and time limits, the
//! `X-API-Version` header, request ids, metrics, the OpenAPI document and
//! background ingest jobs.
//!
//! ```no_run
//! # async fn run() -> Result<(), verity_server::ServerError> {
//! let config = verity_server::ServerConfig::load(None)?;
//! verity_server::serve(config).await
//! # }
//! ```

// Handlers and middleware return `Result<_, ApiError>`: the error is the HTTP
// response itself (status, JSON body, headers), built once per failed request,
// so its size does not matter next to the response it becomes.
#![allow(clippy::result_large_err)]

mod auth;
pub mod config;
mod error;
mod extract;
mod guard;
mod jobs;
mod limit;
mod metrics;
mod observe;
pub mod openapi;
mod routes;
mod server;
mod telemetry;
pub mod version;

pub use config::{LogFormat, RateLimitConfig, ServerConfig};
pub use error::ErrorResponse;
pub use jobs::{JobState, JobStatus};
pub use routes::operations;
pub use server::{serve, RunningServer, Server};
pub use telemetry::init as init_logging;

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The configuration is invalid or unsafe.
    #[error("configuration: {0}")]
    Config(String),
    /// Opening the store or the providers failed.
    #[error(transparent)]
    Verity(#[from] verity::Error),
    /// Binding or serving failed.
    #[error("server I/O: {0}")]
    Io(#[from] std::io::Error),
}

impl ServerError {
    /// The CLI exit status for this error (through the facade's table for library errors).
    pub fn exit_code(&self) -> u8 {
        match self {
            ServerError::Verity(e) => verity::api::error::ErrorMapping::of(e).exit_code,
            ServerError::Config(_) => {
                verity::api::error::ErrorMapping::for_code("config_error").exit_code
            }
            ServerError::Io(_) => verity::api::error::exit::FAILURE,
        }
    }
}
