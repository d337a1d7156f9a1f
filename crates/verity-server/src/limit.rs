//! Rate limit per client IP and bearer token (tower_governor).
//!
//! The key is the peer IP plus the index of the client's token when it is a
//! valid one: requests with made-up tokens share the IP's anonymous bucket, so
//! rotating garbage tokens does not buy a fresh quota.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, Response};
use axum::response::IntoResponse;
use governor::middleware::NoOpMiddleware;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

use crate::auth::Tokens;
use crate::config::RateLimitConfig;
use crate::error::ApiError;

/// Key extractor: peer IP + valid token.
#[derive(Debug, Clone)]
pub struct IpAndToken {
    tokens: Tokens,
}

impl KeyExtractor for IpAndToken {
    type Key = (IpAddr, Option<usize>);

    fn extract<T>(&self, req: &Request<T>) -> Result<Self::Key, GovernorError> {
        let ip = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())
            .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let token = req
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(s, _)| s.eq_ignore_ascii_case("bearer"))
            .and_then(|(_, t)| self.tokens.find(t.trim()));
        Ok((ip, token))
    }
}

type Config = GovernorConfig<IpAndToken, NoOpMiddleware<governor::clock::QuantaInstant>>;

/// The layer, and a task that forgets idle clients every minute.
pub fn layer(
    cfg: &RateLimitConfig,
    tokens: Tokens,
) -> Option<GovernorLayer<IpAndToken, NoOpMiddleware<governor::clock::QuantaInstant>, Body>> {
    if !cfg.enabled {
        return None;
    }
    let period = Duration::from_nanos((1_000_000_000 / u64::from(cfg.per_second.max(1))).max(1));
    let config: Config = GovernorConfigBuilder::default()
        .key_extractor(IpAndToken { tokens })
        .period(period)
        .burst_size(cfg.burst.max(1))
        .finish()?;
    let config = Arc::new(config);
    let limiter = config.limiter().clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        loop {
            tick.tick().await;
            limiter.retain_recent();
        }
    });
    Some(GovernorLayer::new(config).error_handler(on_error))
}

fn on_error(e: GovernorError) -> Response<Body> {
    match e {
        GovernorError::TooManyRequests { wait_time, .. } => {
            ApiError::rate_limited(wait_time).into_response()
        }
        GovernorError::UnableToExtractKey => {
            ApiError::invalid("cannot identify the client for rate limiting").into_response()
        }
        GovernorError::Other { code, msg, .. } => ApiError::new(
            code,
            "rate_limited",
            msg.unwrap_or_else(|| "request refused by the rate limiter".into()),
        )
        .into_response(),
    }
}
