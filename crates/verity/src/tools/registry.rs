//! [`Tool`] and [`ToolRegistry`]: named, schema-described calls over a [`Verity`].

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::{Error, Result, Verity};

/// A boxed future borrowing the [`Verity`] handle for the length of a call.
pub type ToolFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The untyped handler every tool is reduced to: JSON arguments in, [`ToolOutput`] out.
type Handler = Arc<
    dyn for<'a> Fn(&'a Verity, Value) -> ToolFuture<'a, Result<ToolOutput, ToolError>>
        + Send
        + Sync,
>;

/// What a successful call returns: the response as JSON (it validates against
/// the tool's output schema) and a short text rendering for people and models.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The serialized response type.
    pub structured: Value,
    /// A readable rendering of the same response.
    pub text: String,
}

/// Why a call did not produce a [`ToolOutput`].
///
/// Each variant has its stable [`ToolError::code`] in the error table
/// ([`crate::api::error::ErrorMapping::for_code`]), like every [`Error`]:
/// hosts read the table, never match on the variants for a status. Into an
/// [`Error`] (for callers that speak only [`Error`], like
/// [`Verity::call_tool`]) it keeps its code and message.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No tool has that name (code `unknown_tool`).
    #[error("unknown tool `{name}`; available: {available}")]
    UnknownTool {
        /// The name asked for (cut to 80 characters: it is echoed to the caller).
        name: String,
        /// The registered names, comma-separated.
        available: String,
    },
    /// The arguments do not deserialize into the tool's request type
    /// (code `invalid_arguments`).
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, as serde reports it (field, expected type, unknown field).
        message: String,
    },
    /// The call ran and failed; the error keeps its kind and code.
    #[error(transparent)]
    Failed(#[from] Error),
}

impl ToolError {
    /// Stable machine-readable code: `unknown_tool`, `invalid_arguments`, or
    /// the [`Error::code`] of a failed call.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::InvalidArguments { .. } => "invalid_arguments",
            ToolError::Failed(e) => e.code(),
        }
    }

    /// `true` when retrying the same call later may succeed (only a failed
    /// call can be transient: a wrong name or wrong arguments stay wrong).
    pub fn is_transient(&self) -> bool {
        match self {
            ToolError::Failed(e) => e.is_transient(),
            ToolError::UnknownTool { .. } | ToolError::InvalidArguments { .. } => false,
        }
    }
}

impl From<ToolError> for Error {
    fn from(e: ToolError) -> Self {
        use crate::core::InputError;
        match e {
            ToolError::UnknownTool { name, available } => {
                Error::Input(InputError::UnknownTool { name, available })
            }
            ToolError::InvalidArguments { tool, message } => {
                Error::Input(InputError::InvalidArguments { tool, message })
            }
            ToolError::Failed(e) => e,
        }
    }
}

/// Hints about a tool's effects (MCP tool annotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolHints {
    /// The tool does not modify the store.
    pub read_only: bool,
    /// The tool reaches out to the network (fetching URLs).
    pub open_world: bool,
    /// Repeating the same call has no further effect.
    pub idempotent: bool,
}

/// One callable tool: a name, a description, JSON Schemas for its request and
/// response types, and a handler that runs it on a [`Verity`].
#[derive(Clone)]
pub struct Tool {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input_schema: Map<String, Value>,
    output_schema: Map<String, Value>,
    hints: ToolHints,
    handler: Handler,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("hints", &self.hints)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool from a typed handler: arguments are deserialized into `Req`
    /// (failures become [`ToolError::InvalidArguments`]), the handler's `Resp`
    /// is serialized and rendered to text with `render`. Both schemas are
    /// derived from the types, so they cannot drift from what the handler reads
    /// and writes. A missing or `null` argument object reads as `{}`.
    pub fn new<Req, Resp, F>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        render: fn(&Resp) -> String,
        handler: F,
    ) -> Self
    where
        Req: DeserializeOwned + JsonSchema + Send + 'static,
        Resp: Serialize + JsonSchema + Send + 'static,
        F: for<'a> Fn(&'a Verity, Req) -> ToolFuture<'a, Result<Resp>> + Send + Sync + 'static,
    {
        let handler = Arc::new(handler);
        let input_schema = object_schema::<Req>();
        let conform_schema = Arc::new(Value::Object(input_schema.clone()));
        let erased: Handler = Arc::new(move |verity: &Verity, args: Value| {
            let handler = handler.clone();
            let schema = conform_schema.clone();
            Box::pin(async move {
                let mut args = if args.is_null() {
                    Value::Object(Map::new())
                } else {
                    args
                };
                // Read the arguments as the published input schema allows them.
                crate::api::conform::conform_to(&mut args, &schema).map_err(|m| match m {
                    crate::api::conform::Mismatch::Shape(message) => ToolError::InvalidArguments {
                        tool: name.to_string(),
                        message,
                    },
                    crate::api::conform::Mismatch::Format(message) => {
                        ToolError::Failed(Error::invalid_input(message))
                    }
                })?;
                // The error names the argument (`filter_metadata: invalid type …`).
                let req: Req = serde_path_to_error::deserialize(args).map_err(|e| {
                    let path = e.path().to_string();
                    let inner = e.into_inner();
                    ToolError::InvalidArguments {
                        tool: name.to_string(),
                        message: if path == "." {
                            inner.to_string()
                        } else {
                            format!("{path}: {inner}")
                        },
                    }
                })?;
                let resp = handler(verity, req).await?;
                let text = render(&resp);
                let structured = serde_json::to_value(&resp).map_err(|e| {
                    Error::invalid_input(format!("{name}: response not serializable: {e}"))
                })?;
                Ok(ToolOutput { structured, text })
            })
        });
        Self {
            name,
            title,
            description,
            input_schema,
            output_schema: object_schema::<Resp>(),
            hints: ToolHints::default(),
            handler: erased,
        }
    }

    /// Set the effect hints.
    pub fn hints(mut self, hints: ToolHints) -> Self {
        self.hints = hints;
        self
    }

    /// The tool's name (`search`, `ask`, …): `[a-z0-9_]`, unique in a registry.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A short human title.
    pub fn title(&self) -> &'static str {
        self.title
    }

    /// What the tool does and when to use it (shown to models).
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// JSON Schema (2020-12) of the request type; always `"type": "object"`.
    pub fn input_schema(&self) -> &Map<String, Value> {
        &self.input_schema
    }

    /// JSON Schema (2020-12) of the response type; always `"type": "object"`.
    pub fn output_schema(&self) -> &Map<String, Value> {
        &self.output_schema
    }

    /// Effect hints.
    pub fn tool_hints(&self) -> ToolHints {
        self.hints
    }

    /// Run the tool with JSON arguments. A panic inside the tool becomes
    /// [`ToolError::Failed`] with an `internal_fault` error, so every host
    /// answers (MCP with `isError`, REST with a JSON error) instead of
    /// dropping the call.
    pub async fn call(&self, verity: &Verity, args: Value) -> Result<ToolOutput, ToolError> {
        use futures::FutureExt;
        match std::panic::AssertUnwindSafe((self.handler)(verity, args))
            .catch_unwind()
            .await
        {
            Ok(out) => out,
            Err(payload) => {
                let e = Error::from_panic("tool call", payload.as_ref());
                tracing::error!(tool = self.name, error = %e, "tool panicked");
                Err(ToolError::Failed(e))
            }
        }
    }
}

/// The schema of `T` as a JSON object with `"type": "object"` (MCP requires
/// object schemas for tool input and output).
fn object_schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.entry("type")
        .or_insert_with(|| Value::String("object".into()));
    for v in map.values_mut() {
        no_boolean_subschemas(v);
    }
    map
}

/// Replace boolean subschemas (`true` for a `serde_json::Value` field) with
/// their object forms: some clients (the TypeScript SDK) reject `true` as a
/// property schema. `additionalProperties: bool` stays as is.
fn no_boolean_subschemas(v: &mut Value) {
    fn object_form(s: &mut Value) {
        match s {
            Value::Bool(true) => *s = Value::Object(Map::new()),
            Value::Bool(false) => *s = serde_json::json!({"not": {}}),
            other => no_boolean_subschemas(other),
        }
    }
    match v {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                match key.as_str() {
                    "properties" | "$defs" | "definitions" | "patternProperties" => {
                        if let Value::Object(props) = child {
                            props.values_mut().for_each(object_form);
                        }
                    }
                    "items" | "not" | "contains" | "propertyNames" => object_form(child),
                    "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                        if let Value::Array(list) = child {
                            list.iter_mut().for_each(object_form);
                        }
                    }
                    _ => no_boolean_subschemas(child),
                }
            }
        }
        Value::Array(list) => list.iter_mut().for_each(no_boolean_subschemas),
        _ => {}
    }
}

/// The set of tools a host exposes, in registration order.
///
/// Built once (usually [`ToolRegistry::builtin`]) and shared by every host:
/// the MCP server lists and calls these tools, the REST server routes to them.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Tool>,
    by_name: HashMap<&'static str, usize>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a tool. Refused when the name is taken or not `[a-z0-9_]{1,64}`.
    pub fn register(&mut self, tool: Tool) -> Result<()> {
        let name = tool.name;
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid {
            return Err(Error::invalid_input(format!(
                "tool name `{name}` must be 1-64 characters of [a-z0-9_]"
            )));
        }
        if self.by_name.contains_key(name) {
            return Err(Error::invalid_input(format!(
                "tool `{name}` is already registered"
            )));
        }
        self.by_name.insert(name, self.tools.len());
        self.tools.push(tool);
        Ok(())
    }

    /// Add a tool (builder form of [`ToolRegistry::register`]).
    pub fn with(mut self, tool: Tool) -> Result<Self> {
        self.register(tool)?;
        Ok(self)
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// `true` when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Call the tool `name` with JSON arguments.
    pub async fn call(
        &self,
        verity: &Verity,
        name: &str,
        args: Value,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self.get(name).ok_or_else(|| ToolError::UnknownTool {
            name: name.chars().take(80).collect(),
            available: self
                .tools
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        tool.call(verity, args).await
    }
}
