//! `store.watch`: the technology watch — rules, scoring, articles, the
//! decision log, web search, page extraction and fact verification — each
//! with an `a`-prefixed asyncio twin (`twins!`). The leading arguments and
//! the keywords are the fields of the `verity::watch` request types, read
//! through serde (`conv::request`): defaults, enum names and their errors
//! (which name the allowed values) are the library's. Results are the
//! response types as typed classes (`crate::results`).

use pyo3::prelude::*;
use serde_json::json;
use verity::api::watch::{
    ArticlesResponse, CheckArticleRequest, CheckArticleResponse, CrawlRequest, CrawlResponse,
    GetArticlesRequest, GetRulesRequest, GetWatchDecisionsRequest, LogArticleRequest,
    LogArticleResponse, LogDecisionRequest, LogDecisionResponse, RulesResponse, ScoreRequest,
    ScoreResult, UpdateRuleResponse, VerifyFactRequest, VerifyFactResponse, WatchDecisionsResponse,
    WebSearchRequest, WebSearchResponse,
};
use verity::core::RuleUpdate;

use crate::conv::request;
use crate::results::{
    ArticlesResponse as PyArticles, CheckArticleResult, CrawlResponse as PyCrawl, LogArticleResult,
    LogDecisionResult, RulesResponse as PyRules, ScoreResult as PyScore,
    UpdateRuleResponse as PyUpdateRule, VerifyFactResult, WatchDecisionsResponse as PyDecisions,
    WebSearchResponse as PyWebSearch,
};
use crate::types::wrap;

/// The technology watch of a `Store` (`store.watch`).
#[pyclass(frozen, module = "verity")]
pub struct Watch {
    pub(crate) inner: crate::conv::Handle,
}

twins! {
    impl Watch {
        /// Active relevance rules (by priority then name) and the scoring guide;
        /// `type`: include, exclude, boost or all; `priority`: critical, high,
        /// medium or low.
        fn get_veille_rules / aget_veille_rules (r#type: Option<String>; **kwargs)
            signature (r#type = None, **kwargs) -> PyRules
            => wrap::<RulesResponse, PyRules>;
            |v, py| {
                let req: GetRulesRequest = request(py, "get_veille_rules", &[("type", json!(r#type))], kwargs)?;
                async move { v.watch().await?.get_rules(&req).await }
            }

        /// Create or replace the rule `name` (`type`: include, exclude or boost;
        /// `score_modifier` −10…+5, default by type).
        fn update_veille_rule / aupdate_veille_rule (name: String, r#type: String, keywords: Vec<String>; **kwargs)
            signature (name, r#type, keywords, **kwargs) -> PyUpdateRule
            => wrap::<UpdateRuleResponse, PyUpdateRule>;
            |v, py| {
                let lead = [("name", json!(name)), ("type", json!(r#type)), ("keywords", json!(keywords))];
                let req: RuleUpdate = request(py, "update_veille_rule", &lead, kwargs)?;
                async move { v.watch().await?.update_rule(req).await }
            }

        /// The reference score of an article (`title`, `content`, `url`): base
        /// score plus the modifiers of the matched rules, clamped, with the
        /// rules, keywords and one explanation line per step.
        fn score_article / ascore_article (; **kwargs)
            signature (**kwargs) -> PyScore
            => wrap::<ScoreResult, PyScore>;
            |v, py| {
                let req: ScoreRequest = request(py, "score_article", &[], kwargs)?;
                async move { v.watch().await?.score_article(&req).await }
            }

        /// Whether an article was already processed: by canonical URL
        /// (tracking parameters ignored) or, with `content`, by its text.
        fn check_article_exists / acheck_article_exists (url: String; **kwargs)
            signature (url, **kwargs) -> CheckArticleResult
            => wrap::<CheckArticleResponse, CheckArticleResult>;
            |v, py| {
                let req: CheckArticleRequest = request(py, "check_article_exists", &[("url", json!(url))], kwargs)?;
                async move { v.watch().await?.check_article(&req).await }
            }

        /// Log an analysed article (idempotent per canonical URL; `source_type`:
        /// rss, youtube, reddit or hn).
        fn log_article / alog_article (url: String, title: String, source: String, source_type: String; **kwargs)
            signature (url, title, source, source_type, **kwargs) -> LogArticleResult
            => wrap::<LogArticleResponse, LogArticleResult>;
            |v, py| {
                let lead = [
                    ("url", json!(url)),
                    ("title", json!(title)),
                    ("source", json!(source)),
                    ("source_type", json!(source_type)),
                ];
                let req: LogArticleRequest = request(py, "log_article", &lead, kwargs)?;
                async move { v.watch().await?.log_article(req).await }
            }

        /// Logged articles of the last `days`, newest first (`source`,
        /// `validated_only`, `limit`; defaults from `GetArticlesRequest`).
        fn get_articles / aget_articles (; **kwargs)
            signature (**kwargs) -> PyArticles
            => wrap::<ArticlesResponse, PyArticles>;
            |v, py| {
                let req: GetArticlesRequest = request(py, "get_articles", &[], kwargs)?;
                async move { v.watch().await?.get_articles(&req).await }
            }

        /// Log a decision of the watch's LLMs (`llm`: qwen or phi;
        /// `decision_type`: score, validate, reject or verify_fact).
        fn log_veille_decision / alog_veille_decision (llm: String, decision_type: String, decision: String; **kwargs)
            signature (llm, decision_type, decision, **kwargs) -> LogDecisionResult
            => wrap::<LogDecisionResponse, LogDecisionResult>;
            |v, py| {
                let lead = [
                    ("llm", json!(llm)),
                    ("decision_type", json!(decision_type)),
                    ("decision", json!(decision)),
                ];
                let req: LogDecisionRequest = request(py, "log_veille_decision", &lead, kwargs)?;
                async move { v.watch().await?.log_decision(req).await }
            }

        /// Logged decisions, newest first (`article_id`, `days`, `since`,
        /// `until`, `limit`).
        fn get_veille_decisions / aget_veille_decisions (; **kwargs)
            signature (**kwargs) -> PyDecisions
            => wrap::<WatchDecisionsResponse, PyDecisions>;
            |v, py| {
                let req: GetWatchDecisionsRequest = request(py, "get_veille_decisions", &[], kwargs)?;
                async move { v.watch().await?.decisions(&req).await }
            }

        /// Web search through the configured SearXNG (`num_results`,
        /// `time_range`: day, week, month or year).
        fn web_search / aweb_search (query: String; **kwargs)
            signature (query, **kwargs) -> PyWebSearch
            => wrap::<WebSearchResponse, PyWebSearch>;
            |v, py| {
                let req: WebSearchRequest = request(py, "web_search", &[("query", json!(query))], kwargs)?;
                async move { v.watch().await?.web_search(&req).await }
            }

        /// A page's main text as Markdown, its title and links.
        fn crawl_url / acrawl_url (url: String)
            signature (url) -> PyCrawl
            => wrap::<CrawlResponse, PyCrawl>;
            |v, py| {
                let req = CrawlRequest { url };
                async move { v.watch().await?.crawl_url(&req).await }
            }

        /// Whether sources support a claim (`context`, `urls`), each judged
        /// by the Judge.
        fn verify_fact / averify_fact (claim: String; **kwargs)
            signature (claim, **kwargs) -> VerifyFactResult
            => wrap::<VerifyFactResponse, VerifyFactResult>;
            |v, py| {
                let req: VerifyFactRequest = request(py, "verify_fact", &[("claim", json!(claim))], kwargs)?;
                async move { v.watch().await?.verify_fact(&req).await }
            }
    }
    plain {
        fn __repr__(&self) -> String {
            format!("Watch(home={:?})", self.inner.describe())
        }
    }
}
