//! `store.projects`: the AuraCore project tools — projects, context, tasks
//! with dependencies, project decisions — with the tool names of the
//! registry and an `a`-prefixed asyncio twin each (`twins!`). The leading
//! arguments and the keywords are the fields of the `verity::watch` request
//! types, read through serde (`conv::request`): defaults and enum names
//! (whose errors name the allowed values) are the library's. Results are the
//! response types as typed classes (`crate::results`); an unknown id raises
//! `NotFound`.

use pyo3::prelude::*;
use serde_json::json;
use verity::api::watch::{
    CreateProjectRequest, CreateTaskRequest, DeleteContextRequest, DeleteContextResponse,
    GetProjectDecisionsRequest, ListProjectsRequest, LogDecisionResponse,
    LogProjectDecisionRequest, NextTasksRequest, NextTasksResponse, ProjectDecisionsResponse,
    ProjectOverview, ProjectRef, ProjectsResponse, QueryContextRequest, QueryContextResponse,
    StoreContextRequest, StoreContextResponse, UpdateProjectRequest, UpdateTaskRequest,
};
use verity::core::{Project, Task};

use crate::conv::request;
use crate::results::{
    DeleteContextResult, LogDecisionResult, NextTasksResult, Project as ProjectCls,
    ProjectDecisionsResponse as ProjectDecisionsResponsePy, ProjectOverview as ProjectOverviewPy,
    ProjectsResponse as ProjectsResponsePy, QueryContextResult, StoreContextResult,
    Task as TaskCls,
};
use crate::types::wrap;

/// The AuraCore projects of a `Store` (`store.projects`).
#[pyclass(frozen, module = "verity")]
pub struct Projects {
    pub(crate) inner: crate::conv::Handle,
}

twins! {
    impl Projects {
        /// Create a project (`status`: active, paused, completed or archived; default active).
        fn create_project / acreate_project (name: String; **kwargs)
            signature (name, **kwargs) -> ProjectCls
            => wrap::<Project, ProjectCls>;
            |v, py| {
                let req: CreateProjectRequest = request(py, "create_project", &[("name", json!(name))], kwargs)?;
                async move { v.watch().await?.create_project(req).await }
            }

        /// Projects, optionally of one `status`.
        fn list_projects / alist_projects (; **kwargs)
            signature (**kwargs) -> ProjectsResponsePy
            => wrap::<ProjectsResponse, ProjectsResponsePy>;
            |v, py| {
                let req: ListProjectsRequest = request(py, "list_projects", &[], kwargs)?;
                async move { v.watch().await?.list_projects(&req).await }
            }

        /// A project with its tasks, context count and recent decisions.
        fn get_project / aget_project (project_id: String; **kwargs)
            signature (project_id, **kwargs) -> ProjectOverviewPy
            => wrap::<ProjectOverview, ProjectOverviewPy>;
            |v, py| {
                let req: ProjectRef = request(py, "get_project", &[("project_id", json!(project_id))], kwargs)?;
                async move { v.watch().await?.get_project(&req).await }
            }

        /// Change a project's `name`, `description`, `status` or `tags`.
        fn update_project / aupdate_project (project_id: String; **kwargs)
            signature (project_id, **kwargs) -> ProjectCls
            => wrap::<Project, ProjectCls>;
            |v, py| {
                let req: UpdateProjectRequest = request(py, "update_project", &[("project_id", json!(project_id))], kwargs)?;
                async move { v.watch().await?.update_project(req).await }
            }

        /// Store a context entry of a project (indexed for `query_context`).
        fn store_context / astore_context (project_id: String, content: String; **kwargs)
            signature (project_id, content, **kwargs) -> StoreContextResult
            => wrap::<StoreContextResponse, StoreContextResult>;
            |v, py| {
                let req: StoreContextRequest = request(py, "store_context", &[("project_id", json!(project_id)), ("content", json!(content))], kwargs)?;
                async move { v.watch().await?.store_context(req).await }
            }

        /// A project's context entries closest to `query` (`limit`).
        fn query_context / aquery_context (project_id: String, query: String; **kwargs)
            signature (project_id, query, **kwargs) -> QueryContextResult
            => wrap::<QueryContextResponse, QueryContextResult>;
            |v, py| {
                let req: QueryContextRequest = request(py, "query_context", &[("project_id", json!(project_id)), ("query", json!(query))], kwargs)?;
                async move { v.watch().await?.query_context(&req).await }
            }

        /// Delete a context entry.
        fn delete_context / adelete_context (context_id: String; **kwargs)
            signature (context_id, **kwargs) -> DeleteContextResult
            => wrap::<DeleteContextResponse, DeleteContextResult>;
            |v, py| {
                let req: DeleteContextRequest = request(py, "delete_context", &[("context_id", json!(context_id))], kwargs)?;
                async move { v.watch().await?.delete_context(&req).await }
            }

        /// Create a task (`priority`, `status`, `depends_on` other tasks).
        fn create_task / acreate_task (project_id: String, title: String; **kwargs)
            signature (project_id, title, **kwargs) -> TaskCls
            => wrap::<Task, TaskCls>;
            |v, py| {
                let req: CreateTaskRequest = request(py, "create_task", &[("project_id", json!(project_id)), ("title", json!(title))], kwargs)?;
                async move { v.watch().await?.create_task(req).await }
            }

        /// Change a task's fields.
        fn update_task / aupdate_task (task_id: String; **kwargs)
            signature (task_id, **kwargs) -> TaskCls
            => wrap::<Task, TaskCls>;
            |v, py| {
                let req: UpdateTaskRequest = request(py, "update_task", &[("task_id", json!(task_id))], kwargs)?;
                async move { v.watch().await?.update_task(req).await }
            }

        /// The tasks ready to start (dependencies done), by priority (`limit`).
        fn get_next_tasks / aget_next_tasks (project_id: String; **kwargs)
            signature (project_id, **kwargs) -> NextTasksResult
            => wrap::<NextTasksResponse, NextTasksResult>;
            |v, py| {
                let req: NextTasksRequest = request(py, "get_next_tasks", &[("project_id", json!(project_id))], kwargs)?;
                async move { v.watch().await?.get_next_tasks(&req).await }
            }

        /// Log a project decision with its reasoning and alternatives.
        fn log_decision / alog_decision (project_id: String, decision: String; **kwargs)
            signature (project_id, decision, **kwargs) -> LogDecisionResult
            => wrap::<LogDecisionResponse, LogDecisionResult>;
            |v, py| {
                let req: LogProjectDecisionRequest = request(py, "log_decision", &[("project_id", json!(project_id)), ("decision", json!(decision))], kwargs)?;
                async move { v.watch().await?.log_project_decision(req).await }
            }

        /// A project's decisions, newest first (`limit`).
        fn get_decisions / aget_decisions (project_id: String; **kwargs)
            signature (project_id, **kwargs) -> ProjectDecisionsResponsePy
            => wrap::<ProjectDecisionsResponse, ProjectDecisionsResponsePy>;
            |v, py| {
                let req: GetProjectDecisionsRequest = request(py, "get_decisions", &[("project_id", json!(project_id))], kwargs)?;
                async move { v.watch().await?.get_project_decisions(&req).await }
            }
    }
    plain {
        fn __repr__(&self) -> String {
            format!("Projects(home={:?})", self.inner.describe())
        }
    }
}
