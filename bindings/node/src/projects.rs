//! The AuraCore project tools on the native store:
//! `projectsCreateProject`, `projectsListProjects`, `projectsGetProject`,
//! `projectsUpdateProject`, `projectsStoreContext`, `projectsQueryContext`,
//! `projectsDeleteContext`, `projectsCreateTask`, `projectsUpdateTask`,
//! `projectsGetNextTasks`, `projectsLogDecision`, `projectsGetDecisions`.
//! Requests are camelCase objects turned into the `verity::watch` request
//! types (enum values checked by them, the error naming the allowed values);
//! results are the response types as plain objects. `node/index.js` exposes
//! them as `store.projects.createProject/…`.

use napi::Result;
use napi_derive::napi;
use serde_json::Value;
use verity::api::watch::{
    CreateProjectRequest, CreateTaskRequest, DeleteContextRequest, GetProjectDecisionsRequest,
    ListProjectsRequest, LogProjectDecisionRequest, NextTasksRequest, ProjectRef,
    QueryContextRequest, StoreContextRequest, UpdateProjectRequest, UpdateTaskRequest,
};

use crate::conv::{json, run};
use crate::watch::request;
use crate::NativeVerity;

#[napi]
impl NativeVerity {
    /// Create a project.
    #[napi]
    pub async fn projects_create_project(&self, project: Value) -> Result<Value> {
        let req: CreateProjectRequest = request(Some(project), "createProject request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.create_project(req).await }).await?)
    }

    /// Every project, optionally with one status.
    #[napi]
    pub async fn projects_list_projects(&self, options: Option<Value>) -> Result<Value> {
        let req: ListProjectsRequest = request(options, "listProjects options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.list_projects(&req).await }).await?)
    }

    /// A project with its tasks, context size and recent decisions.
    #[napi]
    pub async fn projects_get_project(&self, project_id: String) -> Result<Value> {
        let req = ProjectRef { project_id };
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.get_project(&req).await }).await?)
    }

    /// Change a project: only the given fields change.
    #[napi]
    pub async fn projects_update_project(&self, update: Value) -> Result<Value> {
        let req: UpdateProjectRequest = request(Some(update), "updateProject request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.update_project(req).await }).await?)
    }

    /// Keep a piece of project context.
    #[napi]
    pub async fn projects_store_context(&self, entry: Value) -> Result<Value> {
        let req: StoreContextRequest = request(Some(entry), "storeContext request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.store_context(req).await }).await?)
    }

    /// The project's most relevant context entries for a query.
    #[napi]
    pub async fn projects_query_context(&self, query: Value) -> Result<Value> {
        let req: QueryContextRequest = request(Some(query), "queryContext request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.query_context(&req).await }).await?)
    }

    /// Delete a context entry by id.
    #[napi]
    pub async fn projects_delete_context(&self, context_id: String) -> Result<Value> {
        let req = DeleteContextRequest { context_id };
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.delete_context(&req).await }).await?)
    }

    /// Create a task.
    #[napi]
    pub async fn projects_create_task(&self, task: Value) -> Result<Value> {
        let req: CreateTaskRequest = request(Some(task), "createTask request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.create_task(req).await }).await?)
    }

    /// Change a task: only the given fields change.
    #[napi]
    pub async fn projects_update_task(&self, update: Value) -> Result<Value> {
        let req: UpdateTaskRequest = request(Some(update), "updateTask request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.update_task(req).await }).await?)
    }

    /// The ready tasks of a project, in the order to do them.
    #[napi]
    pub async fn projects_get_next_tasks(&self, query: Value) -> Result<Value> {
        let req: NextTasksRequest = request(Some(query), "getNextTasks request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.get_next_tasks(&req).await }).await?)
    }

    /// Record a project decision.
    #[napi]
    pub async fn projects_log_decision(&self, decision: Value) -> Result<Value> {
        let req: LogProjectDecisionRequest = request(Some(decision), "logDecision request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.log_project_decision(req).await }).await?)
    }

    /// The project's most recent decisions.
    #[napi]
    pub async fn projects_get_decisions(&self, query: Value) -> Result<Value> {
        let req: GetProjectDecisionsRequest = request(Some(query), "getDecisions request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.get_project_decisions(&req).await }).await?)
    }
}
