//! Bearer-token authentication.
//!
//! Tokens come from the configuration or `VERITY_API_TOKENS`; they are
//! compared as SHA-1 digests in constant time. A token in the query string
//! is always refused (it ends up in logs and proxies), even when no token is
//! configured.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha1::{Digest, Sha1};

use crate::error::ApiError;

/// Query parameters that look like credentials.
const QUERY_CREDENTIALS: &[&str] = &[
    "access_token",
    "token",
    "api_key",
    "apikey",
    "key",
    "bearer",
];

/// The accepted tokens, as digests.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    digests: Arc<Vec<[u8; 20]>>,
}

impl Tokens {
    /// From the configured tokens.
    pub fn new(tokens: &[String]) -> Self {
        Self {
            digests: Arc::new(tokens.iter().map(|t| digest(t)).collect()),
        }
    }

    /// `true` when authentication is on.
    pub fn enabled(&self) -> bool {
        !self.digests.is_empty()
    }

    /// Index of the token when it is one of ours.
    pub fn find(&self, token: &str) -> Option<usize> {
        let d = digest(token);
        let mut found = None;
        // Compare with every token, without early exit.
        for (i, t) in self.digests.iter().enumerate() {
            let diff = t
                .iter()
                .zip(d.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b));
            if diff == 0 {
                found = Some(i);
            }
        }
        found
    }
}

fn digest(t: &str) -> [u8; 20] {
    Sha1::digest(t.as_bytes()).into()
}

/// The bearer token of a request, or why there is none usable.
pub fn bearer(req: &Request) -> Result<Option<&str>, &'static str> {
    let Some(v) = req.headers().get(AUTHORIZATION) else {
        return Ok(None);
    };
    let v = v.to_str().map_err(|_| {
        "the Authorization header is not ASCII: send `Authorization: Bearer <token>`"
    })?;
    let (scheme, token) = v
        .split_once(' ')
        .ok_or("malformed Authorization header: send `Authorization: Bearer <token>`")?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("unsupported authorization scheme: send `Authorization: Bearer <token>`");
    }
    let token = token.trim();
    if token.is_empty() || token.contains(' ') {
        return Err("malformed bearer token: send `Authorization: Bearer <token>`");
    }
    Ok(Some(token))
}

/// Refuse a request whose query string carries something that looks like a credential.
pub fn refuse_query_credentials(req: &Request) -> Result<(), ApiError> {
    let Some(q) = req.uri().query() else {
        return Ok(());
    };
    for pair in q.split('&') {
        let name = pair
            .split('=')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if QUERY_CREDENTIALS.contains(&name.as_str()) {
            return Err(ApiError::invalid(format!(
                "credentials are not accepted in the query string (`{name}`): send \
                 `Authorization: Bearer <token>` instead"
            )));
        }
    }
    Ok(())
}

/// Middleware: refuse query-string credentials; when tokens are configured,
/// require one of them.
pub async fn require(State(tokens): State<Tokens>, req: Request, next: Next) -> Response {
    if let Err(e) = refuse_query_credentials(&req) {
        return e.into_response();
    }
    if tokens.enabled() {
        match bearer(&req) {
            Ok(Some(t)) if tokens.find(t).is_some() => {}
            Ok(Some(_)) => return ApiError::unauthorized("invalid bearer token").into_response(),
            Ok(None) => {
                return ApiError::unauthorized(
                    "missing bearer token: send `Authorization: Bearer <token>`",
                )
                .into_response()
            }
            Err(m) => return ApiError::unauthorized(m).into_response(),
        }
    }
    next.run(req).await
}
