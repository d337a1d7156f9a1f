//! The technology watch on the native store: `watchGetVeilleRules`,
//! `watchUpdateVeilleRule`, `watchScoreArticle`, `watchCheckArticleExists`,
//! `watchLogArticle`, `watchGetArticles`, `watchLogVeilleDecision`,
//! `watchGetVeilleDecisions`, `watchWebSearch`, `watchCrawlUrl`,
//! `watchVerifyFact`. Requests are camelCase objects turned into the
//! `verity::watch` request types (enum values checked by them, the error
//! naming the allowed values); results are the response types as plain
//! objects. `node/index.js` exposes them as `store.watch.getVeilleRules/…`.

use napi::Result;
use napi_derive::napi;
use serde::de::DeserializeOwned;
use serde_json::Value;
use verity::api::watch::{
    CheckArticleRequest, CrawlRequest, GetArticlesRequest, GetRulesRequest,
    GetWatchDecisionsRequest, LogArticleRequest, LogDecisionRequest, ScoreRequest,
    VerifyFactRequest, WebSearchRequest,
};
use verity::core::RuleUpdate;

use crate::conv::{self, json, napi_error, run, snake_keys};
use crate::NativeVerity;

/// A request object with camelCase keys as `T` (`null`/`undefined`: `{}`).
pub(crate) fn request<T: DeserializeOwned>(v: Option<Value>, what: &str) -> Result<T> {
    match v.map(|v| snake_keys(v, &[])) {
        None | Some(Value::Null) => conv::value(Value::Object(Default::default()), what),
        Some(v @ Value::Object(_)) => conv::value(v, what),
        Some(_) => Err(napi_error(
            "invalid_input",
            false,
            &format!("{what} must be an object"),
        )),
    }
}

#[napi]
impl NativeVerity {
    /// Active relevance rules and the scoring guide (`{ type?, priority? }`).
    #[napi]
    pub async fn watch_get_veille_rules(&self, options: Option<Value>) -> Result<Value> {
        let req: GetRulesRequest = request(options, "getVeilleRules options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.get_rules(&req).await }).await?)
    }

    /// Create or replace a relevance rule.
    #[napi]
    pub async fn watch_update_veille_rule(&self, rule: Value) -> Result<Value> {
        let req: RuleUpdate = request(Some(rule), "updateVeilleRule request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.update_rule(req).await }).await?)
    }

    /// The reference score of an article, explained.
    #[napi]
    pub async fn watch_score_article(&self, article: Value) -> Result<Value> {
        let req: ScoreRequest = request(Some(article), "scoreArticle request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.score_article(&req).await }).await?)
    }

    /// Whether an article was already processed.
    #[napi]
    pub async fn watch_check_article_exists(&self, input: Value) -> Result<Value> {
        let req: CheckArticleRequest = request(Some(input), "checkArticleExists request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.check_article(&req).await }).await?)
    }

    /// Log an analysed article (idempotent per canonical URL).
    #[napi]
    pub async fn watch_log_article(&self, article: Value) -> Result<Value> {
        let req: LogArticleRequest = request(Some(article), "logArticle request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.log_article(req).await }).await?)
    }

    /// Recent articles, newest first.
    #[napi]
    pub async fn watch_get_articles(&self, options: Option<Value>) -> Result<Value> {
        let req: GetArticlesRequest = request(options, "getArticles options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.get_articles(&req).await }).await?)
    }

    /// Log a decision for the audit.
    #[napi]
    pub async fn watch_log_veille_decision(&self, decision: Value) -> Result<Value> {
        let req: LogDecisionRequest = request(Some(decision), "logVeilleDecision request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.log_decision(req).await }).await?)
    }

    /// The decision audit log, oldest first.
    #[napi]
    pub async fn watch_get_veille_decisions(&self, options: Option<Value>) -> Result<Value> {
        let req: GetWatchDecisionsRequest = request(options, "getVeilleDecisions options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.decisions(&req).await }).await?)
    }

    /// Web search through the configured SearXNG.
    #[napi]
    pub async fn watch_web_search(&self, query: String, options: Option<Value>) -> Result<Value> {
        let mut o = match options.map(|v| snake_keys(v, &[])) {
            None | Some(Value::Null) => Default::default(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(napi_error(
                    "invalid_input",
                    false,
                    "webSearch options must be an object",
                ))
            }
        };
        o.insert("query".into(), Value::String(query));
        let req: WebSearchRequest = conv::value(Value::Object(o), "webSearch options")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.web_search(&req).await }).await?)
    }

    /// The main content of a web page as Markdown, with its links.
    #[napi]
    pub async fn watch_crawl_url(&self, url: String) -> Result<Value> {
        let req = CrawlRequest { url };
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.crawl_url(&req).await }).await?)
    }

    /// Check a claim against `urls` or the top web search results.
    #[napi]
    pub async fn watch_verify_fact(&self, input: Value) -> Result<Value> {
        let req: VerifyFactRequest = request(Some(input), "verifyFact request")?;
        let v = self.inner.get()?;
        json(&run(async move { v.watch().await?.verify_fact(&req).await }).await?)
    }
}
