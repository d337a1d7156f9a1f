//! `store.watch`: the technology watch — rules, scoring,
//! articles, the decision log, web search, page extraction and fact
//! verification — each with an `a`-prefixed asyncio variant. Keyword
//! arguments become the `verity::watch` request types; results are the
//! response types as typed classes (`crate::results`); enum values are parsed by the library, whose
//! errors name the allowed values.

use std::str::FromStr;
use std::sync::Arc;

use pyo3::prelude::*;
use serde::de::value::{Error as DeError, StrDeserializer};
use serde::Deserialize;
use verity::api::watch::{
    ArticlesResponse, CheckArticleRequest, CheckArticleResponse, CrawlRequest, CrawlResponse,
    GetArticlesRequest, GetRulesRequest, GetWatchDecisionsRequest, LogArticleRequest,
    LogArticleResponse, LogDecisionRequest, LogDecisionResponse, RulesResponse, ScoreRequest,
    ScoreResult, UpdateRuleResponse, VerifyFactRequest, VerifyFactResponse, WatchDecisionsResponse,
    WebSearchRequest, WebSearchResponse,
};
use verity::core::RuleUpdate;
use verity::Verity;

use crate::conv::{self, block, spawn};
use crate::types::results_enum;

/// The technology watch of a `Store` (`store.watch`).
#[pyclass(frozen, module = "verity")]
pub struct Watch {
    pub(crate) inner: crate::conv::Handle,
}

/// One watch operation with its request.
enum Op {
    GetRules(GetRulesRequest),
    UpdateRule(RuleUpdate),
    Score(ScoreRequest),
    Check(CheckArticleRequest),
    Log(Box<LogArticleRequest>),
    Articles(GetArticlesRequest),
    LogDecision(LogDecisionRequest),
    Decisions(GetWatchDecisionsRequest),
    WebSearch(WebSearchRequest),
    Crawl(CrawlRequest),
    VerifyFact(VerifyFactRequest),
}

results_enum! {
    /// The response of an [`Op`], returned as its typed result class.
    enum Out {
        Rules(RulesResponse),
        UpdateRule(UpdateRuleResponse),
        Score(ScoreResult),
        Check(CheckArticleResponse),
        Log(LogArticleResponse),
        Articles(ArticlesResponse),
        LogDecision(LogDecisionResponse),
        Decisions(WatchDecisionsResponse),
        WebSearch(WebSearchResponse),
        Crawl(CrawlResponse),
        VerifyFact(VerifyFactResponse),
    }
}

async fn exec(v: Arc<Verity>, op: Op) -> verity::Result<Out> {
    let w = v.watch().await?;
    Ok(match op {
        Op::GetRules(r) => Out::Rules(w.get_rules(&r).await?),
        Op::UpdateRule(r) => Out::UpdateRule(w.update_rule(r).await?),
        Op::Score(r) => Out::Score(w.score_article(&r).await?),
        Op::Check(r) => Out::Check(w.check_article(&r).await?),
        Op::Log(r) => Out::Log(w.log_article(*r).await?),
        Op::Articles(r) => Out::Articles(w.get_articles(&r).await?),
        Op::LogDecision(r) => Out::LogDecision(w.log_decision(r).await?),
        Op::Decisions(r) => Out::Decisions(w.decisions(&r).await?),
        Op::WebSearch(r) => Out::WebSearch(w.web_search(&r).await?),
        Op::Crawl(r) => Out::Crawl(w.crawl_url(&r).await?),
        Op::VerifyFact(r) => Out::VerifyFact(w.verify_fact(&r).await?),
    })
}

/// An enum with a library `FromStr` (its error names the allowed values).
pub(crate) fn named<T: FromStr<Err = verity::Error>>(py: Python<'_>, s: &str) -> PyResult<T> {
    s.parse().map_err(|e| conv::to_pyerr(py, e))
}

/// An enum parsed by its serde names (the error names the allowed values).
fn wire<T: for<'de> Deserialize<'de>>(py: Python<'_>, field: &str, s: &str) -> PyResult<T> {
    T::deserialize(StrDeserializer::<DeError>::new(s.trim()))
        .map_err(|e| conv::to_pyerr(py, verity::Error::invalid_input(format!("`{field}`: {e}"))))
}

impl Watch {
    fn run(&self, py: Python<'_>, op: Op) -> PyResult<Out> {
        block(py, exec(self.inner.get()?, op))
    }

    fn start<'py>(&self, py: Python<'py>, op: Op) -> PyResult<Bound<'py, PyAny>> {
        spawn(py, exec(self.inner.get()?, op), Ok)
    }
}

fn get_rules(py: Python<'_>, kind: Option<&str>, priority: Option<&str>) -> PyResult<Op> {
    Ok(Op::GetRules(GetRulesRequest {
        kind: kind
            .map(|k| wire(py, "type", k))
            .transpose()?
            .unwrap_or_default(),
        priority: priority.map(|p| named(py, p)).transpose()?,
    }))
}

#[allow(clippy::too_many_arguments)]
fn update_rule(
    py: Python<'_>,
    name: String,
    kind: &str,
    keywords: Vec<String>,
    score_modifier: Option<i32>,
    priority: Option<&str>,
    active: Option<bool>,
    description: Option<String>,
) -> PyResult<Op> {
    Ok(Op::UpdateRule(RuleUpdate {
        name,
        kind: named(py, kind)?,
        keywords,
        score_modifier,
        priority: priority.map(|p| named(py, p)).transpose()?,
        active,
        description,
    }))
}

#[allow(clippy::too_many_arguments)]
fn log_article(
    py: Python<'_>,
    url: String,
    title: String,
    source: String,
    source_type: &str,
    qwen_score: Option<i64>,
    qwen_keywords: Option<Vec<String>>,
    phi_validated: Option<bool>,
    phi_confidence: Option<f64>,
    summary_fr: Option<String>,
    impact: Option<String>,
    hashtags: Option<Vec<String>>,
    linkedin_draft: Option<String>,
    raw_content: Option<String>,
) -> PyResult<Op> {
    Ok(Op::Log(Box::new(LogArticleRequest {
        url,
        title,
        source,
        source_type: named(py, source_type)?,
        qwen_score,
        qwen_keywords: qwen_keywords.unwrap_or_default(),
        phi_validated,
        phi_confidence,
        summary_fr,
        impact,
        hashtags: hashtags.unwrap_or_default(),
        linkedin_draft,
        raw_content,
    })))
}

#[allow(clippy::too_many_arguments)]
fn log_decision(
    py: Python<'_>,
    llm: &str,
    decision_type: &str,
    decision: String,
    article_id: Option<String>,
    confidence: Option<f64>,
    reasoning: Option<String>,
    tools_used: Option<Vec<String>>,
) -> PyResult<Op> {
    Ok(Op::LogDecision(LogDecisionRequest {
        article_id,
        llm: named(py, llm)?,
        decision_type: named(py, decision_type)?,
        decision,
        confidence,
        reasoning,
        tools_used: tools_used.unwrap_or_default(),
    }))
}

fn decisions(
    py: Python<'_>,
    article_id: Option<String>,
    days: Option<u32>,
    since: Option<&Bound<'_, PyAny>>,
    until: Option<&Bound<'_, PyAny>>,
    limit: usize,
) -> PyResult<Op> {
    Ok(Op::Decisions(GetWatchDecisionsRequest {
        article_id,
        days,
        since: conv::optional_time(py, since, "since")?,
        until: conv::optional_time(py, until, "until")?,
        limit,
    }))
}

fn web_search(
    py: Python<'_>,
    query: String,
    num_results: usize,
    time_range: Option<&str>,
) -> PyResult<Op> {
    Ok(Op::WebSearch(WebSearchRequest {
        query,
        num_results,
        time_range: time_range.map(|t| wire(py, "time_range", t)).transpose()?,
    }))
}

fn articles(days: u32, source: Option<String>, validated_only: bool, limit: usize) -> Op {
    Op::Articles(GetArticlesRequest {
        days,
        source,
        validated_only,
        limit,
    })
}

fn verify(claim: String, context: Option<String>, urls: Option<Vec<String>>) -> Op {
    Op::VerifyFact(VerifyFactRequest {
        claim,
        context,
        urls: urls.unwrap_or_default(),
    })
}

fn score(title: String, content: String, url: String) -> Op {
    Op::Score(ScoreRequest {
        title,
        content,
        url,
    })
}

#[pymethods]
impl Watch {
    /// Active relevance rules (by priority then name) and the scoring guide;
    /// `type`: include, exclude, boost or all; `priority`: critical, high,
    /// medium or low.
    #[pyo3(signature = (r#type = None, *, priority = None))]
    fn get_veille_rules(
        &self,
        py: Python<'_>,
        r#type: Option<&str>,
        priority: Option<&str>,
    ) -> PyResult<Out> {
        self.run(py, get_rules(py, r#type, priority)?)
    }

    /// Async [`Watch.get_veille_rules`].
    #[pyo3(signature = (r#type = None, *, priority = None))]
    fn aget_veille_rules<'py>(
        &self,
        py: Python<'py>,
        r#type: Option<&str>,
        priority: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, get_rules(py, r#type, priority)?)
    }

    /// Create or replace the rule `name` (`type`: include, exclude or boost;
    /// `score_modifier` −10…+5, default by type).
    #[pyo3(signature = (name, r#type, keywords, *, score_modifier = None, priority = None, active = None, description = None))]
    #[allow(clippy::too_many_arguments)]
    fn update_veille_rule(
        &self,
        py: Python<'_>,
        name: String,
        r#type: &str,
        keywords: Vec<String>,
        score_modifier: Option<i32>,
        priority: Option<&str>,
        active: Option<bool>,
        description: Option<String>,
    ) -> PyResult<Out> {
        let op = update_rule(
            py,
            name,
            r#type,
            keywords,
            score_modifier,
            priority,
            active,
            description,
        )?;
        self.run(py, op)
    }

    /// Async [`Watch.update_veille_rule`].
    #[pyo3(signature = (name, r#type, keywords, *, score_modifier = None, priority = None, active = None, description = None))]
    #[allow(clippy::too_many_arguments)]
    fn aupdate_veille_rule<'py>(
        &self,
        py: Python<'py>,
        name: String,
        r#type: &str,
        keywords: Vec<String>,
        score_modifier: Option<i32>,
        priority: Option<&str>,
        active: Option<bool>,
        description: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = update_rule(
            py,
            name,
            r#type,
            keywords,
            score_modifier,
            priority,
            active,
            description,
        )?;
        self.start(py, op)
    }

    /// The reference score of an article: base score plus the modifiers of
    /// the matched rules, clamped, with the rules, keywords and one
    /// explanation line per step.
    #[pyo3(signature = (*, title = String::new(), content = String::new(), url = String::new()))]
    fn score_article(
        &self,
        py: Python<'_>,
        title: String,
        content: String,
        url: String,
    ) -> PyResult<Out> {
        self.run(py, score(title, content, url))
    }

    /// Async [`Watch.score_article`].
    #[pyo3(signature = (*, title = String::new(), content = String::new(), url = String::new()))]
    fn ascore_article<'py>(
        &self,
        py: Python<'py>,
        title: String,
        content: String,
        url: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, score(title, content, url))
    }

    /// Whether an article was already processed: by canonical URL
    /// (tracking parameters ignored) or, with `content`, by its text.
    #[pyo3(signature = (url, *, content = None))]
    fn check_article_exists(
        &self,
        py: Python<'_>,
        url: String,
        content: Option<String>,
    ) -> PyResult<Out> {
        self.run(py, Op::Check(CheckArticleRequest { url, content }))
    }

    /// Async [`Watch.check_article_exists`].
    #[pyo3(signature = (url, *, content = None))]
    fn acheck_article_exists<'py>(
        &self,
        py: Python<'py>,
        url: String,
        content: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, Op::Check(CheckArticleRequest { url, content }))
    }

    /// Log an analysed article (idempotent per canonical URL; `source_type`:
    /// rss, youtube, reddit or hn).
    #[pyo3(signature = (url, title, source, source_type, *, qwen_score = None, qwen_keywords = None, phi_validated = None, phi_confidence = None, summary_fr = None, impact = None, hashtags = None, linkedin_draft = None, raw_content = None))]
    #[allow(clippy::too_many_arguments)]
    fn log_article(
        &self,
        py: Python<'_>,
        url: String,
        title: String,
        source: String,
        source_type: &str,
        qwen_score: Option<i64>,
        qwen_keywords: Option<Vec<String>>,
        phi_validated: Option<bool>,
        phi_confidence: Option<f64>,
        summary_fr: Option<String>,
        impact: Option<String>,
        hashtags: Option<Vec<String>>,
        linkedin_draft: Option<String>,
        raw_content: Option<String>,
    ) -> PyResult<Out> {
        let op = log_article(
            py,
            url,
            title,
            source,
            source_type,
            qwen_score,
            qwen_keywords,
            phi_validated,
            phi_confidence,
            summary_fr,
            impact,
            hashtags,
            linkedin_draft,
            raw_content,
        )?;
        self.run(py, op)
    }

    /// Async [`Watch.log_article`].
    #[pyo3(signature = (url, title, source, source_type, *, qwen_score = None, qwen_keywords = None, phi_validated = None, phi_confidence = None, summary_fr = None, impact = None, hashtags = None, linkedin_draft = None, raw_content = None))]
    #[allow(clippy::too_many_arguments)]
    fn alog_article<'py>(
        &self,
        py: Python<'py>,
        url: String,
        title: String,
        source: String,
        source_type: &str,
        qwen_score: Option<i64>,
        qwen_keywords: Option<Vec<String>>,
        phi_validated: Option<bool>,
        phi_confidence: Option<f64>,
        summary_fr: Option<String>,
        impact: Option<String>,
        hashtags: Option<Vec<String>>,
        linkedin_draft: Option<String>,
        raw_content: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = log_article(
            py,
            url,
            title,
            source,
            source_type,
            qwen_score,
            qwen_keywords,
            phi_validated,
            phi_confidence,
            summary_fr,
            impact,
            hashtags,
            linkedin_draft,
            raw_content,
        )?;
        self.start(py, op)
    }

    /// Recent articles, newest first.
    #[pyo3(signature = (*, days = 7, source = None, validated_only = true, limit = 20))]
    fn get_articles(
        &self,
        py: Python<'_>,
        days: u32,
        source: Option<String>,
        validated_only: bool,
        limit: usize,
    ) -> PyResult<Out> {
        self.run(py, articles(days, source, validated_only, limit))
    }

    /// Async [`Watch.get_articles`].
    #[pyo3(signature = (*, days = 7, source = None, validated_only = true, limit = 20))]
    fn aget_articles<'py>(
        &self,
        py: Python<'py>,
        days: u32,
        source: Option<String>,
        validated_only: bool,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, articles(days, source, validated_only, limit))
    }

    /// Log a decision for the audit (`llm`: qwen or phi; `decision_type`:
    /// score, validate, reject or verify_fact).
    #[pyo3(signature = (llm, decision_type, decision, *, article_id = None, confidence = None, reasoning = None, tools_used = None))]
    #[allow(clippy::too_many_arguments)]
    fn log_veille_decision(
        &self,
        py: Python<'_>,
        llm: &str,
        decision_type: &str,
        decision: String,
        article_id: Option<String>,
        confidence: Option<f64>,
        reasoning: Option<String>,
        tools_used: Option<Vec<String>>,
    ) -> PyResult<Out> {
        let op = log_decision(
            py,
            llm,
            decision_type,
            decision,
            article_id,
            confidence,
            reasoning,
            tools_used,
        )?;
        self.run(py, op)
    }

    /// Async [`Watch.log_veille_decision`].
    #[pyo3(signature = (llm, decision_type, decision, *, article_id = None, confidence = None, reasoning = None, tools_used = None))]
    #[allow(clippy::too_many_arguments)]
    fn alog_veille_decision<'py>(
        &self,
        py: Python<'py>,
        llm: &str,
        decision_type: &str,
        decision: String,
        article_id: Option<String>,
        confidence: Option<f64>,
        reasoning: Option<String>,
        tools_used: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = log_decision(
            py,
            llm,
            decision_type,
            decision,
            article_id,
            confidence,
            reasoning,
            tools_used,
        )?;
        self.start(py, op)
    }

    /// The decision audit log, oldest first, per article and/or period
    /// (`since`/`until`: datetime or ISO 8601 string).
    #[pyo3(signature = (*, article_id = None, days = None, since = None, until = None, limit = 100))]
    fn get_veille_decisions(
        &self,
        py: Python<'_>,
        article_id: Option<String>,
        days: Option<u32>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
        limit: usize,
    ) -> PyResult<Out> {
        self.run(py, decisions(py, article_id, days, since, until, limit)?)
    }

    /// Async [`Watch.get_veille_decisions`].
    #[pyo3(signature = (*, article_id = None, days = None, since = None, until = None, limit = 100))]
    fn aget_veille_decisions<'py>(
        &self,
        py: Python<'py>,
        article_id: Option<String>,
        days: Option<u32>,
        since: Option<&Bound<'py, PyAny>>,
        until: Option<&Bound<'py, PyAny>>,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, decisions(py, article_id, days, since, until, limit)?)
    }

    /// Web search through the configured SearXNG (`time_range`: day, week,
    /// month or year).
    #[pyo3(signature = (query, *, num_results = 5, time_range = None))]
    fn web_search(
        &self,
        py: Python<'_>,
        query: String,
        num_results: usize,
        time_range: Option<&str>,
    ) -> PyResult<Out> {
        self.run(py, web_search(py, query, num_results, time_range)?)
    }

    /// Async [`Watch.web_search`].
    #[pyo3(signature = (query, *, num_results = 5, time_range = None))]
    fn aweb_search<'py>(
        &self,
        py: Python<'py>,
        query: String,
        num_results: usize,
        time_range: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, web_search(py, query, num_results, time_range)?)
    }

    /// The main content of a web page as Markdown, with its links.
    fn crawl_url(&self, py: Python<'_>, url: String) -> PyResult<Out> {
        self.run(py, Op::Crawl(CrawlRequest { url }))
    }

    /// Async [`Watch.crawl_url`].
    fn acrawl_url<'py>(&self, py: Python<'py>, url: String) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, Op::Crawl(CrawlRequest { url }))
    }

    /// Check a claim against `urls` (or the top web search results): the
    /// verdict, the deciding sentences, the pages that could not be read.
    #[pyo3(signature = (claim, *, context = None, urls = None))]
    fn verify_fact(
        &self,
        py: Python<'_>,
        claim: String,
        context: Option<String>,
        urls: Option<Vec<String>>,
    ) -> PyResult<Out> {
        self.run(py, verify(claim, context, urls))
    }

    /// Async [`Watch.verify_fact`].
    #[pyo3(signature = (claim, *, context = None, urls = None))]
    fn averify_fact<'py>(
        &self,
        py: Python<'py>,
        claim: String,
        context: Option<String>,
        urls: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.start(py, verify(claim, context, urls))
    }

    fn __repr__(&self) -> String {
        format!("Watch(home={:?})", self.inner.describe())
    }
}
