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
    // Exactly the library's registry, in its order: the CLI adds and drops nothing.
    let listed: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let registry = verity::tools::ToolRegistry::builtin(&verity::tools::ToolOptions::default());
    let expected: Vec<String> = registry
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(listed, expected);
    for name in [
        "search",
        "ask",
        "ingest",
        "fetch_url",
        "get_document",
        "stats",
    ] {
        assert!(
            listed.iter().any(|n| n == name),
            "{name} missing: {listed:?}"
        );
    }

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

/// Raw lines to `verity mcp`: every bad line is answered (-32700 / -32600),
/// a citation check on non-ASCII text answers, the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verity_mcp_answers_bad_lines_and_unicode() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let home = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_verity"))
        .env("VERITY_HOME", home.path())
        .env("VERITY_EMBEDDER", "none")
        .env_remove("VERITY_GENERATOR")
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let check = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "verify_citations",
        "arguments": {"content": "A\u{a0}x. B [1]\n\n## References\n1. https://example.org/a\n"}}});
    let mut input = Vec::new();
    for line in [
        b"garbage".to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"meth"#.to_vec(),
        b"\xc3\x28 invalid utf-8".to_vec(),
        init.as_bytes().to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
        check.to_string().into_bytes(),
    ] {
        input.extend(line);
        input.push(b'\n');
    }
    stdin.write_all(&input).await.unwrap();
    stdin.flush().await.unwrap();
    let mut answers: Vec<Value> = Vec::new();
    while answers.len() < 5 {
        let line = tokio::time::timeout(std::time::Duration::from_secs(120), lines.next_line())
            .await
            .expect("verity mcp answers")
            .unwrap()
            .expect("a line");
        answers.push(serde_json::from_str(&line).unwrap());
    }
    let parse_errors = answers
        .iter()
        .filter(|a| a["error"]["code"] == -32700)
        .count();
    assert_eq!(parse_errors, 3, "{answers:?}");
    let checked = answers.iter().find(|a| a["id"] == 2).unwrap();
    assert!(checked["result"].is_object(), "{checked}");
    assert_ne!(checked["result"]["isError"], true, "{checked}");
    drop(stdin);
    let status = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait())
        .await
        .expect("exits at end of input")
        .unwrap();
    assert!(status.success(), "{status:?}");
}
