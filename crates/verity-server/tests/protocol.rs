//! Requests no HTTP client library would send, written on a raw loopback
//! socket: empty, duplicate and absolute-form hosts, credentials in the query
//! string of public routes, over-long URIs and header sections.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use reqwest::Method;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Send `head` (request line and headers, no final blank line) with `body`;
/// the status and the body of the answer.
pub async fn raw(addr: &str, head: &str, body: &str) -> (u16, String) {
    let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        sock.read_to_end(&mut out),
    )
    .await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// The JSON error of a raw answer (chunked bodies de-chunked crudely).
fn json_of(body: &str) -> Value {
    let start = body.find('{').unwrap_or(0);
    let end = body.rfind('}').map_or(body.len(), |e| e + 1);
    serde_json::from_str(&body[start..end]).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"))
}

fn addr(s: &TestServer) -> String {
    s.url.trim_start_matches("http://").to_string()
}

#[tokio::test]
async fn empty_duplicate_and_absolute_form_hosts() {
    let s = start(|c| c.tokens.clear()).await;
    let a = addr(&s);
    let json_rpc = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for path in ["/mcp", "/v1/stats", "/api/tools/stats", "/v1/health"] {
        let method = if path == "/mcp" || path.starts_with("/api") {
            "POST"
        } else {
            "GET"
        };
        let common = "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nX-API-Version: 2025-10-15";
        let cases = [
            (
                "empty Host",
                format!("{method} {path} HTTP/1.1\r\nHost: \r\n{common}"),
            ),
            (
                "duplicate Host",
                format!(
                    "{method} {path} HTTP/1.1\r\nHost: {a}\r\nHost: attacker.example\r\n{common}"
                ),
            ),
            (
                "duplicate loopback Host",
                format!("{method} {path} HTTP/1.1\r\nHost: {a}\r\nHost: {a}\r\n{common}"),
            ),
            (
                "absolute-form foreign authority",
                format!("{method} http://attacker.example{path} HTTP/1.1\r\nHost: {a}\r\n{common}"),
            ),
            (
                "absolute-form with a loopback Host disagreeing",
                format!("{method} http://localhost:1{path} HTTP/1.1\r\nHost: {a}\r\n{common}"),
            ),
        ];
        for (what, head) in cases {
            let (st, body) = raw(&a, &head, json_rpc).await;
            assert!(st == 400 || st == 403, "{what} on {path}: {st} {body}");
            let e = json_of(&body);
            assert!(
                e["code"] == "invalid_host" || e["code"] == "host_not_allowed",
                "{what} on {path}: {e}"
            );
        }
        // A well-formed absolute-form request to this very server is served.
        let head = format!("{method} http://{a}{path} HTTP/1.1\r\nHost: {a}\r\n{common}");
        let (st, body) = raw(&a, &head, json_rpc).await;
        let code = json_of(&body)["code"].clone();
        assert!(
            st != 403 && code != "invalid_host" && code != "host_not_allowed",
            "absolute-form to self on {path}: {st} {body}"
        );
    }
    s.shutdown().await;
}

#[tokio::test]
async fn query_credentials_refused_on_public_routes_too() {
    let s = start(|c| c.tokens.clear()).await;
    for path in [
        "/v1/health",
        "/api/health",
        "/v1/openapi.json",
        "/v1/docs",
        "/",
        "/v1/stats",
        "/nowhere",
    ] {
        for q in ["token=x", "access_token=x", "api_key=x"] {
            let r = s
                .bare(Method::GET, &format!("{path}?{q}"))
                .send()
                .await
                .unwrap();
            let (st, e) = status_json(r).await;
            assert_error(st, &e, 400, "invalid_input");
            assert!(
                e["message"].as_str().unwrap().contains("Authorization"),
                "{e}"
            );
        }
    }
    s.shutdown().await;
}

#[tokio::test]
async fn long_uri_and_large_headers_answer_json() {
    let s = start(|_| {}).await;
    let a = addr(&s);
    // A URI longer than the server's limit (but within what the HTTP parser reads).
    let long = format!(
        "GET /v1/search/?vector_query={} HTTP/1.1\r\nHost: {a}",
        "a".repeat(40_000)
    );
    let (st, body) = raw(&a, &long, "").await;
    assert_eq!(st, 414, "{body}");
    assert_eq!(json_of(&body)["code"], "uri_too_long");

    // Header sections too large: many headers, or one huge one.
    let many: String = (0..80).map(|i| format!("\r\nX-Filler-{i}: v")).collect();
    let (st, body) = raw(
        &a,
        &format!("GET /v1/health HTTP/1.1\r\nHost: {a}{many}"),
        "",
    )
    .await;
    assert_eq!(st, 431, "{body}");
    assert_eq!(json_of(&body)["code"], "headers_too_large");
    let huge = format!(
        "GET /v1/health HTTP/1.1\r\nHost: {a}\r\nX-Filler: {}",
        "v".repeat(40_000)
    );
    let (st, body) = raw(&a, &huge, "").await;
    assert_eq!(st, 431, "{body}");
    assert_eq!(json_of(&body)["code"], "headers_too_large");
    s.shutdown().await;
}
