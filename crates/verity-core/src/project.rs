//! AuraCore project records (seed 000, "outils existants"): projects, their
//! context entries, tasks with dependencies, and project decisions; the
//! [`ProjectStore`] trait that keeps them.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rules::{string_enum, Priority};
use crate::Result;

/// Life cycle of a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProjectStatus {
    /// Being worked on (default).
    Active,
    /// On hold.
    Paused,
    /// Done.
    Completed,
    /// Kept for reference.
    Archived,
}
string_enum!(ProjectStatus, "status", { Active => "active", Paused => "paused", Completed => "completed", Archived => "archived" });

/// A project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Project {
    /// Id (`prj_…`).
    pub id: String,
    /// Name (unique is not required).
    pub name: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Status.
    pub status: ProjectStatus,
    /// Free tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last changed.
    pub updated_at: DateTime<Utc>,
}

/// A piece of project context (notes, specs, excerpts) that `query_context`
/// retrieves from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextEntry {
    /// Id (`ctx_…`).
    pub id: String,
    /// Project it belongs to.
    pub project_id: String,
    /// Optional title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The text.
    pub content: String,
    /// Free tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Created.
    pub created_at: DateTime<Utc>,
}

/// State of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not started (default).
    Todo,
    /// Started.
    InProgress,
    /// Waiting on something outside the dependency graph.
    Blocked,
    /// Finished.
    Done,
    /// Dropped (counts as finished for dependants).
    Cancelled,
}
string_enum!(TaskStatus, "status", { Todo => "todo", InProgress => "in_progress", Blocked => "blocked", Done => "done", Cancelled => "cancelled" });

impl TaskStatus {
    /// Done or cancelled: no longer holds dependants back.
    pub fn is_finished(self) -> bool {
        matches!(self, TaskStatus::Done | TaskStatus::Cancelled)
    }
}

/// A task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// Id (`tsk_…`).
    pub id: String,
    /// Project it belongs to.
    pub project_id: String,
    /// Title.
    pub title: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Priority.
    pub priority: Priority,
    /// Status.
    pub status: TaskStatus,
    /// Ids of tasks (same project) that must be finished first.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last changed.
    pub updated_at: DateTime<Utc>,
}

/// A decision recorded on a project (`log_decision`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectDecision {
    /// Id (`pdc_…`, time-ordered).
    pub id: String,
    /// Project.
    pub project_id: String,
    /// The decision.
    pub decision: String,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Options that were considered.
    #[serde(default)]
    pub alternatives: Vec<String>,
    /// Free tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// Where AuraCore projects, context, tasks and decisions are kept.
/// Removing things other than context entries is not part of the contract
/// (decisions are an audit log).
#[async_trait]
pub trait ProjectStore: Send + Sync {
    /// Create or replace a project.
    async fn put_project(&self, project: &Project) -> Result<()>;
    /// One project.
    async fn project(&self, id: &str) -> Result<Option<Project>>;
    /// Every project, oldest first.
    async fn projects(&self) -> Result<Vec<Project>>;
    /// Add a context entry (its project must exist).
    async fn put_context(&self, entry: &ContextEntry) -> Result<()>;
    /// One context entry.
    async fn context(&self, id: &str) -> Result<Option<ContextEntry>>;
    /// Context entries of a project, oldest first.
    async fn contexts(&self, project_id: &str) -> Result<Vec<ContextEntry>>;
    /// Delete a context entry; `false` when it did not exist.
    async fn delete_context(&self, id: &str) -> Result<bool>;
    /// Create or replace a task.
    async fn put_task(&self, task: &Task) -> Result<()>;
    /// One task.
    async fn task(&self, id: &str) -> Result<Option<Task>>;
    /// Tasks of a project, oldest first.
    async fn tasks(&self, project_id: &str) -> Result<Vec<Task>>;
    /// Append a project decision.
    async fn append_project_decision(&self, decision: &ProjectDecision) -> Result<()>;
    /// Decisions of a project, oldest first, the most recent `limit`.
    async fn project_decisions(
        &self,
        project_id: &str,
        limit: usize,
    ) -> Result<Vec<ProjectDecision>>;
}
