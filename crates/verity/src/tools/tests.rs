//! Registry tests on a real temp store (lexical, no model).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::*;
use crate::{Document, EmbedderSpec, Verity, VerityConfig};

#[test]
fn builtin_tools_have_valid_distinct_names_and_object_schemas() {
    let registry = ToolRegistry::builtin(&ToolOptions::default());
    assert_eq!(registry.len(), BUILTIN.len());
    for tool in registry.tools() {
        assert_eq!(tool.input_schema()["type"], "object", "{}", tool.name());
        assert_eq!(tool.output_schema()["type"], "object", "{}", tool.name());
        assert!(!tool.description().is_empty());
    }
    // No boolean subschema where clients expect an object (TypeScript SDK).
    for tool in registry.tools() {
        for schema in [tool.input_schema(), tool.output_schema()] {
            assert!(!has_boolean_property(schema), "{}: {schema:?}", tool.name());
        }
    }
    let search = registry.get("search").unwrap();
    assert!(search.input_schema()["properties"]["query"].is_object());
    assert_eq!(search.input_schema()["required"], json!(["query"]));
    // One operation, one response shape: `search` answers `RetrieveResponse`.
    let required = search.output_schema()["required"].clone();
    for field in [
        "uids",
        "scores",
        "sources",
        "hits",
        "mode",
        "not_enough_evidence",
    ] {
        assert!(
            required
                .as_array()
                .is_some_and(|r| r.contains(&json!(field))),
            "{field}: {required}"
        );
    }
}

#[test]
fn duplicate_and_malformed_names_are_refused() {
    let mut registry = ToolRegistry::builtin(&ToolOptions::default());
    let again = registry.get("stats").unwrap().clone();
    assert!(registry.register(again).is_err());
    assert!(ToolRegistry::new()
        .with(stats::tool(&ToolOptions::default()))
        .is_ok());
}

async fn store() -> (tempfile::TempDir, Verity) {
    let home = tempfile::tempdir().unwrap();
    let verity = Verity::open(VerityConfig {
        home: home.path().to_path_buf(),
        embedder: EmbedderSpec::None,
        ..VerityConfig::default()
    })
    .await
    .unwrap();
    let mut d = Document::new("fees", "Routing fees are set by each node operator.");
    d.source = "handbook".into();
    verity.ingest_documents(vec![d], &|_| {}).await.unwrap();
    (home, verity)
}

#[tokio::test]
async fn calls_deserialize_run_and_serialize() {
    let (_home, verity) = store().await;
    let registry = ToolRegistry::builtin(&ToolOptions::default());
    let out = registry
        .call(&verity, "search", json!({"query": "routing fees"}))
        .await
        .unwrap();
    assert_eq!(out.structured["hits"][0]["doc"]["uid"], "fees");
    // The shape of `POST /v1/retrieve` (seed 001's `uids`, `scores`, `sources`).
    assert_eq!(out.structured["uids"], json!(["fees"]));
    assert_eq!(out.structured["sources"], json!(["handbook"]));
    assert_eq!(
        out.structured["scores"][0], out.structured["hits"][0]["score"],
        "{}",
        out.structured
    );
    assert!(out.text.contains("node operator"), "{}", out.text);
    // `null` arguments read as `{}`.
    let out = registry.call(&verity, "stats", json!(null)).await.unwrap();
    assert_eq!(out.structured["store"]["documents"], 1);
}

#[tokio::test]
async fn unknown_tools_invalid_arguments_and_failures_stay_distinct() {
    let (_home, verity) = store().await;
    let registry = ToolRegistry::builtin(&ToolOptions::default());
    match registry.call(&verity, "nope", json!({})).await {
        Err(ToolError::UnknownTool { available, .. }) => assert!(available.contains("search")),
        other => panic!("{other:?}"),
    }
    for bad in [
        json!({"query": 3}),
        json!({}),
        json!({"query": "x", "extra": 1}),
        json!([1]),
    ] {
        match registry.call(&verity, "search", bad.clone()).await {
            Err(ToolError::InvalidArguments { tool, .. }) => assert_eq!(tool, "search"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    // A request naming nothing is the library's `invalid_input`, as on REST
    // and in the bindings.
    for empty in [json!({}), json!({"documents": []})] {
        match registry.call(&verity, "ingest", empty.clone()).await {
            Err(ToolError::Failed(e)) => {
                assert_eq!(e.code(), "invalid_input", "{empty}");
                assert!(e.to_string().contains("nothing to ingest"), "{e}");
            }
            other => panic!("{empty}: {other:?}"),
        }
    }
    // No file roots configured: reading files is a failed call with the input code.
    match registry
        .call(&verity, "ingest", json!({"paths": ["docs"]}))
        .await
    {
        Err(ToolError::Failed(e)) => assert_eq!(e.code(), "invalid_input"),
        other => panic!("{other:?}"),
    }
}

fn has_boolean_property(schema: &serde_json::Map<String, serde_json::Value>) -> bool {
    fn walk(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::Object(m) => m.iter().any(|(k, c)| {
                (k == "properties" || k == "$defs")
                    && c.as_object()
                        .is_some_and(|p| p.values().any(|s| s.is_boolean()))
                    || walk(c)
            }),
            serde_json::Value::Array(a) => a.iter().any(walk),
            _ => false,
        }
    }
    walk(&serde_json::Value::Object(schema.clone()))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sliced {
    head: String,
}

#[tokio::test]
async fn a_panicking_tool_answers_a_typed_error() {
    let (_home, verity) = store().await;
    // A tool with the very bug that once crashed citation checking: a byte
    // slice inside a multi-byte character.
    let tool = Tool::new(
        "slice_bytes",
        "Slice",
        "Slices bytes.",
        |r: &Sliced| r.head.clone(),
        |_v, req: Text| {
            Box::pin(async move {
                Ok(Sliced {
                    head: req.text[..1].to_string(),
                })
            })
        },
    );
    let registry = ToolRegistry::new().with(tool).unwrap();
    let ok = registry
        .call(&verity, "slice_bytes", json!({"text": "abc"}))
        .await
        .unwrap();
    assert_eq!(ok.structured["head"], "a");
    match registry
        .call(&verity, "slice_bytes", json!({"text": "\u{a0}x"}))
        .await
    {
        Err(ToolError::Failed(e)) => {
            assert_eq!(e.code(), "internal_fault");
            assert!(!e.is_transient());
            assert!(e.to_string().contains("char boundary"), "{e}");
            let m = crate::api::ErrorMapping::of(&e);
            assert_eq!(m.http_status, 422);
            assert_eq!(m.jsonrpc_code, -32603);
        }
        other => panic!("{other:?}"),
    }
    // The registry keeps working after the panic.
    assert!(registry
        .call(&verity, "slice_bytes", json!({"text": "ok"}))
        .await
        .is_ok());
}
