//! AuraCore operations: projects, context (with retrieval), tasks with
//! dependencies, project decisions.

use std::collections::{HashMap, HashSet};

use chrono::Utc;
use verity_core::watch::new_id;
use verity_core::{
    ContextEntry, Error, Priority, Project, ProjectDecision, ProjectStatus, Result, Task,
    TaskStatus,
};

use crate::api::*;
use crate::text::{fold, words};
use crate::{not_found, required, Watch};

/// Longest context entry, in bytes.
pub const MAX_CONTEXT_BYTES: usize = 1 << 20;
/// Most results per query / tasks per call.
pub const MAX_LIST_LIMIT: usize = 1000;

fn check_limit(limit: usize) -> Result<()> {
    if limit == 0 || limit > MAX_LIST_LIMIT {
        return Err(Error::invalid_input(format!(
            "`limit` must be between 1 and {MAX_LIST_LIMIT}, got {limit}"
        )));
    }
    Ok(())
}

fn tags(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in v {
        let t = t.trim().to_string();
        if !t.is_empty() && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

fn opt_text(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// Word-overlap score of `entry` for the folded query words (0…1), a
/// fallback when no context index is configured.
fn lexical_score(query_words: &HashSet<String>, entry: &ContextEntry) -> f32 {
    if query_words.is_empty() {
        return 0.0;
    }
    let text = fold(&format!(
        "{} {}",
        entry.title.as_deref().unwrap_or(""),
        entry.content
    ));
    let present: HashSet<&str> = words(&text).collect();
    let hits = query_words
        .iter()
        .filter(|w| present.contains(w.as_str()))
        .count();
    hits as f32 / query_words.len() as f32
}

impl Watch {
    async fn existing_project(&self, id: &str) -> Result<Project> {
        self.projects
            .project(id.trim())
            .await?
            .ok_or_else(|| not_found("project", id))
    }

    async fn existing_task(&self, id: &str) -> Result<Task> {
        self.projects
            .task(id.trim())
            .await?
            .ok_or_else(|| not_found("task", id))
    }

    /// `create_project`.
    pub async fn create_project(&self, req: CreateProjectRequest) -> Result<Project> {
        let now = Utc::now();
        let p = Project {
            id: new_id("prj"),
            name: required("name", &req.name)?,
            description: opt_text(req.description),
            status: req.status.unwrap_or(ProjectStatus::Active),
            tags: tags(req.tags),
            created_at: now,
            updated_at: now,
        };
        self.projects.put_project(&p).await?;
        Ok(p)
    }

    /// `list_projects`.
    pub async fn list_projects(&self, req: &ListProjectsRequest) -> Result<ProjectsResponse> {
        let mut projects = self.projects.projects().await?;
        if let Some(s) = req.status {
            projects.retain(|p| p.status == s);
        }
        Ok(ProjectsResponse {
            total: projects.len(),
            projects,
        })
    }

    /// `get_project`: the project, its tasks, context size and recent decisions.
    pub async fn get_project(&self, req: &ProjectRef) -> Result<ProjectOverview> {
        let project = self.existing_project(&req.project_id).await?;
        let tasks = self.projects.tasks(&project.id).await?;
        let context_entries = self.projects.contexts(&project.id).await?.len();
        let recent_decisions = self.projects.project_decisions(&project.id, 10).await?;
        Ok(ProjectOverview {
            project,
            tasks,
            context_entries,
            recent_decisions,
        })
    }

    /// `update_project`: only the given fields change.
    pub async fn update_project(&self, req: UpdateProjectRequest) -> Result<Project> {
        let mut p = self.existing_project(&req.project_id).await?;
        if let Some(n) = req.name {
            p.name = required("name", &n)?;
        }
        if let Some(d) = req.description {
            p.description = opt_text(Some(d));
        }
        if let Some(s) = req.status {
            p.status = s;
        }
        if let Some(t) = req.tags {
            p.tags = tags(t);
        }
        p.updated_at = Utc::now();
        self.projects.put_project(&p).await?;
        Ok(p)
    }

    /// `store_context`: keep a piece of project context (and index it when
    /// a context index is configured).
    pub async fn store_context(&self, req: StoreContextRequest) -> Result<StoreContextResponse> {
        let project = self.existing_project(&req.project_id).await?;
        let content = required("content", &req.content)?;
        if content.len() > MAX_CONTEXT_BYTES {
            return Err(Error::invalid_input(format!(
                "`content` is {} bytes; at most {MAX_CONTEXT_BYTES} are accepted per entry",
                content.len()
            )));
        }
        let entry = ContextEntry {
            id: new_id("ctx"),
            project_id: project.id,
            title: opt_text(req.title),
            content,
            tags: tags(req.tags),
            created_at: Utc::now(),
        };
        self.projects.put_context(&entry).await?;
        let indexed = match &self.context_index {
            Some(ix) => match ix.index_context(&entry).await {
                Ok(()) => Some(true),
                Err(e) => {
                    tracing::warn!(context = %entry.id, error = %e, "context stored but not indexed");
                    Some(false)
                }
            },
            None => None,
        };
        Ok(StoreContextResponse {
            stored: true,
            context_id: entry.id,
            indexed,
        })
    }

    /// `query_context`: retrieval over the project's context entries
    /// (through the context index; word overlap when there is none or it fails).
    pub async fn query_context(&self, req: &QueryContextRequest) -> Result<QueryContextResponse> {
        check_limit(req.limit)?;
        let project = self.existing_project(&req.project_id).await?;
        let query = required("query", &req.query)?;
        let entries = self.projects.contexts(&project.id).await?;
        let mut degraded = None;
        if let Some(ix) = &self.context_index {
            match ix.search_context(&project.id, &query, req.limit).await {
                Ok(hits) => {
                    let by_id: HashMap<&str, &ContextEntry> =
                        entries.iter().map(|e| (e.id.as_str(), e)).collect();
                    let results = hits
                        .into_iter()
                        .filter_map(|(id, score)| {
                            by_id.get(id.as_str()).map(|e| ContextHit {
                                entry: (*e).clone(),
                                score,
                            })
                        })
                        .take(req.limit)
                        .collect();
                    return Ok(QueryContextResponse {
                        results,
                        ran: ContextRanking::Index,
                        degraded: None,
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "context index failed; ranking by word overlap");
                    degraded = Some(format!("context index failed: {e}"));
                }
            }
        }
        let folded = fold(&query);
        let qw: HashSet<String> = words(&folded).map(str::to_string).collect();
        let mut results: Vec<ContextHit> = entries
            .into_iter()
            .map(|e| ContextHit {
                score: lexical_score(&qw, &e),
                entry: e,
            })
            .filter(|h| h.score > 0.0)
            .collect();
        // Best first; among equals, the most recent.
        results.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| b.entry.created_at.cmp(&a.entry.created_at))
        });
        results.truncate(req.limit);
        Ok(QueryContextResponse {
            results,
            ran: ContextRanking::Lexical,
            degraded,
        })
    }

    /// `delete_context`; an unknown id is a not-found error.
    pub async fn delete_context(
        &self,
        req: &DeleteContextRequest,
    ) -> Result<DeleteContextResponse> {
        let id = required("context_id", &req.context_id)?;
        // Read the entry first so that the index can drop it too.
        let Some(entry) = self.projects.context(&id).await? else {
            return Err(not_found("context", &id));
        };
        if !self.projects.delete_context(&id).await? {
            return Err(not_found("context", &id));
        }
        if let Some(ix) = &self.context_index {
            if let Err(e) = ix.remove_context(&entry).await {
                tracing::warn!(context = %id, error = %e, "context deleted but still in the index");
            }
        }
        Ok(DeleteContextResponse {
            deleted: true,
            context_id: id,
        })
    }

    /// Dependencies must exist in the same project and not form a cycle.
    async fn check_dependencies(&self, task: &Task) -> Result<()> {
        let tasks = self.projects.tasks(&task.project_id).await?;
        let mut deps: HashMap<&str, &[String]> = tasks
            .iter()
            .map(|t| (t.id.as_str(), t.depends_on.as_slice()))
            .collect();
        deps.insert(task.id.as_str(), task.depends_on.as_slice());
        for d in &task.depends_on {
            if d == &task.id {
                return Err(Error::invalid_input(format!(
                    "task `{d}` cannot depend on itself"
                )));
            }
            if !deps.contains_key(d.as_str()) {
                return Err(not_found("task", d));
            }
        }
        // Depth-first walk from the task: reaching it again is a cycle.
        let mut stack: Vec<&str> = task.depends_on.iter().map(String::as_str).collect();
        let mut seen: HashSet<&str> = HashSet::new();
        while let Some(n) = stack.pop() {
            if n == task.id {
                return Err(Error::invalid_input(format!(
                    "`depends_on` would create a dependency cycle through task `{}`",
                    task.id
                )));
            }
            if seen.insert(n) {
                if let Some(next) = deps.get(n) {
                    stack.extend(next.iter().map(String::as_str));
                }
            }
        }
        Ok(())
    }

    /// `create_task`.
    pub async fn create_task(&self, req: CreateTaskRequest) -> Result<Task> {
        let project = self.existing_project(&req.project_id).await?;
        let now = Utc::now();
        let task = Task {
            id: new_id("tsk"),
            project_id: project.id,
            title: required("title", &req.title)?,
            description: opt_text(req.description),
            priority: req.priority.unwrap_or(Priority::Medium),
            status: req.status.unwrap_or(TaskStatus::Todo),
            depends_on: tags(req.depends_on),
            created_at: now,
            updated_at: now,
        };
        self.check_dependencies(&task).await?;
        self.projects.put_task(&task).await?;
        Ok(task)
    }

    /// `update_task`: only the given fields change.
    pub async fn update_task(&self, req: UpdateTaskRequest) -> Result<Task> {
        let mut t = self.existing_task(&req.task_id).await?;
        if let Some(v) = req.title {
            t.title = required("title", &v)?;
        }
        if let Some(v) = req.description {
            t.description = opt_text(Some(v));
        }
        if let Some(v) = req.priority {
            t.priority = v;
        }
        if let Some(v) = req.status {
            t.status = v;
        }
        if let Some(v) = req.depends_on {
            t.depends_on = tags(v);
            self.check_dependencies(&t).await?;
        }
        t.updated_at = Utc::now();
        self.projects.put_task(&t).await?;
        Ok(t)
    }

    /// `get_next_tasks`: open tasks whose dependencies are all finished,
    /// in progress first, then by priority, then oldest.
    pub async fn get_next_tasks(&self, req: &NextTasksRequest) -> Result<NextTasksResponse> {
        check_limit(req.limit)?;
        let project = self.existing_project(&req.project_id).await?;
        let tasks = self.projects.tasks(&project.id).await?;
        let status: HashMap<&str, TaskStatus> =
            tasks.iter().map(|t| (t.id.as_str(), t.status)).collect();
        let mut ready = Vec::new();
        let (mut waiting, mut blocked) = (0, 0);
        for t in &tasks {
            match t.status {
                TaskStatus::Done | TaskStatus::Cancelled => continue,
                TaskStatus::Blocked => {
                    blocked += 1;
                    continue;
                }
                TaskStatus::Todo | TaskStatus::InProgress => {}
            }
            // A dependency that no longer exists does not hold the task back.
            let deps_done = t
                .depends_on
                .iter()
                .all(|d| status.get(d.as_str()).is_none_or(|s| s.is_finished()));
            if deps_done {
                ready.push(t.clone());
            } else {
                waiting += 1;
            }
        }
        ready.sort_by(|a, b| {
            let started = |t: &Task| t.status != TaskStatus::InProgress;
            started(a)
                .cmp(&started(b))
                .then_with(|| a.priority.cmp(&b.priority))
                .then_with(|| a.created_at.cmp(&b.created_at))
                .then_with(|| a.id.cmp(&b.id))
        });
        ready.truncate(req.limit);
        Ok(NextTasksResponse {
            tasks: ready,
            waiting,
            blocked,
        })
    }

    /// `log_decision` (AuraCore).
    pub async fn log_project_decision(
        &self,
        req: LogProjectDecisionRequest,
    ) -> Result<LogDecisionResponse> {
        let project = self.existing_project(&req.project_id).await?;
        let d = ProjectDecision {
            id: new_id("pdc"),
            project_id: project.id,
            decision: required("decision", &req.decision)?,
            reasoning: opt_text(req.reasoning),
            alternatives: tags(req.alternatives),
            tags: tags(req.tags),
            created_at: Utc::now(),
        };
        self.projects.append_project_decision(&d).await?;
        Ok(LogDecisionResponse {
            logged: true,
            decision_id: d.id,
            created_at: d.created_at,
        })
    }

    /// `get_decisions` (AuraCore).
    pub async fn get_project_decisions(
        &self,
        req: &GetProjectDecisionsRequest,
    ) -> Result<ProjectDecisionsResponse> {
        check_limit(req.limit)?;
        let project = self.existing_project(&req.project_id).await?;
        let decisions = self
            .projects
            .project_decisions(&project.id, req.limit)
            .await?;
        Ok(ProjectDecisionsResponse {
            total: decisions.len(),
            decisions,
        })
    }
}
