//! `verity serve` answers MCP over streamable HTTP at `/mcp`, behind the
//! same bearer authentication as the REST routes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use reqwest::Method;
use serde_json::{json, Value};

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "verity-server-test", "version": "0"}
        }
    })
}

#[tokio::test]
async fn mcp_is_mounted_behind_the_server_auth() {
    let s = common::start(|_| {}).await;

    // Without a token: refused by the server's auth layer, like /v1.
    let r = s
        .bare(Method::POST, "/mcp")
        .header("accept", "application/json, text/event-stream")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    // With the token: the MCP server answers `initialize` with its tools capability.
    let r = s
        .bare(Method::POST, "/mcp")
        .bearer_auth(common::TOKEN)
        .header("accept", "application/json, text/event-stream")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "initialize over /mcp");
    let body = r.text().await.unwrap();
    assert!(
        body.contains("\"tools\"") && body.contains("serverInfo"),
        "initialize result names the tools capability: {body}"
    );
}

#[tokio::test]
async fn an_mcp_session_belongs_to_the_token_that_opened_it() {
    const OTHER: &str = "second-token-0123456789abcdef";
    let s = common::start(|c| c.tokens.push(OTHER.into())).await;
    let r = s
        .bare(Method::POST, "/mcp")
        .bearer_auth(common::TOKEN)
        .header("accept", "application/json, text/event-stream")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let call = |token: &'static str| {
        s.bare(Method::POST, "/mcp")
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", "2025-06-18")
            .json(&list)
            .send()
    };
    assert_eq!(call(common::TOKEN).await.unwrap().status().as_u16(), 200);
    // Another valid token: the session is not its own.
    let r = call(OTHER).await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Session not found"),
        "{body}"
    );
    assert_eq!(call(common::TOKEN).await.unwrap().status().as_u16(), 200);
    s.shutdown().await;
}
