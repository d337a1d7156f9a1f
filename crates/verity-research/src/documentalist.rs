//! The Documentalist sub-agent (the seed's "MCP Dataprep" operations):
//! find a document by name, download a missing reference with the one
//! fetcher, convert it to Markdown, save it, index it in the store once,
//! and fill its summary and keywords.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use verity_core::{
    ChatMessage, ChatRequest, Document, FetchStatus, Fetcher, Generator, VectorStore,
};
use verity_ingest::Ingestor;

use crate::error::{ResearchError, Result};
use crate::extract;
use crate::knowledge::{KnowledgeBase, KnowledgeEntry};
use crate::syllabus::UrlRef;

/// Source tag of knowledge-base documents in the store.
pub const KB_SOURCE: &str = "knowledge_base";

/// What the Documentalist did for one reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocOutcome {
    /// The knowledge-base entry after the operation.
    pub entry: KnowledgeEntry,
    /// `true` when the document was downloaded in this call.
    pub downloaded: bool,
    /// `true` when it was indexed in this call (`false`: already indexed).
    pub indexed: bool,
    /// How summary and keywords were filled (`syllabus`, `extractive`, `llm:<model>`, `kept`).
    pub enriched_by: String,
}

/// Keeps the knowledge base and the store in step.
#[derive(Clone)]
pub struct Documentalist {
    kb: KnowledgeBase,
    store: Arc<dyn VectorStore>,
    ingestor: Arc<Ingestor>,
    fetcher: Option<Arc<dyn Fetcher>>,
    generator: Option<Arc<dyn Generator>>,
    summary_tokens: u32,
}

/// Tokens of a generated summary and its keywords line (default).
const SUMMARY_TOKENS: u32 = 400;

/// Store uid of a knowledge-base file.
pub fn file_uid(filename: &str) -> String {
    format!("kb:{filename}")
}

impl Documentalist {
    /// A documentalist over `kb`, indexing into `store` with `ingestor`.
    pub fn new(
        kb: KnowledgeBase,
        store: Arc<dyn VectorStore>,
        ingestor: Arc<Ingestor>,
        fetcher: Option<Arc<dyn Fetcher>>,
        generator: Option<Arc<dyn Generator>>,
    ) -> Self {
        Self {
            kb,
            store,
            ingestor,
            fetcher,
            generator,
            summary_tokens: SUMMARY_TOKENS,
        }
    }

    /// The same knowledge base with `generator` writing the summaries (a
    /// run hands its budgeted generator).
    pub(crate) fn with_generator(mut self, generator: Option<Arc<dyn Generator>>) -> Self {
        self.generator = generator;
        self
    }

    /// The generator of the summaries.
    pub(crate) fn generator(&self) -> Option<&Arc<dyn Generator>> {
        self.generator.as_ref()
    }

    /// Cap the tokens of a generated summary (default 400).
    pub fn with_summary_tokens(mut self, n: u32) -> Self {
        self.summary_tokens = n.max(32);
        self
    }

    /// The knowledge base.
    pub fn knowledge_base(&self) -> &KnowledgeBase {
        &self.kb
    }

    /// `find_by_name`: the entry for an internal file, read from disk.
    pub fn find_by_name(&self, name: &str) -> Result<Option<KnowledgeEntry>> {
        self.kb.find_by_name(name)
    }

    /// Make the internal file `name` available: registered in the knowledge
    /// base (a file placed in its directory by hand is registered on first
    /// use) and indexed once.
    pub async fn add_file(&self, name: &str) -> Result<DocOutcome> {
        let path = self
            .kb
            .file_path(name)
            .ok_or_else(|| ResearchError::unavailable(name, "not a plain file name"))?;
        if !path.exists() {
            return Err(ResearchError::unavailable(
                name,
                format!("not in the knowledge base ({})", self.kb.dir().display()),
            ));
        }
        let content = read_markdown(&path)?;
        let (entry, enriched_by) = match self.kb.find_by_name(name)? {
            Some(e) if !e.summary.is_empty() => (e, "kept".to_string()),
            found => {
                let title = found
                    .as_ref()
                    .map(|e| e.title.clone())
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| title_of(&content, name));
                let (summary, keywords, by) = self.enrich(&title, &content).await;
                let entry = KnowledgeEntry {
                    url: found.as_ref().and_then(|e| e.url.clone()),
                    filename: path_name(name),
                    title,
                    keywords: found
                        .as_ref()
                        .map(|e| e.keywords.clone())
                        .filter(|k| !k.is_empty())
                        .unwrap_or(keywords),
                    summary,
                    file_id: found.and_then(|e| e.file_id),
                };
                self.kb.upsert(entry.clone())?;
                (entry, by)
            }
        };
        let (entry, indexed) = self.ensure_indexed(entry, content).await?;
        Ok(DocOutcome {
            entry,
            downloaded: false,
            indexed,
            enriched_by,
        })
    }

    /// Make the long-term reference `r` available: downloaded with the
    /// fetcher when the knowledge base does not have it, saved as Markdown,
    /// registered with the syllabus' title/description/keywords (or
    /// generated ones), and indexed once.
    pub async fn add_url(&self, r: &UrlRef) -> Result<DocOutcome> {
        if let Some(e) = self.kb.find_by_url(&r.url)? {
            if let Some(path) = self.kb.file_path(&e.filename).filter(|p| p.exists()) {
                let content = read_markdown(&path)?;
                let (entry, indexed) = self.ensure_indexed(e, content).await?;
                return Ok(DocOutcome {
                    entry,
                    downloaded: false,
                    indexed,
                    enriched_by: "kept".into(),
                });
            }
        }
        let fetcher = self
            .fetcher
            .as_ref()
            .ok_or_else(|| ResearchError::unavailable(&r.url, "no fetcher configured"))?;
        let url = url::Url::parse(&r.url)
            .map_err(|e| ResearchError::unavailable(&r.url, format!("invalid URL: {e}")))?;
        let fetched = fetcher.fetch(&url).await?;
        let parsed = match (fetched.status, fetched.parsed) {
            (FetchStatus::Fetched, Some(p)) if !p.document.content.trim().is_empty() => p,
            // A paywall marker on a page that served its whole text: the
            // text is there, so it is the reference (a teaser is not).
            (FetchStatus::Paywalled, Some(p)) if full_text(&p.document.content) => p,
            (status, _) => {
                return Err(ResearchError::unavailable(
                    &r.url,
                    fetched
                        .detail
                        .unwrap_or_else(|| format!("fetch status {status:?}")),
                ))
            }
        };
        let title = r
            .title
            .clone()
            .or(parsed.document.title.clone())
            .unwrap_or_else(|| r.url.clone());
        let filename = self.kb.fresh_filename(&r.url, Some(&title))?;
        let content = parsed.document.content;
        let path = self
            .kb
            .file_path(&filename)
            .ok_or_else(|| ResearchError::unavailable(&r.url, "no file name"))?;
        let body = format!("# {title}\n\nSource: <{}>\n\n{content}\n", r.url);
        std::fs::write(&path, &body).map_err(|e| ResearchError::kb(&path, e))?;
        let (summary, keywords, by) = match (&r.description, r.keywords.is_empty()) {
            (Some(d), false) => (d.clone(), r.keywords.clone(), "syllabus".to_string()),
            _ => {
                let (s, k, by) = self.enrich(&title, &content).await;
                let s = r.description.clone().unwrap_or(s);
                let k = if r.keywords.is_empty() {
                    k
                } else {
                    r.keywords.clone()
                };
                (s, k, by)
            }
        };
        let entry = KnowledgeEntry {
            url: Some(r.url.clone()),
            filename,
            title,
            keywords,
            summary,
            file_id: None,
        };
        self.kb.upsert(entry.clone())?;
        let (entry, indexed) = self.ensure_indexed(entry, body).await?;
        Ok(DocOutcome {
            entry,
            downloaded: true,
            indexed,
            enriched_by: by,
        })
    }

    /// Index `entry` unless the store already holds it under its `file_id`.
    async fn ensure_indexed(
        &self,
        mut entry: KnowledgeEntry,
        content: String,
    ) -> Result<(KnowledgeEntry, bool)> {
        let uid = file_uid(&entry.filename);
        if entry.file_id.as_deref() == Some(uid.as_str()) && self.store.get(&uid).await?.is_some() {
            return Ok((entry, false));
        }
        let mut doc = Document::new(uid.clone(), content);
        doc.source = KB_SOURCE.into();
        doc.title = Some(entry.title.clone());
        doc.url = entry.url.clone();
        doc.tags = entry.keywords.clone();
        doc.metadata
            .insert("filename".into(), entry.filename.clone().into());
        let report = self.ingestor.ingest(vec![doc], &|_| {}).await?;
        if let Some(e) = report.errors.first() {
            return Err(ResearchError::unavailable(
                &entry.filename,
                format!("not indexed: {e}"),
            ));
        }
        entry.file_id = Some(uid);
        self.kb.upsert(entry.clone())?;
        Ok((entry, true))
    }

    /// Summary and keywords: by the generator when configured (falling back
    /// to extraction when it fails), else extractive.
    async fn enrich(&self, title: &str, content: &str) -> (String, Vec<String>, String) {
        if let Some(g) = &self.generator {
            let excerpt: String = content.chars().take(6_000).collect();
            let mut req = ChatRequest::new(vec![
                ChatMessage::system(
                    "You summarise documents for a research knowledge base. Answer with a \
                     summary of at most three sentences, then one line `Keywords: k1, k2, k3, k4, k5`.",
                ),
                ChatMessage::user(format!("Title: {title}\n\n{excerpt}")),
            ]);
            req.params.max_tokens = self.summary_tokens;
            if let Ok(out) = g.generate(&req).await {
                let mut summary = String::new();
                let mut kws = Vec::new();
                for line in out.text.lines() {
                    let l = line.trim();
                    if let Some(k) = l
                        .strip_prefix("Keywords:")
                        .or_else(|| l.strip_prefix("keywords:"))
                    {
                        kws = k
                            .split(',')
                            .map(|s| s.trim().to_string())
                            .filter(|s| !s.is_empty())
                            .collect();
                    } else if !l.is_empty() {
                        if !summary.is_empty() {
                            summary.push(' ');
                        }
                        summary.push_str(l);
                    }
                }
                if !summary.is_empty() && !kws.is_empty() {
                    return (summary, kws, format!("llm:{}", g.model()));
                }
            }
        }
        (
            extract::summarize(content, 3),
            extract::keywords(title, content, 8),
            "extractive".into(),
        )
    }
}

fn path_name(name: &str) -> String {
    name.to_string()
}

/// A file's text as Markdown (PDF and HTML through `verity-extract`).
fn read_markdown(path: &std::path::Path) -> Result<String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if matches!(ext.as_str(), "md" | "markdown" | "txt") {
        return std::fs::read_to_string(path).map_err(|e| ResearchError::kb(path, e));
    }
    verity_extract::parse_file(path)
        .map(|p| p.document.content)
        .map_err(|e| ResearchError::kb(path, e))
}

fn title_of(content: &str, name: &str) -> String {
    content
        .lines()
        .find_map(|l| l.trim().strip_prefix("# ").map(|t| t.trim().to_string()))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| {
            name.rsplit_once('.')
                .map_or(name, |(a, _)| a)
                .replace(['_', '-'], " ")
        })
}

/// Whether a paywalled page served its text, not a teaser: at least as many
/// words as the fetcher's truncation threshold.
fn full_text(content: &str) -> bool {
    content.split_whitespace().count() >= verity_fetch::TRUNCATED_WORDS
}
