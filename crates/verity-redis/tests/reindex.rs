//! Shadow re-index, gate and alias cutover on both backends; cutover under
//! concurrent queries; Redis killed and restarted in the middle of an ingest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use verity_core::cache::{answer_key, retrieval_key, RETRIEVAL_TTL};
use verity_core::IndexCatalog;
use verity_core::{Cache, Document, Embedder, SearchMode, SearchQuery, VectorStore};
use verity_ingest::reindex::{reindex, EvalQuery, EvalSet, GateConfig, ReindexOptions};
use verity_ingest::Ingestor;
use verity_redis::server::RedisServer;
use verity_redis::{RedisCache, RedisCatalog, RedisStore, RedisStoreOptions};
use verity_store::{SqliteCatalog, StoreOptions};

use common::ToyEmbedder;

const WORDS: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu",
];

/// Documents with distinctive word pairs, so that a query made of a
/// document's pair retrieves it.
fn docs(n: usize, tag: &str) -> Vec<Document> {
    (0..n)
        .map(|i| {
            let a = WORDS[i % WORDS.len()];
            let b = WORDS[(i / WORDS.len() + 7 * i) % WORDS.len()];
            let mut d = Document::new(
                format!("d{i}"),
                format!("Report {i} about {a}{i} and {b}{i}. Shared corpus text {tag} common."),
            );
            d.source = tag.to_string();
            d.lang = Some("en".into());
            d
        })
        .collect()
}

fn eval_for(n: usize) -> EvalSet {
    EvalSet {
        queries: (0..n)
            .step_by(3)
            .map(|i| {
                let a = WORDS[i % WORDS.len()];
                let b = WORDS[(i / WORDS.len() + 7 * i) % WORDS.len()];
                EvalQuery {
                    query: format!("{a}{i} {b}{i}"),
                    relevant_uids: vec![format!("d{i}")],
                }
            })
            .collect(),
    }
}

async fn run_cutover_scenario(catalog: &dyn IndexCatalog, cache: &dyn Cache) {
    let none = |_: &verity_ingest::IngestProgress| {};
    let e1: Arc<dyn Embedder> = Arc::new(ToyEmbedder::new("1"));
    let mut opts = ReindexOptions::new("kb", "1");
    opts.eval = Some(eval_for(60));

    // Dry run: everything would be embedded, nothing written.
    let mut dry = opts.clone();
    dry.dry_run = true;
    let r = reindex(
        catalog,
        docs(60, "v1"),
        Some(e1.clone()),
        Some(cache),
        &dry,
        &none,
    )
    .await
    .unwrap();
    let plan = r.plan.unwrap();
    assert_eq!((plan.documents, plan.to_embed, plan.unchanged), (60, 60, 0));
    assert!(plan.chunks_to_embed >= 60);
    assert!(
        !catalog
            .index_names()
            .await
            .unwrap()
            .contains(&"kb:v1".to_string()),
        "dry run wrote an index"
    );
    assert_eq!(catalog.resolve_alias("kb:current").await.unwrap(), None);

    // First build: gate passes, alias created.
    let r = reindex(
        catalog,
        docs(60, "v1"),
        Some(e1.clone()),
        Some(cache),
        &opts,
        &none,
    )
    .await
    .unwrap();
    let g = r.gate.clone().unwrap();
    assert!(g.passed, "{g:?}");
    assert!(g.recall >= 0.8 && g.queries == 20, "{g:?}");
    assert!(r.cut_over);
    assert_eq!(r.previous, None);
    assert_eq!(
        catalog
            .resolve_alias("kb:current")
            .await
            .unwrap()
            .as_deref(),
        Some("kb:v1")
    );
    assert_eq!(r.ingest.as_ref().unwrap().upsert.inserted, 60);

    // Re-running the same version is idempotent: nothing re-embedded.
    let r = reindex(
        catalog,
        docs(60, "v1"),
        Some(e1.clone()),
        Some(cache),
        &opts,
        &none,
    )
    .await
    .unwrap();
    assert_eq!(r.ingest.as_ref().unwrap().upsert.unchanged, 60);
    let mut dry2 = dry.clone();
    dry2.dry_run = true;
    let p = reindex(
        catalog,
        docs(60, "v1"),
        Some(e1.clone()),
        None,
        &dry2,
        &none,
    )
    .await
    .unwrap()
    .plan
    .unwrap();
    assert_eq!((p.to_embed, p.unchanged), (0, 60));

    // Version 2 with a failing gate: the alias stays on v1.
    let e2: Arc<dyn Embedder> = Arc::new(ToyEmbedder::new("2"));
    let mut bad = ReindexOptions::new("kb", "2");
    bad.eval = Some(EvalSet {
        queries: vec![EvalQuery {
            query: "alpha0".into(),
            relevant_uids: vec!["missing-doc".into()],
        }],
    });
    cache
        .put(&retrieval_key("q", "s"), b"x", Some(RETRIEVAL_TTL), &[])
        .await
        .unwrap();
    let r = reindex(
        catalog,
        docs(60, "v2"),
        Some(e2.clone()),
        Some(cache),
        &bad,
        &none,
    )
    .await
    .unwrap();
    assert!(!r.gate.as_ref().unwrap().passed);
    assert!(!r.cut_over);
    assert_eq!(
        catalog
            .resolve_alias("kb:current")
            .await
            .unwrap()
            .as_deref(),
        Some("kb:v1")
    );
    assert!(
        cache.get(&retrieval_key("q", "s")).await.unwrap().is_some(),
        "caches purged without a cutover"
    );

    // Version mismatch between --version and the embedder is refused.
    assert!(
        reindex(catalog, docs(3, "v2"), Some(e1.clone()), None, &bad, &none)
            .await
            .is_err()
    );

    // Interrupted v2 build (embedder dies) then resumed: the second run skips what was written.
    let mut good = ReindexOptions::new("kb", "3");
    good.eval = Some(eval_for(60));
    good.batch_size = Some(8);
    let dying: Arc<dyn Embedder> = Arc::new(ToyEmbedder::failing_after("3", 3));
    let e = reindex(
        catalog,
        docs(60, "v3"),
        Some(dying),
        Some(cache),
        &good,
        &none,
    )
    .await
    .unwrap_err();
    assert!(e.is_transient(), "{e}");
    assert_eq!(
        catalog
            .resolve_alias("kb:current")
            .await
            .unwrap()
            .as_deref(),
        Some("kb:v1")
    );
    cache
        .put(&answer_key("p"), b"a", Some(RETRIEVAL_TTL), &[])
        .await
        .unwrap();
    let e3 = Arc::new(ToyEmbedder::new("3"));
    let r = reindex(
        catalog,
        docs(60, "v3"),
        Some(e3.clone() as Arc<dyn Embedder>),
        Some(cache),
        &good,
        &none,
    )
    .await
    .unwrap();
    let up = r.ingest.as_ref().unwrap().upsert.clone();
    assert!(
        up.unchanged >= 8,
        "resume did not skip written documents: {up:?}"
    );
    assert_eq!(up.unchanged + up.inserted, 60, "{up:?}");
    assert!(r.cut_over, "{:?}", r.gate);
    assert_eq!(r.previous.as_deref(), Some("kb:v1"));
    assert_eq!(
        catalog
            .resolve_alias("kb:current")
            .await
            .unwrap()
            .as_deref(),
        Some("kb:v3")
    );
    assert!(r.purged >= 2, "{}", r.purged);
    assert!(cache.get(&retrieval_key("q", "s")).await.unwrap().is_none());
    assert!(cache.get(&answer_key("p")).await.unwrap().is_none());
    // The old index is kept (roll back = point the alias back).
    assert!(catalog
        .index_names()
        .await
        .unwrap()
        .contains(&"kb:v1".to_string()));
    let old = catalog.open("kb:v1").await.unwrap();
    assert_eq!(old.stats().await.unwrap().documents, 60);
}

#[tokio::test]
async fn reindex_cutover_redis() {
    let Some(srv) = common::server("reindex_cutover_redis") else {
        return;
    };
    let catalog = RedisCatalog::connect(&srv.url(), RedisStoreOptions::default())
        .await
        .unwrap();
    let cache = RedisCache::connect(&srv.url(), &Default::default())
        .await
        .unwrap();
    run_cutover_scenario(&catalog, &cache).await;
    // Readers bound to the alias follow the cutover.
    let s = catalog.store("kb:current").await.unwrap();
    assert_eq!(s.index_name(), "kb:v3");
    let s2 = RedisStore::connect_current(&srv.url(), "kb", RedisStoreOptions::default())
        .await
        .unwrap();
    assert_eq!(s2.index_name(), "kb:v3");
    let s3 = RedisStore::connect_current(&srv.url(), "fresh", RedisStoreOptions::default())
        .await
        .unwrap();
    assert_eq!(s3.index_name(), "fresh");
    let hits = s
        .search(&SearchQuery::new("common").mode(SearchMode::Lexical).k(1))
        .await
        .unwrap();
    assert_eq!(hits[0].doc.source, "v3");
    catalog.drop_index("kb:v2").await.unwrap();
    assert!(!catalog
        .index_names()
        .await
        .unwrap()
        .contains(&"kb:v2".to_string()));
}

#[tokio::test]
async fn reindex_cutover_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = SqliteCatalog::open(dir.path(), StoreOptions::default()).unwrap();
    let cache = verity_store::SqliteCache::open(dir.path()).unwrap();
    run_cutover_scenario(&catalog, &cache).await;
    let s =
        verity_store::SqliteStore::open(dir.path(), StoreOptions::default().index("kb:current"))
            .unwrap();
    assert_eq!(s.index_name(), "kb:v3");
}

#[tokio::test]
async fn gate_spec_parsing() {
    let g = GateConfig::parse("recall@5=0.8,p95=2.5s").unwrap();
    assert_eq!(
        (g.k, g.min_recall, g.max_p95),
        (5, 0.8, Duration::from_millis(2500))
    );
    let g = GateConfig::parse("recall@10=0.5, p95=800ms").unwrap();
    assert_eq!((g.k, g.max_p95), (10, Duration::from_millis(800)));
    assert!(GateConfig::parse("recall@5=1.5").is_err());
    assert!(GateConfig::parse("ndcg=0.3").is_err());
    assert!(GateConfig::parse("p95=fast").is_err());
}

/// Queries loop on the alias while v2 is built and cut over: no query fails,
/// every result is complete and from one index version only (hybrid queries
/// run their two searches in one MULTI/EXEC).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cutover_under_concurrent_queries() {
    let Some(srv) = common::server("cutover_under_concurrent_queries") else {
        return;
    };
    let catalog = RedisCatalog::connect(&srv.url(), RedisStoreOptions::default())
        .await
        .unwrap();
    let none = |_: &verity_ingest::IngestProgress| {};
    let e1: Arc<dyn Embedder> = Arc::new(ToyEmbedder::new("1"));
    let opts = ReindexOptions::new("kb", "1");
    reindex(&catalog, docs(200, "v1"), Some(e1), None, &opts, &none)
        .await
        .unwrap();
    let reader = Arc::new(catalog.store("kb:current").await.unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let seen_v2 = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for t in 0..2 {
        let (reader, stop, seen_v2) = (reader.clone(), stop.clone(), seen_v2.clone());
        tasks.push(tokio::spawn(async move {
            let mut n = 0usize;
            while !stop.load(Ordering::SeqCst) || n < 5 {
                let mode = if (n + t) % 2 == 0 {
                    SearchMode::Lexical
                } else {
                    SearchMode::Hybrid
                };
                let text = "shared corpus common";
                let q = SearchQuery::new(text)
                    .mode(mode)
                    .k(20)
                    .vector(common::bow(text, 64));
                let hits = reader.search(&q).await.unwrap();
                assert_eq!(hits.len(), 20, "incomplete result");
                let v: std::collections::BTreeSet<_> =
                    hits.iter().map(|h| h.doc.source.clone()).collect();
                assert_eq!(
                    v.len(),
                    1,
                    "mixed index versions in one {mode} result: {v:?}"
                );
                if v.contains("v2") {
                    seen_v2.fetch_add(1, Ordering::SeqCst);
                }
                n += 1;
            }
            n
        }));
    }
    let e2: Arc<dyn Embedder> = Arc::new(ToyEmbedder::new("2"));
    let opts2 = ReindexOptions::new("kb", "2");
    let r = reindex(&catalog, docs(200, "v2"), Some(e2), None, &opts2, &none)
        .await
        .unwrap();
    assert!(r.cut_over);
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, Ordering::SeqCst);
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    assert!(total >= 10);
    assert!(
        seen_v2.load(Ordering::SeqCst) > 0,
        "readers never saw the new index"
    );
}

/// Kill Redis (AOF on) in the middle of a large ingest: the ingest reports a
/// transient error; after a restart a re-run completes and nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restart_mid_ingest() {
    let Some(mut srv) = RedisServer::start_or_skip(
        "redis_restart_mid_ingest",
        &["--appendonly", "yes", "--appendfsync", "always"],
    ) else {
        return;
    };
    let mut opts = RedisStoreOptions::default();
    opts.connect.response_timeout = Duration::from_secs(2);
    let store = Arc::new(
        RedisStore::connect(&srv.url(), "big", opts.clone())
            .await
            .unwrap(),
    );
    let embedder: Arc<dyn Embedder> = Arc::new(ToyEmbedder::new("1"));
    let ingestor = Ingestor::builder(store.clone())
        .embedder(Some(embedder.clone()))
        .batch_size(16)
        .build()
        .unwrap();
    let n = 3000;
    let done = Arc::new(AtomicUsize::new(0));
    let d2 = done.clone();
    let progress = move |p: &verity_ingest::IngestProgress| d2.store(p.docs_done, Ordering::SeqCst);
    let ingest = ingestor.ingest(docs(n, "big"), &progress);
    let killer = async {
        while done.load(Ordering::SeqCst) < 300 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        srv.kill();
    };
    let (res, ()) = tokio::join!(ingest, killer);
    let err = res.expect_err("the ingest must report the lost server");
    assert!(err.is_transient(), "{err}");
    let written_before = done.load(Ordering::SeqCst);
    assert!(written_before < n);

    srv.restart().unwrap();
    // Same store handle: the connection manager reconnects.
    let mut report = None;
    for _ in 0..50 {
        match ingestor
            .ingest(docs(n, "big"), &|_: &verity_ingest::IngestProgress| {})
            .await
        {
            Ok(r) => {
                report = Some(r);
                break;
            }
            Err(e) if e.is_transient() => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(e) => panic!("{e}"),
        }
    }
    let report = report.expect("the re-run never completed");
    assert!(
        report.upsert.unchanged >= 300,
        "documents written before the crash were lost: {:?}",
        report.upsert
    );
    assert_eq!(
        report.upsert.unchanged + report.upsert.inserted + report.upsert.replaced,
        n
    );
    assert!(store.wait_indexed(Duration::from_secs(90)).await.unwrap());
    let st = store.stats().await.unwrap();
    assert_eq!(st.documents, n);
    assert_eq!(st.vectors, st.chunks);
    // Every document is searchable and complete.
    for i in [0usize, 1, 299, 1500, n - 1] {
        let got = store.get(&format!("d{i}")).await.unwrap().unwrap();
        assert!(got.content.contains(&format!("Report {i} ")));
    }
    let hits = store
        .search(
            &SearchQuery::new("shared corpus")
                .mode(SearchMode::Lexical)
                .k(5000),
        )
        .await
        .unwrap();
    assert_eq!(hits.len(), st.chunks);
}

#[test]
fn evaluation_sets_load() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("eval.jsonl");
    std::fs::write(
        &p,
        "{\"query\":\"a\",\"relevant_uids\":[\"d1\"]}\n\n{\"query\":\"b\",\"relevant_uids\":[]}\n",
    )
    .unwrap();
    let e = EvalSet::from_jsonl(&p).unwrap();
    assert_eq!(e.queries.len(), 1);
    std::fs::write(&p, "{\"query\":\"a\"").unwrap();
    let err = EvalSet::from_jsonl(&p).unwrap_err();
    assert!(err.to_string().contains(":1:"), "{err}");
    let data = std::env::var_os("VERITY_DATA_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
        });
    let scifact = data.join("scifact");
    if !scifact.join("qrels/train.tsv").is_file() {
        verity_testkit::skip(&format!(
            "part of evaluation_sets_load: SciFact not found under {}",
            data.display()
        ));
        return;
    }
    let e = EvalSet::from_beir(
        &scifact.join("queries_train.jsonl"),
        &scifact.join("qrels/train.tsv"),
    )
    .unwrap();
    assert!(e.queries.len() > 500, "{}", e.queries.len());
    assert!(e
        .queries
        .iter()
        .all(|q| !q.relevant_uids.is_empty() && !q.query.is_empty()));
    assert_eq!(e.queries[0].relevant_uids, vec!["31715818".to_string()]);
}
