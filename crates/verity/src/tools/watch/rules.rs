//! `get_veille_rules`, `update_veille_rule`, `score_article`.

use super::{json_text, READS, WRITES};
use crate::tools::{Tool, ToolHints, ToolOptions};
use crate::watch::{GetRulesRequest, RulesResponse, ScoreRequest, ScoreResult, UpdateRuleResponse};
use verity_core::RuleUpdate;

/// `get_veille_rules`.
pub(crate) fn get_veille_rules(_: &ToolOptions) -> Tool {
    Tool::new(
        "get_veille_rules",
        "Relevance rules",
        "Gets the relevance rules used to score articles. MUST be called before any analysis.",
        json_text::<RulesResponse>,
        |verity, req: GetRulesRequest| {
            Box::pin(async move { verity.watch().await?.get_rules(&req).await })
        },
    )
    .hints(READS)
}

/// `update_veille_rule`.
pub(crate) fn update_veille_rule(_: &ToolOptions) -> Tool {
    Tool::new(
        "update_veille_rule",
        "Create or replace a relevance rule",
        "Adds or replaces a relevance rule.",
        json_text::<UpdateRuleResponse>,
        |verity, req: RuleUpdate| {
            Box::pin(async move { verity.watch().await?.update_rule(req).await })
        },
    )
    .hints(ToolHints {
        idempotent: true,
        ..WRITES
    })
}

/// `score_article`.
pub(crate) fn score_article(_: &ToolOptions) -> Tool {
    Tool::new(
        "score_article",
        "Score an article against the rules",
        "Computes an article's reference score from the relevance rules \
         (base + the modifiers of the rules that match, clamped to 0…max), with the rules \
         and words that matched. The LLM's own score must be justified against it.",
        json_text::<ScoreResult>,
        |verity, req: ScoreRequest| {
            Box::pin(async move { verity.watch().await?.score_article(&req).await })
        },
    )
    .hints(READS)
}
