//! OpenAPI 3.1 document generated from the `verity::api` types' JSON Schemas.
//!
//! OpenAPI 3.1 schemas *are* JSON Schema 2020-12, which is what schemars
//! derives; this module only lays the operations out around them. Request
//! bodies use the deserialize contract of a type, responses its serialize
//! contract; where the two differ the response schema is published as
//! `<Name>Output`. The MCP tool schemas come from the same derives.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::error::ErrorResponse;
use crate::version;

/// Where component schemas live.
const COMPONENTS: &str = "#/components/schemas/";

/// A response body of an operation.
#[derive(Debug, Clone)]
pub enum Body {
    /// No body.
    Empty,
    /// JSON of a type (serialize contract).
    Json(fn(&mut SchemaGenerator) -> Value),
    /// JSON, or Server-Sent Events when the client accepts `text/event-stream`.
    JsonOrSse(fn(&mut SchemaGenerator) -> Value),
    /// JSON, or text in one of these media types when the request asks for it.
    JsonOrText(fn(&mut SchemaGenerator) -> Value, &'static [&'static str]),
    /// Plain text (Prometheus exposition).
    Text,
    /// HTML page.
    Html,
}

/// One documented operation.
#[derive(Debug, Clone)]
pub struct Operation {
    /// HTTP method, lower case.
    pub method: &'static str,
    /// Path template (`/v1/documents/{uid}`).
    pub path: &'static str,
    /// operationId.
    pub id: &'static str,
    /// Summary line.
    pub summary: &'static str,
    /// Longer description.
    pub description: &'static str,
    /// Requires `X-API-Version`.
    pub versioned: bool,
    /// Requires a bearer token (when the server has tokens).
    pub auth: bool,
    /// Path parameters (name, description).
    pub path_params: &'static [(&'static str, &'static str)],
    /// Query parameters (OpenAPI parameter objects), when the route reads any.
    pub query: Option<fn() -> Vec<Value>>,
    /// Request body schema (deserialize contract).
    pub request: Option<fn(&mut SchemaGenerator) -> Value>,
    /// Success statuses with their bodies.
    pub success: Vec<(u16, &'static str, Body)>,
    /// Error statuses this operation can answer (besides the common ones).
    pub errors: &'static [u16],
}

/// Schema reference of `T` for a generator.
pub fn schema<T: JsonSchema>(g: &mut SchemaGenerator) -> Value {
    g.subschema_for::<T>().to_value()
}

/// The OpenAPI query parameters of a request type read from the query
/// string: one parameter per property of `T`'s JSON Schema (its
/// deserialize contract, subschemas inlined), with the property's
/// description, whether it is required, and its schema. A query parameter is
/// absent rather than `null`, so `null` is taken out of the schemas.
pub fn query_params<T: JsonSchema>() -> Vec<Value> {
    let root = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let required: Vec<&str> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = root.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, schema)| {
            let mut schema = schema.clone();
            let description = schema
                .as_object_mut()
                .and_then(|m| m.remove("description"))
                .unwrap_or_else(|| Value::String(String::new()));
            without_null(&mut schema);
            json!({
                "name": name,
                "in": "query",
                "required": required.contains(&name.as_str()),
                "description": description,
                "schema": schema,
            })
        })
        .collect()
}

/// `schema` without its `null` alternative (`"type": ["string", "null"]`,
/// `anyOf: [{…}, {"type": "null"}]`, `null` in an `enum`).
fn without_null(schema: &mut Value) {
    let Some(m) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = m.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            m.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = m.get_mut(key) else {
            continue;
        };
        branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let [only] = branches.as_slice() {
            let only = only.clone();
            m.remove(key);
            if let Value::Object(inner) = only {
                for (k, v) in inner {
                    m.entry(k).or_insert(v);
                }
            }
        }
    }
}

fn generator(serialize: bool) -> SchemaGenerator {
    let s = SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = "/components/schemas".into();
        s.meta_schema = None;
    });
    if serialize {
        s.for_serialize().into_generator()
    } else {
        s.for_deserialize().into_generator()
    }
}

fn error_text(status: u16) -> &'static str {
    match status {
        400 => {
            "Invalid request: malformed JSON, missing or unsupported X-API-Version, bad parameter, \
             a credential in the query string, a missing or repeated Host"
        }
        401 => "Missing, malformed or unknown bearer token",
        403 => "Host or Origin not allowed (DNS-rebinding and cross-site protection)",
        404 => "Not found",
        405 => "Method not allowed on this route",
        409 => "The index needs re-indexing for this operation",
        413 => "Request body larger than the server's limit",
        414 => "Request target longer than the server serves",
        415 => "Body is not `application/json`",
        422 => "The JSON body does not match the schema",
        429 => "Rate limit exceeded; see Retry-After",
        431 => "Header fields too many or too large",
        502 => "An upstream provider answered badly",
        503 => "A service this route needs (generator, embedder) is unavailable",
        504 => "Timed out",
        _ => "Error",
    }
}

/// The capabilities the operations are grouped by (OpenAPI tags), in the
/// order the documentation page shows them, with what each is for.
pub const CAPABILITIES: &[(&str, &str)] = &[
    ("Documents", "Put documents in the store, follow ingest jobs, read, delete and count them."),
    ("Retrieval and answers", "Find the passages that answer a query and answer from them with citations (or say the evidence is missing)."),
    ("Citation checking", "Check that each source a document cites supports the claim citing it. `GET /` is a web page for it."),
    ("Research", "Research a syllabus into a checked, sourced report (a job)."),
    ("Event memory", "MnemoLite-compatible event memory: write, read, update and search events."),
    ("Technology watch (n8n)", "The watch tools as REST routes for n8n and other workflow tools: rules, scoring, duplicate checks, article and decision logs, web search, page extraction, fact checks. No `X-API-Version` header needed. A fresh install gets its rules from a file with `VERITY_WATCH_RULES` (examples/n8n/rules.json)."),
    ("Tools", "Every tool of the registry by name (`POST /api/tools/{name}` with the tool's JSON arguments): the same tools MCP clients call."),
    ("MCP", "`/mcp` serves the same tools to MCP clients over the streamable HTTP transport (JSON-RPC 2.0): `POST /mcp` with `initialize`, `tools/list`, `tools/call` (`Accept: application/json, text/event-stream`), `GET /mcp` for the server's event stream of a session, `DELETE /mcp` to end it. Same bearer tokens as the REST routes; Host and Origin must be allowed (`allowed_hosts`, `cors_origins`). It is not a REST operation, so it has no entry below: see docs/mcp.md."),
    ("Service", "Health, metrics and this documentation."),
];

/// The capability (tag) of a route, by its path.
pub fn capability(path: &str) -> (&'static str, &'static str) {
    let name = if path.starts_with("/api/tools") {
        "Tools"
    } else if path.starts_with("/api") {
        "Technology watch (n8n)"
    } else if path.starts_with("/mcp") {
        "MCP"
    } else if path.starts_with("/v1/events") || path.starts_with("/v1/search") {
        "Event memory"
    } else if path == "/" || path.ends_with("/verify") {
        "Citation checking"
    } else if path.starts_with("/v1/research") {
        "Research"
    } else if ["/v1/embed", "/v1/retrieve", "/v1/generate", "/v1/rag"].contains(&path) {
        "Retrieval and answers"
    } else if path.starts_with("/v1/ingest")
        || path.starts_with("/v1/jobs")
        || path.starts_with("/v1/documents")
        || path.starts_with("/v1/stats")
    {
        "Documents"
    } else {
        "Service"
    };
    CAPABILITIES
        .iter()
        .copied()
        .find(|(n, _)| *n == name)
        .unwrap_or(("Service", ""))
}

/// Rewrite `$ref`s to renamed components.
fn rename_refs(v: &mut Value, renamed: &[(String, String)]) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                if let Some((_, to)) = renamed
                    .iter()
                    .find(|(from, _)| r.strip_prefix(COMPONENTS) == Some(from.as_str()))
                {
                    *r = format!("{COMPONENTS}{to}");
                }
            }
            for x in m.values_mut() {
                rename_refs(x, renamed);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rename_refs(x, renamed)),
        _ => {}
    }
}

/// The OpenAPI 3.1 document of `ops`.
pub fn document(ops: &[Operation]) -> Value {
    let mut req_gen = generator(false);
    let mut resp_gen = generator(true);
    let error_ref = schema::<ErrorResponse>(&mut resp_gen);

    // First pass: schemas.
    let mut bodies = Vec::new();
    for op in ops {
        let req = op.request.map(|f| f(&mut req_gen));
        let resps: Vec<Option<Value>> = op
            .success
            .iter()
            .map(|(_, _, b)| match b {
                Body::Json(f) | Body::JsonOrSse(f) | Body::JsonOrText(f, _) => {
                    Some(f(&mut resp_gen))
                }
                _ => None,
            })
            .collect();
        bodies.push((req, resps));
    }
    let mut schemas: Map<String, Value> = req_gen.take_definitions(true);
    let mut out_defs = resp_gen.take_definitions(true);
    let renamed: Vec<(String, String)> = out_defs
        .iter()
        .filter(|(k, v)| schemas.get(*k).is_some_and(|s| s != *v))
        .map(|(k, _)| (k.clone(), format!("{k}Output")))
        .collect();
    for v in out_defs.values_mut() {
        rename_refs(v, &renamed);
    }
    for (k, v) in out_defs {
        let name = renamed
            .iter()
            .find(|(from, _)| *from == k)
            .map(|(_, to)| to.clone())
            .unwrap_or(k);
        schemas.insert(name, v);
    }

    let mut paths = Map::new();
    for (op, (req, mut resps)) in ops.iter().zip(bodies) {
        for r in resps.iter_mut().flatten() {
            rename_refs(r, &renamed);
        }
        let mut params = Vec::new();
        for (name, desc) in op.path_params {
            params.push(json!({
                "name": name, "in": "path", "required": true, "description": desc,
                "schema": {"type": "string", "minLength": 1, "maxLength": 512}
            }));
        }
        if let Some(q) = op.query {
            params.extend(q());
        }
        if op.versioned {
            params.push(json!({
                "name": "X-API-Version", "in": "header", "required": true,
                "description": "API version; echoed on the response.",
                "schema": {"type": "string", "enum": version::SUPPORTED_VERSIONS}
            }));
        }
        let mut responses = Map::new();
        let version_header = json!({
            "X-API-Version": {"description": "The API version that answered", "schema": {"type": "string"}}
        });
        for ((status, desc, body), schema) in op.success.iter().zip(resps) {
            let mut r = json!({"description": desc});
            match body {
                Body::Empty => {}
                Body::Json(_) => {
                    r["content"] = json!({"application/json": {"schema": schema}});
                }
                Body::JsonOrSse(_) => {
                    r["content"] = json!({
                        "application/json": {"schema": schema},
                        "text/event-stream": {
                            "schema": {"type": "string"},
                            "description": "`delta` events carry text pieces, one `done` event the final answer, `error` an error body"
                        }
                    });
                }
                Body::JsonOrText(_, types) => {
                    let mut content = Map::new();
                    content.insert("application/json".into(), json!({"schema": schema}));
                    for t in *types {
                        content.insert((*t).into(), json!({"schema": {"type": "string"}}));
                    }
                    r["content"] = Value::Object(content);
                }
                Body::Text => {
                    r["content"] = json!({"text/plain": {"schema": {"type": "string"}}});
                }
                Body::Html => {
                    r["content"] = json!({"text/html": {"schema": {"type": "string"}}});
                }
            }
            if op.versioned {
                r["headers"] = version_header.clone();
            }
            responses.insert(status.to_string(), r);
        }
        let mut errors: Vec<u16> = op.errors.to_vec();
        // Every route: the request policy (credentials in the query string,
        // Host, Origin, sizes) and the routing and rate-limit layers.
        errors.extend([400, 403, 405, 414, 429, 431]);
        if op.auth {
            errors.push(401);
        }
        if op.request.is_some() {
            errors.extend([413, 415, 422]);
        }
        errors.sort_unstable();
        errors.dedup();
        for s in errors {
            responses.insert(
                s.to_string(),
                json!({"description": error_text(s), "content": {"application/json": {"schema": error_ref}}}),
            );
        }
        responses.insert(
            "default".into(),
            json!({"description": "Any other error, same body", "content": {"application/json": {"schema": error_ref}}}),
        );
        let mut o = json!({
            "operationId": op.id,
            "tags": [capability(op.path).0],
            "summary": op.summary,
            "description": op.description,
            "parameters": params,
            "responses": responses,
        });
        if let Some(req) = req {
            o["requestBody"] =
                json!({"required": true, "content": {"application/json": {"schema": req}}});
        }
        o["security"] = if op.auth {
            json!([{"bearer": []}])
        } else {
            json!([])
        };
        let entry = paths
            .entry(op.path.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        entry[op.method] = o;
    }
    let tags: Vec<Value> = CAPABILITIES
        .iter()
        .map(|(name, description)| json!({"name": name, "description": description}))
        .collect();
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "Verity REST API",
            "version": version::CURRENT,
            "description": "Grounded retrieval with citations over HTTP. The `/v1` data routes require `X-API-Version`; every route but health, this document and its page requires `Authorization: Bearer <token>` when the server has tokens. Errors are JSON `{code, message, transient}`.",
        },
        "tags": tags,
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    })
}
