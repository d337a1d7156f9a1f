//! `--allow-private` (formerly `--allow-private-fetch`, still accepted) on `verity mcp` and `verity serve`: with it the
//! `add_reference` tool downloads a page from a loopback address; without
//! it the fetcher's SSRF guard refuses the URL with a typed error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::research::serve;

fn refused_by_the_guard(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("guard") || m.contains("private") || m.contains("loopback")
}

/// `add_reference {url}` through `verity mcp [--allow-private-fetch]`: the
/// structured result and whether it is an error.
async fn add_reference_over_mcp(home: &Path, url: &str, allow: bool) -> (bool, Value) {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_verity")).configure(|c| {
        c.env("VERITY_HOME", home)
            .env("VERITY_EMBEDDER", "none")
            .env_remove("VERITY_GENERATOR")
            .env_remove("VERITY_KNOWLEDGE_DIR")
            .env_remove("VERITY_ALLOW_PRIVATE_FETCH")
            .arg("--quiet")
            .arg("mcp");
        if allow {
            c.arg("--allow-private");
        }
    });
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let r = client
        .call_tool(
            CallToolRequestParams::new("add_reference")
                .with_arguments(json!({ "url": url }).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    client.cancel().await.unwrap();
    (r.is_error == Some(true), r.structured_content.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_fetches_loopback_references_only_with_the_flag() {
    let base = serve();
    let url = format!("{base}/agents.html");
    let home = tempfile::tempdir().unwrap();

    let (failed, body) = add_reference_over_mcp(home.path(), &url, false).await;
    assert!(failed, "{body}");
    let msg = body["error"]["message"].as_str().unwrap();
    assert!(refused_by_the_guard(msg), "the SSRF guard is named: {body}");
    assert_ne!(body["error"]["code"], "internal", "{body}");

    let (failed, body) = add_reference_over_mcp(home.path(), &url, true).await;
    assert!(!failed, "{body}");
    assert_eq!(body["downloaded"], true, "{body}");
    assert_eq!(body["indexed"], true, "{body}");
    assert!(home.path().join("knowledge/knowledge_db.json").is_file());
}

/// A `verity serve` child on a free loopback port, killed on drop.
struct Served {
    child: Child,
    addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_verity(home: &Path, allow: bool) -> Served {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut c = Command::new(env!("CARGO_BIN_EXE_verity"));
    c.env("VERITY_HOME", home)
        .env("VERITY_EMBEDDER", "none")
        .env_remove("VERITY_GENERATOR")
        .env_remove("VERITY_KNOWLEDGE_DIR")
        .env_remove("VERITY_ALLOW_PRIVATE_FETCH")
        .env_remove("VERITY_API_TOKENS")
        .args(["serve", "--addr", &addr])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if allow {
        c.arg("--allow-private-fetch");
    }
    let served = Served {
        child: c.spawn().unwrap(),
        addr,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(&served.addr).is_err() {
        assert!(Instant::now() < deadline, "verity serve did not listen");
        std::thread::sleep(Duration::from_millis(100));
    }
    served
}

/// POST a JSON body; the status and the JSON answer.
fn post(addr: &str, path: &str, body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    let (_, payload) = out.split_once("\r\n\r\n").unwrap();
    let payload = if out.to_lowercase().contains("transfer-encoding: chunked") {
        // One chunk is enough for these small answers: size line, data.
        payload.split_once("\r\n").map(|(_, d)| d).unwrap_or("")
    } else {
        payload
    };
    let end = payload.rfind('}').map(|i| i + 1).unwrap_or(0);
    (status, serde_json::from_str(&payload[..end]).unwrap())
}

#[test]
fn serve_fetches_loopback_references_only_with_the_flag() {
    let base = serve();
    let url = json!({ "url": format!("{base}/rag.html") });

    let home = tempfile::tempdir().unwrap();
    let off = serve_verity(home.path(), false);
    let (status, body) = post(&off.addr, "/api/tools/add_reference", &url);
    assert!(
        (400..500).contains(&status) || status == 502,
        "{status} {body}"
    );
    let msg = body["message"].as_str().unwrap();
    assert!(refused_by_the_guard(msg), "the SSRF guard is named: {body}");
    drop(off);

    let home = tempfile::tempdir().unwrap();
    let on = serve_verity(home.path(), true);
    let (status, body) = post(&on.addr, "/api/tools/add_reference", &url);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["downloaded"], true, "{body}");
    assert!(home.path().join("knowledge/knowledge_db.json").is_file());
}
