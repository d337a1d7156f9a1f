//! The [`RuleStore`] trait: relevance rules of the tech watch (seed 000).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::Result;

/// What a rule does to an article's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// Topic of interest.
    Include,
    /// Topic to reject.
    Exclude,
    /// Topic that raises the score.
    Boost,
}

/// Rule priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Highest.
    Critical,
    /// High.
    High,
    /// Medium (default).
    Medium,
    /// Low.
    Low,
}

/// A relevance rule (`update_veille_rule` of seed 000).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelevanceRule {
    /// Unique name.
    pub name: String,
    /// Include, exclude or boost.
    #[serde(rename = "type")]
    pub kind: RuleKind,
    /// Keywords that trigger the rule.
    pub keywords: Vec<String>,
    /// Score change when it triggers (−10 … +5).
    #[serde(default)]
    pub score_modifier: i32,
    /// Priority.
    #[serde(default = "default_priority")]
    pub priority: Priority,
    /// Inactive rules are kept but ignored.
    #[serde(default = "default_active")]
    pub active: bool,
    /// Free description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn default_priority() -> Priority {
    Priority::Medium
}
fn default_active() -> bool {
    true
}

/// Where relevance rules are kept.
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// Active rules, optionally restricted by kind and priority.
    async fn rules(
        &self,
        kind: Option<RuleKind>,
        priority: Option<Priority>,
    ) -> Result<Vec<RelevanceRule>>;
    /// Create or replace the rule with this name.
    async fn upsert_rule(&self, rule: RelevanceRule) -> Result<()>;
    /// Delete a rule; `false` when it did not exist.
    async fn delete_rule(&self, name: &str) -> Result<bool>;
}
