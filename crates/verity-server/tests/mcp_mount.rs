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
