//! `store.projects`: the AuraCore project tools — projects,
//! context, tasks with dependencies, project decisions — with the tool names
//! of the registry and an `a`-prefixed asyncio variant each. Keyword
//! arguments become the `verity::watch` request types; results are the
//! response types as typed classes (`crate::results`); enum values are parsed by the library, whose
//! errors name the allowed values; an unknown id raises `NotFound`.

use std::sync::Arc;

use pyo3::prelude::*;
use verity::api::watch::{
    CreateProjectRequest, CreateTaskRequest, DeleteContextRequest, DeleteContextResponse,
    GetProjectDecisionsRequest, ListProjectsRequest, LogDecisionResponse,
    LogProjectDecisionRequest, NextTasksRequest, NextTasksResponse, ProjectDecisionsResponse,
    ProjectOverview, ProjectRef, ProjectsResponse, QueryContextRequest, QueryContextResponse,
    StoreContextRequest, StoreContextResponse, UpdateProjectRequest, UpdateTaskRequest,
};
use verity::core::{Priority, Project, ProjectStatus, Task, TaskStatus};
use verity::Verity;

use crate::conv::{block, spawn};
use crate::types::results_enum;
use crate::watch::named;

/// The AuraCore projects of a `Store` (`store.projects`).
#[pyclass(frozen, module = "verity")]
pub struct Projects {
    pub(crate) inner: crate::conv::Handle,
}

/// One project operation with its request.
enum Op {
    Create(CreateProjectRequest),
    List(ListProjectsRequest),
    Get(ProjectRef),
    Update(UpdateProjectRequest),
    StoreContext(StoreContextRequest),
    QueryContext(QueryContextRequest),
    DeleteContext(DeleteContextRequest),
    CreateTask(CreateTaskRequest),
    UpdateTask(UpdateTaskRequest),
    NextTasks(NextTasksRequest),
    LogDecision(LogProjectDecisionRequest),
    Decisions(GetProjectDecisionsRequest),
}

results_enum! {
    /// The response of an [`Op`], returned as its typed result class.
    enum Out {
        Project(Project),
        Projects(ProjectsResponse),
        Overview(Box<ProjectOverview>),
        Stored(StoreContextResponse),
        Context(QueryContextResponse),
        Deleted(DeleteContextResponse),
        Task(Task),
        NextTasks(NextTasksResponse),
        Logged(LogDecisionResponse),
        Decisions(ProjectDecisionsResponse),
    }
}

async fn exec(v: Arc<Verity>, op: Op) -> verity::Result<Out> {
    let w = v.watch().await?;
    Ok(match op {
        Op::Create(r) => Out::Project(w.create_project(r).await?),
        Op::List(r) => Out::Projects(w.list_projects(&r).await?),
        Op::Get(r) => Out::Overview(Box::new(w.get_project(&r).await?)),
        Op::Update(r) => Out::Project(w.update_project(r).await?),
        Op::StoreContext(r) => Out::Stored(w.store_context(r).await?),
        Op::QueryContext(r) => Out::Context(w.query_context(&r).await?),
        Op::DeleteContext(r) => Out::Deleted(w.delete_context(&r).await?),
        Op::CreateTask(r) => Out::Task(w.create_task(r).await?),
        Op::UpdateTask(r) => Out::Task(w.update_task(r).await?),
        Op::NextTasks(r) => Out::NextTasks(w.get_next_tasks(&r).await?),
        Op::LogDecision(r) => Out::Logged(w.log_project_decision(r).await?),
        Op::Decisions(r) => Out::Decisions(w.get_project_decisions(&r).await?),
    })
}

impl Projects {
    fn run(&self, py: Python<'_>, op: Op) -> PyResult<Out> {
        block(py, exec(self.inner.get()?, op))
    }

    fn start<'py>(&self, py: Python<'py>, op: Op) -> PyResult<Bound<'py, PyAny>> {
        spawn(py, exec(self.inner.get()?, op), Ok)
    }
}

fn project_status(py: Python<'_>, s: Option<&str>) -> PyResult<Option<ProjectStatus>> {
    s.map(|s| named(py, s)).transpose()
}

fn create_project(
    py: Python<'_>,
    name: String,
    description: Option<String>,
    status: Option<&str>,
    tags: Option<Vec<String>>,
) -> PyResult<Op> {
    Ok(Op::Create(CreateProjectRequest {
        name,
        description,
        status: project_status(py, status)?,
        tags: tags.unwrap_or_default(),
    }))
}

fn update_project(
    py: Python<'_>,
    project_id: String,
    name: Option<String>,
    description: Option<String>,
    status: Option<&str>,
    tags: Option<Vec<String>>,
) -> PyResult<Op> {
    Ok(Op::Update(UpdateProjectRequest {
        project_id,
        name,
        description,
        status: project_status(py, status)?,
        tags,
    }))
}

/// The `priority` and `status` of a task.
fn task_enums(
    py: Python<'_>,
    priority: Option<&str>,
    status: Option<&str>,
) -> PyResult<(Option<Priority>, Option<TaskStatus>)> {
    Ok((
        priority.map(|p| named(py, p)).transpose()?,
        status.map(|s| named(py, s)).transpose()?,
    ))
}

#[allow(clippy::too_many_arguments)]
fn create_task(
    py: Python<'_>,
    project_id: String,
    title: String,
    description: Option<String>,
    priority: Option<&str>,
    status: Option<&str>,
    depends_on: Option<Vec<String>>,
) -> PyResult<Op> {
    let (priority, status) = task_enums(py, priority, status)?;
    Ok(Op::CreateTask(CreateTaskRequest {
        project_id,
        title,
        description,
        priority,
        status,
        depends_on: depends_on.unwrap_or_default(),
    }))
}

#[allow(clippy::too_many_arguments)]
fn update_task(
    py: Python<'_>,
    task_id: String,
    title: Option<String>,
    description: Option<String>,
    priority: Option<&str>,
    status: Option<&str>,
    depends_on: Option<Vec<String>>,
) -> PyResult<Op> {
    let (priority, status) = task_enums(py, priority, status)?;
    Ok(Op::UpdateTask(UpdateTaskRequest {
        task_id,
        title,
        description,
        priority,
        status,
        depends_on,
    }))
}

fn store_context(
    project_id: String,
    content: String,
    title: Option<String>,
    tags: Option<Vec<String>>,
) -> Op {
    Op::StoreContext(StoreContextRequest {
        project_id,
        content,
        title,
        tags: tags.unwrap_or_default(),
    })
}

fn log_decision(
    project_id: String,
    decision: String,
    reasoning: Option<String>,
    alternatives: Option<Vec<String>>,
    tags: Option<Vec<String>>,
) -> Op {
    Op::LogDecision(LogProjectDecisionRequest {
        project_id,
        decision,
        reasoning,
        alternatives: alternatives.unwrap_or_default(),
        tags: tags.unwrap_or_default(),
    })
}

#[pymethods]
impl Projects {
    /// Create a project (`status`: active, paused, completed or archived;
    /// default active).
    #[pyo3(signature = (name, *, description = None, status = None, tags = None))]
    fn create_project(
        &self,
        py: Python<'_>,
        name: String,
        description: Option<String>,
        status: Option<&str>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Out> {
        self.run(py, create_project(py, name, description, status, tags)?)
    }

    /// Async [`Projects.create_project`].
    #[pyo3(signature = (name, *, description = None, status = None, tags = None))]
    fn acreate_project<'py>(
        &self,
        py: Python<'py>,
        name: String,
        description: Option<String>,
        status: Option<&str>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, create_project(py, name, description, status, tags)?)
    }

    /// Every project, oldest first, optionally with one `status`.
    #[pyo3(signature = (*, status = None))]
    fn list_projects(&self, py: Python<'_>, status: Option<&str>) -> PyResult<Out> {
        let status = project_status(py, status)?;
        self.run(py, Op::List(ListProjectsRequest { status }))
    }

    /// Async [`Projects.list_projects`].
    #[pyo3(signature = (*, status = None))]
    fn alist_projects<'py>(
        &self,
        py: Python<'py>,
        status: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let status = project_status(py, status)?;
        self.start(py, Op::List(ListProjectsRequest { status }))
    }

    /// A project with its tasks, its number of context entries and its
    /// recent decisions.
    fn get_project(&self, py: Python<'_>, project_id: String) -> PyResult<Out> {
        self.run(py, Op::Get(ProjectRef { project_id }))
    }

    /// Async [`Projects.get_project`].
    fn aget_project<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, Op::Get(ProjectRef { project_id }))
    }

    /// Change a project: only the given fields change.
    #[pyo3(signature = (project_id, *, name = None, description = None, status = None, tags = None))]
    fn update_project(
        &self,
        py: Python<'_>,
        project_id: String,
        name: Option<String>,
        description: Option<String>,
        status: Option<&str>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Out> {
        let op = update_project(py, project_id, name, description, status, tags)?;
        self.run(py, op)
    }

    /// Async [`Projects.update_project`].
    #[pyo3(signature = (project_id, *, name = None, description = None, status = None, tags = None))]
    fn aupdate_project<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        name: Option<String>,
        description: Option<String>,
        status: Option<&str>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = update_project(py, project_id, name, description, status, tags)?;
        self.start(py, op)
    }

    /// Keep a piece of project context, found later by `query_context`.
    #[pyo3(signature = (project_id, content, *, title = None, tags = None))]
    fn store_context(
        &self,
        py: Python<'_>,
        project_id: String,
        content: String,
        title: Option<String>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Out> {
        self.run(py, store_context(project_id, content, title, tags))
    }

    /// Async [`Projects.store_context`].
    #[pyo3(signature = (project_id, content, *, title = None, tags = None))]
    fn astore_context<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        content: String,
        title: Option<String>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, store_context(project_id, content, title, tags))
    }

    /// The project's context entries most relevant to `query`, best first,
    /// with how they were ranked.
    #[pyo3(signature = (project_id, query, *, limit = 5))]
    fn query_context(
        &self,
        py: Python<'_>,
        project_id: String,
        query: String,
        limit: usize,
    ) -> PyResult<Out> {
        let req = QueryContextRequest {
            project_id,
            query,
            limit,
        };
        self.run(py, Op::QueryContext(req))
    }

    /// Async [`Projects.query_context`].
    #[pyo3(signature = (project_id, query, *, limit = 5))]
    fn aquery_context<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        query: String,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let req = QueryContextRequest {
            project_id,
            query,
            limit,
        };
        self.start(py, Op::QueryContext(req))
    }

    /// Delete a context entry by id.
    fn delete_context(&self, py: Python<'_>, context_id: String) -> PyResult<Out> {
        self.run(py, Op::DeleteContext(DeleteContextRequest { context_id }))
    }

    /// Async [`Projects.delete_context`].
    fn adelete_context<'py>(
        &self,
        py: Python<'py>,
        context_id: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, Op::DeleteContext(DeleteContextRequest { context_id }))
    }

    /// Create a task (`priority`: critical, high, medium or low; `status`:
    /// todo, in_progress, blocked, done or cancelled; `depends_on`: ids of
    /// tasks of the same project).
    #[pyo3(signature = (project_id, title, *, description = None, priority = None, status = None, depends_on = None))]
    #[allow(clippy::too_many_arguments)]
    fn create_task(
        &self,
        py: Python<'_>,
        project_id: String,
        title: String,
        description: Option<String>,
        priority: Option<&str>,
        status: Option<&str>,
        depends_on: Option<Vec<String>>,
    ) -> PyResult<Out> {
        let op = create_task(
            py,
            project_id,
            title,
            description,
            priority,
            status,
            depends_on,
        )?;
        self.run(py, op)
    }

    /// Async [`Projects.create_task`].
    #[pyo3(signature = (project_id, title, *, description = None, priority = None, status = None, depends_on = None))]
    #[allow(clippy::too_many_arguments)]
    fn acreate_task<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        title: String,
        description: Option<String>,
        priority: Option<&str>,
        status: Option<&str>,
        depends_on: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = create_task(
            py,
            project_id,
            title,
            description,
            priority,
            status,
            depends_on,
        )?;
        self.start(py, op)
    }

    /// Change a task: only the given fields change; a dependency cycle is refused.
    #[pyo3(signature = (task_id, *, title = None, description = None, priority = None, status = None, depends_on = None))]
    #[allow(clippy::too_many_arguments)]
    fn update_task(
        &self,
        py: Python<'_>,
        task_id: String,
        title: Option<String>,
        description: Option<String>,
        priority: Option<&str>,
        status: Option<&str>,
        depends_on: Option<Vec<String>>,
    ) -> PyResult<Out> {
        let op = update_task(
            py,
            task_id,
            title,
            description,
            priority,
            status,
            depends_on,
        )?;
        self.run(py, op)
    }

    /// Async [`Projects.update_task`].
    #[pyo3(signature = (task_id, *, title = None, description = None, priority = None, status = None, depends_on = None))]
    #[allow(clippy::too_many_arguments)]
    fn aupdate_task<'py>(
        &self,
        py: Python<'py>,
        task_id: String,
        title: Option<String>,
        description: Option<String>,
        priority: Option<&str>,
        status: Option<&str>,
        depends_on: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = update_task(
            py,
            task_id,
            title,
            description,
            priority,
            status,
            depends_on,
        )?;
        self.start(py, op)
    }

    /// The open tasks whose dependencies are finished: in progress first,
    /// then by priority, then oldest.
    #[pyo3(signature = (project_id, *, limit = 5))]
    fn get_next_tasks(&self, py: Python<'_>, project_id: String, limit: usize) -> PyResult<Out> {
        self.run(py, Op::NextTasks(NextTasksRequest { project_id, limit }))
    }

    /// Async [`Projects.get_next_tasks`].
    #[pyo3(signature = (project_id, *, limit = 5))]
    fn aget_next_tasks<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, Op::NextTasks(NextTasksRequest { project_id, limit }))
    }

    /// Record a project decision with its reasoning and the alternatives considered.
    #[pyo3(signature = (project_id, decision, *, reasoning = None, alternatives = None, tags = None))]
    fn log_decision(
        &self,
        py: Python<'_>,
        project_id: String,
        decision: String,
        reasoning: Option<String>,
        alternatives: Option<Vec<String>>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Out> {
        let op = log_decision(project_id, decision, reasoning, alternatives, tags);
        self.run(py, op)
    }

    /// Async [`Projects.log_decision`].
    #[pyo3(signature = (project_id, decision, *, reasoning = None, alternatives = None, tags = None))]
    fn alog_decision<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        decision: String,
        reasoning: Option<String>,
        alternatives: Option<Vec<String>>,
        tags: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = log_decision(project_id, decision, reasoning, alternatives, tags);
        self.start(py, op)
    }

    /// The project's most recent decisions (at most `limit`), oldest first.
    #[pyo3(signature = (project_id, *, limit = 20))]
    fn get_decisions(&self, py: Python<'_>, project_id: String, limit: usize) -> PyResult<Out> {
        let req = GetProjectDecisionsRequest { project_id, limit };
        self.run(py, Op::Decisions(req))
    }

    /// Async [`Projects.get_decisions`].
    #[pyo3(signature = (project_id, *, limit = 20))]
    fn aget_decisions<'py>(
        &self,
        py: Python<'py>,
        project_id: String,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let req = GetProjectDecisionsRequest { project_id, limit };
        self.start(py, Op::Decisions(req))
    }

    fn __repr__(&self) -> String {
        format!("Projects(home={:?})", self.inner.describe())
    }
}
