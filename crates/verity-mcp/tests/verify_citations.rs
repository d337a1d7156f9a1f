//! The `verify_citations` tool over MCP (streamable HTTP, official rmcp client):
//! a report with per-claim verdicts; the SSRF guard stays on for tool callers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::args;

use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_citations_reports_and_keeps_the_guard_on() {
    let fx = common::fixture().await;
    let (client, addr) = common::http_client(&fx).await;

    let tools = client.list_all_tools().await.unwrap();
    let tool = tools
        .iter()
        .find(|t| t.name == "verify_citations")
        .expect("verify_citations is listed");
    assert!(tool.input_schema["properties"]["content"].is_object());
    assert!(tool.input_schema["properties"]
        .get("allow_private")
        .is_none());

    // A claim citing a loopback source: the guard refuses it, the claim says why.
    let doc = format!(
        "In 2023, 78 % of companies had adopted AI [1].\n\nNo citation here.\n\n\
         ## References\n1. Survey. http://{addr}/survey\n"
    );
    let r = client
        .call_tool(
            CallToolRequestParams::new("verify_citations")
                .with_arguments(args(json!({"content": doc, "judge": "local"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.expect("structured report");
    assert_eq!(s["summary"]["total"], 1, "{s}");
    assert_eq!(s["results"][0]["verdict"], "SOURCE_UNAVAILABLE", "{s}");
    assert!(
        s["results"][0]["explanation"]
            .as_str()
            .unwrap()
            .contains("guard"),
        "{s}"
    );
    let text = r.content[0].as_text().expect("text part").text.clone();
    assert!(text.contains("SOURCE_UNAVAILABLE"), "{text}");

    // A private document URL: a failed call with the input code.
    let r = client
        .call_tool(
            CallToolRequestParams::new("verify_citations")
                .with_arguments(args(json!({"url": format!("http://{addr}/doc")}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let s = r.structured_content.expect("error payload");
    assert_eq!(s["error"]["code"], "invalid_input", "{s}");

    // Operator-only options are not arguments: protocol error.
    let e = client
        .call_tool(
            CallToolRequestParams::new("verify_citations")
                .with_arguments(args(json!({"content": "x", "allow_private": true}))),
        )
        .await
        .unwrap_err();
    match e {
        ServiceError::McpError(e) => assert_eq!(e.code.0, -32602, "{e:?}"),
        other => panic!("expected an MCP error, got {other:?}"),
    }
    client.cancel().await.unwrap();
}
