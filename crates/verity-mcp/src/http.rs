//! Streamable HTTP transport as an `axum::Router`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use verity::tools::ToolRegistry;
use verity::Verity;

use crate::sessions::{rpc_error, SessionLimits, Sessions};
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
    /// Bounds on sessions (count per credential and in all, idle time).
    pub sessions: SessionLimits,
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
            sessions: SessionLimits::default(),
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
///
/// In front of the transport: a body that is not JSON gets the JSON-RPC
/// parse error (`-32700`, HTTP 400), JSON that is not a JSON-RPC message
/// the invalid-request error (`-32600`); sessions are bound to the
/// credential that opened them and bounded ([`SessionLimits`]).
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
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.sessions.idle);
    let manager = Arc::new(manager);
    let sessions = Sessions::new(manager.clone(), options.sessions);
    let service = StreamableHttpService::new(move || Ok(server.clone()), manager, config);
    axum::Router::new()
        .route_service("/", service)
        .layer(axum::middleware::from_fn_with_state(
            sessions,
            crate::sessions::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            options.max_body_bytes,
            json_rpc_body,
        ))
}

/// Read a POSTed JSON body once: not JSON → `-32700`, not a JSON-RPC message
/// → `-32600` (both HTTP 400, JSON-RPC error bodies); otherwise hand the
/// bytes on to the transport.
async fn json_rpc_body(State(max): State<usize>, req: Request, next: Next) -> Response {
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        });
    if req.method() != Method::POST || !json {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, max).await {
        Ok(b) => b,
        Err(e) => {
            let too_large = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            return if too_large {
                rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    -32600,
                    &format!("request body larger than {max} bytes"),
                )
            } else {
                rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32700,
                    &format!("Parse error: the request body could not be read: {e}"),
                )
            };
        }
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                -32700,
                &format!("Parse error: the body is not JSON ({e})"),
            )
        }
    };
    if let Err(e) = serde_json::from_value::<ClientJsonRpcMessage>(value) {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            &format!("Invalid Request: not a JSON-RPC 2.0 message MCP defines ({e})"),
        );
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
}
