//! Rules, scoring, the article log and the decision audit log.

use std::sync::Arc;

use chrono::{Duration, Utc};
use verity_core::hash::sha1_hex;
use verity_core::watch::new_id;
use verity_core::{
    Article, ArticleFilter, Decision, DecisionFilter, Error, RelevanceRule, Result, RuleUpdate,
};

use crate::api::*;
use crate::canon::canonical_url;
use crate::score::{ScoreRequest, ScoreResult, Scorer};
use crate::simhash::{distance, fingerprint, Fingerprint};
use crate::{not_found, required, unit_interval, Watch};

/// Most articles `get_articles` returns.
pub const MAX_ARTICLE_LIMIT: usize = 1000;
/// Most decisions read back at once.
pub const MAX_DECISION_LIMIT: usize = 10_000;

/// Id of the article first logged at `canonical`.
fn article_id(canonical: &str) -> String {
    format!(
        "art_{}",
        sha1_hex(canonical.as_bytes()).get(..16).unwrap_or("")
    )
}

fn sort_rules(rules: &mut [RelevanceRule]) {
    rules.sort_by(|a, b| {
        a.priority
            .cmp(&b.priority)
            .then_with(|| a.name.cmp(&b.name))
    });
}

fn clean_list(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(v.len());
    for s in v {
        let s = s.trim().to_string();
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn non_blank(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

impl Watch {
    // ------------------------------------------------------------ rules

    /// `get_veille_rules`: active rules (by priority, then name) and the scoring guide.
    pub async fn get_rules(&self, req: &GetRulesRequest) -> Result<RulesResponse> {
        let mut rules = self.rules.rules(req.kind.kind(), req.priority).await?;
        rules.retain(|r| r.active);
        sort_rules(&mut rules);
        Ok(RulesResponse {
            rules,
            scoring_guide: self.guide,
        })
    }

    /// Create the rules whose names do not exist yet (active or not); rules
    /// already there, edited or deactivated since, are kept. Every rule is
    /// validated before any is written. How many were created.
    pub async fn seed_rules(&self, updates: Vec<RuleUpdate>) -> Result<usize> {
        let rules = updates
            .into_iter()
            .map(RuleUpdate::into_rule)
            .collect::<Result<Vec<_>>>()?;
        let existing = self.rules.rules(None, None).await?;
        let mut created = 0;
        for rule in rules {
            if existing.iter().any(|r| r.name == rule.name) {
                continue;
            }
            self.rules.upsert_rule(rule).await?;
            created += 1;
        }
        Ok(created)
    }

    /// `update_veille_rule`: create or replace the rule `name`.
    pub async fn update_rule(&self, update: RuleUpdate) -> Result<UpdateRuleResponse> {
        let rule = update.into_rule()?;
        let stored = self.rules.rules(None, None).await?;
        let existed = stored.iter().any(|r| r.name == rule.name);
        // Bounds on the whole rule set, so that compiling and matching the
        // rules stays cheap for every later score.
        let others = stored.iter().filter(|r| r.name != rule.name);
        let rules = others.clone().count() + 1;
        if rules > verity_core::MAX_RULES {
            return Err(Error::Input(verity_core::InputError::field(
                "name",
                format!(
                    "{} rules are stored; at most {} are allowed (MAX_RULES): delete or \
                     replace one",
                    rules - 1,
                    verity_core::MAX_RULES
                ),
            )));
        }
        let keywords: usize = others.map(|r| r.keywords.len()).sum::<usize>() + rule.keywords.len();
        if keywords > verity_core::MAX_TOTAL_KEYWORDS {
            return Err(Error::Input(verity_core::InputError::field(
                "keywords",
                format!(
                    "the rules would hold {keywords} keywords in all; at most {} are allowed \
                     (MAX_TOTAL_KEYWORDS)",
                    verity_core::MAX_TOTAL_KEYWORDS
                ),
            )));
        }
        self.rules.upsert_rule(rule.clone()).await?;
        Ok(UpdateRuleResponse {
            updated: true,
            created: !existed,
            rule,
        })
    }

    /// Delete a rule; an unknown name is a not-found error.
    pub async fn delete_rule(&self, name: &str) -> Result<()> {
        if self.rules.delete_rule(name.trim()).await? {
            Ok(())
        } else {
            Err(not_found("rule", name))
        }
    }

    /// The compiled active rules, rebuilt when the stored rules changed.
    async fn scorer(&self) -> Result<Arc<Scorer>> {
        let mut rules = self.rules.rules(None, None).await?;
        rules.retain(|r| r.active);
        sort_rules(&mut rules);
        if let Some(s) = self.scorer.lock().as_ref() {
            if s.rules() == rules.as_slice() {
                return Ok(s.clone());
            }
        }
        let s = Arc::new(Scorer::new(rules, self.guide)?);
        *self.scorer.lock() = Some(s.clone());
        Ok(s)
    }

    /// `score_article`: deterministic score with the rules that matched.
    pub async fn score_article(&self, req: &ScoreRequest) -> Result<ScoreResult> {
        if req.title.trim().is_empty() && req.content.trim().is_empty() && req.url.trim().is_empty()
        {
            return Err(Error::invalid_input(
                "give at least one of `title`, `content`, `url`",
            ));
        }
        Ok(self.scorer().await?.score(req))
    }

    // ------------------------------------------------------------ articles

    /// The article matching `fp` within the near-duplicate distance, closest first.
    async fn near_duplicate(&self, fp: &Fingerprint) -> Result<Option<(Article, u32)>> {
        let mut best: Option<(Article, u32)> = None;
        let found = self
            .store
            .near_duplicates(fp.simhash, self.near_dup_distance)
            .await?;
        for a in found {
            let Some(h) = a.simhash else { continue };
            let d = if a.content_sha1.as_deref() == Some(fp.sha1.as_str()) {
                0
            } else {
                distance(h, fp.simhash)
            };
            if d <= self.near_dup_distance && best.as_ref().is_none_or(|(_, bd)| d < *bd) {
                best = Some((a, d));
            }
        }
        Ok(best)
    }

    /// `check_article_exists`: by canonical URL, then (with `content`) by
    /// near-duplicate content.
    pub async fn check_article(&self, req: &CheckArticleRequest) -> Result<CheckArticleResponse> {
        let canonical = canonical_url(&req.url)?;
        let given = req.url.trim().to_string();
        if let Some(a) = self.store.article_by_url(&canonical).await? {
            return Ok(found(a, MatchedBy::Url, None, given, canonical));
        }
        if let Some(fp) = req.content.as_deref().and_then(fingerprint) {
            if let Some((a, d)) = self.near_duplicate(&fp).await? {
                let by = if a.content_sha1.as_deref() == Some(fp.sha1.as_str()) {
                    MatchedBy::SameContent
                } else {
                    MatchedBy::NearDuplicate
                };
                return Ok(found(a, by, Some(d), given, canonical));
            }
        }
        Ok(CheckArticleResponse {
            exists: false,
            article: None,
            matched_by: None,
            distance: None,
            url: given,
            canonical_url: canonical,
            message: "Article not found: not processed yet".into(),
        })
    }

    /// `log_article`: idempotent by canonical URL; content that duplicates
    /// an article logged at another URL adds this URL to that article.
    pub async fn log_article(&self, req: LogArticleRequest) -> Result<LogArticleResponse> {
        let canonical = canonical_url(&req.url)?;
        let title = required("title", &req.title)?;
        let source = required("source", &req.source)?;
        if let Some(s) = req.qwen_score {
            let max = i64::from(self.guide.max_score);
            if !(0..=max).contains(&s) {
                return Err(Error::invalid_input(format!(
                    "`qwen_score` must be between 0 and {max}, got {s}"
                )));
            }
        }
        unit_interval("phi_confidence", req.phi_confidence)?;
        let fp = req.raw_content.as_deref().and_then(fingerprint);
        let now = Utc::now();
        let mut duplicate_of = None;
        let existing = match self.store.article_by_url(&canonical).await? {
            Some(a) => Some(a),
            None => match &fp {
                Some(fp) => match self.near_duplicate(fp).await? {
                    Some((a, _)) => {
                        duplicate_of = Some(a.id.clone());
                        Some(a)
                    }
                    None => None,
                },
                None => None,
            },
        };
        let created = existing.is_none();
        let mut article = match existing {
            Some(a) => a,
            None => Article {
                id: article_id(&canonical),
                url: req.url.trim().to_string(),
                canonical_url: canonical.clone(),
                aliases: Vec::new(),
                title: title.clone(),
                source: source.clone(),
                source_type: req.source_type,
                qwen_score: None,
                qwen_keywords: Vec::new(),
                phi_validated: false,
                phi_confidence: None,
                summary_fr: None,
                impact: None,
                hashtags: Vec::new(),
                linkedin_draft: None,
                content_sha1: None,
                simhash: None,
                word_count: None,
                processed_at: now,
                updated_at: now,
            },
        };
        if duplicate_of.is_some() {
            // Another URL of an article already logged: remember the URL, keep its record.
            if !article.all_urls().any(|u| u == canonical) {
                article.aliases.push(canonical.clone());
            }
        } else {
            // A (re-)log of this URL: given fields replace, omitted ones stay.
            article.title = title;
            article.source = source;
            article.source_type = req.source_type;
            if req.qwen_score.is_some() {
                article.qwen_score = req.qwen_score;
            }
            if !req.qwen_keywords.is_empty() {
                article.qwen_keywords = clean_list(req.qwen_keywords);
            }
            if let Some(v) = req.phi_validated {
                article.phi_validated = v;
            }
            if req.phi_confidence.is_some() {
                article.phi_confidence = req.phi_confidence;
            }
            article.summary_fr = non_blank(req.summary_fr).or(article.summary_fr);
            article.impact = non_blank(req.impact).or(article.impact);
            if !req.hashtags.is_empty() {
                article.hashtags = clean_list(req.hashtags);
            }
            article.linkedin_draft = non_blank(req.linkedin_draft).or(article.linkedin_draft);
            if let Some(fp) = &fp {
                article.content_sha1 = Some(fp.sha1.clone());
                article.simhash = Some(fp.simhash);
                article.word_count = Some(fp.words);
            }
        }
        article.updated_at = now;
        self.store.put_article(&article).await?;
        let (ingested, ingest_error) = match (&self.sink, req.raw_content.as_deref()) {
            (Some(sink), Some(raw)) if !raw.trim().is_empty() && duplicate_of.is_none() => {
                match sink.ingest_article(&article, raw).await {
                    Ok(()) => (Some(true), None),
                    Err(e) => {
                        tracing::warn!(article = %article.id, error = %e, "article logged but its content was not ingested");
                        (Some(false), Some(e.to_string()))
                    }
                }
            }
            _ => (None, None),
        };
        Ok(LogArticleResponse {
            logged: true,
            article_id: article.id,
            created,
            duplicate_of,
            canonical_url: canonical,
            ingested,
            ingest_error,
        })
    }

    /// The article with this id; an unknown id is a not-found error.
    pub async fn get_article(&self, id: &str) -> Result<Article> {
        self.store
            .article(id.trim())
            .await?
            .ok_or_else(|| not_found("article", id))
    }

    /// `get_articles`: recent articles, newest first.
    pub async fn get_articles(&self, req: &GetArticlesRequest) -> Result<ArticlesResponse> {
        if req.limit == 0 || req.limit > MAX_ARTICLE_LIMIT {
            return Err(Error::invalid_input(format!(
                "`limit` must be between 1 and {MAX_ARTICLE_LIMIT}, got {}",
                req.limit
            )));
        }
        if req.days == 0 || req.days > 36_500 {
            return Err(Error::invalid_input(format!(
                "`days` must be between 1 and 36500, got {}",
                req.days
            )));
        }
        let filter = ArticleFilter {
            since: Some(Utc::now() - Duration::days(i64::from(req.days))),
            source: non_blank(req.source.clone()),
            validated_only: req.validated_only,
            limit: req.limit,
        };
        let articles = self.store.articles(&filter).await?;
        Ok(ArticlesResponse {
            total: articles.len(),
            articles,
            period: format!("{} days", req.days),
        })
    }

    // ------------------------------------------------------------ decisions

    /// `log_veille_decision`: append to the audit log.
    pub async fn log_decision(&self, req: LogDecisionRequest) -> Result<LogDecisionResponse> {
        let decision = required("decision", &req.decision)?;
        unit_interval("confidence", req.confidence)?;
        let article_id = non_blank(req.article_id);
        if let Some(id) = &article_id {
            if self.store.article(id).await?.is_none() {
                return Err(not_found("article", id));
            }
        }
        let d = Decision {
            id: new_id("dec"),
            article_id,
            llm: req.llm,
            decision_type: req.decision_type,
            decision,
            confidence: req.confidence,
            reasoning: non_blank(req.reasoning),
            tools_used: clean_list(req.tools_used),
            created_at: Utc::now(),
        };
        self.store.append_decision(&d).await?;
        Ok(LogDecisionResponse {
            logged: true,
            decision_id: d.id,
            created_at: d.created_at,
        })
    }

    /// Decisions per article and/or period, oldest first.
    pub async fn decisions(
        &self,
        req: &GetWatchDecisionsRequest,
    ) -> Result<WatchDecisionsResponse> {
        if req.limit == 0 || req.limit > MAX_DECISION_LIMIT {
            return Err(Error::invalid_input(format!(
                "`limit` must be between 1 and {MAX_DECISION_LIMIT}, got {}",
                req.limit
            )));
        }
        let article_id = non_blank(req.article_id.clone());
        if let Some(id) = &article_id {
            if self.store.article(id).await?.is_none() {
                return Err(not_found("article", id));
            }
        }
        let mut since = req.since;
        if let Some(days) = req.days {
            let d = Utc::now() - Duration::days(i64::from(days.min(36_500)));
            since = Some(since.map_or(d, |s| s.max(d)));
        }
        let decisions = self
            .store
            .decisions(&DecisionFilter {
                article_id,
                since,
                until: req.until,
                limit: req.limit,
            })
            .await?;
        Ok(WatchDecisionsResponse {
            total: decisions.len(),
            decisions,
        })
    }
}

fn found(
    a: Article,
    by: MatchedBy,
    distance: Option<u32>,
    given: String,
    canonical: String,
) -> CheckArticleResponse {
    let message = format!(
        "Article already processed on {}",
        a.processed_at.format("%Y-%m-%d")
    );
    CheckArticleResponse {
        exists: true,
        article: Some(ArticleBrief::from(&a)),
        matched_by: Some(by),
        distance,
        url: given,
        canonical_url: canonical,
        message,
    }
}
