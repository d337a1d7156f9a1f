//! Assembling the router with its layers, binding, and graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{header, HeaderName, Method, StatusCode};
use axum::response::IntoResponse;
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::TimeoutLayer;
use verity::tools::{FileRoots, ToolOptions, ToolRegistry};
use verity::Verity;

use crate::auth::Tokens;
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::jobs::Jobs;
use crate::{limit, observe, routes, ServerError};

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The facade.
    pub verity: Arc<Verity>,
    /// Background ingest jobs.
    pub jobs: Jobs,
    /// Directories clients may name files under.
    pub roots: FileRoots,
    /// The tool registry (REST `/api/tools/{name}` and MCP), built with the
    /// server's roots and `allow_private`.
    pub tools: Arc<ToolRegistry>,
    /// The configuration.
    pub config: Arc<ServerConfig>,
    /// Prometheus renderer.
    pub metrics: Option<metrics_exporter_prometheus::PrometheusHandle>,
    /// The OpenAPI document, rendered once.
    pub openapi: Arc<serde_json::Value>,
}

/// A configured server, not yet listening.
pub struct Server {
    state: AppState,
    mcp: Option<Router>,
}

impl Server {
    /// Validate `config` and open the facade.
    pub async fn open(config: ServerConfig) -> Result<Self, ServerError> {
        config.validate()?;
        let roots = FileRoots::new(&config.roots)?;
        let mut overrides = config.verity.with_rest_defaults();
        if config.allow_private {
            overrides.allow_private = Some(true);
        }
        let verity = Arc::new(Verity::open_with(&overrides).await?);
        let server = Self::with_verity(config, verity.clone(), roots);
        // Host and Origin are checked for every route by the server's own
        // policy (`guard.rs`), `/mcp` included: the transport's copy of the
        // check is off so that one list decides.
        let mcp = verity_mcp::router(
            verity,
            server.state.tools.clone(),
            verity_mcp::HttpOptions {
                allowed_hosts: Vec::new(),
                allowed_origins: Vec::new(),
                ..Default::default()
            },
        );
        Ok(server.with_mcp(mcp))
    }

    /// A server over an already opened facade (tests, embedding programs).
    pub fn with_verity(config: ServerConfig, verity: Arc<Verity>, roots: FileRoots) -> Self {
        let metrics = crate::metrics::handle();
        let openapi = Arc::new(crate::openapi::document(&routes::operations()));
        let tools = Arc::new(ToolRegistry::builtin(&ToolOptions {
            file_roots: roots.clone(),
            allow_private_fetch: config.allow_private,
            research_time_limit: Some(config.tool_research_limit()),
        }));
        Self {
            state: AppState {
                verity,
                jobs: Jobs::default(),
                roots,
                tools,
                config: Arc::new(config),
                metrics,
                openapi,
            },
            mcp: None,
        }
    }

    /// Mount an MCP (streamable HTTP) router at `/mcp`, behind the same
    /// authentication, rate limit and body limit as the REST routes.
    pub fn with_mcp(mut self, mcp: Router) -> Self {
        self.mcp = Some(mcp);
        self
    }

    /// The facade the server runs on.
    pub fn verity(&self) -> &Arc<Verity> {
        &self.state.verity
    }

    /// The router with every layer.
    pub fn router(&self) -> Router {
        app(self.state.clone(), self.mcp.clone())
    }

    /// Bind and serve in the background; the handle stops it.
    pub async fn start(self) -> Result<RunningServer, ServerError> {
        let listener = TcpListener::bind(self.state.config.addr).await?;
        let addr = listener.local_addr()?;
        // Small responses written in more than one segment (SSE: headers,
        // then the event) would otherwise wait on the client's delayed ACK
        // (~40 ms each): measured on MCP `tools/call` under load.
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!("TCP_NODELAY not set on a connection: {e}");
            }
        });
        if let Some(h) = &self.state.metrics {
            crate::metrics::spawn_upkeep(h.clone());
        }
        // Seed 001: a warm-up prompt at start, so that a remote generator
        // loads its model before the first question (in the background: the
        // server answers meanwhile; a failure is logged, health reports it).
        if self.state.verity.remote_generator() {
            let verity = self.state.verity.clone();
            tokio::spawn(async move {
                match verity.warm_up().await {
                    Ok(Some((model, ms))) => tracing::info!(%model, ms, "generator warmed up"),
                    Ok(None) => {}
                    Err(e) => tracing::warn!(error = %e, "generator warm-up failed"),
                }
            });
        }
        let (tx, mut rx) = watch::channel(false);
        let app = self.router();
        let state = self.state.clone();
        let task = tokio::spawn(async move {
            let shutdown = async move {
                let _ = rx.wait_for(|stop| *stop).await;
            };
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(shutdown)
            .await?;
            close(&state).await;
            Ok(())
        });
        Ok(RunningServer {
            addr,
            stop: tx,
            task,
        })
    }
}

/// After the last connection: let jobs finish (within the grace period), flush the store.
async fn close(state: &AppState) {
    if !state.jobs.wait_idle(state.config.shutdown_grace()).await {
        tracing::warn!(
            "shutdown: jobs (ingest, research) still running after the grace period were abandoned"
        );
    }
    match state.verity.flush().await {
        Ok(()) => tracing::info!("store flushed and closed"),
        Err(e) => tracing::error!(error = %e, "store flush failed at shutdown"),
    }
}

/// A server listening in the background.
pub struct RunningServer {
    /// The bound address (the real port when 0 was asked).
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), std::io::Error>>,
}

impl RunningServer {
    /// Stop accepting, let in-flight requests finish, close the store.
    pub async fn shutdown(self) -> Result<(), ServerError> {
        let _ = self.stop.send(true);
        self.wait().await
    }

    /// Wait until the server stops.
    pub async fn wait(self) -> Result<(), ServerError> {
        match self.task.await {
            Ok(r) => r.map_err(ServerError::from),
            Err(e) => Err(ServerError::Io(std::io::Error::other(e.to_string()))),
        }
    }

    /// Ask the server to stop (what SIGTERM does).
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

/// `verity serve`: open, print the configuration (secrets masked), serve
/// until SIGTERM or Ctrl-C, then shut down gracefully.
pub async fn serve(config: ServerConfig) -> Result<(), ServerError> {
    crate::telemetry::init(&config);
    config.validate()?;
    eprintln!(
        "verity serve: configuration (secrets masked):\n{}",
        config.masked()
    );
    for n in &config.notes {
        eprintln!("verity serve: note: {n}");
    }
    if config.allow_private {
        eprintln!(
            "verity serve: allow_private is ON: research runs, add_reference, crawl_url, \
             verify_fact and POST /v1/verify clients may fetch private and loopback addresses"
        );
    }
    let loopback_names = config
        .allowed_hosts
        .iter()
        .all(|h| crate::guard::LOOPBACK_HOSTS.contains(&h.as_str()));
    if !config.addr.ip().is_loopback() && loopback_names {
        tracing::warn!(
            "listening on {} but `allowed_hosts` names loopback only: clients using another \
             host name get 403 host_not_allowed (list it in allowed_hosts / VERITY_ALLOWED_HOSTS)",
            config.addr
        );
    }
    if config.tokens.is_empty() {
        tracing::warn!(
            "no bearer token configured: anyone on this machine can call the API (loopback only)"
        );
    }
    let server = Server::open(config).await?;
    for n in server.verity().notes() {
        tracing::warn!("{n}");
    }
    eprintln!("verity serve: store {}", store_location(server.verity()));
    let running = server.start().await?;
    tracing::info!(addr = %running.addr, "listening; docs at http://{}/v1/docs", running.addr);
    eprintln!(
        "verity serve: listening on http://{} (docs: http://{}/v1/docs)",
        running.addr, running.addr
    );
    shutdown_signal().await;
    tracing::info!("shutdown requested: finishing in-flight requests");
    running.shutdown().await
}

/// Where the store lives, as an absolute path (a server is often started
/// from a directory nobody remembers), or the Redis URL (password masked).
fn store_location(v: &Verity) -> String {
    if v.config().redis_url.is_some() {
        return v.location();
    }
    let home = &v.config().home;
    std::path::absolute(home)
        .unwrap_or_else(|_| home.clone())
        .display()
        .to_string()
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// The whole application: routes, then layers from the inside out.
fn app(state: AppState, mcp: Option<Router>) -> Router {
    let config = state.config.clone();
    let tokens = Tokens::new(&config.tokens);

    let mut protected = routes::protected(state.clone());
    if let Some(mcp) = mcp {
        protected = protected.nest("/mcp", mcp);
    }
    let protected = protected.layer(axum::middleware::from_fn_with_state(
        tokens.clone(),
        crate::auth::require,
    ));
    let mut app = Router::new()
        .merge(routes::public(state))
        .merge(protected)
        .fallback(|| async { ApiError::from_status(StatusCode::NOT_FOUND) })
        .method_not_allowed_fallback(|| async {
            ApiError::from_status(StatusCode::METHOD_NOT_ALLOWED)
        })
        .layer(axum::middleware::from_fn(observe::tag_route))
        .layer(axum::extract::DefaultBodyLimit::max(config.body_limit))
        .layer(axum::middleware::from_fn(cancellable))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::GATEWAY_TIMEOUT,
            config.request_timeout(),
        ));
    if let Some(l) = limit::layer(&config.rate_limit, tokens) {
        app = app.layer(l);
    }
    if !config.cors_origins.is_empty() {
        app = app.layer(cors(&config.cors_origins));
    }
    app.layer(axum::middleware::from_fn_with_state(
        crate::guard::Policy::new(&config.allowed_hosts, &config.cors_origins),
        crate::guard::enforce,
    ))
    .layer(axum::middleware::from_fn(observe::observe))
    .layer(tower_http::catch_panic::CatchPanicLayer::custom(
        panic_response,
    ))
}

/// Run the request with a cancel flag that is raised when its future is
/// dropped before it answers (the timeout fired, the client went away):
/// blocking work started for it (store reads, model passes) stops at its
/// next check instead of running on for nobody.
async fn cancellable(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let flag = verity::core::cancel::CancelFlag::new();
    let guard = flag.cancel_on_drop();
    let resp = verity::core::cancel::scope(flag, next.run(req)).await;
    guard.disarm();
    resp
}

/// A panic while handling a request: the facade's `internal_fault` error
/// (JSON, through the error table), never a dropped connection.
fn panic_response(payload: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    ApiError::from(verity::Error::from_panic("request", payload.as_ref())).into_response()
}

fn cors(origins: &[String]) -> CorsLayer {
    let list: Vec<_> = origins.iter().filter_map(|o| o.parse().ok()).collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(list))
        .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            HeaderName::from_static(crate::version::HEADER),
            HeaderName::from_static(observe::REQUEST_ID),
        ])
        .expose_headers([
            HeaderName::from_static(crate::version::HEADER),
            HeaderName::from_static(observe::REQUEST_ID),
            header::RETRY_AFTER,
        ])
        .max_age(std::time::Duration::from_secs(600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_is_a_typed_json_error() {
        let resp = panic_response(Box::new("byte index 1 is not a char boundary"));
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = axum::body::to_bytes(resp.into_body(), 1 << 16)
            .await
            .unwrap_or_default();
        let e: crate::ErrorResponse =
            serde_json::from_slice(&body).unwrap_or_else(|_| crate::ErrorResponse {
                code: String::new(),
                message: String::new(),
                transient: true,
                supported_versions: None,
                retry_after_secs: None,
            });
        assert_eq!(e.code, "internal_fault");
        assert!(e.message.contains("char boundary"), "{}", e.message);
        assert!(!e.transient);
    }
}
