//! `Verity::watch` over the handle's own backend — the embedded store and
//! (when a Redis server can be started) Redis — through the tool registry:
//! rules, idempotent article log whose raw text becomes searchable, the
//! duplicate check, decisions, AuraCore tasks, and typed errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use verity::api::{ConfigOverrides, SearchRequest};
use verity::watch::WatchConfig;
use verity::Verity;

async fn one_path(v: &Verity) {
    v.configure_watch(WatchConfig::default()).unwrap();
    let r = v
        .call_tool(
            "update_veille_rule",
            json!({"name": "local_llm", "type": "include",
            "keywords": ["ollama", "llama.cpp"], "score_modifier": 3, "priority": "critical"}),
        )
        .await
        .unwrap();
    assert_eq!(r["created"], true);
    // Configuring after first use is refused (the watch is built once).
    assert!(v.configure_watch(WatchConfig::default()).is_err());

    let article = json!({"url": "https://blog.ollama.com/ollama-0-5?utm_source=rss",
        "title": "Announcing Ollama 0.5", "source": "ollama_blog", "source_type": "rss",
        "qwen_score": 8, "phi_validated": true,
        "raw_content": "Ollama 0.5 makes quantised inference on Apple Silicon markedly faster."});
    let first = v.call_tool("log_article", article.clone()).await.unwrap();
    assert_eq!(
        (first["created"].clone(), first["ingested"].clone()),
        (json!(true), json!(true)),
        "{first}"
    );
    let again = v.call_tool("log_article", article).await.unwrap();
    assert_eq!(again["created"], false);
    assert_eq!(again["article_id"], first["article_id"]);
    // The raw text is in the store: search finds it.
    let hits = v
        .search(&SearchRequest::new("quantised inference Apple Silicon"))
        .await
        .unwrap();
    assert!(
        hits.hits
            .iter()
            .any(|h| h.doc.url.as_deref()
                == Some("https://blog.ollama.com/ollama-0-5?utm_source=rss")),
        "{hits:?}"
    );

    let seen = v
        .call_tool(
            "check_article_exists",
            json!({"url": "https://www.blog.ollama.com/ollama-0-5/#top"}),
        )
        .await
        .unwrap();
    assert_eq!(seen["exists"], true, "{seen}");
    let d = v
        .call_tool(
            "log_veille_decision",
            json!({"article_id": first["article_id"], "llm": "phi",
        "decision_type": "validate", "decision": "validé", "confidence": 0.9}),
        )
        .await
        .unwrap();
    assert_eq!(d["logged"], true);
    let back = v
        .call_tool(
            "get_veille_decisions",
            json!({"article_id": first["article_id"]}),
        )
        .await
        .unwrap();
    assert_eq!(back["total"], 1);

    let p = v
        .call_tool("create_project", json!({"name": "veille"}))
        .await
        .unwrap();
    let a = v
        .call_tool(
            "create_task",
            json!({"project_id": p["id"], "title": "collect", "priority": "low"}),
        )
        .await
        .unwrap();
    v.call_tool("create_task", json!({"project_id": p["id"], "title": "publish", "priority": "critical", "depends_on": [a["id"]]})).await.unwrap();
    let next = v
        .call_tool("get_next_tasks", json!({"project_id": p["id"]}))
        .await
        .unwrap();
    assert_eq!(
        next["tasks"][0]["title"], "collect",
        "dependencies first: {next}"
    );
    assert_eq!(next["waiting"], 1);

    // query_context: the store's retrieval, within one project, forgetting deleted entries.
    let pa = v
        .call_tool("create_project", json!({"name": "storage"}))
        .await
        .unwrap()["id"]
        .clone();
    let pb = v
        .call_tool("create_project", json!({"name": "other"}))
        .await
        .unwrap()["id"]
        .clone();
    let ctx = |p: &serde_json::Value, text: &str| json!({"project_id": p, "content": text, "title": "note"});
    let sqlite = v
        .call_tool(
            "store_context",
            ctx(
                &pa,
                "The embedded backend keeps every record in one SQLite file.",
            ),
        )
        .await
        .unwrap();
    assert_eq!(sqlite["indexed"], true, "{sqlite}");
    v.call_tool(
        "store_context",
        ctx(
            &pa,
            "Redis with the search and JSON modules serves many processes.",
        ),
    )
    .await
    .unwrap();
    v.call_tool(
        "store_context",
        ctx(&pb, "This other project keeps a SQLite file as well."),
    )
    .await
    .unwrap();
    let q = json!({"project_id": pa, "query": "SQLite file", "limit": 5});
    let found = v.call_tool("query_context", q.clone()).await.unwrap();
    assert_eq!(found["ran"], "index", "{found}");
    let hits = found["results"].as_array().unwrap();
    assert_eq!(hits[0]["entry"]["id"], sqlite["context_id"], "{found}");
    assert!(
        hits.iter().all(|h| h["entry"]["project_id"] == pa),
        "{found}"
    );
    // The facade's search (retrieval cache on) sees the entry; deleting it
    // busts that cached retrieval, so the next search does not return it.
    let ctx_uid = format!(
        "auracore-context:{}",
        sqlite["context_id"].as_str().unwrap()
    );
    let seen = |r: &verity::SearchResults| r.hits.iter().any(|h| h.doc.uid == ctx_uid);
    let cached = v
        .search(&SearchRequest::new("embedded backend SQLite"))
        .await
        .unwrap();
    assert!(seen(&cached), "{cached:?}");
    v.call_tool(
        "delete_context",
        json!({"context_id": sqlite["context_id"]}),
    )
    .await
    .unwrap();
    let again = v
        .search(&SearchRequest::new("embedded backend SQLite"))
        .await
        .unwrap();
    assert!(!seen(&again), "deleted context still found: {again:?}");
    let after = v.call_tool("query_context", q).await.unwrap();
    assert_eq!(after["ran"], "index", "{after}");
    assert!(
        after["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["entry"]["id"] != sqlite["context_id"]),
        "{after}"
    );

    // A call that never reached its tool keeps its code (the error table's
    // `unknown_tool` and `invalid_arguments` rows), as REST and MCP report it.
    let e = v.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(e.code(), "unknown_tool");
    assert!(e.to_string().contains("get_veille_rules"), "{e}");
    let e = v
        .call_tool("get_project", json!({"project_id": 7}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "invalid_arguments");
    assert!(e.to_string().contains("project_id"), "{e}");
    let row = verity::api::ErrorMapping::of(&e);
    assert_eq!((row.http_status, row.python_class), (422, "InvalidInput"));

    // Typed errors: bad enum, unknown id, web search not configured.
    let e = v
        .call_tool("get_veille_rules", json!({"type": "sometimes"}))
        .await
        .unwrap_err();
    // A value outside the schema's enum: the arguments do not match the schema.
    assert_eq!(e.code(), "invalid_arguments");
    assert!(e.to_string().contains("include"), "{e}");
    let e = v
        .call_tool("get_project", json!({"project_id": "prj_nope"}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "not_found");
    let e = v
        .call_tool("web_search", json!({"query": "ollama"}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "config_error");
    // A private address is refused by the handle's guarded fetcher.
    let e = v
        .call_tool("crawl_url", json!({"url": "http://127.0.0.1:9/x"}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("network guard"), "{e}");
}

fn overrides(home: &str) -> ConfigOverrides {
    ConfigOverrides {
        home: Some(home.to_string()),
        embedder: Some("none".into()),
        min_relevance: Some(0.0),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn watch_on_the_embedded_store() {
    let tmp = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&overrides(&tmp.path().display().to_string()))
        .await
        .unwrap();
    one_path(&v).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn watch_on_redis() {
    let Some(server) = verity_redis::server::RedisServer::start_or_skip("watch_on_redis", &[])
    else {
        return;
    };
    let v = Verity::open_with(&overrides(&server.url())).await.unwrap();
    one_path(&v).await;
}
