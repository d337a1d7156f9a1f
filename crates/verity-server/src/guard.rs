//! The request policy every route family shares (`/v1`, `/api`, `/verify`,
//! the page at `/`, `/mcp`, fallbacks), checked before anything else runs:
//!
//! 1. no credential in the query string (400; it ends up in logs and proxies);
//! 2. request target and header section within bounds (414 / 431, JSON bodies);
//! 3. one `Host` (and, for an absolute-form request target, the same
//!    authority), naming an allowed host: loopback names by default,
//!    `allowed_hosts` otherwise (403) — a DNS-rebinding page sends its own
//!    name;
//! 4. an `Origin`, when sent, of a loopback page, a configured CORS origin or
//!    an allowed host (403) — a cross-site page sends its own;
//! 5. `POST` and `PATCH` bodies declared `application/json` (415): a web
//!    page can send `text/plain`, form encodings or no content type without a
//!    CORS preflight, never JSON (and no route takes another body; `PUT` is
//!    served nowhere). A request with neither a content type nor a body
//!    carries nothing and goes on to routing (405 where the method is not
//!    served; an empty body is refused by every route that reads one).
//!
//! Together, 3–5 mean a web page the user visits cannot use a default
//! server (loopback, no token), whatever route it aims at.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::auth::refuse_query_credentials;
use crate::error::ApiError;

/// Longest request target (path and query) served, in bytes. The HTTP parser
/// refuses targets past 65,534 bytes on its own, with an empty 414.
pub const MAX_URI_BYTES: usize = 32 * 1024;
/// Most header fields in a request (the HTTP parser's own limit is 100).
pub const MAX_HEADERS: usize = 64;
/// Largest header section, names and values, in bytes.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Host names every default server accepts.
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Which hosts and origins are accepted.
#[derive(Debug, Clone)]
pub struct Policy {
    /// `None`: any host (`allowed_hosts = ["*"]`).
    hosts: Option<Vec<HostPattern>>,
    /// Exact CORS origins (`scheme://host[:port]`), lower case.
    cors_origins: Vec<String>,
}

/// `name` (any port) or `name:port`, lower case, IPv6 without brackets.
#[derive(Debug, Clone, PartialEq)]
struct HostPattern {
    name: String,
    port: Option<u16>,
}

impl Policy {
    /// From the configured host names and CORS origins.
    pub fn new(allowed_hosts: &[String], cors_origins: &[String]) -> Arc<Self> {
        let hosts = if allowed_hosts.iter().any(|h| h.trim() == "*") {
            None
        } else {
            Some(
                allowed_hosts
                    .iter()
                    .filter_map(|h| split_authority(h.trim()))
                    .map(|(name, port)| HostPattern { name, port })
                    .collect(),
            )
        };
        Arc::new(Self {
            hosts,
            cors_origins: cors_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        })
    }

    fn host_allowed(&self, name: &str, port: Option<u16>) -> bool {
        match &self.hosts {
            None => true,
            Some(list) => list
                .iter()
                .any(|p| p.name == name && (p.port.is_none() || p.port == port)),
        }
    }

    /// The request's host, checked: `Ok(authority)` or the refusal.
    fn check_host(&self, headers: &HeaderMap, uri: &Uri) -> Result<String, ApiError> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = match (hosts.next(), hosts.next()) {
            (Some(h), None) => Some(h.to_str().map_err(|_| invalid_host("is not ASCII"))?),
            (None, _) => None,
            (Some(_), Some(_)) => return Err(invalid_host("is sent more than once")),
        };
        let target = uri.authority().map(|a| a.as_str());
        let authority = match (host, target) {
            (Some(h), Some(t)) if !h.eq_ignore_ascii_case(t) => {
                return Err(invalid_host(
                    "differs from the authority of the absolute-form request target",
                ))
            }
            (_, Some(t)) => t,
            (Some(h), None) => h,
            (None, None) => return Err(invalid_host("is missing")),
        };
        let (name, port) =
            split_authority(authority).ok_or_else(|| invalid_host("is empty or malformed"))?;
        if !self.host_allowed(&name, port) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "host_not_allowed",
                format!(
                    "Host `{}` is not served here (DNS-rebinding protection): the server's \
                     operator can add it to `allowed_hosts`",
                    clip(authority)
                ),
            ));
        }
        Ok(authority.to_ascii_lowercase())
    }

    fn check_origin(&self, headers: &HeaderMap, authority: &str) -> Result<(), ApiError> {
        let mut values = headers.get_all(header::ORIGIN).iter();
        let Some(origin) = values.next() else {
            return Ok(());
        };
        let origin = origin.to_str().unwrap_or("(not ASCII)");
        let refused = || {
            ApiError::new(
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                format!(
                    "requests from pages at `{}` are refused (cross-site protection): the \
                     server's operator can add the origin to `cors_origins`",
                    clip(origin)
                ),
            )
        };
        if values.next().is_some() {
            return Err(refused());
        }
        let lower = origin.trim_end_matches('/').to_ascii_lowercase();
        if self.cors_origins.contains(&lower) {
            return Ok(());
        }
        let Some((scheme, rest)) = lower.split_once("://") else {
            return Err(refused());
        };
        if !matches!(scheme, "http" | "https") || rest.contains(['/', '@', '?', '#']) {
            return Err(refused());
        }
        let Some((name, port)) = split_authority(rest) else {
            return Err(refused());
        };
        let same_origin = rest == authority;
        let loopback = LOOPBACK_HOSTS.contains(&name.as_str());
        let allowed_host = self.hosts.is_some() && self.host_allowed(&name, port);
        if same_origin || loopback || allowed_host {
            Ok(())
        } else {
            Err(refused())
        }
    }
}

/// `name[:port]` → (lower-case name without IPv6 brackets, port).
fn split_authority(a: &str) -> Option<(String, Option<u16>)> {
    if a.is_empty() || a.contains(['@', '/', ' ']) {
        return None;
    }
    let (name, port) = if let Some(rest) = a.strip_prefix('[') {
        let (name, after) = rest.split_once(']')?;
        match after {
            "" => (name, None),
            p => (name, Some(p.strip_prefix(':')?.parse().ok()?)),
        }
    } else if a.matches(':').count() > 1 {
        // A bare IPv6 address (configuration only: `::1`).
        (a, None)
    } else {
        match a.split_once(':') {
            Some((n, p)) => (n, Some(p.parse().ok()?)),
            None => (a, None),
        }
    };
    (!name.is_empty()).then(|| (name.to_ascii_lowercase(), port))
}

fn invalid_host(what: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_host",
        format!("the request's Host header {what}: send exactly one Host naming this server"),
    )
}

/// At most 80 characters of a client-sent value, for messages.
fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .is_some_and(|essence| {
            essence == "application/json"
                || essence
                    .strip_prefix("application/")
                    .is_some_and(|sub| sub.ends_with("+json"))
        })
}

/// No content type and no body: nothing a page could deliver, so routing
/// answers (405 for a method a path does not serve; the route's own JSON
/// reading refuses the empty body).
fn is_bare(headers: &HeaderMap) -> bool {
    let no_length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.trim() == "0");
    headers.get(header::CONTENT_TYPE).is_none()
        && headers.get(header::TRANSFER_ENCODING).is_none()
        && no_length
}

fn check_sizes(req: &Request) -> Result<(), ApiError> {
    let target = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > MAX_URI_BYTES {
        return Err(ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!(
                "the request target is {target} bytes; at most {MAX_URI_BYTES} are served: \
                 send long input in a JSON body"
            ),
        ));
    }
    let headers = req.headers();
    let bytes: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        return Err(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            format!(
                "{} header fields, {bytes} bytes: at most {MAX_HEADERS} fields and \
                 {MAX_HEADER_BYTES} bytes are served",
                headers.len()
            ),
        ));
    }
    Ok(())
}

/// The checks of this module, in order; `Ok` lets the request through.
pub fn check(policy: &Policy, req: &Request) -> Result<(), ApiError> {
    refuse_query_credentials(req)?;
    check_sizes(req)?;
    let authority = policy.check_host(req.headers(), req.uri())?;
    policy.check_origin(req.headers(), &authority)?;
    let writes = matches!(*req.method(), Method::POST | Method::PATCH);
    if writes && !is_json(req.headers()) && !is_bare(req.headers()) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON with `Content-Type: application/json` (other content \
             types are refused on every route: a web page could send them cross-site)",
        ));
    }
    Ok(())
}

/// Middleware over every route: [`check`], then the request.
pub async fn enforce(State(policy): State<Arc<Policy>>, req: Request, next: Next) -> Response {
    match check(&policy, &req) {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Arc<Policy> {
        let hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|s| s.to_string()).collect();
        Policy::new(&hosts, &["https://app.example".to_string()])
    }

    fn req(method: Method, uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut b = axum::http::Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(axum::body::Body::empty())
            .unwrap_or_else(|_| Request::new(axum::body::Body::empty()))
    }

    fn code(r: Result<(), ApiError>) -> String {
        r.err().map(|e| e.body.code).unwrap_or_else(|| "ok".into())
    }

    #[test]
    fn hosts() {
        let p = policy();
        let get = |h: &str| code(check(&p, &req(Method::GET, "/v1/stats", &[("host", h)])));
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:80",
            "LOCALHOST",
        ] {
            assert_eq!(get(ok), "ok", "{ok}");
        }
        for bad in [
            "attacker.example",
            "127.0.0.1.nip.io:80",
            "localhost.evil:80",
            "10.0.0.1",
        ] {
            assert_eq!(get(bad), "host_not_allowed", "{bad}");
        }
        for malformed in ["", ":80", "localhost:x", "[::1", "a@localhost"] {
            assert_eq!(get(malformed), "invalid_host", "{malformed:?}");
        }
        let p = Policy::new(&["verity.internal:8443".into()], &[]);
        let get = |h: &str| code(check(&p, &req(Method::GET, "/", &[("host", h)])));
        assert_eq!(get("verity.internal:8443"), "ok");
        assert_eq!(get("verity.internal:8080"), "host_not_allowed");
        assert_eq!(get("localhost"), "host_not_allowed");
        let p = Policy::new(&["*".into()], &[]);
        assert_eq!(
            code(check(&p, &req(Method::GET, "/", &[("host", "x.example")]))),
            "ok"
        );
    }

    #[test]
    fn origins() {
        let p = policy();
        let post = |o: &str| {
            code(check(
                &p,
                &req(
                    Method::POST,
                    "/v1/retrieve",
                    &[
                        ("host", "localhost:8080"),
                        ("origin", o),
                        ("content-type", "application/json"),
                    ],
                ),
            ))
        };
        for ok in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:8080",
            "https://app.example",
            "https://APP.example/",
        ] {
            assert_eq!(post(ok), "ok", "{ok}");
        }
        for bad in [
            "http://attacker.example",
            "null",
            "file://",
            "http://localhost.attacker.example",
            "http://localhost@attacker.example",
            "ftp://localhost",
        ] {
            assert_eq!(post(bad), "origin_not_allowed", "{bad}");
        }
    }

    #[test]
    fn writes_need_json() {
        let p = policy();
        let post = |ct: Option<&str>| {
            let mut h = vec![("host", "localhost")];
            if let Some(ct) = ct {
                h.push(("content-type", ct));
            }
            code(check(&p, &req(Method::POST, "/v1/events", &h)))
        };
        assert_eq!(post(Some("application/json")), "ok");
        assert_eq!(post(Some("application/json; charset=utf-8")), "ok");
        assert_eq!(post(Some("application/merge-patch+json")), "ok");
        for bad in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/jsonx"),
        ] {
            assert_eq!(post(bad), "unsupported_media_type", "{bad:?}");
        }
        // No content type and no body: nothing delivered, routing answers.
        assert_eq!(post(None), "ok");
        // No content type with a body: refused.
        for body in [("content-length", "5"), ("transfer-encoding", "chunked")] {
            let h = vec![("host", "localhost"), body];
            assert_eq!(
                code(check(&p, &req(Method::POST, "/v1/events", &h))),
                "unsupported_media_type",
                "{body:?}"
            );
        }
        let get = code(check(
            &p,
            &req(Method::GET, "/v1/stats", &[("host", "localhost")]),
        ));
        assert_eq!(get, "ok");
    }
}
