//! The store contract of the watch: one suite that every backend's tests
//! run ([`RuleStore`], [`WatchStore`], [`ProjectStore`], and the [`Watch`]
//! operations on top of them).
//!
//! ```ignore
//! verity_store_contract::watch::run(Arc::new(my_empty_store)).await;
//! ```
use std::sync::Arc;

use chrono::{Duration, Utc};
use verity_core::watch::simhash_bands;
use verity_core::{
    Article, ArticleFilter, ContextEntry, Decision, DecisionFilter, DecisionLlm, DecisionType,
    Priority, Project, ProjectDecision, ProjectStatus, ProjectStore, RelevanceRule, RuleKind,
    RuleStore, RuleUpdate, SourceType, Task, TaskStatus, WatchStore,
};

use verity_watch::api::*;
use verity_watch::Watch;

/// Run the whole suite against an empty backend.
pub async fn run<B>(backend: Arc<B>)
where
    B: RuleStore + WatchStore + ProjectStore + 'static,
{
    rules(backend.as_ref()).await;
    articles(backend.as_ref()).await;
    decisions(backend.as_ref()).await;
    projects(backend.as_ref()).await;
    watch_flow(backend).await;
}

fn rule(name: &str, kind: RuleKind, p: Priority, active: bool) -> RelevanceRule {
    RelevanceRule {
        name: name.into(),
        kind,
        keywords: vec!["ollama".into(), "local llm".into()],
        score_modifier: 3,
        priority: p,
        active,
        description: Some("d".into()),
    }
}

/// `RuleStore`: create-or-replace by name, filters, delete.
pub async fn rules(s: &dyn RuleStore) {
    assert!(s.rules(None, None).await.unwrap().is_empty());
    s.upsert_rule(rule("a", RuleKind::Include, Priority::High, true))
        .await
        .unwrap();
    s.upsert_rule(rule("b", RuleKind::Exclude, Priority::Critical, true))
        .await
        .unwrap();
    s.upsert_rule(rule("c", RuleKind::Boost, Priority::High, true))
        .await
        .unwrap();
    let mut replaced = rule("a", RuleKind::Include, Priority::Low, true);
    replaced.keywords = vec!["n8n".into()];
    s.upsert_rule(replaced.clone()).await.unwrap();
    let mut all = s.rules(None, None).await.unwrap();
    all.sort_by(|x, y| x.name.cmp(&y.name));
    assert_eq!(all.len(), 3);
    assert_eq!(
        all[0], replaced,
        "upsert replaces by name, all fields round-trip"
    );
    let inc = s.rules(Some(RuleKind::Include), None).await.unwrap();
    assert_eq!(
        inc.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["a"]
    );
    let high = s.rules(None, Some(Priority::High)).await.unwrap();
    assert_eq!(
        high.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["c"]
    );
    assert!(s
        .rules(Some(RuleKind::Exclude), Some(Priority::Low))
        .await
        .unwrap()
        .is_empty());
    assert!(s.delete_rule("b").await.unwrap());
    assert!(!s.delete_rule("b").await.unwrap());
    assert!(!s.delete_rule("nope").await.unwrap());
    assert_eq!(s.rules(None, None).await.unwrap().len(), 2);
    // Clean up for the flow test.
    assert!(s.delete_rule("a").await.unwrap());
    assert!(s.delete_rule("c").await.unwrap());
}

fn article(
    id: &str,
    url: &str,
    source: &str,
    validated: bool,
    age_days: i64,
    simhash: Option<u64>,
) -> Article {
    let t = Utc::now() - Duration::days(age_days);
    Article {
        id: id.into(),
        url: url.into(),
        canonical_url: url.into(),
        aliases: Vec::new(),
        title: format!("Title {id}"),
        source: source.into(),
        source_type: SourceType::Rss,
        qwen_score: Some(8),
        qwen_keywords: vec!["ollama".into()],
        phi_validated: validated,
        phi_confidence: Some(0.9),
        summary_fr: Some("Résumé".into()),
        impact: None,
        hashtags: vec!["#IA".into()],
        linkedin_draft: None,
        content_sha1: simhash.map(|h| format!("{h:x}")),
        simhash,
        word_count: simhash.map(|_| 120),
        processed_at: t,
        updated_at: t,
    }
}

/// `WatchStore` articles: ids, URLs and aliases, SimHash bands, filters, order.
pub async fn articles(s: &dyn WatchStore) {
    assert_eq!(s.article_count().await.unwrap(), 0);
    assert!(s.article("art_x").await.unwrap().is_none());
    let h1: u64 = 0x0123_4567_89ab_cdef;
    let a1 = article("art_1", "https://a.example/1", "blog_a", true, 1, Some(h1));
    let a2 = article("art_2", "https://a.example/2", "blog_b", false, 2, None);
    let a3 = article(
        "art_3",
        "https://a.example/3",
        "blog_a",
        true,
        10,
        Some(!h1),
    );
    for a in [&a1, &a2, &a3] {
        s.put_article(a).await.unwrap();
    }
    assert_eq!(s.article_count().await.unwrap(), 3);
    assert_eq!(s.article("art_1").await.unwrap().unwrap(), a1, "round-trip");
    assert_eq!(
        s.article_by_url("https://a.example/2")
            .await
            .unwrap()
            .unwrap()
            .id,
        "art_2"
    );
    assert!(s
        .article_by_url("https://a.example/9")
        .await
        .unwrap()
        .is_none());
    // Replacing keeps one record and indexes new aliases.
    let mut a1b = a1.clone();
    a1b.aliases.push("https://mirror.example/1".into());
    a1b.title = "Renamed".into();
    s.put_article(&a1b).await.unwrap();
    assert_eq!(s.article_count().await.unwrap(), 3);
    let by_alias = s
        .article_by_url("https://mirror.example/1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (by_alias.id.as_str(), by_alias.title.as_str()),
        ("art_1", "Renamed")
    );
    // SimHash: every article within the distance, none beyond.
    let near = h1 ^ 1 ^ (1 << 17) ^ (1 << 33);
    let c = s.near_duplicates(near, 7).await.unwrap();
    assert_eq!(
        c.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["art_1"]
    );
    assert!(s.near_duplicates(near, 2).await.unwrap().is_empty());
    let seven = h1 ^ 0x0101_0101_0101_0100; // 7 bits, one in 7 of the 8 bytes
    assert_eq!(s.near_duplicates(seven, 7).await.unwrap().len(), 1);
    let far = h1 ^ 0x0101_0101_0101_0101; // 8 bits
    assert!(s.near_duplicates(far, 7).await.unwrap().is_empty());
    assert!(s.near_duplicates(far, 64).await.unwrap().is_empty());
    assert_eq!(simhash_bands(near)[3], simhash_bands(h1)[3]);
    // A new SimHash replaces the old index entries.
    let mut a1c = a1b.clone();
    a1c.simhash = Some(0xffff_0000_ffff_0000);
    s.put_article(&a1c).await.unwrap();
    assert!(s.near_duplicates(near, 7).await.unwrap().is_empty());
    assert_eq!(
        s.near_duplicates(0xffff_0000_ffff_0000 ^ (1 << 5) ^ (1 << 63), 7)
            .await
            .unwrap()[0]
            .id,
        "art_1"
    );
    // Filters: period, source, validated, limit; newest first.
    let f = |since_days: i64, source: Option<&str>, validated: bool, limit: usize| ArticleFilter {
        since: Some(Utc::now() - Duration::days(since_days)),
        source: source.map(str::to_string),
        validated_only: validated,
        limit,
    };
    let ids = |v: Vec<Article>| v.into_iter().map(|a| a.id).collect::<Vec<_>>();
    assert_eq!(
        ids(s.articles(&f(30, None, false, 10)).await.unwrap()),
        ["art_1", "art_2", "art_3"]
    );
    assert_eq!(
        ids(s.articles(&f(7, None, false, 10)).await.unwrap()),
        ["art_1", "art_2"]
    );
    assert_eq!(
        ids(s.articles(&f(30, None, true, 10)).await.unwrap()),
        ["art_1", "art_3"]
    );
    assert_eq!(
        ids(s.articles(&f(30, Some("blog_a"), true, 1)).await.unwrap()),
        ["art_1"]
    );
    assert_eq!(
        ids(s.articles(&f(30, Some("blog_b"), true, 10)).await.unwrap()),
        Vec::<String>::new()
    );
    let all = ArticleFilter {
        since: None,
        source: None,
        validated_only: false,
        limit: 2,
    };
    assert_eq!(ids(s.articles(&all).await.unwrap()), ["art_1", "art_2"]);
}

fn decision(id: &str, article: Option<&str>, age_hours: i64) -> Decision {
    Decision {
        id: id.into(),
        article_id: article.map(str::to_string),
        llm: DecisionLlm::Qwen,
        decision_type: DecisionType::Score,
        decision: format!("Score 8/10 ({id})"),
        confidence: Some(0.88),
        reasoning: Some("Match règle local_llm".into()),
        tools_used: vec!["get_veille_rules".into()],
        created_at: Utc::now() - Duration::hours(age_hours),
    }
}

/// `WatchStore` decisions: append-only, filters, oldest first, most recent `limit`.
pub async fn decisions(s: &dyn WatchStore) {
    let d1 = decision("dec_1", Some("art_1"), 50);
    let d2 = decision("dec_2", None, 20);
    let d3 = decision("dec_3", Some("art_1"), 1);
    for d in [&d1, &d2, &d3] {
        s.append_decision(d).await.unwrap();
    }
    let e = s
        .append_decision(&decision("dec_2", None, 0))
        .await
        .unwrap_err();
    assert!(!e.is_transient(), "{e}");
    let f = |article: Option<&str>, since: Option<i64>, until: Option<i64>, limit| DecisionFilter {
        article_id: article.map(str::to_string),
        since: since.map(|h| Utc::now() - Duration::hours(h)),
        until: until.map(|h| Utc::now() - Duration::hours(h)),
        limit,
    };
    let ids = |v: Vec<Decision>| v.into_iter().map(|d| d.id).collect::<Vec<_>>();
    let all = s.decisions(&f(None, None, None, 100)).await.unwrap();
    assert_eq!(all[1], d2, "round-trip");
    assert_eq!(ids(all), ["dec_1", "dec_2", "dec_3"]);
    assert_eq!(
        ids(s
            .decisions(&f(Some("art_1"), None, None, 100))
            .await
            .unwrap()),
        ["dec_1", "dec_3"]
    );
    assert_eq!(
        ids(s.decisions(&f(None, Some(24), None, 100)).await.unwrap()),
        ["dec_2", "dec_3"]
    );
    assert_eq!(
        ids(s
            .decisions(&f(None, Some(100), Some(10), 100))
            .await
            .unwrap()),
        ["dec_1", "dec_2"]
    );
    assert_eq!(
        ids(s.decisions(&f(None, None, None, 2)).await.unwrap()),
        ["dec_2", "dec_3"]
    );
    assert!(s
        .decisions(&f(Some("art_9"), None, None, 100))
        .await
        .unwrap()
        .is_empty());
}

/// `ProjectStore`: projects, context, tasks, decisions.
pub async fn projects(s: &dyn ProjectStore) {
    let now = Utc::now();
    let p = |id: &str, secs: i64| Project {
        id: id.into(),
        name: format!("P {id}"),
        description: None,
        status: ProjectStatus::Active,
        tags: vec!["veille".into()],
        created_at: now + Duration::seconds(secs),
        updated_at: now + Duration::seconds(secs),
    };
    assert!(s.projects().await.unwrap().is_empty());
    s.put_project(&p("prj_b", 1)).await.unwrap();
    s.put_project(&p("prj_a", 2)).await.unwrap();
    let mut changed = p("prj_b", 1);
    changed.status = ProjectStatus::Paused;
    s.put_project(&changed).await.unwrap();
    let all = s.projects().await.unwrap();
    assert_eq!(
        all.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["prj_b", "prj_a"]
    );
    assert_eq!(s.project("prj_b").await.unwrap().unwrap(), changed);
    assert!(s.project("prj_z").await.unwrap().is_none());

    let ctx = |id: &str, project: &str, secs: i64| ContextEntry {
        id: id.into(),
        project_id: project.into(),
        title: Some("Spec".into()),
        content: format!("content of {id}"),
        tags: vec![],
        created_at: now + Duration::seconds(secs),
    };
    s.put_context(&ctx("ctx_1", "prj_a", 1)).await.unwrap();
    s.put_context(&ctx("ctx_2", "prj_a", 2)).await.unwrap();
    s.put_context(&ctx("ctx_3", "prj_b", 3)).await.unwrap();
    let ids = |v: Vec<ContextEntry>| v.into_iter().map(|c| c.id).collect::<Vec<_>>();
    assert_eq!(ids(s.contexts("prj_a").await.unwrap()), ["ctx_1", "ctx_2"]);
    assert_eq!(
        s.context("ctx_3").await.unwrap().unwrap(),
        ctx("ctx_3", "prj_b", 3)
    );
    assert!(s.delete_context("ctx_1").await.unwrap());
    assert!(!s.delete_context("ctx_1").await.unwrap());
    assert!(s.context("ctx_1").await.unwrap().is_none());
    assert_eq!(ids(s.contexts("prj_a").await.unwrap()), ["ctx_2"]);

    let task = |id: &str, secs: i64, deps: &[&str]| Task {
        id: id.into(),
        project_id: "prj_a".into(),
        title: format!("Task {id}"),
        description: None,
        priority: Priority::High,
        status: TaskStatus::Todo,
        depends_on: deps.iter().map(|d| d.to_string()).collect(),
        created_at: now + Duration::seconds(secs),
        updated_at: now + Duration::seconds(secs),
    };
    s.put_task(&task("tsk_1", 1, &[])).await.unwrap();
    s.put_task(&task("tsk_2", 2, &["tsk_1"])).await.unwrap();
    let mut done = task("tsk_1", 1, &[]);
    done.status = TaskStatus::Done;
    s.put_task(&done).await.unwrap();
    assert_eq!(s.task("tsk_1").await.unwrap().unwrap(), done);
    assert!(s.task("tsk_9").await.unwrap().is_none());
    let t = s.tasks("prj_a").await.unwrap();
    assert_eq!(
        t.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["tsk_1", "tsk_2"]
    );
    assert!(s.tasks("prj_b").await.unwrap().is_empty());

    for i in 0..4 {
        s.append_project_decision(&ProjectDecision {
            id: format!("pdc_{i}"),
            project_id: "prj_a".into(),
            decision: format!("decision {i}"),
            reasoning: None,
            alternatives: vec!["other".into()],
            tags: vec![],
            created_at: now + Duration::seconds(i),
        })
        .await
        .unwrap();
    }
    let d = s.project_decisions("prj_a", 2).await.unwrap();
    assert_eq!(
        d.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
        ["pdc_2", "pdc_3"]
    );
    assert!(s.project_decisions("prj_b", 10).await.unwrap().is_empty());
}

const BODY: &str = "Today we are releasing Ollama 0.5, our biggest update yet. Inference is between forty and fifty percent faster on Apple Silicon thanks to a rewritten scheduler, new quantisation options reduce memory use by a third, and the server now streams tool calls as they are generated. We also fixed dozens of bugs reported by the community, improved model loading times on Linux and Windows, and added support for structured outputs with JSON schemas so that applications can rely on the shape of every answer.";

/// The [`Watch`] operations on top of the backend (articles must be empty
/// of the flow's URLs).
pub async fn watch_flow<B>(backend: Arc<B>)
where
    B: RuleStore + WatchStore + ProjectStore + 'static,
{
    let w = Watch::builder().backend(backend).build().unwrap();
    let up = w
        .update_rule(RuleUpdate {
            name: "local_llm".into(),
            kind: RuleKind::Include,
            keywords: vec!["ollama".into(), "local llm".into()],
            score_modifier: Some(3),
            priority: Some(Priority::Critical),
            active: None,
            description: None,
        })
        .await
        .unwrap();
    assert!(up.created);
    let rules = w.get_rules(&GetRulesRequest::default()).await.unwrap();
    assert_eq!(rules.rules.len(), 1);
    assert_eq!(rules.scoring_guide.min_valid_score, 7);

    let url = "https://blog.ollama.com/ollama-0-5";
    let c = w
        .check_article(&CheckArticleRequest {
            url: url.into(),
            content: None,
        })
        .await
        .unwrap();
    assert!(!c.exists);
    let log = |url: &str, content: Option<&str>| LogArticleRequest {
        url: url.into(),
        title: "Announcing Ollama 0.5".into(),
        source: "ollama_blog".into(),
        source_type: SourceType::Rss,
        qwen_score: Some(9),
        qwen_keywords: vec!["ollama".into()],
        phi_validated: Some(true),
        phi_confidence: Some(0.92),
        summary_fr: Some("• Ollama 0.5 améliore les performances".into()),
        impact: None,
        hashtags: vec!["#Ollama".into()],
        linkedin_draft: None,
        raw_content: content.map(str::to_string),
    };
    let first = w.log_article(log(url, Some(BODY))).await.unwrap();
    assert!(first.created);
    let again = w
        .log_article(log(
            "http://blog.ollama.com/ollama-0-5/?utm_source=rss",
            None,
        ))
        .await
        .unwrap();
    assert_eq!(
        (again.created, again.article_id.as_str()),
        (false, first.article_id.as_str())
    );
    let c = w
        .check_article(&CheckArticleRequest {
            url: format!("{url}#perf"),
            content: None,
        })
        .await
        .unwrap();
    assert!(c.exists);
    assert_eq!(c.article.as_ref().unwrap().id, first.article_id);
    // Republished elsewhere (other case and line breaks): found by content.
    let mirror = BODY.to_uppercase().replace(". ", ".\n\n");
    let c = w
        .check_article(&CheckArticleRequest {
            url: "https://mirror.example/ollama".into(),
            content: Some(mirror.clone()),
        })
        .await
        .unwrap();
    assert!(c.exists, "{c:?}");
    assert_eq!(c.matched_by, Some(MatchedBy::SameContent));
    assert_eq!(c.distance, Some(0));
    let dup = w
        .log_article(log("https://mirror.example/ollama", Some(&mirror)))
        .await
        .unwrap();
    assert_eq!(
        (dup.created, dup.duplicate_of.as_deref()),
        (false, Some(first.article_id.as_str()))
    );
    let c = w
        .check_article(&CheckArticleRequest {
            url: "https://mirror.example/ollama".into(),
            content: None,
        })
        .await
        .unwrap();
    assert_eq!(c.matched_by, Some(MatchedBy::Url));
    let list = w
        .get_articles(&GetArticlesRequest {
            source: Some("ollama_blog".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(list.total, 1);
    assert_eq!(list.period, "7 days");

    let d = w
        .log_decision(LogDecisionRequest {
            article_id: Some(first.article_id.clone()),
            llm: DecisionLlm::Qwen,
            decision_type: DecisionType::Score,
            decision: "Score 8/10 - Recommandé pour validation".into(),
            confidence: Some(0.88),
            reasoning: Some("Match règle local_llm".into()),
            tools_used: vec!["get_veille_rules".into(), "check_article_exists".into()],
        })
        .await
        .unwrap();
    assert!(d.logged && d.decision_id.starts_with("dec_"));
    let back = w
        .decisions(&GetWatchDecisionsRequest {
            article_id: Some(first.article_id.clone()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(
        back.decisions
            .iter()
            .map(|d| d.id.as_str())
            .collect::<Vec<_>>(),
        [d.decision_id.as_str()]
    );
    let e = w
        .log_decision(LogDecisionRequest {
            article_id: Some("art_unknown".into()),
            llm: DecisionLlm::Phi,
            decision_type: DecisionType::Reject,
            decision: "x".into(),
            confidence: None,
            reasoning: None,
            tools_used: vec![],
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), "not_found");
}
