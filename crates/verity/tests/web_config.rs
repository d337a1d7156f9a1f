//! The web settings of the configuration reach the services that use them:
//! `jina_reader_url` (`JINA_READER_URL`) sends the watch's `crawl_url`
//! through Jina Reader, and a rules file (`VERITY_WATCH_RULES`) seeds the
//! rules of a fresh install without touching rules edited since.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use verity::api::ConfigOverrides;
use verity::Verity;

async fn open(home: &std::path::Path, o: ConfigOverrides) -> Verity {
    Verity::open_with(&ConfigOverrides {
        home: Some(home.display().to_string()),
        embedder: Some("none".into()),
        ..o
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_url_goes_through_jina_reader_when_configured() {
    let hits = Arc::new(AtomicUsize::new(0));
    let seen = hits.clone();
    let jina = verity_testkit::serve(move |path, _| {
        seen.fetch_add(1, Ordering::SeqCst);
        assert!(path.starts_with("/https://example.com/post"), "{path}");
        verity_testkit::Reply::json(&json!({
            "code": 200, "status": 20000,
            "data": {"title": "Ollama 0.5", "url": "https://example.com/post",
                     "content": "# Ollama 0.5\n\nInference is 40-50% faster on Apple Silicon."}
        }))
    })
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let v = open(
        home.path(),
        ConfigOverrides {
            jina_reader_url: Some(jina),
            ..ConfigOverrides::default()
        },
    )
    .await;
    let page = v
        .call_tool("crawl_url", json!({"url": "https://example.com/post"}))
        .await
        .unwrap();
    assert!(
        hits.load(Ordering::SeqCst) >= 1,
        "the Jina fake got no request"
    );
    assert!(
        page["content"].as_str().unwrap().contains("40-50% faster"),
        "{page}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rules_file_seeds_a_fresh_install_and_keeps_edits() {
    let dir = tempfile::tempdir().unwrap();
    let rules =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/n8n/rules.json");
    let home = dir.path().join("store");
    let watch_config = || verity::watch::WatchConfig {
        rules_file: Some(rules.clone()),
        ..verity::watch::WatchConfig::default()
    };
    {
        let v = open(&home, ConfigOverrides::default()).await;
        v.configure_watch(watch_config()).unwrap();
        let got = v.call_tool("get_veille_rules", json!({})).await.unwrap();
        let names: Vec<&str> = got["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&"local_llm") && names.contains(&"clickbait"),
            "{got}"
        );
        let score = v
            .call_tool(
                "score_article",
                json!({"title": "Ollama 0.5 makes local LLM inference faster"}),
            )
            .await
            .unwrap();
        assert!(score["score"].as_i64().unwrap() >= 8, "{score}");
        // An operator edits a seeded rule.
        v.call_tool(
            "update_veille_rule",
            json!({"name": "local_llm", "type": "include", "keywords": ["ollama"], "score_modifier": 1}),
        )
        .await
        .unwrap();
        v.flush().await.unwrap();
    }
    // Restarting with the same file keeps the edit.
    let v = open(&home, ConfigOverrides::default()).await;
    v.configure_watch(watch_config()).unwrap();
    let got = v.call_tool("get_veille_rules", json!({})).await.unwrap();
    let local = got["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "local_llm")
        .unwrap()
        .clone();
    assert_eq!(local["score_modifier"], 1, "{local}");

    // A file that is not a rules file is refused with what it should hold.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"rule\": 1}").unwrap();
    let v = open(&dir.path().join("other"), ConfigOverrides::default()).await;
    v.configure_watch(verity::watch::WatchConfig {
        rules_file: Some(bad),
        ..verity::watch::WatchConfig::default()
    })
    .unwrap();
    let e = v
        .call_tool("get_veille_rules", json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "config_error");
    assert!(e.to_string().contains("examples/n8n/rules.json"), "{e}");
}
