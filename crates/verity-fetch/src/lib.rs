//! Sources from the network: robust HTTP fetcher with SSRF guard, Jina Reader,
//! SearXNG web search, DOI/arXiv resolvers.
//!
//! | item | role |
//! |---|---|
//! | [`HttpFetcher`] ([`FetchConfig`]) | `Fetcher`: guarded HTTP(S) with manual redirects, timeouts, size cap, retries, per-host rate limit, robots.txt, paywall detection, cache |
//! | [`NetworkGuard`] | SSRF guard: refuses internal, link-local, metadata … destinations after DNS resolution and on every redirect |
//! | [`JinaReader`] | `Fetcher` through a Jina Reader endpoint (`r.jina.ai` or self-hosted) |
//! | [`SearxngSearch`] | `WebSearch` through a SearXNG instance (JSON API) |
//! | [`resolve_reference`] | DOI / arXiv identifiers → landing page and PDF URLs |

mod guard;
mod http;
mod jina;
mod paywall;
mod resolve;
mod robots;
mod searxng;

pub use guard::{classify_ip, GuardRefusal, IpNet, NetworkGuard};
pub use http::{FetchConfig, HttpFetcher};
pub use jina::JinaReader;
pub use paywall::{html_signals, PaywallSignals, TRUNCATED_WORDS};
pub use resolve::{
    resolve_reference, resolve_reference_with, ReferenceKind, ResolvedReference, ResolverConfig,
};
pub use robots::Robots;
pub use searxng::SearxngSearch;
/// The URL type of this API (re-exported from the `url` crate).
pub use url::Url;
