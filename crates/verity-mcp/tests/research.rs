//! The research tools over MCP (streamable HTTP, official rmcp client) on
//! the `verity-research` fixture syllabus, its pages served on loopback:
//! `add_reference`, `find_by_name`, a whole `research` run, and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use serde_json::{json, Value};
use verity::tools::{FileRoots, ToolOptions, ToolRegistry};
use verity::{Verity, VerityConfig};

use crate::common::{self, args};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../verity-research/tests/fixtures")
}

/// Serve `fixtures/web/` on loopback (404 for anything else).
fn serve_web() -> String {
    verity_testkit::serve(verity_testkit::files(fixtures().join("web"))).unwrap()
}

/// A home whose knowledge base holds the fixture's internal file, a file
/// root holding the syllabus, and a registry whose operator allowed
/// loopback fetches (the fixture's pages are on loopback).
async fn research_fixture(base: &str) -> common::Fixture {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let kb = home.path().join("knowledge");
    std::fs::create_dir_all(&kb).unwrap();
    std::fs::copy(
        fixtures().join("kb/Prompt_Engineering_for_Developers.md"),
        kb.join("Prompt_Engineering_for_Developers.md"),
    )
    .unwrap();
    let text = std::fs::read_to_string(fixtures().join("syllabus.md"))
        .unwrap()
        .replace("{BASE}", base);
    std::fs::write(files.path().join("syllabus.md"), text).unwrap();
    let config = VerityConfig {
        home: home.path().to_path_buf(),
        embedder: verity::EmbedderSpec::None,
        ..VerityConfig::default()
    };
    let verity = Verity::open(config).await.unwrap();
    let options = ToolOptions {
        file_roots: FileRoots::new([files.path()]).unwrap(),
        allow_private_fetch: true,
        ..ToolOptions::default()
    };
    common::Fixture {
        home,
        files,
        verity: Arc::new(verity),
        registry: Arc::new(ToolRegistry::builtin(&options)),
    }
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    arguments: Value,
) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args(arguments)))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn knowledge_base_tools_add_and_find_references() {
    let base = serve_web();
    let fx = research_fixture(&base).await;
    let (client, _) = common::http_client(&fx).await;

    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    for n in ["find_by_name", "add_reference", "research"] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }

    // Not there yet: found is false, not an error.
    let r = call(&client, "find_by_name", json!({"filename": "nope.md"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(r.structured_content.unwrap()["found"], false);

    // A URL reference is downloaded, saved and indexed once.
    let url = format!("{base}/agents.html");
    let r = call(
        &client,
        "add_reference",
        json!({"url": url, "keywords": ["agents", "planning"]}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!(s["downloaded"], true, "{s}");
    assert_eq!(s["indexed"], true, "{s}");
    assert_eq!(s["entry"]["url"], json!(url), "{s}");
    assert_eq!(s["entry"]["keywords"], json!(["agents", "planning"]), "{s}");
    let filename = s["entry"]["filename"].as_str().unwrap().to_string();
    assert!(fx.home.path().join("knowledge").join(&filename).exists());

    // Added again: kept, neither downloaded nor indexed twice.
    let r = call(&client, "add_reference", json!({"url": url})).await;
    let s = r.structured_content.unwrap();
    assert_eq!(
        (s["downloaded"].clone(), s["indexed"].clone()),
        (json!(false), json!(false)),
        "{s}"
    );

    // find_by_name finds it, with its URL and store id.
    let r = call(&client, "find_by_name", json!({"filename": filename})).await;
    let s = r.structured_content.unwrap();
    assert_eq!(s["found"], true, "{s}");
    assert_eq!(s["entry"]["url"], json!(url), "{s}");
    assert!(s["entry"]["file_id"].is_string(), "{s}");

    // A file placed by hand in the knowledge base is registered by name.
    let r = call(
        &client,
        "add_reference",
        json!({"filename": "Prompt_Engineering_for_Developers.md"}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let r = call(
        &client,
        "find_by_name",
        json!({"filename": "Prompt_Engineering_for_Developers.md"}),
    )
    .await;
    assert_eq!(r.structured_content.unwrap()["found"], true);

    // Bad input: typed errors naming the fields.
    for (a, needle) in [
        (json!({}), "`url` or `filename`"),
        (json!({"url": url, "filename": "x.md"}), "not both"),
        (json!({"url": "file:///etc/passwd"}), "`url`"),
        (json!({"filename": "../secret.md"}), "`filename`"),
    ] {
        let r = call(&client, "add_reference", a.clone()).await;
        assert_eq!(r.is_error, Some(true), "{a}: {r:?}");
        let s = r.structured_content.unwrap();
        assert_eq!(s["error"]["code"], "invalid_input", "{a}: {s}");
        assert!(
            s["error"]["message"].as_str().unwrap().contains(needle),
            "{a}: {s}"
        );
    }
    // A file the knowledge base does not have: a failed call saying so.
    let r = call(&client, "add_reference", json!({"filename": "missing.md"})).await;
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let text = serde_json::to_string(&r.structured_content).unwrap();
    assert!(text.contains("missing.md"), "{text}");
    // Unknown arguments are refused by the schema.
    let e = client
        .call_tool(
            CallToolRequestParams::new("find_by_name")
                .with_arguments(args(json!({"filename": "a.md", "dir": "/"}))),
        )
        .await
        .unwrap_err();
    match e {
        ServiceError::McpError(e) => assert_eq!(e.code.0, -32602, "{e:?}"),
        other => panic!("expected an MCP error, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn research_tool_runs_the_fixture_syllabus_and_confines_paths() {
    let base = serve_web();
    let fx = research_fixture(&base).await;
    let (client, _) = common::http_client(&fx).await;

    let r = call(&client, "research", json!({"syllabus": "syllabus.md"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!(s["coverage"], 1.0, "{s}");
    assert!(s["supported_share"].as_f64().unwrap() >= 0.95, "{s}");
    assert!(s["cited_sentences"].as_u64().unwrap() > 0, "{s}");
    let md = s["markdown"].as_str().unwrap();
    let refs = md.split("## References").nth(1).expect("references");
    assert!(refs.contains(&format!("{base}/agents.html")), "{refs}");
    assert!(
        refs.contains("Prompt_Engineering_for_Developers.md"),
        "{refs}"
    );
    let run_dir = PathBuf::from(s["run_dir"].as_str().unwrap());
    assert!(run_dir.starts_with(fx.home.path()), "{run_dir:?}");
    assert!(run_dir.join("trace.jsonl").exists());
    let text = r.content[0].as_text().expect("text part").text.clone();
    assert!(text.contains("coverage 100 %"), "{text}");

    // Paths outside the roots, `..`, directories and missing files are refused.
    let outside = fixtures().join("syllabus.md");
    for p in [
        outside.display().to_string(),
        "../syllabus.md".to_string(),
        ".".to_string(),
        "missing.md".to_string(),
    ] {
        let r = call(&client, "research", json!({"syllabus": p})).await;
        assert_eq!(r.is_error, Some(true), "{p}: {r:?}");
        let s = r.structured_content.unwrap();
        assert_eq!(s["error"]["code"], "invalid_input", "{p}: {s}");
        assert!(
            s["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`syllabus`"),
            "{p}: {s}"
        );
    }
    client.cancel().await.unwrap();
}
