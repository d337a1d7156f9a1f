//! The one operation table: every route comes from it, and an operation
//! that names a registry tool speaks that tool's request and response types.

use std::collections::HashSet;

use schemars::generate::SchemaGenerator;
use serde_json::Value;
use verity::tools::{ToolOptions, ToolRegistry};
use verity_server::openapi::{Body, Operation};

/// The type name a schema function documents: its `$ref` target, or its title.
fn type_name(f: fn(&mut SchemaGenerator) -> Value) -> Option<String> {
    let v = f(&mut SchemaGenerator::default());
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => r.rsplit('/').next().map(str::to_string),
        None => v.get("title").and_then(Value::as_str).map(str::to_string),
    }
}

fn first_json_success(op: &Operation) -> Option<fn(&mut SchemaGenerator) -> Value> {
    op.success.iter().find_map(|(status, _, body)| match body {
        Body::Json(f) | Body::JsonOrSse(f) | Body::JsonOrText(f, _) if *status < 300 => Some(*f),
        _ => None,
    })
}

#[test]
fn an_operation_naming_a_tool_has_the_tools_request_and_response() {
    let registry = ToolRegistry::builtin(&ToolOptions::default());
    let ops = verity_server::operations();
    let linked: Vec<&Operation> = ops.iter().filter(|op| op.tool.is_some()).collect();
    // The /v1 operations with a tool twin, and every /api watch route.
    for id in [
        "ingest",
        "retrieve",
        "rag",
        "stats",
        "score_article",
        "get_articles",
    ] {
        assert!(linked.iter().any(|op| op.id == id), "{id} names no tool");
    }
    for op in linked {
        let name = op.tool.unwrap_or_default();
        let tool = registry
            .get(name)
            .unwrap_or_else(|| panic!("{} names tool `{name}`, not in the registry", op.id));
        let title = |schema: &serde_json::Map<String, Value>| {
            schema
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        if let Some(req) = op.request {
            assert_eq!(
                type_name(req),
                title(tool.input_schema()),
                "{} {}: request differs from tool `{name}`'s",
                op.method.as_str(),
                op.path
            );
        }
        let resp = first_json_success(op).unwrap_or_else(|| panic!("{} answers no JSON", op.id));
        assert_eq!(
            type_name(resp),
            title(tool.output_schema()),
            "{} {}: response differs from tool `{name}`'s",
            op.method.as_str(),
            op.path
        );
    }
}

#[test]
fn operations_are_unique_by_id_and_by_route() {
    let ops = verity_server::operations();
    let mut ids = HashSet::new();
    let mut routes = HashSet::new();
    for op in &ops {
        assert!(ids.insert(op.id), "operationId {} twice", op.id);
        for path in std::iter::once(op.path).chain(op.aliases.iter().copied()) {
            assert!(
                routes.insert((op.method, path)),
                "{} {path} declared twice",
                op.method.as_str()
            );
        }
    }
    assert!(ops.len() >= 30, "{} operations", ops.len());
}
