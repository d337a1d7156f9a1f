//! The AuraCore project tools: projects, context, tasks, decisions.

use super::{json_text, READS, WRITES};
use crate::tools::{Tool, ToolHints, ToolOptions};
use crate::watch::{
    CreateProjectRequest, CreateTaskRequest, DeleteContextRequest, DeleteContextResponse,
    GetProjectDecisionsRequest, ListProjectsRequest, LogDecisionResponse,
    LogProjectDecisionRequest, NextTasksRequest, NextTasksResponse, ProjectDecisionsResponse,
    ProjectOverview, ProjectRef, ProjectsResponse, QueryContextRequest, QueryContextResponse,
    StoreContextRequest, StoreContextResponse, UpdateProjectRequest, UpdateTaskRequest,
};
use verity_core::{Project, Task};

/// Defines `fn $name(&ToolOptions) -> Tool` calling `Watch::$method`.
macro_rules! watch_tool {
    ($name:ident, $title:literal, $desc:literal, $req:ty => $resp:ty, $hints:expr, |$w:ident, $r:ident| $call:expr) => {
        #[doc = concat!("`", stringify!($name), "`.")]
        pub(crate) fn $name(_: &ToolOptions) -> Tool {
            Tool::new(
                stringify!($name),
                $title,
                $desc,
                json_text::<$resp>,
                |verity, $r: $req| {
                    Box::pin(async move {
                        let $w = verity.watch().await?;
                        $call.await
                    })
                },
            )
            .hints($hints)
        }
    };
}

watch_tool!(create_project, "Create a project",
    "Creates a project (name, description, status, tags) and returns it with its id.",
    CreateProjectRequest => Project, WRITES, |w, req| w.create_project(req));
watch_tool!(list_projects, "List projects",
    "Lists projects, optionally filtered by status.",
    ListProjectsRequest => ProjectsResponse, READS, |w, req| w.list_projects(&req));
watch_tool!(get_project, "Project overview",
    "Returns a project with its tasks, its number of context entries and its recent decisions.",
    ProjectRef => ProjectOverview, READS, |w, req| w.get_project(&req));
watch_tool!(update_project, "Update a project",
    "Updates a project: only the given fields change.",
    UpdateProjectRequest => Project, ToolHints { idempotent: true, ..WRITES }, |w, req| w.update_project(req));
watch_tool!(store_context, "Store project context",
    "Stores a context text in a project (found later by query_context).",
    StoreContextRequest => StoreContextResponse, WRITES, |w, req| w.store_context(req));
watch_tool!(query_context, "Query project context",
    "Finds a project's context entries most relevant to a query.",
    QueryContextRequest => QueryContextResponse, READS, |w, req| w.query_context(&req));
watch_tool!(delete_context, "Delete project context",
    "Deletes a context entry by its id.",
    DeleteContextRequest => DeleteContextResponse, WRITES, |w, req| w.delete_context(&req));
watch_tool!(create_task, "Create a task",
    "Creates a task in a project (priority, status, dependencies on other tasks of the project).",
    CreateTaskRequest => Task, WRITES, |w, req| w.create_task(req));
watch_tool!(update_task, "Update a task",
    "Updates a task: only the given fields change; dependency cycles are refused.",
    UpdateTaskRequest => Task, ToolHints { idempotent: true, ..WRITES }, |w, req| w.update_task(req));
watch_tool!(get_next_tasks, "Next tasks",
    "Returns a project's next ready tasks (dependencies done), in-progress first, then by priority.",
    NextTasksRequest => NextTasksResponse, READS, |w, req| w.get_next_tasks(&req));
watch_tool!(log_decision, "Log a project decision",
    "Logs a project decision (with its reasoning and the alternatives considered).",
    LogProjectDecisionRequest => LogDecisionResponse, WRITES, |w, req| w.log_project_decision(req));
watch_tool!(get_decisions, "Project decisions",
    "Returns a project's recent decisions.",
    GetProjectDecisionsRequest => ProjectDecisionsResponse, READS, |w, req| w.get_project_decisions(&req));
