//! What a task observed (its output, excerpts and sources) and the JSONL
//! trace of a run.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{ResearchError, Result};

/// Where an excerpt came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A knowledge-base file (through FileSearch).
    File,
    /// A web page (through WebSearch; never added to the knowledge base).
    Web,
}

/// A retrieved passage, verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Excerpt {
    /// Source key: the store uid (`kb:<file>`) or the page URL.
    pub source: String,
    /// Source title.
    pub title: String,
    /// Source URL, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Knowledge-base file name, for internal files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// File or web.
    pub kind: SourceKind,
    /// The passage.
    pub text: String,
    /// Retrieval score.
    #[serde(default)]
    pub score: f32,
    /// Position of the passage in its source (chunk or paragraph number,
    /// 0 = the opening), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u32>,
}

/// Outcome of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Ran and produced output.
    Ok,
    /// Ran and failed (recorded; the run goes on degraded).
    Failed,
    /// Not run (its agent is unknown, or it was cut from an invalid plan).
    Skipped,
}

/// One line of `trace.jsonl`: a task, its input, its output and timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Task id (`E3`).
    pub task: String,
    /// Agent.
    pub agent: String,
    /// Theme served, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Arguments as planned.
    pub args: Vec<(String, String)>,
    /// Arguments after `#E{n}` substitution.
    pub input: Vec<(String, String)>,
    /// Outcome.
    pub status: TaskStatus,
    /// Why it failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The task's variable value (what `#E{n}` is replaced by).
    #[serde(default)]
    pub output: String,
    /// Passages retrieved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excerpts: Vec<Excerpt>,
    /// Source keys touched (file names, URLs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// Milliseconds since the start of the run when the task started.
    pub started_ms: u64,
    /// Duration in milliseconds.
    pub elapsed_ms: u64,
}

/// Appends records to `trace.jsonl` as tasks finish.
#[derive(Debug, Clone)]
pub struct TraceWriter {
    path: PathBuf,
}

/// File name of the trace in a run directory.
pub const TRACE_FILE: &str = "trace.jsonl";

impl TraceWriter {
    /// A writer for `run_dir/trace.jsonl`, truncating any previous trace.
    pub fn create(run_dir: &Path) -> Result<Self> {
        let path = run_dir.join(TRACE_FILE);
        std::fs::write(&path, "").map_err(|e| ResearchError::run_dir(&path, e))?;
        Ok(Self { path })
    }

    /// Append one record.
    pub fn append(&self, r: &TraceRecord) -> Result<()> {
        let line = serde_json::to_string(r).map_err(|e| ResearchError::run_dir(&self.path, e))?;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(|e| ResearchError::run_dir(&self.path, e))?;
        writeln!(f, "{line}").map_err(|e| ResearchError::run_dir(&self.path, e))
    }
}

/// Read a run's trace back (replay).
pub fn read_trace(run_dir: &Path) -> Result<Vec<TraceRecord>> {
    let path = run_dir.join(TRACE_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| ResearchError::run_dir(&path, e))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| ResearchError::run_dir(&path, format!("line {}: {e}", i + 1)))
        })
        .collect()
}
