//! The facade through its api types, on the embedded store and (when a Redis
//! server can be started) on Redis: one code path for both.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verity::api::{
    schema_of, AskRequest, ConfigOverrides, DeleteRequest, IngestRequest, SearchRequest, MAX_K,
};
use verity::{Document, Verity};

fn docs() -> Vec<Document> {
    let mut v = Vec::new();
    let texts = [
        ("fees", "The fee of a forward is the base fee plus the amount times the fee rate in parts per million."),
        ("liq", "Circular rebalancing moves liquidity between channels and costs routing fees."),
        ("htlc", "A channel holds at most 483 pending HTLCs in each direction."),
        ("tower", "Watchtowers monitor the chain for revoked commitment transactions."),
        ("onion", "Onion routing hides the payment path from intermediate nodes."),
        ("anchor", "Anchor outputs let either party bump the commitment transaction later."),
        ("gossip", "Gossip messages announce channels and node addresses to the network."),
    ];
    for (uid, t) in texts {
        let mut d = Document::new(uid, t);
        d.title = Some(uid.to_string());
        d.lang = Some("en".into());
        v.push(d);
    }
    v
}

fn overrides(home: &std::path::Path) -> ConfigOverrides {
    ConfigOverrides {
        home: Some(home.display().to_string()),
        embedder: Some("none".into()),
        min_relevance: Some(0.0),
        ..Default::default()
    }
}

/// Ingest, search, ask (cached), delete (busts the answer), stats — the same on every backend.
async fn one_path(v: &Verity, backend: &str) {
    let o = v
        .ingest(IngestRequest::documents(docs()), &|_| {})
        .await
        .unwrap();
    assert_eq!(o.inserted, 7, "{o:?}");
    let r = v
        .search(&SearchRequest::new("fee rate parts per million").k(3))
        .await
        .unwrap();
    assert_eq!(r.hits[0].doc.uid, "fees");
    // No embedder: the search ran lexical and says so to every host.
    assert_eq!(r.mode.to_string(), "lexical");
    assert!(
        r.notes.iter().any(|n| n.contains("lexical")),
        "{:?}",
        r.notes
    );

    let q = AskRequest::new("How is the fee of a forward computed from the fee rate?");
    let a = v.ask(&q).await.unwrap();
    assert_eq!(a.citations[0].doc_uid, "fees", "{a:?}");
    assert!(!a.cached);
    assert!(
        v.ask(&q).await.unwrap().cached,
        "second answer from the cache"
    );

    let d = v
        .delete(&DeleteRequest {
            uids: vec!["fees".into(), "nope".into()],
        })
        .await
        .unwrap();
    assert_eq!((d.deleted, d.requested), (1, 2));
    let a = v.ask(&q).await.unwrap();
    assert!(
        !a.cached,
        "deleting a cited document busts the cached answer"
    );
    assert!(a.citations.iter().all(|c| c.doc_uid != "fees"));

    let s = v.stats().await.unwrap();
    assert_eq!(s.store.backend, backend);
    assert_eq!(s.store.documents, 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_through_the_api() {
    let tmp = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&overrides(tmp.path())).await.unwrap();
    one_path(&v, "sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn redis_through_the_same_api() {
    let Some(server) =
        verity_redis::server::RedisServer::start_or_skip("redis_through_the_same_api", &[])
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut o = overrides(tmp.path());
    o.home = Some(server.url());
    let v = Verity::open_with(&o).await.unwrap();
    assert!(v.location().starts_with("redis://"));
    one_path(&v, "redis").await;
    // Files stream in batches through the same reader.
    std::fs::write(
        tmp.path().join("n.md"),
        "# Splicing\n\nSplicing resizes a channel.\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("x.bin"), [0u8, 1, 2, 3]).unwrap();
    let out = v
        .ingest(
            IngestRequest::paths([tmp.path().display().to_string()], false),
            &|_| {},
        )
        .await
        .unwrap();
    assert_eq!(out.inserted, 1, "{out:?}");
    assert!(out.partial(), "the binary file was left out: {out:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn searching_never_loads_the_generator() {
    let tmp = tempfile::tempdir().unwrap();
    let mut o = overrides(tmp.path());
    // A local GGUF model that does not exist: loading it would fail.
    o.generator = Some(format!(
        "local:{}",
        tmp.path().join("no-model.gguf").display()
    ));
    let v = Verity::open_with(&o).await.unwrap();
    v.ingest(IngestRequest::documents(docs()), &|_| {})
        .await
        .unwrap();
    v.search(&SearchRequest::new("fees")).await.unwrap();
    let s = v.stats().await.unwrap();
    assert!(s.generator.starts_with("local:"), "{}", s.generator);
    assert!(!v.generator_loaded());
    let e = v.ask(&AskRequest::new("fees?")).await.unwrap_err();
    assert_eq!(e.code(), "config_error", "the first question loads it: {e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn k_bounds_are_one_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&overrides(tmp.path())).await.unwrap();
    v.ingest(IngestRequest::documents(docs()), &|_| {})
        .await
        .unwrap();
    for k in [0, MAX_K + 1] {
        let e = v
            .search(&SearchRequest::new("fees").k(k))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        let mut a = AskRequest::new("fees?");
        a.k = Some(k);
        let e2 = v.ask(&a).await.unwrap_err();
        assert_eq!(e.to_string(), e2.to_string());
        let q = verity::SearchQuery::new("fees").k(k);
        assert_eq!(
            v.search_query(&q).await.unwrap_err().to_string(),
            e.to_string()
        );
    }
    let all = v
        .search(&SearchRequest::new("fees").k(MAX_K))
        .await
        .unwrap();
    assert!(
        !all.hits.is_empty() && all.hits.len() <= 7,
        "k = MAX_K is allowed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn until_a_date_includes_that_day() {
    let tmp = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&overrides(tmp.path())).await.unwrap();
    let mut d = Document::new("noon", "Routing fees changed at noon.");
    d.ts = Some("2024-01-01T12:00:00Z".parse().unwrap());
    v.ingest(IngestRequest::documents(vec![d]), &|_| {})
        .await
        .unwrap();
    let mut r = SearchRequest::new("routing fees");
    r.until = Some("2024-01-01".into());
    assert_eq!(v.search(&r).await.unwrap().hits.len(), 1);
    r.until = Some("2024-01-01T00:00:00Z".into());
    assert_eq!(v.search(&r).await.unwrap().hits.len(), 0);
    r.until = Some("yesterday".into());
    assert_eq!(v.search(&r).await.unwrap_err().code(), "invalid_input");
}

#[test]
fn schemas_come_from_the_types() {
    let s = schema_of::<SearchRequest>();
    let props = s["properties"].as_object().unwrap();
    for f in ["query", "k", "mode", "since", "until", "metadata"] {
        assert!(props.contains_key(f), "{f} missing from {s}");
    }
    assert_eq!(
        s["additionalProperties"], false,
        "unknown fields are refused"
    );
    let a = schema_of::<verity::api::AskResponse>();
    assert!(a["properties"]["citations"].is_object(), "{a}");
}

/// "Nothing to ingest" is the facade's rule: the CLI, Python and Node (which
/// call `Verity::ingest`) get the very error REST and the MCP tool answer.
#[tokio::test(flavor = "multi_thread")]
async fn an_empty_ingest_is_refused_by_the_library() {
    let tmp = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&overrides(tmp.path())).await.unwrap();
    for req in [
        IngestRequest::default(),
        IngestRequest::documents(Vec::new()),
        IngestRequest::paths(Vec::<String>::new(), false),
    ] {
        let e = v.ingest(req, &|_| {}).await.unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.to_string().contains("nothing to ingest"), "{e}");
    }
    assert_eq!(v.stats().await.unwrap().store.documents, 0);
}

/// A URL the network guard refuses is refused when ingested too, with the
/// typed error every other reader of a fetch gets (`fetch_refused`, the
/// address and rule once), not a generic network failure.
#[tokio::test]
async fn a_refused_url_is_refused_when_ingested_too() {
    let tmp = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&overrides(tmp.path())).await.unwrap();
    let url = "http://127.0.0.1:9/x".to_string();
    let e = v
        .ingest(IngestRequest::paths([url.clone()], true), &|_| {})
        .await
        .unwrap_err();
    assert_eq!(e.code(), "fetch_refused", "{e}");
    let text = e.to_string();
    assert_eq!(text.matches("network guard").count(), 1, "{text}");
    assert!(text.contains("127.0.0.1"), "{text}");
    // Not strict: the same words in the outcome, and nothing stored.
    let out = v
        .ingest(IngestRequest::paths([url], false), &|_| {})
        .await
        .unwrap();
    assert_eq!(out.inserted, 0, "{out:?}");
    assert!(
        out.read_errors
            .iter()
            .any(|m| m.matches("network guard").count() == 1),
        "{out:?}"
    );
}
