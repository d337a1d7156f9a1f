//! Shared test helpers: the fixture syllabus, a loopback server for its
//! web pages, the loopback-allowed fetcher, an in-memory store and a
//! scripted generator.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use verity_core::{
    ChatRequest, Fetcher, FinishReason, Generation, Generator, RetryPolicy, TokenStream, Usage,
    VectorStore,
};
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard};
use verity_research::{ResearchPipeline, ResearchPipelineBuilder};
use verity_store::{SqliteStore, StoreOptions};

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The loopback web server of the fixture pages.
pub struct Server {
    pub base: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl Server {
    pub fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

async fn handle(State(hits): State<Arc<Mutex<HashMap<String, usize>>>>, uri: Uri) -> Response {
    let path = uri.path().to_string();
    *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    // Bad pages: one with no text, one of 5 MB.
    if path == "/empty.html" {
        let body = "<html><head><title>Empty</title></head><body></body></html>";
        return ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    }
    if path == "/huge.html" {
        let para =
            "<p>Agents plan their work and call tools to act on the world around them.</p>\n";
        let body = format!(
            "<html><head><title>Huge</title></head><body>{}</body></html>",
            para.repeat(5 * 1024 * 1024 / para.len())
        );
        return ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    }
    let file = fixtures().join("web").join(path.trim_start_matches('/'));
    if path.contains("..") || !file.is_file() {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
    let body = std::fs::read_to_string(file).unwrap();
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

/// Serve `tests/fixtures/web/` on loopback (404 for anything else).
pub async fn serve() -> Server {
    let hits = Arc::new(Mutex::new(HashMap::new()));
    let app = Router::new().fallback(handle).with_state(hits.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    Server {
        base: format!("http://{addr}"),
        hits,
    }
}

/// The hardened fetcher, allowed on loopback (the `--allow-private` opt-in).
pub fn fetcher() -> Arc<dyn Fetcher> {
    let cfg = FetchConfig::default()
        .with_guard(NetworkGuard::new().allow_cidr("127.0.0.0/8").unwrap())
        .with_robots(false)
        .with_per_host_interval(Duration::ZERO)
        .with_retry(RetryPolicy::none())
        .with_timeout(Duration::from_secs(10));
    Arc::new(HttpFetcher::new(cfg).unwrap())
}

pub fn store() -> Arc<dyn VectorStore> {
    Arc::new(SqliteStore::open_in_memory(StoreOptions::default()).unwrap())
}

/// The fixture syllabus with its URLs pointing at `base`.
pub fn syllabus_text(base: &str) -> String {
    std::fs::read_to_string(fixtures().join("syllabus.md"))
        .unwrap()
        .replace("{BASE}", base)
}

/// A knowledge base directory holding the fixture's internal files.
pub fn knowledge_dir(root: &Path) -> PathBuf {
    let kb = root.join("kb");
    std::fs::create_dir_all(&kb).unwrap();
    for e in std::fs::read_dir(fixtures().join("kb")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), kb.join(e.file_name())).unwrap();
    }
    kb
}

/// A pipeline over `store` and `kb` with the loopback fetcher.
pub fn pipeline(store: Arc<dyn VectorStore>, kb: &Path) -> ResearchPipelineBuilder {
    ResearchPipeline::builder(store, kb).fetcher(Some(fetcher()))
}

type Reply = dyn Fn(usize, &str) -> String + Send + Sync;

/// A generator whose answer is computed from the call number and the
/// prompt (system + user messages), recording the prompts.
pub struct Scripted {
    reply: Box<Reply>,
    calls: AtomicUsize,
    pub prompts: Mutex<Vec<String>>,
}

impl Scripted {
    pub fn new(reply: impl Fn(usize, &str) -> String + Send + Sync + 'static) -> Arc<Self> {
        Arc::new(Self {
            reply: Box::new(reply),
            calls: AtomicUsize::new(0),
            prompts: Mutex::new(Vec::new()),
        })
    }
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Generator for Scripted {
    fn model(&self) -> &str {
        "scripted"
    }
    async fn generate(&self, req: &ChatRequest) -> verity_core::Result<Generation> {
        let i = self.calls.fetch_add(1, Ordering::SeqCst);
        let prompt = req
            .messages
            .iter()
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
            .join("\n");
        self.prompts.lock().unwrap().push(prompt.clone());
        let text = (self.reply)(i, &prompt);
        Ok(Generation {
            text,
            model: "scripted".into(),
            finish_reason: FinishReason::Stop,
            usage: Usage::default(),
        })
    }
    async fn stream(&self, _req: &ChatRequest) -> verity_core::Result<TokenStream> {
        Err(verity_core::Error::invalid_input("not streamed"))
    }
}
