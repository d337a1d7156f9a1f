//! The event-memory tools (`remember`, `recall`, `forget`) through the
//! official rmcp client over streamable HTTP on a loopback port.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::args;

use rmcp::model::CallToolRequestParams;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remember_then_recall_then_forget() {
    let fx = common::fixture().await;
    let (client, _) = common::http_client(&fx).await;

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for n in ["remember", "recall", "forget"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }

    let r = client
        .call_tool(
            CallToolRequestParams::new("remember").with_arguments(args(json!({
                "text": "We chose SQLite over Postgres for the demo because it needs no server",
                "metadata": {"event_type": "decision", "session_id": "s1"},
                "ttl_seconds": 3600
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let added = r.structured_content.expect("structured content");
    let id = added["event"]["id"].as_str().unwrap().to_string();
    assert!(added["event"]["expires_at"].is_string(), "{added}");

    // Another session's event must not come back under the session filter.
    client
        .call_tool(
            CallToolRequestParams::new("remember").with_arguments(args(json!({
                "text": "SQLite is also used by the other session",
                "metadata": {"event_type": "decision", "session_id": "s2"}
            }))),
        )
        .await
        .unwrap();

    let r = client
        .call_tool(
            CallToolRequestParams::new("recall").with_arguments(args(json!({
                "query": "why SQLite",
                "filter_metadata": {"session_id": "s1"}
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let found = r.structured_content.expect("structured content");
    let data = found["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "{found}");
    assert_eq!(data[0]["id"], id.as_str());
    let text = r.content[0].as_text().expect("text part").text.clone();
    assert!(text.contains("no server"), "{text}");

    // A failed call: isError with the input code; nothing deleted.
    let r = client
        .call_tool(CallToolRequestParams::new("forget").with_arguments(args(json!({}))))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let e = r.structured_content.expect("error payload");
    assert_eq!(e["error"]["code"], "invalid_input", "{e}");

    let r = client
        .call_tool(CallToolRequestParams::new("forget").with_arguments(args(json!({"id": id}))))
        .await
        .unwrap();
    assert_eq!(r.structured_content.expect("structured")["deleted"], 1);
    let r = client
        .call_tool(
            CallToolRequestParams::new("recall")
                .with_arguments(args(json!({"filter_metadata": {"session_id": "s1"}}))),
        )
        .await
        .unwrap();
    let found = r.structured_content.expect("structured content");
    assert_eq!(found["data"].as_array().unwrap().len(), 0, "{found}");
    client.cancel().await.unwrap();
}
