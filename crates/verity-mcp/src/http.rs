//! Streamable HTTP transport as an `axum::Router`.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use verity::tools::ToolRegistry;
use verity::Verity;

use crate::VerityMcp;

/// Options of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Accepted `Host` header values (`name` or `name:port`); requests with
    /// another Host get 403 (DNS-rebinding protection). Default: loopback
    /// only (`localhost`, `127.0.0.1`, `::1`). Empty: any host (not advised).
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin` values (`scheme://host[:port|:*]`); a request that
    /// carries another Origin gets 403, one without Origin passes. Default:
    /// loopback origins on any port.
    pub allowed_origins: Vec<String>,
    /// No sessions: every POST is answered on its own (no `Mcp-Session-Id`,
    /// no server-initiated stream), which scales behind a load balancer.
    pub stateless: bool,
    /// In stateless mode, answer plain `application/json` instead of a
    /// one-event SSE stream when the client accepts it.
    pub json_response: bool,
    /// Largest accepted request body in bytes (413 beyond).
    pub max_body_bytes: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
                "https://localhost:*".into(),
                "https://127.0.0.1:*".into(),
                "https://[::1]:*".into(),
            ],
            stateless: false,
            json_response: false,
            max_body_bytes: 4 * 1024 * 1024,
        }
    }
}

impl HttpOptions {
    /// Stateless mode with JSON answers.
    pub fn stateless() -> Self {
        Self {
            stateless: true,
            json_response: true,
            ..Self::default()
        }
    }
}

/// The MCP streamable-HTTP endpoint as a router answering at its root: nest
/// it where it should live (`Router::new().nest("/mcp", router(…))`).
/// Authentication, rate limits and logging are the enclosing server's layers.
pub fn router(
    verity: Arc<Verity>,
    registry: Arc<ToolRegistry>,
    options: HttpOptions,
) -> axum::Router {
    let server = VerityMcp::new(verity, registry);
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts)
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.json_response)
        .with_max_request_body_bytes(options.max_body_bytes);
    config = if options.allowed_origins.is_empty() {
        config.disable_allowed_origins()
    } else {
        config.with_allowed_origins(options.allowed_origins)
    };
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new().route_service("/", service)
}
