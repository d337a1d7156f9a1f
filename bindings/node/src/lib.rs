//! Node.js bindings of Verity (`import { Verity } from "verity"`): a thin
//! shell over [`verity::Verity`]. Each method converts its arguments
//! (`conv`), awaits the Rust API on napi's tokio runtime and returns plain
//! JSON objects; `node/index.js` wraps the class and maps errors.

// `#[napi]` expands to FFI glue that uses `unsafe`; this crate writes none itself.
#![allow(unsafe_code)]

mod conv;
mod memory;
mod projects;
mod research;
mod stream;
mod verify;
mod watch;

use napi::Result;
use napi_derive::napi;
use serde_json::Value;
use verity::api::{DeleteRequest, FetchRequest, IngestRequest};

use conv::{json, run};
use stream::NativeAnswerStream;

/// An open Verity store (native side; use the `Verity` class of `index.js`).
#[napi]
pub struct NativeVerity {
    inner: conv::Handle,
}

/// Open (or create) a store — a directory (`home`) or Redis (`url: 'redis://…'`);
/// unset options come from the environment, then the defaults.
#[napi]
pub async fn open(opts: Option<Value>) -> Result<NativeVerity> {
    let o = conv::open_options(opts)?;
    let v = run(async move { verity::Verity::open_with(&o).await }).await?;
    Ok(NativeVerity {
        inner: conv::Handle::new(v),
    })
}

/// The error table of `verity::api::error` (one object per error code).
#[napi]
pub fn error_table() -> Result<Value> {
    json(&verity::api::error::TABLE)
}

/// Fetch a URL (SSRF guard on unless `allowPrivate`) or parse a local file;
/// the options object is the api's `FetchRequest` without `target`.
#[napi]
pub async fn fetch(target: String, options: Option<Value>) -> Result<Value> {
    let req: FetchRequest = conv::request(options, "target", target, "fetch")?;
    let src = run(async move { verity::sources::fetch(&req).await }).await?;
    json(&src)
}

#[napi]
impl NativeVerity {
    /// Ingest documents (objects in the Verity's document schema).
    #[napi]
    pub async fn ingest(&self, docs: Value) -> Result<Value> {
        let docs: Vec<verity::Document> = conv::value(docs, "documents")?;
        let v = self.inner.get()?;
        let req = IngestRequest::documents(docs);
        let outcome = run(async move { v.ingest(req, &|_| {}).await }).await?;
        json(&outcome)
    }

    /// Read and ingest files and directories.
    #[napi]
    pub async fn ingest_paths(&self, paths: Vec<String>, strict: Option<bool>) -> Result<Value> {
        let v = self.inner.get()?;
        let req = IngestRequest::paths(paths, strict.unwrap_or(false));
        let out = run(async move { v.ingest(req, &|_| {}).await }).await?;
        json(&out)
    }

    /// Search with re-rank and guardrail.
    #[napi]
    pub async fn search(&self, query: String, opts: Option<Value>) -> Result<Value> {
        let req = conv::search_request(query, opts)?;
        let v = self.inner.get()?;
        let res = run(async move { v.search(&req).await }).await?;
        json(&verity::api::SearchResultsView::from(&res))
    }

    /// Answer a question from the sources, with citations.
    #[napi]
    pub async fn ask(&self, question: String, opts: Option<Value>) -> Result<Value> {
        let req = conv::ask_request(question, opts)?;
        let v = self.inner.get()?;
        let ans = run(async move { v.ask(&req).await }).await?;
        json(&ans)
    }

    /// One document by uid, or `null`.
    #[napi]
    pub async fn get(&self, uid: String) -> Result<Value> {
        let v = self.inner.get()?;
        let doc = run(async move { v.get(&uid).await }).await?;
        json(&doc)
    }

    /// Delete documents; resolves to how many existed.
    #[napi]
    pub async fn delete(&self, uids: Vec<String>) -> Result<u32> {
        let v = self.inner.get()?;
        let req = DeleteRequest { uids };
        let r = run(async move { v.delete(&req).await }).await?;
        Ok(u32::try_from(r.deleted).unwrap_or(u32::MAX))
    }

    /// Counts and configuration.
    #[napi]
    pub async fn stats(&self) -> Result<Value> {
        let v = self.inner.get()?;
        let st = run(async move { v.stats().await }).await?;
        json(&st)
    }

    /// Call a tool of the registry by name (the tech-watch tools such as
    /// `verify_fact` or `log_article`, the AuraCore project tools, `search`, …)
    /// and resolve to its structured response, its keys in camelCase like
    /// every result ([`conv::json`]). Argument names may be camelCase
    /// (`sourceType`) or the schema's snake_case (`source_type`).
    #[napi]
    pub async fn call_tool(&self, name: String, args: Option<Value>) -> Result<Value> {
        let v = self.inner.get()?;
        let args = conv::snake_keys(args.unwrap_or_default(), &[]);
        let out = run(async move { v.call_tool(&name, args).await }).await?;
        Ok(conv::camel_keys(out))
    }

    /// Benchmark helper (not API): run the same search `n` times inside Rust
    /// and resolve to the seconds spent (baseline of the overhead figures).
    #[napi]
    pub async fn bench_search(&self, query: String, n: u32, opts: Option<Value>) -> Result<f64> {
        let q = conv::search_request(query, opts)?;
        let v = self.inner.get()?;
        run(async move {
            let t = std::time::Instant::now();
            for _ in 0..n {
                v.search(&q).await?;
            }
            Ok(t.elapsed().as_secs_f64())
        })
        .await
    }

    /// Answer a question, streaming: the text pieces come from the
    /// returned stream's `next()`, then its `answer()` is the final answer.
    #[napi]
    pub fn ask_stream(&self, question: String, opts: Option<Value>) -> Result<NativeAnswerStream> {
        let req = conv::ask_request(question, opts)?;
        Ok(NativeAnswerStream::start(self.inner.get()?, req))
    }

    /// Flush the store and release it; later calls reject (`close()` twice is allowed).
    #[napi]
    pub async fn close(&self) -> Result<()> {
        match self.inner.take() {
            Some(v) => run(async move { v.flush().await }).await,
            None => Ok(()),
        }
    }

    /// Whether `close()` was called.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.inner.get().is_err()
    }

    /// Warnings gathered while opening.
    #[napi(getter)]
    pub fn notes(&self) -> Result<Vec<String>> {
        Ok(self.inner.get()?.notes().to_vec())
    }

    /// Where the store lives: its directory, or the Redis URL (password masked).
    #[napi(getter)]
    pub fn home(&self) -> Result<String> {
        Ok(self.inner.get()?.location())
    }
}
