//! The event-memory tools (`remember`, `recall`, `forget`) through the
//! official rmcp client over streamable HTTP on a loopback port.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::args;

use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::{json, Value};

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

/// The error text of a call that must fail: a protocol error's message
/// (arguments outside the input schema) or an `isError` result's message.
async fn error_text(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &'static str,
    a: Value,
) -> String {
    match client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args(a.clone())))
        .await
    {
        Ok(r) => {
            assert_eq!(r.is_error, Some(true), "{tool} {a} succeeded: {r:?}");
            let e = r.structured_content.expect("error payload");
            assert_eq!(e["error"]["code"], "invalid_input", "{e}");
            e["error"]["message"].as_str().unwrap_or("").to_string()
        }
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602, "{e:?}");
            e.message.to_string()
        }
        Err(other) => panic!("{tool} {a}: unexpected {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_memory_arguments_name_their_field_and_write_nothing() {
    let fx = common::fixture().await;
    let (client, _) = common::http_client(&fx).await;
    let huge = "x".repeat(300 * 1024);
    for (tool, a, field) in [
        ("recall", json!({"limit": 0}), "limit"),
        ("recall", json!({"limit": 101}), "limit"),
        (
            "recall",
            json!({"ts_start": "2025-01-01T10:00:00"}),
            "ts_start",
        ),
        ("recall", json!({"ts_end": "yesterday"}), "ts_end"),
        (
            "recall",
            json!({"distance_threshold": 2.5}),
            "distance_threshold",
        ),
        (
            "recall",
            json!({"filter_metadata": "{\"a\": 1}"}),
            "filter_metadata",
        ),
        ("forget", json!({"id": "not-a-uuid"}), "id"),
        (
            "forget",
            json!({"id": "6f1c2d3e-0000-4000-8000-000000000001", "filter_metadata": {"a": 1}}),
            "id",
        ),
        ("remember", json!({"text": ""}), "text"),
        (
            "remember",
            json!({"text": "ok", "ttl_seconds": 0}),
            "ttl_seconds",
        ),
        (
            "remember",
            json!({"text": "ok", "metadata": [1, 2]}),
            "metadata",
        ),
        ("remember", json!({"text": huge}), "content"),
    ] {
        let msg = error_text(&client, tool, a.clone()).await;
        assert!(
            msg.contains(field),
            "{tool} {a}: `{field}` not named in {msg:?}"
        );
    }
    // Nothing was written by the refused calls.
    let r = client
        .call_tool(CallToolRequestParams::new("recall").with_arguments(args(json!({"limit": 100}))))
        .await
        .unwrap();
    let found = r.structured_content.expect("structured content");
    assert_eq!(found["data"].as_array().unwrap().len(), 0, "{found}");
    client.cancel().await.unwrap();
}
