//! The n8n workflow of `examples/n8n/veille-workflow.json`, replayed node by
//! node against a live server: `tests/n8n/replay.mjs` evaluates each node's
//! expressions in Node.js as n8n does and sends the HTTP nodes' requests,
//! in order, with their bodies and the bearer token; the web (the article
//! page and SearXNG) is the loopback fake of `verity-testkit`. The server is
//! a fresh install whose rules come from `examples/n8n/rules.json`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use crate::common::{self, TestServer, TOKEN};
use serde_json::{json, Value};
use verity::watch::WatchConfig;

const ARTICLE: &str = r#"<!doctype html><html><head><title>Ollama 0.5 is out</title></head>
<body><article><h1>Ollama 0.5 is out</h1>
<p>Today we're releasing Ollama 0.5, our biggest update for running a local LLM yet.</p>
<p>Ollama 0.5 inference is 40-50% faster on Apple Silicon than Ollama 0.4.</p>
<p>We rewrote the scheduler and added quantization options that reduce memory use.</p>
</article></body></html>"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh server: rules seeded from the example file, SearXNG when given,
/// loopback pages allowed (the fake web lives on 127.0.0.1).
async fn start(searxng: Option<String>) -> TestServer {
    common::start_watch(WatchConfig {
        searxng_url: searxng,
        allow_private: true,
        rules_file: Some(repo().join("examples/n8n/rules.json")),
        ..WatchConfig::default()
    })
    .await
}

/// Run the workflow for one RSS item; the replay's `{completed, trace}`.
async fn replay(s: &TestServer, item: Value) -> Value {
    let script = repo().join("crates/verity-server/tests/n8n/replay.mjs");
    let workflow = repo().join("examples/n8n/veille-workflow.json");
    let url = s.url.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg(script)
            .arg(workflow)
            .arg(url)
            .arg(TOKEN)
            .arg(item.to_string())
            .output()
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| {
        panic!("Node.js (>= 18) replays the n8n workflow: `node` did not run: {e}")
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "replay failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("replay output: {e}: {stdout}"))
}

/// The HTTP nodes the replay called, in order, with their statuses.
fn calls(run: &Value) -> Vec<(String, u64)> {
    run["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t.get("status").is_some())
        .map(|t| {
            (
                t["node"].as_str().unwrap().to_string(),
                t["status"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn step<'a>(run: &'a Value, node: &str) -> &'a Value {
    run["trace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["node"] == node)
        .unwrap_or_else(|| panic!("{node} did not run: {run:#}"))
}

async fn n8n_get(s: &TestServer, path: &str) -> Value {
    let r = s
        .client
        .get(format!("{}{path}", s.url))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let (status, body) = common::status_json(r).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// The article logged under its URL as given, with its score, and its decisions.
async fn logged(s: &TestServer, link: &str) -> (Value, Vec<Value>) {
    let articles = n8n_get(s, "/api/veille/articles?days=1&validated_only=false").await;
    let article = articles["articles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["url"] == link)
        .unwrap_or_else(|| panic!("no article logged at {link}: {articles:#}"))
        .clone();
    let id = article["id"].as_str().unwrap().to_string();
    let decisions = n8n_get(s, &format!("/api/veille/decisions?article_id={id}")).await;
    (article, decisions["decisions"].as_array().unwrap().clone())
}

fn rss_item(web: &str) -> (String, Value) {
    // An http:// link with a tracking parameter: canonicalised for the
    // duplicate check only, stored and returned as given.
    let link = format!("{web}/article?utm_source=rss");
    let item = json!({
        "title": "Ollama 0.5 is 40-50% faster on Apple Silicon",
        "link": link,
        "contentSnippet": "Ollama 0.5 brings faster inference for local LLM users.",
    });
    (link, item)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_install_logs_the_article_with_a_score_and_a_decision() {
    let web = verity_testkit::one_article_web("/article", ARTICLE, "Ollama 0.5 is out", "faster")
        .unwrap();
    let s = start(Some(web.clone())).await;
    let (link, item) = rss_item(&web);

    let run = replay(&s, item.clone()).await;
    assert_eq!(run["completed"], true, "{run:#}");
    let names: Vec<String> = calls(&run).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "Get rules",
            "Check article",
            "Crawl page",
            "Score",
            "Verify title claim",
            "Log article",
            "Log decision"
        ],
        "{run:#}"
    );
    assert!(calls(&run).iter().all(|(_, st)| *st == 200), "{run:#}");
    // Rules from the example file exist on a fresh install and score the article.
    let rules = step(&run, "Get rules")["response"]["rules"]
        .as_array()
        .unwrap()
        .len();
    assert!(rules >= 3, "{run:#}");
    let score = &step(&run, "Score")["response"];
    assert!(
        score["score"].as_i64().unwrap() >= 8,
        "local_llm (+3) and performance (+1): {score}"
    );
    assert_eq!(score["valid"], true, "{score}");
    // The duplicate check answers in English and keeps the URL as given.
    let check = &step(&run, "Check article")["response"];
    assert_eq!(check["exists"], false);
    assert_eq!(check["url"], link.as_str(), "{check}");
    assert!(
        check["canonical_url"]
            .as_str()
            .unwrap()
            .starts_with("https://"),
        "{check}"
    );
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .starts_with("Article not found"),
        "{check}"
    );
    assert_eq!(
        step(&run, "Verify title claim")["response"]["verdict"],
        "SUPPORTED",
        "{run:#}"
    );

    let (article, decisions) = logged(&s, &link).await;
    assert_eq!(article["qwen_score"], score["score"], "{article}");
    assert_eq!(article["phi_validated"], true, "{article}");
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    let d = decisions[0]["decision"].as_str().unwrap();
    assert!(
        d.starts_with(&format!("Score {}/10", score["score"])),
        "{d}"
    );

    // The next run sees the article and stops at the IF node: nothing new is logged.
    let again = replay(&s, item).await;
    assert_eq!(
        step(&again, "Check article")["response"]["exists"],
        true,
        "{again:#}"
    );
    assert_eq!(step(&again, "New article?")["result"], false, "{again:#}");
    assert_eq!(logged(&s, &link).await.1.len(), 1);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_searxng_the_error_branch_still_logs_score_and_decision() {
    let web = verity_testkit::one_article_web("/article", ARTICLE, "Ollama 0.5 is out", "faster")
        .unwrap();
    let s = start(None).await;
    let (link, item) = rss_item(&web);

    let run = replay(&s, item).await;
    assert_eq!(run["completed"], true, "{run:#}");
    let verify = step(&run, "Verify title claim");
    assert_eq!(verify["status"], 503, "{verify}");
    let message = verify["response"]["message"].as_str().unwrap();
    assert!(
        message.contains("SEARXNG_URL"),
        "the error names the variable to set: {message}"
    );
    let result = &step(&run, "Verification result")["json"];
    assert_eq!(result["verified"], false);
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .starts_with("Verification unavailable"),
        "{result}"
    );

    let (article, decisions) = logged(&s, &link).await;
    assert!(article["qwen_score"].as_i64().unwrap() >= 8, "{article}");
    assert_eq!(article["phi_validated"], false, "{article}");
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    assert!(
        decisions[0]["reasoning"]
            .as_str()
            .unwrap()
            .contains("Verification unavailable"),
        "{decisions:?}"
    );
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_step_is_logged_as_a_decision() {
    let s = start(None).await;
    // Not a URL: the duplicate check answers 400 and the error branch logs why.
    let run = replay(
        &s,
        json!({"title": "Broken item", "link": "ftp://example.org/x", "contentSnippet": ""}),
    )
    .await;
    assert_eq!(run["completed"], true, "{run:#}");
    assert_eq!(step(&run, "Check article")["status"], 400, "{run:#}");
    let failure = step(&run, "Log failure");
    assert_eq!(failure["status"], 200, "{failure}");
    let decision = failure["body"]["decision"].as_str().unwrap();
    assert!(
        decision.starts_with("Not processed: Check article failed"),
        "{decision}"
    );
    let log = n8n_get(&s, "/api/veille/decisions?days=1").await;
    assert!(
        log.to_string()
            .contains("Not processed: Check article failed"),
        "{log}"
    );
    s.shutdown().await;
}
