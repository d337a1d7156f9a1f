//! Typed errors of the research workflow.

use std::path::PathBuf;

/// What can stop a research run (everything else degrades and is recorded
/// in the trace and the report).
#[derive(Debug, thiserror::Error)]
pub enum ResearchError {
    /// The syllabus file could not be read.
    #[error("cannot read syllabus {path}: {message}")]
    SyllabusUnreadable {
        /// File asked for.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The syllabus has no agenda to research (no heading, no theme).
    #[error("syllabus has no themes: {0}")]
    NoThemes(String),
    /// A plan is invalid (XML, schema or evaluator finding).
    #[error("invalid plan: {0}")]
    InvalidPlan(String),
    /// The knowledge base on disk is unreadable or could not be written.
    #[error("knowledge base {path}: {message}")]
    KnowledgeBase {
        /// `knowledge_db.json` or a file next to it.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The run directory could not be written or read back (replay).
    #[error("run directory {path}: {message}")]
    RunDir {
        /// Path involved.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A reference could not be obtained (missing file, dead URL, no fetcher).
    #[error("{what} unavailable: {detail}")]
    SourceUnavailable {
        /// File name or URL.
        what: String,
        /// Why.
        detail: String,
    },
    /// The pipeline is missing a required part.
    #[error("research pipeline misconfigured: {0}")]
    Config(String),
    /// An underlying Verity component failed.
    #[error(transparent)]
    Core(#[from] verity_core::Error),
}

impl ResearchError {
    /// `true` when retrying the same call later may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            ResearchError::Core(e) => e.is_transient(),
            _ => false,
        }
    }

    /// Stable, machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ResearchError::SyllabusUnreadable { .. } => "syllabus_unreadable",
            ResearchError::NoThemes(_) => "syllabus_no_themes",
            ResearchError::InvalidPlan(_) => "invalid_plan",
            ResearchError::KnowledgeBase { .. } => "knowledge_base_error",
            ResearchError::RunDir { .. } => "run_dir_error",
            ResearchError::SourceUnavailable { .. } => "source_unavailable",
            ResearchError::Config(_) => "config_error",
            ResearchError::Core(e) => e.code(),
        }
    }

    pub(crate) fn kb(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        ResearchError::KnowledgeBase {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    pub(crate) fn unavailable(what: impl Into<String>, detail: impl Into<String>) -> Self {
        ResearchError::SourceUnavailable {
            what: what.into(),
            detail: detail.into(),
        }
    }

    pub(crate) fn run_dir(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        ResearchError::RunDir {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

impl From<ResearchError> for verity_core::Error {
    fn from(e: ResearchError) -> Self {
        use verity_core::{ConfigError, Error, InputError};
        match e {
            ResearchError::Core(e) => e,
            ResearchError::SyllabusUnreadable { path, message } => {
                Error::Input(InputError::Unreadable { path, message })
            }
            ResearchError::Config(message) => Error::Config(ConfigError::Invalid {
                key: "research".into(),
                message,
            }),
            other => Error::invalid_input(other.to_string()),
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = ResearchError> = std::result::Result<T, E>;
