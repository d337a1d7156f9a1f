//! The retrieval sub-agents and the dispatch of a task to its agent.
//!
//! - **Documentalist**: see [`crate::documentalist`].
//! - **FileSearch**: retrieval over the store with the RAG [`Retriever`];
//!   passages are kept verbatim with their source.
//! - **WebSearch**: an ephemeral URL is fetched with the one fetcher (never
//!   added to the knowledge base); with no URL, the configured
//!   [`WebSearch`] finds pages, which are fetched. The passages that best
//!   match the query are kept.
//!
//! The Writer is run by the pipeline once the searches are done.

use std::collections::HashSet;
use std::sync::Arc;

use verity_core::{FetchStatus, Fetcher, SearchMode, SearchQuery, WebQuery, WebSearch};
use verity_rag::Retriever;

use crate::documentalist::{file_uid, Documentalist};
use crate::error::{ResearchError, Result};
use crate::extract;
use crate::plan::{Agent, Task};
use crate::syllabus::UrlRef;
use crate::trace::{Excerpt, SourceKind};

/// What an agent returns for a task.
#[derive(Debug, Clone, Default)]
pub struct AgentOutput {
    /// The task's variable value.
    pub output: String,
    /// Passages retrieved.
    pub excerpts: Vec<Excerpt>,
    /// Source keys touched.
    pub sources: Vec<String>,
}

/// The sub-agents a run can call.
#[derive(Clone)]
pub struct Agents {
    pub(crate) documentalist: Documentalist,
    pub(crate) retriever: Arc<Retriever>,
    pub(crate) lexical_only: bool,
    pub(crate) fetcher: Option<Arc<dyn Fetcher>>,
    pub(crate) web: Option<Arc<dyn WebSearch>>,
    pub(crate) k: usize,
}

/// Passages kept per fetched web page.
const WEB_PASSAGES: usize = 3;
/// Characters of a task's variable value.
const OUTPUT_CHARS: usize = 4_000;

impl Agents {
    /// Run `task` with its substituted arguments `input`.
    pub async fn run(&self, task: &Task, input: &[(String, String)]) -> Result<AgentOutput> {
        let arg = |name: &str| {
            input
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.trim())
                .filter(|v| !v.is_empty())
        };
        match Agent::parse(&task.agent) {
            Some(Agent::Documentalist) => {
                let out = match (arg("url"), arg("name")) {
                    (Some(url), _) => {
                        let r = UrlRef {
                            url: url.to_string(),
                            title: arg("title").map(str::to_string),
                            description: arg("description").map(str::to_string),
                            keywords: arg("keywords")
                                .map(|k| {
                                    k.split(',')
                                        .map(|s| s.trim().to_string())
                                        .filter(|s| !s.is_empty())
                                        .collect()
                                })
                                .unwrap_or_default(),
                            theme: None,
                            line: 0,
                        };
                        self.documentalist.add_url(&r).await?
                    }
                    (None, Some(name)) => self.documentalist.add_file(name).await?,
                    (None, None) => {
                        return Err(ResearchError::InvalidPlan(format!(
                            "task {}: Documentalist needs a name or a url",
                            task.id
                        )))
                    }
                };
                let mut sources = vec![out.entry.filename.clone()];
                sources.extend(out.entry.url.clone());
                Ok(AgentOutput {
                    output: out.entry.filename.clone(),
                    excerpts: Vec::new(),
                    sources,
                })
            }
            Some(Agent::FileSearch) => {
                let query = arg("query").unwrap_or_default();
                let files: Vec<String> = arg("files")
                    .map(|f| {
                        f.split_whitespace()
                            .filter(|x| !x.starts_with("#E"))
                            .map(file_uid)
                            .collect()
                    })
                    .unwrap_or_default();
                let k = arg("k")
                    .and_then(|k| k.parse::<usize>().ok())
                    .unwrap_or(self.k);
                self.file_search(query, files, k).await
            }
            Some(Agent::WebSearch) => {
                let query = arg("query").unwrap_or_default();
                self.web_search(query, arg("url")).await
            }
            Some(Agent::Writer) => Err(ResearchError::InvalidPlan(format!(
                "task {}: the Writer is run by the pipeline, not the executor",
                task.id
            ))),
            None => Err(ResearchError::InvalidPlan(format!(
                "task {}: unknown agent `{}`",
                task.id, task.agent
            ))),
        }
    }

    async fn file_search(&self, query: &str, uids: Vec<String>, k: usize) -> Result<AgentOutput> {
        if query.is_empty() {
            return Err(ResearchError::InvalidPlan(
                "FileSearch with an empty query".into(),
            ));
        }
        let mode = if self.lexical_only {
            SearchMode::Lexical
        } else {
            SearchMode::Hybrid
        };
        let mut q = SearchQuery::new(query).mode(mode).k(k.clamp(1, 50));
        q.filters.uids = uids;
        let res = self.retriever.retrieve(&q).await?;
        let excerpts: Vec<Excerpt> = res
            .hits
            .into_iter()
            .map(|h| Excerpt {
                source: h.doc.uid.clone(),
                title: h.doc.title.clone().unwrap_or_else(|| h.doc.uid.clone()),
                url: h.doc.url.clone(),
                filename: h
                    .doc
                    .metadata
                    .get("filename")
                    .and_then(|v| v.as_str())
                    .map(str::to_string),
                kind: SourceKind::File,
                position: Some(h.chunk.index),
                text: h.chunk.text,
                score: h.score,
            })
            .collect();
        Ok(finish(excerpts))
    }

    async fn web_search(&self, query: &str, url: Option<&str>) -> Result<AgentOutput> {
        let fetcher = self
            .fetcher
            .as_ref()
            .ok_or_else(|| ResearchError::Config("WebSearch needs a fetcher".into()))?;
        let urls: Vec<(String, Option<String>)> = match url {
            Some(u) => vec![(u.to_string(), None)],
            None => {
                let web = self.web.as_ref().ok_or_else(|| {
                    ResearchError::Config("no web search engine configured".into())
                })?;
                let mut wq = WebQuery::new(query);
                wq.num_results = 3;
                web.search(&wq)
                    .await?
                    .into_iter()
                    .take(3)
                    .map(|h| (h.url, Some(h.title)))
                    .collect()
            }
        };
        let qterms = extract::terms(query);
        let mut excerpts = Vec::new();
        let mut failures = Vec::new();
        for (u, hit_title) in urls {
            let parsed = match url::Url::parse(&u) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{u}: {e}"));
                    continue;
                }
            };
            let fetched = fetcher.fetch(&parsed).await?;
            let doc = match (fetched.status, fetched.parsed) {
                (FetchStatus::Fetched, Some(p)) => p.document,
                // A paywall marker on a page that served its whole text.
                (FetchStatus::Paywalled, Some(p))
                    if p.document.content.split_whitespace().count()
                        >= verity_fetch::TRUNCATED_WORDS =>
                {
                    p.document
                }
                (s, _) => {
                    failures.push(format!(
                        "{u}: {}",
                        fetched.detail.unwrap_or_else(|| format!("{s:?}"))
                    ));
                    continue;
                }
            };
            let title = doc.title.clone().or(hit_title).unwrap_or_else(|| u.clone());
            let mut paras: Vec<(f32, usize, String)> = doc
                .content
                .split("\n\n")
                .map(str::trim)
                .filter(|p| !extract::prose_sentences(p).is_empty())
                .enumerate()
                .map(|(i, p)| (extract::overlap(&qterms, p), i, p.to_string()))
                .collect();
            paras.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for (score, i, text) in paras.into_iter().take(WEB_PASSAGES) {
                excerpts.push(Excerpt {
                    source: u.clone(),
                    title: title.clone(),
                    url: Some(u.clone()),
                    filename: None,
                    kind: SourceKind::Web,
                    text,
                    score,
                    position: u32::try_from(i).ok(),
                });
            }
        }
        if excerpts.is_empty() {
            return Err(ResearchError::unavailable(
                url.unwrap_or(query),
                if failures.is_empty() {
                    "no usable passage".to_string()
                } else {
                    failures.join("; ")
                },
            ));
        }
        Ok(finish(excerpts))
    }
}

fn finish(excerpts: Vec<Excerpt>) -> AgentOutput {
    let mut seen = HashSet::new();
    let sources: Vec<String> = excerpts
        .iter()
        .filter(|e| seen.insert(e.source.clone()))
        .map(|e| e.source.clone())
        .collect();
    let mut output = String::new();
    for e in &excerpts {
        if output.len() >= OUTPUT_CHARS {
            break;
        }
        output.push_str(&format!("[{}] {}\n\n", e.title, e.text.trim()));
    }
    let output: String = output.chars().take(OUTPUT_CHARS).collect();
    AgentOutput {
        output,
        excerpts,
        sources,
    }
}
