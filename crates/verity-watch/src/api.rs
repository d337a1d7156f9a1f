//! Request and response types of the watch operations, in seed 000's wire
//! shapes (field names, defaults, enums). Every type derives `JsonSchema`
//! so that tool registries publish the input schemas from them.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use verity_core::{
    Article, ContextEntry, Decision, DecisionLlm, DecisionType, Priority, Project, ProjectDecision,
    ProjectStatus, RelevanceRule, RuleKind, ScoringGuide, SourceType, Task, TaskStatus,
    WebTimeRange,
};

// ---------------------------------------------------------------- rules

/// `type` filter of `get_veille_rules`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleTypeFilter {
    /// Include rules.
    Include,
    /// Exclude rules.
    Exclude,
    /// Boost rules.
    Boost,
    /// Every rule (default).
    #[default]
    All,
}

impl RuleTypeFilter {
    /// The kind to filter on (`None` for all).
    pub fn kind(self) -> Option<RuleKind> {
        match self {
            RuleTypeFilter::Include => Some(RuleKind::Include),
            RuleTypeFilter::Exclude => Some(RuleKind::Exclude),
            RuleTypeFilter::Boost => Some(RuleKind::Boost),
            RuleTypeFilter::All => None,
        }
    }
}

/// Input of `get_veille_rules`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetRulesRequest {
    /// Rule type (default all).
    #[serde(rename = "type", default)]
    #[schemars(description = "Filter by rule type (default: all)")]
    pub kind: RuleTypeFilter,
    /// Priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Filter by priority")]
    pub priority: Option<Priority>,
}

/// Output of `get_veille_rules`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RulesResponse {
    /// Active rules, by priority then name.
    pub rules: Vec<RelevanceRule>,
    /// How scores read.
    pub scoring_guide: ScoringGuide,
}

/// Output of `update_veille_rule`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateRuleResponse {
    /// Always true on success.
    pub updated: bool,
    /// True when no rule had this name before.
    pub created: bool,
    /// The rule as stored.
    pub rule: RelevanceRule,
}

// ---------------------------------------------------------------- articles

/// Input of `check_article_exists`. `title` and `content` are optional
/// additions: with content, republications of a logged article
/// at another URL are found too.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckArticleRequest {
    /// Article URL.
    #[schemars(description = "URL of the article to check")]
    pub url: String,
    /// Article text, to detect the same article at another URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A logged article in short (`check_article_exists.article`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArticleBrief {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// URL as logged.
    pub url: String,
    /// Source.
    pub source: String,
    /// First logged.
    pub processed_at: DateTime<Utc>,
    /// Score of the scoring LLM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qwen_score: Option<i64>,
    /// Validated by the validating LLM.
    pub phi_validated: bool,
}

impl From<&Article> for ArticleBrief {
    fn from(a: &Article) -> Self {
        Self {
            id: a.id.clone(),
            title: a.title.clone(),
            url: a.url.clone(),
            source: a.source.clone(),
            processed_at: a.processed_at,
            qwen_score: a.qwen_score,
            phi_validated: a.phi_validated,
        }
    }
}

/// How an existing article was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchedBy {
    /// Same canonical URL (or a URL it was seen at).
    Url,
    /// Same words (exact content hash).
    SameContent,
    /// Near-duplicate content (SimHash within the configured distance).
    NearDuplicate,
}

/// Output of `check_article_exists`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckArticleResponse {
    /// Whether the article was already processed.
    pub exists: bool,
    /// The logged article.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub article: Option<ArticleBrief>,
    /// How it was recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<MatchedBy>,
    /// SimHash distance in bits, for near-duplicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<u32>,
    /// The URL as given (trimmed): the article's URL, never rewritten.
    #[serde(default)]
    pub url: String,
    /// The canonical form that was looked up (tracking parameters, `www.`,
    /// AMP, trailing slash and scheme folded): a duplicate-detection key only.
    pub canonical_url: String,
    /// Human-readable verdict.
    pub message: String,
}

/// Input of `log_article`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogArticleRequest {
    /// URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Source name.
    pub source: String,
    /// Source type.
    pub source_type: SourceType,
    /// Score of the scoring LLM (0…max score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qwen_score: Option<i64>,
    /// Keywords of the scoring LLM.
    #[serde(default)]
    pub qwen_keywords: Vec<String>,
    /// Validated by the validating LLM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi_validated: Option<bool>,
    /// Confidence of the validating LLM (0…1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi_confidence: Option<f64>,
    /// French summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_fr: Option<String>,
    /// Impact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<String>,
    /// Hashtags.
    #[serde(default)]
    pub hashtags: Vec<String>,
    /// LinkedIn draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linkedin_draft: Option<String>,
    /// Full text: fingerprinted for duplicate detection and handed to the
    /// configured ingest so later RAG and verification can use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_content: Option<String>,
}

/// Output of `log_article`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogArticleResponse {
    /// Always true on success.
    pub logged: bool,
    /// Id of the article record (an existing one when this is a re-log or a duplicate).
    pub article_id: String,
    /// True when a new record was created.
    pub created: bool,
    /// Set when the content is a near-duplicate of an article logged at
    /// another URL: this URL was added to that article instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// Canonical URL.
    pub canonical_url: String,
    /// Whether `raw_content` was handed to the ingest (`None`: no content or no ingest configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingested: Option<bool>,
    /// Why the ingest failed (the article is logged anyway).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingest_error: Option<String>,
}

fn default_days() -> u32 {
    7
}
fn default_true() -> bool {
    true
}
fn default_article_limit() -> usize {
    20
}

/// Input of `get_articles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetArticlesRequest {
    /// Days back from now.
    #[serde(default = "default_days")]
    #[schemars(description = "How many days back to read")]
    pub days: u32,
    /// Source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Filter by source")]
    pub source: Option<String>,
    /// Only validated articles.
    #[serde(default = "default_true")]
    #[schemars(description = "Only articles validated by Phi")]
    pub validated_only: bool,
    /// Maximum number of articles.
    #[serde(default = "default_article_limit")]
    #[schemars(description = "Largest number of articles")]
    pub limit: usize,
}

impl Default for GetArticlesRequest {
    fn default() -> Self {
        Self {
            days: default_days(),
            source: None,
            validated_only: true,
            limit: default_article_limit(),
        }
    }
}

/// Output of `get_articles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArticlesResponse {
    /// Articles, newest first.
    pub articles: Vec<Article>,
    /// How many were returned.
    pub total: usize,
    /// `"{days} days"`.
    pub period: String,
}

// ---------------------------------------------------------------- decisions

/// Input of `log_veille_decision`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogDecisionRequest {
    /// Article concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Id of the article concerned (optional for a general decision)")]
    pub article_id: Option<String>,
    /// LLM.
    #[schemars(description = "LLM that made the decision")]
    pub llm: DecisionLlm,
    /// Kind of decision.
    #[schemars(description = "Decision type")]
    pub decision_type: DecisionType,
    /// The decision.
    #[schemars(description = "The decision made")]
    pub decision: String,
    /// Confidence (0…1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Confidence (0-1)")]
    pub confidence: Option<f64>,
    /// Justification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Reasoning behind the decision")]
    pub reasoning: Option<String>,
    /// Tools called.
    #[serde(default)]
    #[schemars(description = "Tools called for this decision")]
    pub tools_used: Vec<String>,
}

/// Output of `log_veille_decision` and `log_decision`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogDecisionResponse {
    /// Always true on success.
    pub logged: bool,
    /// Id of the new entry.
    pub decision_id: String,
    /// When it was logged.
    pub created_at: DateTime<Utc>,
}

fn default_decision_limit() -> usize {
    100
}

/// Reading the watch decision log back (per article and/or period).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetWatchDecisionsRequest {
    /// Only this article (must exist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub article_id: Option<String>,
    /// Only the last `days` days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
    /// Logged at or after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<Utc>>,
    /// Logged before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<DateTime<Utc>>,
    /// At most this many (the most recent).
    #[serde(default = "default_decision_limit")]
    pub limit: usize,
}

impl Default for GetWatchDecisionsRequest {
    fn default() -> Self {
        Self {
            article_id: None,
            days: None,
            since: None,
            until: None,
            limit: default_decision_limit(),
        }
    }
}

/// Watch decisions, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WatchDecisionsResponse {
    /// Entries.
    pub decisions: Vec<Decision>,
    /// How many were returned.
    pub total: usize,
}

// ---------------------------------------------------------------- web

fn default_num_results() -> usize {
    5
}

/// Input of `web_search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WebSearchRequest {
    /// Query.
    #[schemars(description = "Search query")]
    pub query: String,
    /// Results wanted (1…10).
    #[serde(default = "default_num_results")]
    #[schemars(
        description = "Number of results (at most 10)",
        range(min = 1, max = 10)
    )]
    pub num_results: usize,
    /// Recency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Time range filter")]
    pub time_range: Option<WebTimeRange>,
}

/// One web result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WebResult {
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
    /// Snippet.
    pub snippet: String,
    /// Host.
    pub source: String,
}

/// Output of `web_search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WebSearchResponse {
    /// The query.
    pub query: String,
    /// Results.
    pub results: Vec<WebResult>,
    /// Number of results.
    pub total_found: usize,
}

/// Input of `crawl_url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrawlRequest {
    /// Page URL.
    #[schemars(description = "URL of the page to extract")]
    pub url: String,
}

/// Output of `crawl_url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrawlResponse {
    /// URL after redirects.
    pub url: String,
    /// Title.
    pub title: String,
    /// Main content (Markdown), capped.
    pub content: String,
    /// Words in the full main content.
    pub word_count: usize,
    /// When it was extracted.
    pub extracted_at: DateTime<Utc>,
    /// The content was cut at the configured cap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The page is behind a paywall (content may be partial).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paywalled: bool,
    /// Links of the main content (anchor text, absolute URL): the content
    /// carries the anchor text only, the targets are here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<CrawlLink>,
}

/// A link of a crawled page's main content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrawlLink {
    /// Anchor text, as it reads in the content.
    pub text: String,
    /// Absolute target URL.
    pub url: String,
}

// ---------------------------------------------------------------- AuraCore

/// Input of `create_project`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreateProjectRequest {
    /// Name.
    pub name: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Status (default active).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Input of `list_projects`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListProjectsRequest {
    /// Only this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
}

/// Output of `list_projects`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectsResponse {
    /// Projects, oldest first.
    pub projects: Vec<Project>,
    /// How many.
    pub total: usize,
}

/// Input naming one project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectRef {
    /// Project id.
    pub project_id: String,
}

/// Output of `get_project`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectOverview {
    /// The project.
    pub project: Project,
    /// Its tasks, oldest first.
    pub tasks: Vec<Task>,
    /// Number of context entries.
    pub context_entries: usize,
    /// Its most recent decisions (up to 10), oldest first.
    pub recent_decisions: Vec<ProjectDecision>,
}

/// Input of `update_project`: only the given fields change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateProjectRequest {
    /// Project id.
    pub project_id: String,
    /// New name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
    /// New tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

/// Input of `store_context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StoreContextRequest {
    /// Project id.
    pub project_id: String,
    /// Text.
    pub content: String,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Output of `store_context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StoreContextResponse {
    /// Always true on success.
    pub stored: bool,
    /// Id of the entry.
    pub context_id: String,
    /// Whether the context index accepted it (`None`: no index configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed: Option<bool>,
}

/// Input of `query_context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueryContextRequest {
    /// Project id.
    pub project_id: String,
    /// What to look for.
    pub query: String,
    /// Entries wanted (default 5).
    #[serde(default = "default_num_results")]
    pub limit: usize,
}

/// One retrieved context entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextHit {
    /// The entry.
    pub entry: ContextEntry,
    /// Relevance (higher is better; scale depends on `ran`).
    pub score: f32,
}

/// How `query_context` ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextRanking {
    /// The configured context index (the store's retrieval).
    Index,
    /// Built-in word overlap (no index configured, or it failed: see `degraded`).
    Lexical,
}

/// Output of `query_context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueryContextResponse {
    /// Best entries first.
    pub results: Vec<ContextHit>,
    /// How they were ranked.
    pub ran: ContextRanking,
    /// Why the index was not used although configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
}

/// Input of `delete_context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteContextRequest {
    /// Entry id.
    pub context_id: String,
}

/// Output of `delete_context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteContextResponse {
    /// Always true on success (an unknown id is a not-found error).
    pub deleted: bool,
    /// Id removed.
    pub context_id: String,
}

/// Input of `create_task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreateTaskRequest {
    /// Project id.
    pub project_id: String,
    /// Title.
    pub title: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Priority (default medium).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    /// Status (default todo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
    /// Tasks of the same project that must finish first.
    #[serde(default)]
    pub depends_on: Vec<String>,
}

/// Input of `update_task`: only the given fields change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateTaskRequest {
    /// Task id.
    pub task_id: String,
    /// New title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// New description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    /// New status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
    /// New dependencies (replaces the list; cycles are refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
}

/// Input of `get_next_tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NextTasksRequest {
    /// Project id.
    pub project_id: String,
    /// Tasks wanted (default 5).
    #[serde(default = "default_num_results")]
    pub limit: usize,
}

/// Output of `get_next_tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NextTasksResponse {
    /// Ready tasks (open, every dependency finished): in progress first,
    /// then by priority, then oldest.
    pub tasks: Vec<Task>,
    /// Open tasks still waiting on unfinished dependencies.
    pub waiting: usize,
    /// Open tasks marked blocked.
    pub blocked: usize,
}

/// Input of `log_decision` (AuraCore).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogProjectDecisionRequest {
    /// Project id.
    pub project_id: String,
    /// The decision.
    pub decision: String,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Options considered.
    #[serde(default)]
    pub alternatives: Vec<String>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

fn default_project_decision_limit() -> usize {
    20
}

/// Input of `get_decisions` (AuraCore).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetProjectDecisionsRequest {
    /// Project id.
    pub project_id: String,
    /// At most this many (the most recent).
    #[serde(default = "default_project_decision_limit")]
    pub limit: usize,
}

/// Output of `get_decisions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectDecisionsResponse {
    /// Decisions, oldest first.
    pub decisions: Vec<ProjectDecision>,
    /// How many were returned.
    pub total: usize,
}

// ---------------------------------------------------------------- verify_fact

/// Input of `verify_fact`. With `urls`, the
/// claim is checked against these pages instead of a web search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyFactRequest {
    /// The claim.
    #[schemars(description = "The claim to verify")]
    pub claim: String,
    /// Extra words for the web search (not part of what is judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "Extra context to refine the search")]
    pub context: Option<String>,
    /// Pages to check the claim against (default: the top web search results).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(description = "Sources to read (default: a web search)")]
    pub urls: Vec<String>,
}

/// One source of a `verify_fact` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FactSource {
    /// Page URL (after redirects).
    pub url: String,
    /// Sentence of the page that decided its verdict: the page's own
    /// characters (empty when the page does not discuss the claim).
    pub excerpt: String,
    /// Page title.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// What this page says about the claim.
    pub verdict: verity_core::Verdict,
    /// The judge's confidence for this page (0…1).
    pub confidence: f32,
    /// Which judge decided this page (`local`, `llm:<model>`; `local` when
    /// the configured LLM judge failed on it, said in `notes`).
    #[serde(default)]
    pub judge: String,
    /// What changed the verdict after the judge, and fallbacks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A page `verify_fact` could not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnreadSource {
    /// URL tried.
    pub url: String,
    /// Stable error code.
    pub code: String,
    /// What went wrong.
    pub error: String,
}

/// Output of `verify_fact` (`verified`, `confidence`, `sources`, `summary`, plus the verdict, the judge and
/// the pages that could not be read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyFactResponse {
    /// The claim.
    pub claim: String,
    /// True only when a source supports the claim and none contradicts it.
    pub verified: bool,
    /// Confidence in the overall verdict (0…1).
    pub confidence: f32,
    /// Overall verdict.
    pub verdict: verity_core::Verdict,
    /// Pages that speak of the claim, the deciding ones first.
    pub sources: Vec<FactSource>,
    /// One-paragraph explanation.
    pub summary: String,
    /// True when no page let the judge decide.
    pub not_enough_evidence: bool,
    /// The web search query, when the pages came from a search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searched: Option<String>,
    /// Pages that could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnreadSource>,
    /// Which judge decided (`local`, `llm:<model>`).
    pub judge: String,
}
