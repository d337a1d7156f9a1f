//! A standalone MCP streamable-HTTP server over a store, for client tests,
//! the conformance suite and the benchmark (the REST server mounts the same
//! router at `/mcp` behind its auth and limits).
//!
//! ```text
//! cargo run -p verity-ai-mcp --example mcp_http -- [--addr 127.0.0.1:0] [--stateless] [--root DIR]…
//! ```
//! The store is `VERITY_HOME` (and the rest of the `VERITY_*` environment).
//! Prints `listening on http://ADDR/mcp` once bound.

use std::io::Write;
use std::sync::Arc;

use verity::tools::{FileRoots, ToolOptions, ToolRegistry};
use verity::{Verity, VerityConfig};
use verity_mcp::{router, HttpOptions};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_string();
    let mut options = HttpOptions::default();
    let mut roots = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--addr" => addr = args.next().ok_or("--addr needs a value")?,
            "--stateless" => options = HttpOptions::stateless(),
            "--root" => roots.push(args.next().ok_or("--root needs a value")?),
            "--allow-host" => options
                .allowed_hosts
                .push(args.next().ok_or("--allow-host needs a value")?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let verity = Arc::new(Verity::open(VerityConfig::from_env()?).await?);
    let tool_options = ToolOptions {
        file_roots: FileRoots::new(&roots)?,
        ..ToolOptions::default()
    };
    let registry = Arc::new(ToolRegistry::builtin(&tool_options));
    let app = axum::Router::new().nest("/mcp", router(verity, registry, options));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    std::io::stdout().flush()?;
    axum::serve(listener, app).await?;
    Ok(())
}
