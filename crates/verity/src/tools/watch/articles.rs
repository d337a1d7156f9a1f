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
        "Checks whether an article was already processed. MUST be called before analysing an article.",
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
        "Logs an analysed article in the database. MUST be called after each complete analysis.",
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
        "Gets recent articles for context. Use it to avoid repeating topics and to follow trends.",
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
        "Logs an analysis decision for the audit. MUST be called after every important decision.",
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
        "Reads the watch decision audit log back, by article and/or time window (oldest first).",
        json_text::<WatchDecisionsResponse>,
        |verity, req: GetWatchDecisionsRequest| {
            Box::pin(async move { verity.watch().await?.decisions(&req).await })
        },
    )
    .hints(READS)
}
