//! The seed-000 tools over MCP (official rmcp client, streamable HTTP):
//! every tool listed with the seed's name, description and required
//! fields, and the seed's example session replayed (get_veille_rules →
//! check_article_exists → verify_fact → log_veille_decision) with SearXNG
//! and the article served by loopback fakes speaking their real formats.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::args;

use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use verity::watch::WatchConfig;

const ARTICLE: &str = r#"<!doctype html><html><head><title>Ollama 0.5.0 Release Notes</title></head>
<body><nav><a href="/">Home</a></nav><article><h1>Ollama 0.5.0</h1>
<p>This release brings a new scheduler and better memory estimates for large models.</p>
<p>Performance improvements in Ollama 0.5: 40-50% faster inference on Apple Silicon.</p>
<p>Quantisation options were added for every supported platform and model family.</p>
</article></body></html>"#;

/// `/releases` → the page, `/search` → SearXNG JSON pointing at it.
fn web() -> String {
    verity_testkit::one_article_web(
        "/releases",
        ARTICLE,
        "Ollama 0.5.0 Release Notes",
        "Performance improvements: 40-50% faster inference on Apple Silicon...",
    )
    .unwrap()
}

/// (name, English description prefix, required fields): the seed's names
/// and required fields, its descriptions translated (the product speaks English).
const SEED: &[(&str, &str, &[&str])] = &[
    ("get_veille_rules", "Gets the relevance rules used to score articles. MUST be called before any analysis.", &[]),
    ("update_veille_rule", "Adds or replaces a relevance rule", &["keywords", "name", "type"]),
    ("check_article_exists", "Checks whether an article was already processed. MUST be called before analysing an article.", &["url"]),
    ("web_search", "Searches the web.", &["query"]),
    ("crawl_url", "Extracts the clean text of a web page.", &["url"]),
    ("verify_fact", "Checks whether a claim is true by searching and reading sources.", &["claim"]),
    ("log_article", "Logs an analysed article in the database.", &["source", "source_type", "title", "url"]),
    ("get_articles", "Gets recent articles for context.", &[]),
    ("log_veille_decision", "Logs an analysis decision for the audit.", &["decision", "decision_type", "llm"]),
];

const AURACORE: &[&str] = &[
    "create_project",
    "list_projects",
    "get_project",
    "update_project",
    "store_context",
    "query_context",
    "delete_context",
    "create_task",
    "update_task",
    "get_next_tasks",
    "log_decision",
    "get_decisions",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_tools_and_session_over_mcp() {
    let web = web();
    let fx = common::fixture().await;
    fx.verity
        .configure_watch(WatchConfig {
            searxng_url: Some(web.clone()),
            allow_private: true,
            ..WatchConfig::default()
        })
        .unwrap();
    let addr = common::serve(&fx).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = ().serve(transport).await.expect("initialize");

    let tools = client.list_all_tools().await.unwrap();
    for (name, desc, required) in SEED {
        let t = tools
            .iter()
            .find(|t| t.name == *name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        assert!(
            t.description.as_deref().unwrap_or("").starts_with(desc),
            "{name}: {:?}",
            t.description
        );
        let mut req: Vec<String> = t
            .input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        req.sort();
        assert_eq!(req, *required, "{name}: {:?}", t.input_schema);
    }
    for name in AURACORE
        .iter()
        .chain(&["score_article", "get_veille_decisions"])
    {
        assert!(tools.iter().any(|t| t.name == *name), "{name} not listed");
    }
    let rules = tools.iter().find(|t| t.name == "get_veille_rules").unwrap();
    let kinds = serde_json::to_string(&rules.input_schema).unwrap();
    for k in ["include", "exclude", "boost", "all", "critical"] {
        assert!(kinds.contains(k), "{kinds}");
    }

    let call = |name: &'static str, a: Value| {
        let client = &client;
        async move {
            let r = client
                .call_tool(CallToolRequestParams::new(name).with_arguments(args(a)))
                .await
                .unwrap();
            (
                r.is_error == Some(true),
                r.structured_content.unwrap_or(Value::Null),
            )
        }
    };

    // The seed's session.
    let (err, v) = call(
        "update_veille_rule",
        json!({"name": "local_llm", "type": "include",
        "keywords": ["ollama", "local llm"], "score_modifier": 3, "priority": "critical"}),
    )
    .await;
    assert!(!err, "{v}");
    let (_, v) = call("get_veille_rules", json!({})).await;
    assert_eq!(v["rules"][0]["name"], "local_llm");
    assert_eq!(v["scoring_guide"]["min_valid_score"], 7);
    let (_, v) = call(
        "check_article_exists",
        json!({"url": "https://blog.ollama.com/ollama-0-5"}),
    )
    .await;
    assert_eq!(v["exists"], false, "{v}");
    let (err, v) = call(
        "verify_fact",
        json!({"claim": "Ollama 0.5 is 40-50% faster on Apple Silicon",
        "context": "inference performance"}),
    )
    .await;
    assert!(!err, "{v}");
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["sources"][0]["url"], format!("{web}/releases"));
    assert_eq!(
        v["sources"][0]["excerpt"],
        "Performance improvements in Ollama 0.5: 40-50% faster inference on Apple Silicon.",
        "{v}"
    );
    let (_, v) = call(
        "score_article",
        json!({"title": "Ollama 0.5 brings 50% faster inference"}),
    )
    .await;
    assert_eq!(v["score"], 8, "{v}");
    let (err, v) = call(
        "log_veille_decision",
        json!({"llm": "qwen", "decision_type": "score",
        "decision": "Score 8/10 - Recommandé pour validation", "confidence": 0.88,
        "reasoning": "Match règle local_llm, claim vérifiée",
        "tools_used": ["get_veille_rules", "check_article_exists", "verify_fact"]}),
    )
    .await;
    assert!(!err, "{v}");
    assert_eq!(v["logged"], true);
    assert!(v["decision_id"].as_str().unwrap().len() > 3);

    // Failures are tool errors with the error's code.
    let (err, v) = call(
        "update_veille_rule",
        json!({"name": "x", "type": "include",
        "keywords": ["a"], "score_modifier": 9}),
    )
    .await;
    assert!(err, "{v}");
    assert_eq!(v["error"]["code"], "invalid_input", "{v}");
    let (err, v) = call("get_project", json!({"project_id": "prj_nope"})).await;
    assert!(err);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    client.cancel().await.unwrap();
}
