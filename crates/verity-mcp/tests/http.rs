//! The streamable-HTTP endpoint against the official rmcp client and raw
//! HTTP requests, on a free loopback port.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::net::SocketAddr;

use rmcp::model::{CallToolRequestParams, ClientRequest, PingRequest};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use verity_mcp::{router, HttpOptions};

async fn serve(fx: &common::Fixture, options: HttpOptions) -> SocketAddr {
    let app = axum::Router::new().nest(
        "/mcp",
        router(fx.verity.clone(), fx.registry.clone(), options),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().cloned().unwrap()
}

async fn client(addr: SocketAddr) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    ().serve(transport).await.expect("initialize")
}

async fn exercise(addr: SocketAddr) {
    let client = client(addr).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("verity")
    );
    assert!(info.capabilities.tools.is_some());

    client
        .send_request(ClientRequest::PingRequest(PingRequest::default()))
        .await
        .expect("ping");

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for n in [
        "search",
        "ask",
        "ingest",
        "fetch_url",
        "get_document",
        "stats",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    for t in &tools {
        assert_eq!(
            t.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            t.name
        );
        let out = t.output_schema.as_ref().expect("output schema");
        assert_eq!(out.get("type"), Some(&json!("object")), "{}", t.name);
    }

    let r = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(args(json!({"query": "who sets routing fees"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let s = r.structured_content.expect("structured content");
    assert_eq!(s["hits"][0]["doc"]["uid"], "fees-1", "{s}");
    let text = r.content[0].as_text().expect("text part").text.clone();
    assert!(text.contains("Routing fees"), "{text}");

    // A tool that runs and fails: isError with the error kind's code.
    let r = client
        .call_tool(
            CallToolRequestParams::new("ingest")
                .with_arguments(args(json!({"paths": ["../../etc/passwd"]}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let s = r.structured_content.expect("error payload");
    assert_eq!(s["error"]["code"], "invalid_input", "{s}");
    assert_eq!(
        s["error"]["jsonrpc_code"],
        verity::api::ErrorMapping::for_code("invalid_input").jsonrpc_code
    );

    // Unknown tool and invalid arguments: protocol errors (-32602), the
    // error table's rows for their codes.
    for (name, a, code) in [
        ("nope", json!({}), "unknown_tool"),
        ("search", json!({"query": 42}), "invalid_arguments"),
        (
            "search",
            json!({"query": "x", "bogus": true}),
            "invalid_arguments",
        ),
    ] {
        let e = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(args(a)))
            .await
            .unwrap_err();
        match e {
            ServiceError::McpError(e) => {
                assert_eq!(e.code.0, -32602, "{e:?}");
                assert_eq!(
                    e.code.0,
                    verity::api::ErrorMapping::for_code(code).jsonrpc_code
                );
                assert_eq!(e.data, Some(json!({"code": code})), "{e:?}");
            }
            other => panic!("expected an MCP error, got {other:?}"),
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_http_with_sessions() {
    let fx = common::fixture().await;
    let addr = serve(&fx, HttpOptions::default()).await;
    exercise(addr).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_http_stateless() {
    let fx = common::fixture().await;
    let addr = serve(&fx, HttpOptions::stateless()).await;
    exercise(addr).await;
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.body(body.to_string()).send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_host_and_origin_are_refused_loopback_ones_accepted() {
    let fx = common::fixture().await;
    let addr = serve(&fx, HttpOptions::default()).await;
    let port = addr.port();
    let ok = post(addr, &[], INIT).await;
    assert_eq!(ok.status(), 200);
    let evil_host = post(addr, &[("host", "evil.example")], INIT).await;
    assert_eq!(evil_host.status(), 403);
    let rebinding = post(addr, &[("host", &format!("attacker.test:{port}"))], INIT).await;
    assert_eq!(rebinding.status(), 403);
    let evil_origin = post(addr, &[("origin", "http://evil.example")], INIT).await;
    assert_eq!(evil_origin.status(), 403);
    let local_origin = post(
        addr,
        &[("origin", &format!("http://localhost:{port}"))],
        INIT,
    )
    .await;
    assert_eq!(local_origin.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_hosts_replace_the_loopback_default() {
    let fx = common::fixture().await;
    let options = HttpOptions {
        allowed_hosts: vec!["verity.internal".into()],
        ..HttpOptions::default()
    };
    let addr = serve(&fx, options).await;
    assert_eq!(
        post(addr, &[("host", "verity.internal")], INIT)
            .await
            .status(),
        200
    );
    assert_eq!(post(addr, &[], INIT).await.status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_mode_answers_without_a_session() {
    let fx = common::fixture().await;
    let addr = serve(&fx, HttpOptions::stateless()).await;
    let init = post(addr, &[], INIT).await;
    assert_eq!(init.status(), 200);
    assert!(init.headers().get("mcp-session-id").is_none());
    // A tools/call with no session and no prior initialize on this connection.
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stats","arguments":{}}}"#;
    let r = post(addr, &[("mcp-protocol-version", "2025-06-18")], call).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["store"]["documents"], 2,
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_4xx_not_5xx() {
    let fx = common::fixture().await;
    let addr = serve(&fx, HttpOptions::default()).await;
    for body in [
        "{",
        "[]",
        "null",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    ] {
        let r = post(addr, &[], body).await;
        assert!(r.status().is_client_error(), "{body}: {}", r.status());
    }
    let big = format!(r#"{{"x":"{}"}}"#, "a".repeat(5 * 1024 * 1024));
    assert_eq!(post(addr, &[], &big).await.status(), 413);
}
