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
    "Crée un projet (nom, description, statut, tags) et renvoie le projet créé avec son id.",
    CreateProjectRequest => Project, WRITES, |w, req| w.create_project(req));
watch_tool!(list_projects, "List projects",
    "Liste les projets, éventuellement filtrés par statut.",
    ListProjectsRequest => ProjectsResponse, READS, |w, req| w.list_projects(&req));
watch_tool!(get_project, "Project overview",
    "Renvoie un projet avec ses tâches, le nombre d'entrées de contexte et ses décisions récentes.",
    ProjectRef => ProjectOverview, READS, |w, req| w.get_project(&req));
watch_tool!(update_project, "Update a project",
    "Modifie un projet : seuls les champs donnés changent.",
    UpdateProjectRequest => Project, ToolHints { idempotent: true, ..WRITES }, |w, req| w.update_project(req));
watch_tool!(store_context, "Store project context",
    "Enregistre un texte de contexte dans un projet (retrouvable ensuite par query_context).",
    StoreContextRequest => StoreContextResponse, WRITES, |w, req| w.store_context(req));
watch_tool!(query_context, "Query project context",
    "Recherche les entrées de contexte d'un projet les plus pertinentes pour une requête.",
    QueryContextRequest => QueryContextResponse, READS, |w, req| w.query_context(&req));
watch_tool!(delete_context, "Delete project context",
    "Supprime une entrée de contexte par son id.",
    DeleteContextRequest => DeleteContextResponse, WRITES, |w, req| w.delete_context(&req));
watch_tool!(create_task, "Create a task",
    "Crée une tâche dans un projet (priorité, statut, dépendances vers d'autres tâches du projet).",
    CreateTaskRequest => Task, WRITES, |w, req| w.create_task(req));
watch_tool!(update_task, "Update a task",
    "Modifie une tâche : seuls les champs donnés changent ; les cycles de dépendances sont refusés.",
    UpdateTaskRequest => Task, ToolHints { idempotent: true, ..WRITES }, |w, req| w.update_task(req));
watch_tool!(get_next_tasks, "Next tasks",
    "Renvoie les prochaines tâches prêtes d'un projet (dépendances terminées), en cours d'abord puis par priorité.",
    NextTasksRequest => NextTasksResponse, READS, |w, req| w.get_next_tasks(&req));
watch_tool!(log_decision, "Log a project decision",
    "Enregistre une décision de projet (avec justification et alternatives envisagées).",
    LogProjectDecisionRequest => LogDecisionResponse, WRITES, |w, req| w.log_project_decision(req));
watch_tool!(get_decisions, "Project decisions",
    "Renvoie les décisions récentes d'un projet.",
    GetProjectDecisionsRequest => ProjectDecisionsResponse, READS, |w, req| w.get_project_decisions(&req));
