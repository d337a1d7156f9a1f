//! Bad input never leaves an MCP client without an answer: malformed JSON
//! over HTTP and stdio gets its JSON-RPC error, a tool that panics answers
//! `isError`, non-ASCII text is checked; sessions belong to the credential
//! that opened them and are bounded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::args;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use verity::tools::{Tool, ToolRegistry};
use verity_mcp::{router, HttpOptions, SessionLimits};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

async fn serve(
    verity: Arc<verity::Verity>,
    registry: Arc<ToolRegistry>,
    options: HttpOptions,
) -> SocketAddr {
    let app = axum::Router::new().nest("/mcp", router(verity, registry, options));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

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
async fn malformed_json_over_http_gets_json_rpc_errors() {
    let fx = common::fixture().await;
    let addr = serve(
        fx.verity.clone(),
        fx.registry.clone(),
        HttpOptions::default(),
    )
    .await;
    for (body, code) in [
        ("{", -32700),
        ("not json", -32700),
        (r#"{"jsonrpc":"2.0","id":1,"meth"#, -32700),
        ("[]", -32600),
        ("null", -32600),
        (r#"{"hello":"world"}"#, -32600),
    ] {
        let r = post(addr, &[], body).await;
        assert_eq!(r.status(), 400, "{body}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["jsonrpc"], "2.0", "{body}: {v}");
        assert_eq!(v["error"]["code"], code, "{body}: {v}");
        assert!(v["id"].is_null(), "{v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_answers_only_the_credential_that_opened_it() {
    let fx = common::fixture().await;
    let addr = serve(
        fx.verity.clone(),
        fx.registry.clone(),
        HttpOptions::default(),
    )
    .await;
    let a = [("authorization", "Bearer token-a-0123456789")];
    let r = post(addr, &a, INIT).await;
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let with = |auth: &'static str| {
        let sid = sid.clone();
        async move {
            let mut h = vec![
                ("mcp-session-id", sid.as_str()),
                ("mcp-protocol-version", "2025-06-18"),
            ];
            if !auth.is_empty() {
                h.push(("authorization", auth));
            }
            let _ = post(addr, &h, INITIALIZED).await;
            post(addr, &h, list).await.status().as_u16()
        }
    };
    assert_eq!(with("Bearer token-a-0123456789").await, 200);
    assert_eq!(with("Bearer token-b-0123456789").await, 404);
    assert_eq!(with("").await, 404);
    // The owner keeps its session.
    assert_eq!(with("Bearer token-a-0123456789").await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_bounded_per_credential_and_in_all() {
    let fx = common::fixture().await;
    let options = HttpOptions {
        sessions: SessionLimits {
            max_total: 4,
            max_per_client: 2,
            idle: Duration::from_secs(300),
        },
        ..HttpOptions::default()
    };
    let addr = serve(fx.verity.clone(), fx.registry.clone(), options).await;
    let open = |who: &'static str| async move {
        let r = post(addr, &[("authorization", who)], INIT).await;
        let st = r.status().as_u16();
        (
            st,
            r.headers()
                .get("mcp-session-id")
                .map(|v| v.to_str().unwrap().to_string()),
        )
    };
    let ping = |who: &'static str, sid: String| async move {
        let h = [
            ("authorization", who),
            ("mcp-session-id", sid.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ];
        post(addr, &h, r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
            .await
            .status()
            .as_u16()
    };
    let (_, a1) = open("Bearer a").await;
    let (_, a2) = open("Bearer a").await;
    let (_, a3) = open("Bearer a").await;
    // A's third session closed its least recently used one.
    assert_eq!(ping("Bearer a", a1.unwrap()).await, 404);
    assert_eq!(ping("Bearer a", a2.unwrap()).await, 200);
    assert_eq!(ping("Bearer a", a3.unwrap()).await, 200);
    let (st, _) = open("Bearer b").await;
    assert_eq!(st, 200);
    let (st, _) = open("Bearer c").await;
    assert_eq!(st, 200);
    // Full of sessions in use: refused with Retry-After, not a 5xx.
    let r = post(addr, &[("authorization", "Bearer d")], INIT).await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("sessions"),
        "{v}"
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Head {
    head: String,
}

fn panicking_registry() -> Arc<ToolRegistry> {
    let tool = Tool::new(
        "first_byte",
        "First byte",
        "Slices the first byte (a bug on multi-byte text).",
        |r: &Head| r.head.clone(),
        |_v, req: Text| {
            Box::pin(async move {
                Ok(Head {
                    head: req.text[..1].to_string(),
                })
            })
        },
    );
    Arc::new(ToolRegistry::new().with(tool).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_tool_answers_is_error_over_http() {
    let fx = common::fixture().await;
    let addr = serve(
        fx.verity.clone(),
        panicking_registry(),
        HttpOptions::default(),
    )
    .await;
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = ().serve(transport).await.unwrap();
    let call = |text: &str| {
        CallToolRequestParams::new("first_byte").with_arguments(args(json!({ "text": text })))
    };
    let r = client.call_tool(call("\u{a0}x")).await.unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!(s["error"]["code"], "internal_fault", "{s}");
    // The session goes on.
    let r = client.call_tool(call("ok")).await.unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    client.cancel().await.unwrap();
}

/// Drive `serve_streams` like a stdio client: raw lines in, lines out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_answers_every_bad_line_and_goes_on() {
    let fx = common::fixture().await;
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let server = tokio::spawn(verity_mcp::serve_streams(
        fx.verity.clone(),
        panicking_registry(),
        server_read,
        server_write,
    ));
    let (client_read, mut client_write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(client_read).lines();
    let send = |mut line: Vec<u8>| {
        line.push(b'\n');
        line
    };
    let mut input: Vec<u8> = Vec::new();
    for line in [
        b"this is not json".to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"meth"#.to_vec(),
        b"\xff\xfe\x00 not utf-8".to_vec(),
        br#"{"id":"x","hello":1}"#.to_vec(),
        INIT.as_bytes().to_vec(),
        INITIALIZED.as_bytes().to_vec(),
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"first_byte","arguments":{"text":"\u00a0x"}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#.to_vec(),
    ] {
        input.extend(send(line));
    }
    client_write.write_all(&input).await.unwrap();
    let mut answers: Vec<Value> = Vec::new();
    while answers.len() < 7 {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer within 30 s")
            .unwrap()
            .expect("a line");
        answers.push(serde_json::from_str(&line).unwrap());
    }
    // Error answers and the SDK's answers may interleave: look them up.
    let parse_errors = answers
        .iter()
        .filter(|a| a["id"].is_null() && a["error"]["code"] == -32700)
        .count();
    assert_eq!(parse_errors, 3, "{answers:?}");
    let invalid = answers.iter().find(|a| a["id"] == "x").unwrap();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    let init = answers.iter().find(|a| a["id"] == 1).unwrap();
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    let call = answers.iter().find(|a| a["id"] == 2).unwrap();
    assert_eq!(call["result"]["isError"], true, "{call}");
    assert_eq!(
        call["result"]["structuredContent"]["error"]["code"],
        "internal_fault"
    );
    let list = answers.iter().find(|a| a["id"] == 3).unwrap();
    assert!(list["result"]["tools"].is_array(), "{list}");
    // A truncated last line, then end of input: answered, then the server ends.
    client_write
        .write_all(br#"{"jsonrpc":"2.0","id":4,"method":"#)
        .await
        .unwrap();
    client_write.shutdown().await.unwrap();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["error"]["code"], -32700, "{v}");
    let ended = tokio::time::timeout(Duration::from_secs(30), server).await;
    assert!(ended.is_ok(), "the server ends at end of input");
}
