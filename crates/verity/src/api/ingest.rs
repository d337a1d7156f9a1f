//! Ingest requests and their outcome.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{Document, EmbedderId};
use crate::IngestReport;

/// Ingest documents given inline and/or read from paths and URLs
/// (`verity ingest`, `store.ingest`, `store.ingest_paths`, `POST /ingest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
// The schema says what the hosts refuse: a request must name something.
#[schemars(extend("anyOf" = [
    {"required": ["documents"], "properties": {"documents": {"minItems": 1}}},
    {"required": ["paths"], "properties": {"paths": {"minItems": 1}}}
]))]
pub struct IngestRequest {
    /// Documents (`uid`, `content`, `source`, `ts`, …);
    /// also accepted under the name `batch`.
    #[serde(default, alias = "batch", skip_serializing_if = "Vec::is_empty")]
    pub documents: Vec<Document>,
    /// Files, directories (JSONL, BEIR corpus, Markdown, text, …) and http(s) URLs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Refuse the whole batch, writing nothing, when any record or file cannot
    /// be read (default `false`: skip it and report it).
    #[serde(default)]
    pub strict: bool,
}

impl IngestRequest {
    /// Ingest these documents.
    pub fn documents(documents: Vec<Document>) -> Self {
        Self {
            documents,
            ..Self::default()
        }
    }

    /// Refuse a request that names nothing to ingest (no `documents`, no
    /// `paths`): every host answers the same `invalid_input` error, as the
    /// request's schema (`anyOf` documents or paths) says.
    /// [`crate::Verity::ingest`] and [`crate::tools::FileRoots::confine`]
    /// (the first step of hosts with file roots) call it on the request as
    /// the caller sent it.
    pub fn validate(&self) -> crate::Result<()> {
        if self.documents.is_empty() && self.paths.is_empty() {
            return Err(crate::Error::invalid_input(
                "nothing to ingest: send `documents` (inline documents) or `paths` \
                 (files, directories or http(s) URLs)",
            ));
        }
        Ok(())
    }

    /// Read and ingest these files, directories and URLs.
    pub fn paths<P: Into<String>>(paths: impl IntoIterator<Item = P>, strict: bool) -> Self {
        Self {
            paths: paths.into_iter().map(Into::into).collect(),
            strict,
            ..Self::default()
        }
    }
}

/// What an ingestion did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngestOutcome {
    /// New documents.
    pub inserted: usize,
    /// Documents whose previous version was replaced.
    pub replaced: usize,
    /// Documents skipped because nothing changed.
    pub unchanged: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Records, files or URLs that could not be read (with file and line), skipped.
    pub read_errors: Vec<String>,
    /// Documents refused by the pipeline (empty content, duplicate uid, …).
    pub rejected: Vec<String>,
    /// Files left out because their type is not supported.
    pub skipped_files: Vec<PathBuf>,
    /// `true` when no embedder ran: only the BM25 index was built.
    pub lexical_only: bool,
    /// Embedder used.
    pub embedder: Option<EmbedderId>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Content bytes ingested.
    pub bytes: u64,
    /// Documents with unchanged content re-chunked and re-embedded because
    /// they had been indexed with other settings ([`IngestReport::reprocessed`]).
    #[serde(default)]
    pub reprocessed: usize,
}

impl IngestOutcome {
    /// Add one ingest batch's counts.
    pub fn add(&mut self, r: &IngestReport) {
        self.inserted += r.upsert.inserted;
        self.replaced += r.upsert.replaced;
        self.reprocessed += r.reprocessed;
        self.unchanged += r.upsert.unchanged;
        self.chunks += r.upsert.chunks;
        self.rejected.extend(r.errors.iter().cloned());
        self.bytes += r.bytes;
    }

    /// Something was left out: a record, file or URL unread, a document
    /// refused, a file of an unsupported type (CLI exit status 7).
    pub fn partial(&self) -> bool {
        !self.read_errors.is_empty() || !self.rejected.is_empty() || !self.skipped_files.is_empty()
    }

    /// Documents now stored from this ingestion (new, replaced or unchanged).
    pub fn documents(&self) -> usize {
        self.inserted + self.replaced + self.unchanged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_batch_is_the_documents_field() {
        let r: IngestRequest = serde_json::from_str(
            r#"{"batch": [{"uid": "a", "content": "Routing fees.", "source": "s"}]}"#,
        )
        .unwrap();
        assert_eq!(r.documents.len(), 1);
        assert_eq!(r.documents[0].uid, "a");
        let both = serde_json::from_str::<IngestRequest>(r#"{"batch": [], "documents": []}"#);
        assert!(both.is_err(), "one name per request");
    }

    #[test]
    fn a_request_must_name_something() {
        for empty in [
            IngestRequest::default(),
            IngestRequest::documents(Vec::new()),
            IngestRequest::paths(Vec::<String>::new(), true),
        ] {
            let e = empty.validate().unwrap_err();
            assert_eq!(e.code(), "invalid_input");
            assert!(e.to_string().contains("nothing to ingest"), "{e}");
        }
        assert!(IngestRequest::paths(["notes.md"], false).validate().is_ok());
    }
}
