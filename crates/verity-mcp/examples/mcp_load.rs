//! Load benchmark (not a test): MCP `tools/call search` over streamable HTTP
//! on loopback, bounded in request count and time. Reports throughput, p50,
//! p99 and errors for both HTTP modes (stateless JSON, and sessions with SSE
//! answers).
//!
//! ```text
//! cargo run --release -p verity-ai-mcp --example mcp_load -- [--requests 20000] [--concurrency 16] [--seconds 30]
//! ```
//! The store is a temp home with `examples/data` ingested, lexical unless
//! `VERITY_EMBEDDER` says otherwise. Server and load generator share the
//! machine (and its cores).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use verity::tools::{ToolOptions, ToolRegistry};
use verity::{EmbedderSpec, Verity, VerityConfig};
use verity_mcp::{router, HttpOptions};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp_load","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const QUERIES: &[&str] = &[
    "routing fees",
    "how is the fee of a forward computed",
    "liquidity rebalancing",
    "cache invalidation",
    "pending HTLC limit",
];

struct Run {
    latencies: Vec<Duration>,
    errors: usize,
    wall: Duration,
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut requests = 20_000usize;
    let mut concurrency = 16usize;
    let mut seconds = 30u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().ok_or("missing value")?;
        match a.as_str() {
            "--requests" => requests = v.parse()?,
            "--concurrency" => concurrency = v.parse()?,
            "--seconds" => seconds = v.parse()?,
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let home = tempfile::tempdir()?;
    let mut config = VerityConfig::from_env()?;
    config.home = home.path().to_path_buf();
    if std::env::var("VERITY_EMBEDDER").is_err() {
        config.embedder = EmbedderSpec::None;
    }
    let verity = Verity::open(config).await?;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    verity.ingest_paths(&[data], false, &|_| {}).await?;
    let verity = Arc::new(verity);
    let registry = Arc::new(ToolRegistry::builtin(&ToolOptions::default()));

    println!(
        "MCP tools/call search, loopback, {requests} requests max, {seconds} s max, concurrency {concurrency}"
    );
    println!("| mode | requests | errors | throughput (req/s) | p50 (ms) | p99 (ms) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (label, options) in [
        ("stateless, JSON", HttpOptions::stateless()),
        ("sessions, SSE", HttpOptions::default()),
    ] {
        let app =
            axum::Router::new().nest("/mcp", router(verity.clone(), registry.clone(), options));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/mcp", listener.local_addr()?);
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let run = load(&url, requests, concurrency, Duration::from_secs(seconds)).await?;
        server.abort();
        let mut l = run.latencies;
        l.sort();
        let pct = |p: f64| {
            l.get(((l.len() as f64 * p) as usize).min(l.len().saturating_sub(1)))
                .map(|d| d.as_secs_f64() * 1e3)
                .unwrap_or(f64::NAN)
        };
        println!(
            "| {label} | {} | {} | {:.0} | {:.2} | {:.2} |",
            l.len() + run.errors,
            run.errors,
            l.len() as f64 / run.wall.as_secs_f64(),
            pct(0.50),
            pct(0.99)
        );
    }
    Ok(())
}

/// `concurrency` clients, each with its own session when the server keeps them.
async fn load(
    url: &str,
    requests: usize,
    concurrency: usize,
    limit: Duration,
) -> Result<Run, Box<dyn std::error::Error>> {
    let issued = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..concurrency {
        let url = url.to_string();
        let issued = issued.clone();
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let session = open_session(&http, &url).await;
            let mut lat = Vec::new();
            let mut errors = 0usize;
            let mut i = w;
            while issued.fetch_add(1, Ordering::Relaxed) < requests && started.elapsed() < limit {
                let q = QUERIES[i % QUERIES.len()];
                i += 1;
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"search","arguments":{{"query":"{q}","k":5}}}}}}"#
                );
                let t = Instant::now();
                let mut req = post(&http, &url, body);
                if let Some(s) = &session {
                    req = req.header("mcp-session-id", s);
                }
                let ok = match req.send().await {
                    Ok(r) if r.status().is_success() => r
                        .text()
                        .await
                        .map(|b| b.contains("\"structuredContent\"") && !b.contains("\"isError\":true"))
                        .unwrap_or(false),
                    _ => false,
                };
                if ok {
                    lat.push(t.elapsed());
                } else {
                    errors += 1;
                }
            }
            (lat, errors)
        }));
    }
    let mut run = Run {
        latencies: Vec::new(),
        errors: 0,
        wall: Duration::ZERO,
    };
    for t in tasks {
        let (l, e) = t.await?;
        run.latencies.extend(l);
        run.errors += e;
    }
    run.wall = started.elapsed();
    Ok(run)
}

fn post(http: &reqwest::Client, url: &str, body: String) -> reqwest::RequestBuilder {
    http.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body)
}

/// Initialize; `Some(id)` when the server opened a session.
async fn open_session(http: &reqwest::Client, url: &str) -> Option<String> {
    let r = post(http, url, INIT.into()).send().await.ok()?;
    let id = r
        .headers()
        .get("mcp-session-id")?
        .to_str()
        .ok()?
        .to_string();
    let _ = r.text().await;
    let _ = post(http, url, INITIALIZED.into())
        .header("mcp-session-id", &id)
        .send()
        .await;
    Some(id)
}
