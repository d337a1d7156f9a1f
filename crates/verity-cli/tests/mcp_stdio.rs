//! `verity mcp` as a child process, driven by the official rmcp client over stdio.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rmcp::model::{CallToolRequestParams, ClientRequest, PingRequest};
use rmcp::service::ServiceError;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};

fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().cloned().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_drives_verity_mcp_over_stdio() {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("fees.md"),
        "# Routing fees\n\nRouting fees are set by each node operator, base plus proportional.\n",
    )
    .unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "# Secret\n\nnever ingest me\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        root.path().join("escape.md"),
    )
    .unwrap();

    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_verity")).configure(|c| {
        c.env("VERITY_HOME", home.path())
            .env("VERITY_EMBEDDER", "none")
            .env_remove("VERITY_GENERATOR")
            .arg("mcp")
            .arg("--root")
            .arg(root.path());
    });
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    client
        .send_request(ClientRequest::PingRequest(PingRequest::default()))
        .await
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), verity::tools::BUILTIN.len(), "{tools:?}");

    // Files under the root are read; `..`, outside absolute paths and escaping symlinks are not.
    let ingest = |paths: Value| {
        CallToolRequestParams::new("ingest").with_arguments(args(json!({ "paths": paths })))
    };
    let r = client.call_tool(ingest(json!(["."]))).await.unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!(s["inserted"], 1, "{s}");
    #[cfg(unix)]
    assert!(
        s["read_errors"].to_string().contains("outside"),
        "the escaping symlink is reported: {s}"
    );
    let secret = outside.path().join("secret.md");
    for bad in [
        json!(["../x.md"]),
        json!([secret.to_str().unwrap()]),
        json!(["escape.md"]),
    ] {
        let r = client.call_tool(ingest(bad.clone())).await.unwrap();
        assert_eq!(r.is_error, Some(true), "{bad}: {r:?}");
        assert_eq!(
            r.structured_content.unwrap()["error"]["code"],
            "invalid_input"
        );
    }

    // Inline text, then search finds both; nothing from outside the root.
    let r = client
        .call_tool(CallToolRequestParams::new("ingest").with_arguments(args(json!({
            "documents": [{"uid": "tide", "source": "almanac", "content": "Tides follow the moon."}]
        }))))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let r = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(args(json!({"query": "routing fees operator"}))),
        )
        .await
        .unwrap();
    let hits = r.structured_content.unwrap()["hits"].clone();
    assert!(
        hits[0]["chunk"]["text"]
            .as_str()
            .unwrap()
            .contains("node operator"),
        "{hits}"
    );
    let r = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(args(json!({"query": "never ingest me"}))),
        )
        .await
        .unwrap();
    assert!(!r
        .structured_content
        .unwrap()
        .to_string()
        .contains("never ingest"));

    let r = client
        .call_tool(CallToolRequestParams::new("stats"))
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["store"]["documents"], 2);

    let e = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .unwrap_err();
    assert!(
        matches!(e, ServiceError::McpError(ref d) if d.code.0 == -32602),
        "{e:?}"
    );
    client.cancel().await.unwrap();
}
