//! Python bindings of Verity (`import verity`): a thin shell over
//! [`verity::Verity`]. Each method converts its arguments (`conv`), calls the
//! Rust API on the shared tokio runtime with the GIL released, and converts
//! the result (`types`). Every call has an `a`-prefixed asyncio variant.

#[macro_use]
mod twins;
mod conv;
mod memory;
mod projects;
mod research;
mod results;
mod stream;
mod types;
mod verify;
mod watch;

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use verity::api::{
    AskRequest, ConfigOverrides, DeleteRequest, FetchRequest, IngestRequest, SearchRequest,
};

use conv::{block, spawn, Json};
use results::{AddReferenceResult, CheckReport, FetchedSource, KnowledgeEntry, ResearchReport};
use types::{plain, wrap, Answer, Document, IngestOutcome, SearchResults, Stats};

/// An open Verity store (documents, indexes, caches, embedder, generators).
/// Safe to share between threads and asyncio tasks.
#[pyclass(frozen, module = "verity")]
pub struct Store {
    inner: conv::Handle,
}

impl From<verity::Verity> for Store {
    fn from(v: verity::Verity) -> Self {
        Self {
            inner: conv::Handle::new(v),
        }
    }
}

fn documents(py: Python<'_>, docs: &Bound<'_, PyAny>) -> PyResult<Vec<verity::Document>> {
    if docs.cast::<PyList>().is_err() && docs.cast::<pyo3::types::PyTuple>().is_err() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "docs must be a list of dicts or verity.Document",
        ));
    }
    docs.try_iter()?.map(|d| conv::document(py, &d?)).collect()
}

/// `Store.open(path, **kwargs)` as [`ConfigOverrides`]: `path` (a directory
/// or a `redis://` URL) is its `home`, the keywords its other fields.
fn overrides(
    py: Python<'_>,
    path: Option<PathBuf>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<ConfigOverrides> {
    let home = path.map(|p| Value::String(p.to_string_lossy().into_owned()));
    conv::request(py, "open", &[("home", home.unwrap_or_default())], kwargs)
}

fn ask_request(
    py: Python<'_>,
    question: String,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<AskRequest> {
    conv::request(py, "ask", &[("query", Value::String(question))], kwargs)
}

fn paths_request(paths: Vec<PathBuf>, strict: bool) -> IngestRequest {
    IngestRequest::paths(
        paths.iter().map(|p| p.to_string_lossy().into_owned()),
        strict,
    )
}

twins! {
    impl Store {
        /// Ingest documents (dicts in the Verity's document schema or `Document`s).
        fn ingest / aingest (docs: &Bound<'py, PyAny>) signature (docs) -> IngestOutcome
            => wrap::<_, IngestOutcome>;
            |v, py| {
                let req = IngestRequest::documents(documents(py, docs)?);
                async move { v.ingest(req, &|_| {}).await }
            }

        /// Read and ingest files and directories (JSONL, BEIR, Markdown, text).
        fn ingest_paths / aingest_paths (paths: Vec<PathBuf>, strict: bool)
            signature (paths, strict = false) -> IngestOutcome
            => wrap::<_, IngestOutcome>;
            |v, py| {
                let req = paths_request(paths, strict);
                async move { v.ingest(req, &|_| {}).await }
            }

        /// Search (lexical, dense or hybrid) with re-rank and guardrail. The
        /// keywords are the fields of the api's `SearchRequest` (`k`, `mode`,
        /// `sources`, `tags`, `tags_all`, `langs`, `uids`, `metadata`, `since`,
        /// `until`, `filters`), with its defaults.
        fn search / asearch (query: String; **kwargs)
            signature (query, **kwargs) -> SearchResults
            => wrap::<_, SearchResults>;
            |v, py| {
                let req: SearchRequest = conv::request(py, "search", &[("query", Value::String(query))], kwargs)?;
                async move { v.search(&req).await }
            }

        /// Answer a question from the sources, with citations. The keywords
        /// are the fields of the api's `AskRequest` (`lang`, `k`, `mode`, the
        /// filters of `search`, `no_cache`, `verify`), with its defaults;
        /// `verify` checks the answer against its sources first: "flag"
        /// (default: unsupported sentences marked), "strip" (removed) or "off".
        fn ask / aask (question: String; **kwargs)
            signature (question, **kwargs) -> Answer
            => wrap::<_, Answer>;
            |v, py| {
                let req = ask_request(py, question, kwargs)?;
                async move { v.ask(&req).await }
            }

        /// One document by uid, or `None`.
        fn get / aget (uid: String) signature (uid) -> Option<Document>
            => types::maybe_document;
            |v, py| {
                async move { v.get(&uid).await }
            }

        /// Delete documents by uid; returns how many existed.
        fn delete / adelete (uids: Vec<String>) signature (uids) -> usize
            => |r: verity::api::DeleteResponse| Ok(r.deleted);
            |v, py| {
                let req = DeleteRequest { uids };
                async move { v.delete(&req).await }
            }

        /// Counts and configuration.
        fn stats / astats () signature () -> Stats
            => wrap::<_, Stats>;
            |v, py| {
                async move { v.stats().await }
            }

        /// Check that each cited source supports the claim citing it: a `CheckReport`.
        fn check / acheck (content: Option<String>; **kwargs)
            signature (content = None, **kwargs) -> CheckReport
            => wrap::<_, CheckReport>;
            |v, py| {
                let req = verify::request(py, content, kwargs)?;
                let quiet = verity::api::verify::ignore_progress;
                async move { v.check(&req, &quiet).await }
            }

        /// Research a syllabus: brief, plan, sub-agents, a report
        /// whose cited sentences are checked; a `ResearchReport`. The
        /// keywords are the fields of the api's `ResearchOptions` (`run_dir`,
        /// `knowledge_dir`, `allow_private`, `remove_unsupported`, `replay`,
        /// `judge`, `budget_secs`), with its defaults. With `replay=True`,
        /// re-run the writer and checks of `run_dir` offline.
        fn research / aresearch (syllabus: Option<PathBuf>; **kwargs)
            signature (syllabus = None, **kwargs) -> ResearchReport
            => wrap::<_, ResearchReport>;
            |v, py| {
                let opts = conv::request(py, "research", &[], kwargs)?;
                research::research(v, syllabus.unwrap_or_default(), opts)
            }

        /// The knowledge-base entry of file `filename` (a `KnowledgeEntry`),
        /// or `None`; `knowledge_dir` (of `ResearchOptions`) defaults to the
        /// configured knowledge base, `<home>/knowledge`.
        fn find_by_name / afind_by_name (filename: String; **kwargs)
            signature (filename, **kwargs) -> Option<KnowledgeEntry>
            => |e: Option<verity::api::research::KnowledgeEntryView>| Ok(e.map(KnowledgeEntry::from));
            |v, py| {
                let (req, opts) = conv::request_and_options(
                    py, "find_by_name", &[("filename", Value::String(filename))], kwargs,
                    research::FIND_BY_NAME_OPTIONS,
                )?;
                research::find_by_name(v, req, opts)
            }

        /// Add a reference to the knowledge base: `url` (downloaded, saved as
        /// Markdown, indexed once) or `filename` (a file already in the
        /// knowledge base directory); an `AddReferenceResult`. The keywords
        /// are the fields of the api's `AddReferenceRequest` (`filename`,
        /// `title`, `description`, `keywords`) and `knowledge_dir`,
        /// `allow_private` of its `ResearchOptions`.
        fn add_reference / aadd_reference (url: Option<String>; **kwargs)
            signature (url = None, **kwargs) -> AddReferenceResult
            => wrap::<_, AddReferenceResult>;
            |v, py| {
                let url = url.map(Value::String).unwrap_or_default();
                let (req, opts) = conv::request_and_options(
                    py, "add_reference", &[("url", url)], kwargs,
                    research::ADD_REFERENCE_OPTIONS,
                )?;
                research::add_reference(v, req, opts)
            }

        /// Call a tool of the registry by name with a dict of arguments — the
        /// tech-watch tools (`get_veille_rules`, `check_article_exists`,
        /// `verify_fact`, `log_article`, …), the AuraCore project tools, `search`, … —
        /// and return its structured response.
        fn call_tool / acall_tool (name: String, args: Option<&Bound<'py, PyAny>>)
            signature (name, args = None) -> Json
            => |r| Ok(Json(r));
            |v, py| {
                let args = args.map(conv::py_to_json).transpose()?.unwrap_or_default();
                async move { v.call_tool(&name, args).await }
            }
    }
    plain {
    /// Open (or create) a store: `path` is a directory (embedded SQLite) or a
    /// `redis://` URL; the keywords are the fields of the api's
    /// `ConfigOverrides` (`index`, `embedder`, `generator`, `fallback`, `k`,
    /// `min_relevance`, `cache`, …). Unset ones come from the environment
    /// (`VERITY_HOME`, `VERITY_EMBEDDER`, …) and then the defaults.
    #[staticmethod]
    #[pyo3(signature = (path = None, **kwargs))]
    fn open(
        py: Python<'_>,
        path: Option<PathBuf>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Store> {
        let o = overrides(py, path, kwargs)?;
        block(py, async move { verity::Verity::open_with(&o).await }).map(Store::from)
    }

    /// Async [`Store.open`].
    #[staticmethod]
    #[pyo3(signature = (path = None, **kwargs))]
    fn aopen<'py>(
        py: Python<'py>,
        path: Option<PathBuf>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let o = overrides(py, path, kwargs)?;
        spawn(
            py,
            async move { verity::Verity::open_with(&o).await },
            wrap::<_, Store>,
        )
    }

    /// Answer a question, streaming the text: iterate over the returned
    /// `AnswerStream` for the text as it is generated (`for delta in
    /// store.ask_stream(q): print(delta, end="")`), or `async for` it; its
    /// `answer` is the final `Answer` (cleaned text, citations) once the
    /// stream ends. Same options as [`Store.ask`].
    #[pyo3(signature = (question, **kwargs))]
    fn ask_stream(
        &self,
        py: Python<'_>,
        question: String,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<stream::AnswerStream> {
        let req = ask_request(py, question, kwargs)?;
        Ok(stream::AnswerStream::start(self.inner.get()?, req))
    }

    /// The event memory: `add`, `get`, `search`, `update_metadata`,
    /// `delete`, `remember`, `recall`, `forget`.
    #[getter]
    fn memory(&self) -> memory::Memory {
        memory::Memory {
            inner: self.inner.clone(),
        }
    }

    /// The technology watch: `get_veille_rules`,
    /// `update_veille_rule`, `score_article`, `check_article_exists`,
    /// `log_article`, `get_articles`, `log_veille_decision`,
    /// `get_veille_decisions`, `web_search`, `crawl_url`, `verify_fact`.
    #[getter]
    fn watch(&self) -> watch::Watch {
        watch::Watch {
            inner: self.inner.clone(),
        }
    }

    /// The AuraCore project tools: `create_project`,
    /// `list_projects`, `get_project`, `update_project`, `store_context`,
    /// `query_context`, `delete_context`, `create_task`, `update_task`,
    /// `get_next_tasks`, `log_decision`, `get_decisions`.
    #[getter]
    fn projects(&self) -> projects::Projects {
        projects::Projects {
            inner: self.inner.clone(),
        }
    }

    /// Warnings gathered while opening (lexical-only mode, embedder mismatch, …).
    #[getter]
    fn notes(&self) -> PyResult<Vec<String>> {
        Ok(self.inner.get()?.notes().to_vec())
    }

    /// Where the store lives: its directory, or the Redis URL (password masked).
    #[getter]
    fn home(&self) -> PyResult<String> {
        Ok(self.inner.get()?.location())
    }

    /// Benchmark helper (not API): run the same lexical search `n` times
    /// inside Rust and return the seconds spent, the baseline of the binding
    /// overhead figures in docs/benchmarks.d/bindings.md.
    #[pyo3(signature = (query, n, mode = "lexical"))]
    fn _bench_search(&self, py: Python<'_>, query: String, n: usize, mode: &str) -> PyResult<f64> {
        let q = SearchRequest {
            mode: Some(mode.parse().map_err(|e| conv::to_pyerr(py, e))?),
            ..SearchRequest::new(query)
        };
        let v = self.inner.get()?;
        block(py, async move {
            let t = std::time::Instant::now();
            for _ in 0..n {
                v.search(&q).await?;
            }
            Ok(t.elapsed().as_secs_f64())
        })
    }

    fn __repr__(&self) -> String {
        match self.inner.peek() {
            Some(v) => format!(
                "Store(home={:?}, index={:?})",
                v.location(),
                v.config().index
            ),
            None => "Store(closed)".into(),
        }
    }

    /// Flush the store and release it; later calls raise `VerityError`.
    /// Closing twice is allowed. `with verity.Store.open(...) as store:`
    /// closes on leaving the block.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match self.inner.take() {
            Some(v) => block(py, async move { v.flush().await }),
            None => Ok(()),
        }
    }

    /// Async [`Store.close`]; `async with` closes with it.
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = self.inner.take();
        spawn(
            py,
            async move {
                match v {
                    Some(v) => v.flush().await,
                    None => Ok(()),
                }
            },
            |()| Ok(()),
        )
    }

    /// Whether [`Store.close`] was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.peek().is_none()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __aenter__<'py>(slf: Py<Self>, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pyo3_async_runtimes::tokio::future_into_py(py, async move { Ok(slf) })
    }

    #[pyo3(signature = (*_exc))]
    fn __aexit__<'py>(
        &self,
        py: Python<'py>,
        _exc: &Bound<'py, pyo3::types::PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.inner.take();
        spawn(
            py,
            async move {
                match v {
                    Some(v) => v.flush().await,
                    None => Ok(()),
                }
            },
            |()| Ok(false),
        )
    }
    }
}

module_twins! {
    /// Fetch a URL (SSRF guard on unless `allow_private`) or parse a local
    /// file: the fields of the api's `FetchRequest`; a `FetchedSource`.
    fn fetch / afetch (target: String; **kwargs)
        signature (target, **kwargs) -> FetchedSource
        => wrap::<_, FetchedSource>;
        |py| {
            let req: FetchRequest = conv::request(py, "fetch", &[("target", Value::String(target))], kwargs)?;
            async move { verity::sources::fetch(&req).await }
        }
}

/// The error table of `verity::api::error`: one dict per error code with its
/// exit code, HTTP status, Python class, JS code and JSON-RPC code.
#[pyfunction]
fn _error_table() -> PyResult<Json> {
    plain(verity::api::error::TABLE)
}

/// The native module `verity._verity`.
#[pymodule]
fn _verity(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Store>()?;
    m.add_class::<Document>()?;
    m.add_class::<types::Chunk>()?;
    m.add_class::<types::Hit>()?;
    m.add_class::<SearchResults>()?;
    m.add_class::<types::Citation>()?;
    m.add_class::<Answer>()?;
    m.add_class::<IngestOutcome>()?;
    m.add_class::<Stats>()?;
    m.add_class::<types::StoreStats>()?;
    m.add_class::<stream::AnswerStream>()?;
    m.add_class::<memory::Memory>()?;
    m.add_class::<memory::Event>()?;
    m.add_class::<memory::EventPage>()?;
    m.add_class::<watch::Watch>()?;
    m.add_class::<projects::Projects>()?;
    m.add_class::<results::FetchedSource>()?;
    m.add_class::<results::ParsedDocument>()?;
    m.add_class::<results::PageSpan>()?;
    m.add_class::<results::CheckReport>()?;
    m.add_class::<results::CheckSummary>()?;
    m.add_class::<results::CheckStatistics>()?;
    m.add_class::<results::UnavailableSource>()?;
    m.add_class::<results::CheckResult>()?;
    m.add_class::<results::CheckLocation>()?;
    m.add_class::<results::QuoteContext>()?;
    m.add_class::<results::Passage>()?;
    m.add_class::<results::AnswerVerification>()?;
    m.add_class::<results::SentenceVerdict>()?;
    m.add_class::<results::ResearchReport>()?;
    m.add_class::<results::ThemeCoverage>()?;
    m.add_class::<results::ResearchReference>()?;
    m.add_class::<results::StepTiming>()?;
    m.add_class::<results::KnowledgeEntry>()?;
    m.add_class::<results::AddReferenceResult>()?;
    m.add_class::<results::RulesResponse>()?;
    m.add_class::<results::RelevanceRule>()?;
    m.add_class::<results::ScoringGuide>()?;
    m.add_class::<results::UpdateRuleResponse>()?;
    m.add_class::<results::ScoreResult>()?;
    m.add_class::<results::RuleMatch>()?;
    m.add_class::<results::KeywordHit>()?;
    m.add_class::<results::CheckArticleResult>()?;
    m.add_class::<results::ArticleBrief>()?;
    m.add_class::<results::LogArticleResult>()?;
    m.add_class::<results::ArticlesResponse>()?;
    m.add_class::<results::Article>()?;
    m.add_class::<results::LogDecisionResult>()?;
    m.add_class::<results::WatchDecisionsResponse>()?;
    m.add_class::<results::WatchDecision>()?;
    m.add_class::<results::WebSearchResponse>()?;
    m.add_class::<results::WebResult>()?;
    m.add_class::<results::CrawlResponse>()?;
    m.add_class::<results::CrawlLink>()?;
    m.add_class::<results::VerifyFactResult>()?;
    m.add_class::<results::FactSource>()?;
    m.add_class::<results::UnreadSource>()?;
    m.add_class::<results::Project>()?;
    m.add_class::<results::ContextEntry>()?;
    m.add_class::<results::Task>()?;
    m.add_class::<results::ProjectDecision>()?;
    m.add_class::<results::ProjectsResponse>()?;
    m.add_class::<results::ProjectOverview>()?;
    m.add_class::<results::StoreContextResult>()?;
    m.add_class::<results::QueryContextResult>()?;
    m.add_class::<results::ContextHit>()?;
    m.add_class::<results::DeleteContextResult>()?;
    m.add_class::<results::NextTasksResult>()?;
    m.add_class::<results::ProjectDecisionsResponse>()?;
    m.add_function(wrap_pyfunction!(fetch, m)?)?;
    m.add_function(wrap_pyfunction!(afetch, m)?)?;
    m.add_function(wrap_pyfunction!(_error_table, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
