//! MCP sessions over HTTP: each one bound to the credential that created it,
//! and their number bounded.
//!
//! A session (`Mcp-Session-Id`) answers only requests that carry the same
//! `Authorization` credential as the `initialize` that opened it; another
//! credential gets 404, as for an unknown session, so ids cannot be probed.
//! A credential holds at most `max_per_client` sessions (opening one more
//! closes its least recently used), all credentials together at most
//! `max_total` (then idle sessions are closed first, else 429); a session
//! unused for `idle` is closed. Each live session costs ~100 kB.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};
use sha1::{Digest, Sha1};

/// The session header of the streamable-HTTP transport.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// Bounds on HTTP sessions.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// Most live sessions in all (default 256).
    pub max_total: usize,
    /// Most live sessions per credential (default 32).
    pub max_per_client: usize,
    /// A session unused this long is closed (default 5 minutes).
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_total: 256,
            max_per_client: 32,
            idle: Duration::from_secs(300),
        }
    }
}

#[derive(Debug)]
struct Binding {
    owner: [u8; 20],
    last_used: Instant,
}

/// The live sessions and who opened them.
#[derive(Debug)]
pub(crate) struct Sessions {
    manager: Arc<LocalSessionManager>,
    limits: SessionLimits,
    bindings: Mutex<HashMap<SessionId, Binding>>,
}

impl Sessions {
    pub(crate) fn new(manager: Arc<LocalSessionManager>, limits: SessionLimits) -> Arc<Self> {
        Arc::new(Self {
            manager,
            limits,
            bindings: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SessionId, Binding>> {
        match self.bindings.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Close `ids` in the transport (their workers and buffers are freed).
    async fn close(&self, ids: Vec<SessionId>) {
        for id in ids {
            if let Err(e) = self.manager.close_session(&id).await {
                tracing::debug!(session = %id, "closing an MCP session: {e}");
            }
        }
    }

    /// Make room for one more session of `owner`: expired sessions closed,
    /// the owner's least recently used one past its quota, then the least
    /// recently used idle one past the total. `false` when the server is full
    /// of sessions in use.
    async fn admit(&self, owner: &[u8; 20]) -> bool {
        let now = Instant::now();
        let (closing, admitted) = {
            let mut map = self.lock();
            let mut closing: Vec<SessionId> = map
                .iter()
                .filter(|(_, b)| now.duration_since(b.last_used) >= self.limits.idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &closing {
                map.remove(id);
            }
            let lru = |map: &HashMap<SessionId, Binding>, mine: bool| {
                map.iter()
                    .filter(|(_, b)| !mine || &b.owner == owner)
                    .min_by_key(|(_, b)| b.last_used)
                    .map(|(id, b)| (id.clone(), b.last_used))
            };
            let own = map.values().filter(|b| &b.owner == owner).count();
            if own >= self.limits.max_per_client {
                if let Some((id, _)) = lru(&map, true) {
                    map.remove(&id);
                    closing.push(id);
                }
            }
            let mut admitted = true;
            if map.len() >= self.limits.max_total {
                // Only a session idle for a while gives way to a new one.
                match lru(&map, false) {
                    Some((id, used)) if now.duration_since(used) >= Duration::from_secs(60) => {
                        map.remove(&id);
                        closing.push(id);
                    }
                    _ => admitted = false,
                }
            }
            (closing, admitted)
        };
        self.close(closing).await;
        admitted
    }
}

/// Who is calling: the digest of the bearer credential (none: anonymous).
fn owner(headers: &HeaderMap) -> [u8; 20] {
    let credential = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(|v| match v.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") => t.trim(),
            _ => v.trim(),
        })
        .unwrap_or("");
    Sha1::digest(credential.as_bytes()).into()
}

fn session_of(headers: &HeaderMap) -> Option<SessionId> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(SessionId::from)
}

/// A JSON-RPC error answer (no id: the transport refused the request).
pub(crate) fn rpc_error(status: StatusCode, code: i32, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    (status, axum::Json(body)).into_response()
}

/// Middleware in front of the transport: bind, bound and expire sessions.
pub(crate) async fn guard(
    State(sessions): State<Arc<Sessions>>,
    req: Request,
    next: Next,
) -> Response {
    let who = owner(req.headers());
    let method = req.method().clone();
    match session_of(req.headers()) {
        Some(id) => {
            let known = {
                let mut map = sessions.lock();
                match map.get_mut(&id) {
                    Some(b) if b.owner == who => {
                        b.last_used = Instant::now();
                        true
                    }
                    // Another credential's session: as if unknown.
                    Some(_) => {
                        return rpc_error(
                            StatusCode::NOT_FOUND,
                            -32001,
                            "Session not found: open a session with `initialize`",
                        )
                    }
                    None => false,
                }
            };
            let resp = next.run(req).await;
            if known && method == Method::DELETE && resp.status().is_success() {
                sessions.lock().remove(&id);
            }
            resp
        }
        None if method == Method::POST => {
            if !sessions.admit(&who).await {
                let mut resp = rpc_error(
                    StatusCode::TOO_MANY_REQUESTS,
                    -32000,
                    "too many MCP sessions in use on this server: close idle ones \
                     (DELETE /mcp with their Mcp-Session-Id) or retry later",
                );
                resp.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("60"));
                return resp;
            }
            let resp = next.run(req).await;
            if let Some(id) = session_of(resp.headers()) {
                sessions.lock().insert(
                    id,
                    Binding {
                        owner: who,
                        last_used: Instant::now(),
                    },
                );
            }
            resp
        }
        None => next.run(req).await,
    }
}
