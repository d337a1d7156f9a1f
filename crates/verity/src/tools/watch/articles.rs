//! `check_article_exists`, `log_article`, `get_articles`,
//! `log_veille_decision`, `get_veille_decisions`.

use super::{json_text, READS, WRITES};
use crate::tools::{Tool, ToolHints, ToolOptions};
use crate::watch::{
    ArticlesResponse, CheckArticleRequest, CheckArticleResponse, GetArticlesRequest,
    GetWatchDecisionsRequest, LogArticleRequest, LogArticleResponse, LogDecisionRequest,
    LogDecisionResponse, WatchDecisionsResponse,
};

/// `check_article_exists`.
pub(crate) fn check_article_exists(_: &ToolOptions) -> Tool {
    Tool::new(
        "check_article_exists",
        "Has this article been processed?",
        "Vérifie si un article a déjà été traité. DOIT être appelé avant d'analyser un article.",
        json_text::<CheckArticleResponse>,
        |verity, req: CheckArticleRequest| {
            Box::pin(async move { verity.watch().await?.check_article(&req).await })
        },
    )
    .hints(READS)
}

/// `log_article`.
pub(crate) fn log_article(_: &ToolOptions) -> Tool {
    Tool::new(
        "log_article",
        "Log an analysed article",
        "Enregistre un article analysé dans la base. DOIT être appelé après chaque analyse complète.",
        json_text::<LogArticleResponse>,
        |verity, req: LogArticleRequest| {
            Box::pin(async move { verity.watch().await?.log_article(req).await })
        },
    )
    .hints(ToolHints {
        idempotent: true,
        ..WRITES
    })
}

/// `get_articles`.
pub(crate) fn get_articles(_: &ToolOptions) -> Tool {
    Tool::new(
        "get_articles",
        "Recent articles",
        "Récupère les articles récents pour fournir du contexte. Utiliser pour éviter les répétitions et comprendre les tendances.",
        json_text::<ArticlesResponse>,
        |verity, req: GetArticlesRequest| {
            Box::pin(async move { verity.watch().await?.get_articles(&req).await })
        },
    )
    .hints(READS)
}

/// `log_veille_decision`.
pub(crate) fn log_veille_decision(_: &ToolOptions) -> Tool {
    Tool::new(
        "log_veille_decision",
        "Log a decision for the audit",
        "Enregistre une décision d'analyse pour l'audit. DOIT être appelé après chaque décision importante.",
        json_text::<LogDecisionResponse>,
        |verity, req: LogDecisionRequest| {
            Box::pin(async move { verity.watch().await?.log_decision(req).await })
        },
    )
    .hints(WRITES)
}

/// `get_veille_decisions`: the audit log read back.
pub(crate) fn get_veille_decisions(_: &ToolOptions) -> Tool {
    Tool::new(
        "get_veille_decisions",
        "Read the decision audit log",
        "Relit le journal d'audit des décisions de veille, par article et/ou par période (les plus anciennes d'abord).",
        json_text::<WatchDecisionsResponse>,
        |verity, req: GetWatchDecisionsRequest| {
            Box::pin(async move { verity.watch().await?.decisions(&req).await })
        },
    )
    .hints(READS)
}
