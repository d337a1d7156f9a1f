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
        "Récupère les règles de pertinence pour scorer les articles. DOIT être appelé avant toute analyse.",
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
        "Ajoute ou modifie une règle de pertinence",
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
        "Calcule le score de référence d'un article à partir des règles de pertinence \
         (base + modificateurs des règles qui correspondent, borné à 0…max), avec les règles \
         et les mots qui ont correspondu. Le score du LLM doit se justifier par rapport à celui-ci.",
        json_text::<ScoreResult>,
        |verity, req: ScoreRequest| {
            Box::pin(async move { verity.watch().await?.score_article(&req).await })
        },
    )
    .hints(READS)
}
