//! [`VerityMcp`]: the rmcp `ServerHandler` over a tool registry.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use verity::tools::{ToolHints, ToolRegistry};
use verity::{Error, Result, Verity};

use crate::errors::to_mcp;

const INSTRUCTIONS: &str = "Verity is a source of truth: `search` the ingested sources, \
`ask` for an answer that cites them (it says when the evidence is thin), `get_document` \
to read a cited document, `ingest` to add sources, `fetch_url` to read a web page.";

/// An MCP server exposing every tool of a [`ToolRegistry`] over one [`Verity`].
/// Cheap to clone (one per HTTP session).
#[derive(Clone)]
pub struct VerityMcp {
    verity: Arc<Verity>,
    registry: Arc<ToolRegistry>,
    tools: Arc<Vec<Tool>>,
}

impl std::fmt::Debug for VerityMcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerityMcp")
            .field("tools", &self.tools.len())
            .finish()
    }
}

impl VerityMcp {
    /// A server over `verity` exposing `registry`'s tools.
    pub fn new(verity: Arc<Verity>, registry: Arc<ToolRegistry>) -> Self {
        let tools = registry.tools().iter().map(describe).collect();
        Self {
            verity,
            registry,
            tools: Arc::new(tools),
        }
    }

    /// The tool descriptions `tools/list` answers.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }
}

/// A registry tool as an MCP tool description.
fn describe(t: &verity::tools::Tool) -> Tool {
    let ToolHints {
        read_only,
        open_world,
        idempotent,
    } = t.tool_hints();
    let annotations = ToolAnnotations::with_title(t.title())
        .read_only(read_only)
        .destructive(false)
        .idempotent(idempotent)
        .open_world(open_world);
    Tool::new(
        t.name(),
        t.description(),
        Arc::new(t.input_schema().clone()),
    )
    .with_title(t.title())
    .with_raw_output_schema(Arc::new(t.output_schema().clone()))
    .with_annotations(annotations)
}

impl ServerHandler for VerityMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("verity", env!("CARGO_PKG_VERSION")).with_title("Verity"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let result = match self.registry.call(&self.verity, &request.name, args).await {
            Ok(out) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(out.text)]);
                r.structured_content = Some(out.structured);
                Ok(r)
            }
            Err(e) => to_mcp(e),
        }?;
        Ok(result.into())
    }
}

/// Serve `registry`'s tools over stdin/stdout until the client disconnects.
/// Logs must go to stderr: stdout carries the protocol. A line that is not a
/// JSON-RPC message is answered with its JSON-RPC error (`-32700`, `-32600`)
/// and the session goes on.
pub async fn serve_stdio(verity: Arc<Verity>, registry: Arc<ToolRegistry>) -> Result<()> {
    serve_streams(verity, registry, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`serve_stdio`] over any pair of streams (a pipe, a socket, a test's duplex).
pub async fn serve_streams<R, W>(
    verity: Arc<Verity>,
    registry: Arc<ToolRegistry>,
    input: R,
    output: W,
) -> Result<()>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let io = crate::stdio::filtered(input, output);
    let served = VerityMcp::new(verity, registry)
        .serve((io.read, io.write))
        .await
        .map_err(|e| Error::invalid_input(format!("MCP initialization failed: {e}")));
    let running = served?;
    let ended = running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| Error::invalid_input(format!("MCP session ended abnormally: {e}")));
    // Every answer written before returning (the filter's errors included);
    // bounded, in case the session ended while the input stays open.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), io.done).await;
    ended
}
