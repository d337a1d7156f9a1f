//! The checks. Each opens its own index through the factory.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use chrono::{TimeZone, Utc};
use serde_json::json;
use verity_core::{
    EmbedderId, Error, Filters, IndexedDocument, MetadataFilter, ScoredChunk, SearchMode,
    SearchQuery, TimeRange, UpsertReport, VectorStore,
};

use crate::fixtures::{corpus, cosine, fixture_embedder, query_vector, DIM};
use crate::{StoreFactory, Subject};

/// Largest difference allowed between a dense score and the exact cosine
/// similarity, and between two backends' dense scores.
pub const SCORE_TOLERANCE: f32 = 1e-3;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

async fn open(f: &dyn StoreFactory, check: &str) -> Subject {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let pid = std::process::id();
    f.open(&format!("contract-{check}-{pid}-{n}")).await
}

async fn loaded(f: &dyn StoreFactory, check: &str) -> Subject {
    let s = open(f, check).await;
    let r = s
        .store
        .upsert(corpus())
        .await
        .expect("upsert the fixture corpus");
    assert_eq!(r.inserted, 5, "{check}: fixture upsert report {r:?}");
    s
}

fn code(e: &Error) -> &'static str {
    e.code()
}

fn ids(hits: &[ScoredChunk]) -> Vec<String> {
    hits.iter().map(|h| h.chunk.id.clone()).collect()
}

fn uids(hits: &[ScoredChunk]) -> BTreeSet<String> {
    hits.iter().map(|h| h.doc.uid.clone()).collect()
}

/// A lexical query with a word of every fixture document.
const ALL_WORDS: &str = "fees bitcoin watchtowers proof difficulty liquidity";

async fn search(store: &dyn VectorStore, q: &SearchQuery) -> Vec<ScoredChunk> {
    store
        .search(q)
        .await
        .unwrap_or_else(|e| panic!("search {q:?} failed: {e}"))
}

fn assert_sorted(hits: &[ScoredChunk], what: &str) {
    for w in hits.windows(2) {
        assert!(
            w[0].score >= w[1].score,
            "{what}: hits not sorted by score: {:?}",
            hits.iter()
                .map(|h| (&h.chunk.id, h.score))
                .collect::<Vec<_>>()
        );
    }
    for h in hits {
        assert!(
            (0.0..=1.0).contains(&h.relevance) && h.score.is_finite(),
            "{what}: relevance {} of {} outside [0, 1] or score not finite",
            h.relevance,
            h.chunk.id
        );
    }
}

/// Upsert: inserted / unchanged / replaced counts, fingerprints, `get`
/// round-trips every field, an empty batch is a no-op.
pub async fn writes(f: &dyn StoreFactory) {
    let s = open(f, "writes").await;
    let store = s.store.as_ref();
    let empty = store.upsert(Vec::new()).await.expect("empty batch");
    assert_eq!(
        empty,
        UpsertReport::default(),
        "an empty batch writes nothing"
    );
    let docs = corpus();
    let r = store.upsert(docs.clone()).await.expect("first upsert");
    assert_eq!(
        (r.inserted, r.replaced, r.unchanged, r.chunks),
        (5, 0, 0, 7),
        "first upsert {r:?}"
    );
    let r = store.upsert(docs.clone()).await.expect("same upsert");
    assert_eq!(
        (r.inserted, r.replaced, r.unchanged, r.chunks),
        (0, 0, 5, 0),
        "re-upserting unchanged documents {r:?}"
    );
    // A changed chunking fingerprint alone re-writes the document.
    let mut rechunked = docs[1].clone();
    rechunked.chunking = Some("contract-chunking-2".into());
    let r = store.upsert(vec![rechunked]).await.expect("rechunked");
    assert_eq!((r.replaced, r.chunks), (1, 1), "new chunking {r:?}");
    // Changed content with fewer chunks replaces the old chunks.
    let mut changed = docs[0].clone();
    changed.document.content = "routing fees on lightning channels are low".into();
    changed.chunks.truncate(1);
    if let Some(v) = changed.embeddings.as_mut() {
        v.truncate(1);
    }
    changed.content_hash = changed.document.content_hash();
    let r = store.upsert(vec![changed.clone()]).await.expect("replace");
    assert_eq!(
        (r.inserted, r.replaced, r.chunks),
        (0, 1, 1),
        "replace {r:?}"
    );
    let hits = search(
        store,
        &SearchQuery::new("liquidity")
            .mode(SearchMode::Lexical)
            .k(10),
    )
    .await;
    assert!(
        hits.is_empty(),
        "a replaced document's old chunks must be gone: {:?}",
        ids(&hits)
    );

    let want = [
        "a".to_string(),
        "e".to_string(),
        "nope".to_string(),
        String::new(),
    ];
    let fps = store.fingerprints(&want).await.expect("fingerprints");
    assert_eq!(fps.len(), 2, "fingerprints of stored uids only: {fps:?}");
    let fa = &fps["a"];
    assert_eq!(fa.content_hash, changed.content_hash);
    assert_eq!(fa.embed_version.as_deref(), Some("1"));
    assert_eq!(fa.chunking.as_deref(), Some("contract-chunking-1"));

    let got = store.get("e").await.expect("get").expect("e is stored");
    assert_eq!(got, docs[4].document, "get returns the document as written");
    let got = store.get("a").await.expect("get").expect("a is stored");
    assert_eq!(got, changed.document);
    assert!(store.get("nope").await.expect("get missing").is_none());

    // Lexical-only documents (no vectors) are accepted next to embedded ones.
    let mut plain = docs[3].clone();
    plain.document.uid = "plain".into();
    for c in &mut plain.chunks {
        c.doc_uid = "plain".into();
        c.id = verity_core::Chunk::make_id("plain", c.index);
    }
    plain.embeddings = None;
    plain.embedder = None;
    let r = store
        .upsert(vec![plain])
        .await
        .expect("lexical-only document");
    assert_eq!(r.inserted, 1);
    let fp = store
        .fingerprints(&["plain".to_string()])
        .await
        .expect("fingerprints");
    assert_eq!(
        fp["plain"].embed_version, None,
        "no vectors, no embed version"
    );
}

/// Delete: counts only existing documents, removes them from get and search.
pub async fn deletes(f: &dyn StoreFactory) {
    let s = loaded(f, "deletes").await;
    let store = s.store.as_ref();
    assert_eq!(store.delete(&[]).await.expect("empty delete"), 0);
    let n = store
        .delete(&["b".into(), "nope".into(), "e".into()])
        .await
        .expect("delete");
    assert_eq!(n, 2, "delete counts the documents that existed");
    assert!(store.get("b").await.expect("get").is_none());
    for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
        let q = SearchQuery::new("bitcoin fees")
            .mode(mode)
            .vector(query_vector(&[(3, 1.0)]))
            .k(20);
        let hits = search(store, &q).await;
        assert!(
            !hits.iter().any(|h| h.doc.uid == "b" || h.doc.uid == "e"),
            "{mode}: deleted documents still found: {:?}",
            ids(&hits)
        );
    }
    assert_eq!(store.delete(&["b".into()]).await.expect("again"), 0);
}

fn ts(y: i32, m: u32, d: u32, h: u32) -> Option<chrono::DateTime<Utc>> {
    Utc.with_ymd_and_hms(y, m, d, h, 0, 0).single()
}

/// Filters restrict every mode during the search, with the semantics of
/// [`Filters::matches`].
pub async fn filters(f: &dyn StoreFactory) {
    let s = loaded(f, "filters").await;
    let store = s.store.as_ref();
    let docs = corpus();
    let cases: Vec<(&str, Filters)> = vec![
        (
            "sources",
            Filters {
                sources: vec!["amboss".into()],
                ..Default::default()
            },
        ),
        (
            "langs",
            Filters {
                langs: vec!["fr".into()],
                ..Default::default()
            },
        ),
        (
            "tags_any",
            Filters {
                tags_any: vec!["fees".into(), "bitcoin".into()],
                ..Default::default()
            },
        ),
        (
            "tags_all",
            Filters {
                tags_all: vec!["bitcoin".into(), "fees".into()],
                ..Default::default()
            },
        ),
        (
            "uids",
            Filters {
                uids: vec!["c".into(), "d".into()],
                ..Default::default()
            },
        ),
        (
            "metadata number",
            Filters {
                metadata: vec![MetadataFilter {
                    key: "channel".into(),
                    values: vec![json!(7)],
                }],
                ..Default::default()
            },
        ),
        (
            "metadata any of",
            Filters {
                metadata: vec![MetadataFilter {
                    key: "kind".into(),
                    values: vec![json!("post"), json!("note")],
                }],
                ..Default::default()
            },
        ),
        (
            "metadata missing key",
            Filters {
                metadata: vec![MetadataFilter {
                    key: "absent".into(),
                    values: vec![json!(1)],
                }],
                ..Default::default()
            },
        ),
        (
            "since",
            Filters {
                time: TimeRange {
                    since: ts(2025, 1, 1, 0),
                    until: None,
                },
                ..Default::default()
            },
        ),
        (
            "until inclusive",
            Filters {
                time: TimeRange {
                    since: None,
                    until: ts(2025, 3, 1, 0),
                },
                ..Default::default()
            },
        ),
        (
            "window",
            Filters {
                time: TimeRange {
                    since: ts(2024, 12, 31, 23),
                    until: ts(2025, 1, 10, 12),
                },
                ..Default::default()
            },
        ),
        (
            "combined",
            Filters {
                sources: vec!["blog".into(), "amboss".into()],
                langs: vec!["en".into()],
                tags_any: vec!["fees".into()],
                ..Default::default()
            },
        ),
    ];
    for (name, filters) in cases {
        let want: BTreeSet<String> = docs
            .iter()
            .filter(|d| filters.matches(&d.document.meta()))
            .map(|d| d.document.uid.clone())
            .collect();
        for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
            let q = SearchQuery::new(ALL_WORDS)
                .mode(mode)
                .vector(query_vector(&[(0, 1.0), (3, 1.0), (5, 1.0)]))
                .k(20)
                .filters(filters.clone());
            let hits = search(store, &q).await;
            assert_eq!(
                uids(&hits),
                want,
                "filter `{name}`, {mode}: documents found vs expected"
            );
            assert_sorted(&hits, &format!("filter `{name}`, {mode}"));
            // k is honoured under filters.
            if want.len() > 1 {
                let one = search(store, &q.clone().k(1)).await;
                assert_eq!(one.len(), 1, "filter `{name}`, {mode}: k = 1");
            }
        }
    }
}

/// Ranking on the fixtures: lexical, dense (scores = cosine), hybrid; `k`.
pub async fn ranking(f: &dyn StoreFactory) {
    let s = loaded(f, "ranking").await;
    let store = s.store.as_ref();
    let docs = corpus();
    let vectors: HashMap<String, Vec<f32>> = docs
        .iter()
        .flat_map(|d| {
            d.chunks
                .iter()
                .zip(d.embeddings.clone().unwrap_or_default())
                .map(|(c, v)| (c.id.clone(), v))
                .collect::<Vec<_>>()
        })
        .collect();

    let lex = search(
        store,
        &SearchQuery::new("fees").mode(SearchMode::Lexical).k(10),
    )
    .await;
    assert_eq!(
        ids(&lex).first().map(String::as_str),
        Some("e#0"),
        "lexical: the chunk repeating the word ranks first: {:?}",
        ids(&lex)
    );
    let found: BTreeSet<String> = ids(&lex).into_iter().collect();
    let want: BTreeSet<String> = ["a#0", "b#0", "e#0"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want, "lexical: chunks with the word (stemmed)");
    for h in &lex {
        assert!(
            h.lexical.is_some_and(|s| s > 0.0) && h.dense.is_none(),
            "lexical scores of {}",
            h.chunk.id
        );
    }
    assert_sorted(&lex, "lexical");
    let none = search(
        store,
        &SearchQuery::new("zeppelin").mode(SearchMode::Lexical),
    )
    .await;
    assert!(none.is_empty(), "lexical: no match, no hit");
    let stop = search(store, &SearchQuery::new("").mode(SearchMode::Lexical)).await;
    assert!(stop.is_empty(), "lexical: empty text, no hit");

    let qv = query_vector(&[(4, 1.0), (0, 0.2)]);
    let dense = search(
        store,
        &SearchQuery::new("")
            .mode(SearchMode::Dense)
            .vector(qv.clone())
            .k(7),
    )
    .await;
    assert_eq!(dense.len(), 7, "dense: every chunk has a vector");
    assert_eq!(dense[0].chunk.id, "c#0", "dense: nearest first");
    assert_sorted(&dense, "dense");
    for h in &dense {
        let want = cosine(&qv, &vectors[&h.chunk.id]);
        let got = h.dense.expect("dense score");
        assert!(
            (got - want).abs() <= SCORE_TOLERANCE && (h.score - want).abs() <= SCORE_TOLERANCE,
            "dense: {} scored {got} (score {}), cosine is {want}",
            h.chunk.id,
            h.score
        );
        assert!(h.lexical.is_none());
    }

    let hybrid = search(
        store,
        &SearchQuery::new("watchtowers").vector(qv.clone()).k(5),
    )
    .await;
    assert_eq!(hybrid.len(), 5, "hybrid: k hits when enough chunks exist");
    assert_eq!(
        hybrid[0].chunk.id, "c#0",
        "hybrid: the chunk both lists rank first"
    );
    assert!(hybrid[0].lexical.is_some() && hybrid[0].dense.is_some());
    assert_sorted(&hybrid, "hybrid");
    // Hybrid without a query vector ranks lexically.
    let no_vec = search(store, &SearchQuery::new("fees").k(10)).await;
    assert_eq!(ids(&no_vec).first().map(String::as_str), Some("e#0"));

    for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
        let q = SearchQuery::new(ALL_WORDS).mode(mode).vector(qv.clone());
        assert!(
            search(store, &q.clone().k(0)).await.is_empty(),
            "{mode}: k = 0 gives no hit"
        );
        assert_eq!(
            search(store, &q.clone().k(2)).await.len(),
            2,
            "{mode}: k = 2"
        );
        assert_eq!(
            search(store, &q.clone().k(1000)).await.len(),
            7,
            "{mode}: k beyond the corpus"
        );
    }
}

/// Stats count documents, chunks and vectors and report the embedder.
pub async fn stats(f: &dyn StoreFactory) {
    let s = open(f, "stats").await;
    let st = s.store.stats().await.expect("stats");
    assert_eq!((st.documents, st.chunks, st.vectors), (0, 0, 0));
    assert_eq!(st.embedder, None);
    assert_eq!(st.backend, s.store.backend());
    assert_eq!(s.store.embedder().await.expect("embedder"), None);
    s.store.upsert(corpus()).await.expect("upsert");
    let st = s.store.stats().await.expect("stats");
    assert_eq!((st.documents, st.chunks, st.vectors), (5, 7, 7), "{st:?}");
    assert_eq!(st.embedder, Some(fixture_embedder()));
    assert_eq!(
        s.store.embedder().await.expect("embedder"),
        Some(fixture_embedder())
    );
    s.store.delete(&["a".into()]).await.expect("delete");
    let st = s.store.stats().await.expect("stats");
    assert_eq!(
        (st.documents, st.chunks, st.vectors),
        (4, 5, 5),
        "after delete {st:?}"
    );
}

fn expect_err<T: std::fmt::Debug>(r: verity_core::Result<T>, code: &str, what: &str) {
    match r {
        Ok(v) => panic!("{what}: expected a `{code}` error, got Ok({v:?})"),
        Err(e) => assert_eq!(
            super::checks::code(&e),
            code,
            "{what}: wrong error kind: {e}"
        ),
    }
}

/// Bad input gets the same typed error on every store and writes nothing.
pub async fn errors(f: &dyn StoreFactory) {
    let s = loaded(f, "errors").await;
    let store = s.store.as_ref();
    let base = corpus().remove(1);
    let renamed = |uid: &str| -> IndexedDocument {
        let mut d = base.clone();
        d.document.uid = uid.into();
        for c in &mut d.chunks {
            c.doc_uid = uid.into();
            c.id = verity_core::Chunk::make_id(uid, c.index);
        }
        d.content_hash = d.document.content_hash();
        d
    };
    let mut bad_dim = renamed("x1");
    bad_dim.embeddings = Some(vec![vec![0.5; DIM + 1]]);
    expect_err(
        store.upsert(vec![bad_dim]).await,
        "embedder_mismatch",
        "vector of another dimension",
    );
    let mut nan = renamed("x2");
    nan.embeddings = Some(vec![vec![f32::NAN; DIM]]);
    expect_err(store.upsert(vec![nan]).await, "invalid_input", "NaN vector");
    let mut zero = renamed("x3");
    zero.embeddings = Some(vec![vec![0.0; DIM]]);
    expect_err(
        store.upsert(vec![zero]).await,
        "invalid_input",
        "zero vector",
    );
    let mut other = renamed("x4");
    other.embedder = Some(EmbedderId::new("another-model", "1", DIM));
    expect_err(
        store.upsert(vec![other]).await,
        "embedder_mismatch",
        "another embedder",
    );
    let mut version = renamed("x5");
    version.embedder = Some(EmbedderId::new("contract-toy", "2", DIM));
    expect_err(
        store.upsert(vec![version]).await,
        "reindex_required",
        "another embed version",
    );
    let mut count = renamed("x6");
    count.embeddings = Some(vec![]);
    expect_err(
        store.upsert(vec![count]).await,
        "invalid_input",
        "vectors not matching the chunks",
    );
    let mut no_id = renamed("x7");
    no_id.embedder = None;
    expect_err(
        store.upsert(vec![no_id]).await,
        "invalid_input",
        "vectors without an embedder id",
    );
    let mut empty_uid = renamed("");
    empty_uid.chunks.clear();
    empty_uid.embeddings = Some(vec![]);
    expect_err(
        store.upsert(vec![empty_uid]).await,
        "invalid_input",
        "empty uid",
    );
    let mut foreign = renamed("x8");
    foreign.chunks[0].doc_uid = "a".into();
    expect_err(
        store.upsert(vec![foreign]).await,
        "invalid_input",
        "chunk of another document",
    );
    let mut order = renamed("x9");
    order.chunks[0].index = 3;
    expect_err(
        store.upsert(vec![order]).await,
        "invalid_input",
        "chunks out of order",
    );
    // A batch with one bad document writes none of it.
    let mut bad = renamed("x11");
    bad.embeddings = Some(vec![vec![f32::INFINITY; DIM]]);
    expect_err(
        store.upsert(vec![renamed("x10"), bad]).await,
        "invalid_input",
        "batch with a bad document",
    );
    assert!(
        store.get("x10").await.expect("get").is_none(),
        "a refused batch writes nothing"
    );

    expect_err(
        store
            .search(&SearchQuery::new("fees").mode(SearchMode::Dense))
            .await,
        "invalid_input",
        "dense search without a query vector",
    );
    for mode in [SearchMode::Dense, SearchMode::Hybrid] {
        expect_err(
            store
                .search(
                    &SearchQuery::new("fees")
                        .mode(mode)
                        .vector(vec![1.0; DIM + 2]),
                )
                .await,
            "embedder_mismatch",
            &format!("{mode} query vector of another dimension"),
        );
        expect_err(
            store
                .search(
                    &SearchQuery::new("fees")
                        .mode(mode)
                        .vector(vec![f32::NAN; DIM]),
                )
                .await,
            "invalid_input",
            &format!("{mode} NaN query vector"),
        );
    }
    // A lexical search ignores the vector.
    let lex = SearchQuery::new("fees")
        .mode(SearchMode::Lexical)
        .vector(vec![1.0; 3]);
    assert!(!search(store, &lex).await.is_empty());
    let st = store.stats().await.expect("stats");
    assert_eq!(st.documents, 5, "refused writes left the index as it was");
}

/// Sentence vectors: indexed (a chunk ranks by its best vector) when the
/// store says it supports them, refused otherwise.
pub async fn sentence_vectors(f: &dyn StoreFactory) {
    let s = open(f, "sentences").await;
    let store = s.store.as_ref();
    let mut docs = corpus();
    // Chunk d#1's own vector is axis 6; give it a sentence vector on axis 2.
    docs[3].sentence_embeddings = Some(vec![vec![], vec![query_vector(&[(2, 1.0)])]]);
    let r = store.upsert(docs.clone()).await;
    if !store.supports_sentence_vectors() {
        expect_err(
            r,
            "invalid_input",
            "sentence vectors on a store without them",
        );
        return;
    }
    r.expect("upsert with sentence vectors");
    let qv = query_vector(&[(2, 1.0)]);
    let dense = search(
        store,
        &SearchQuery::new("")
            .mode(SearchMode::Dense)
            .vector(qv.clone())
            .k(3),
    )
    .await;
    assert_eq!(
        dense[0].chunk.id,
        "d#1",
        "a sentence vector makes its chunk the nearest: {:?}",
        ids(&dense)
    );
    assert!(
        (dense[0].score - 1.0).abs() <= SCORE_TOLERANCE,
        "best-vector score {}",
        dense[0].score
    );
    let distinct: BTreeSet<String> = ids(&dense).into_iter().collect();
    assert_eq!(
        distinct.len(),
        dense.len(),
        "one hit per chunk, whatever its number of vectors"
    );
    let all = search(
        store,
        &SearchQuery::new("")
            .mode(SearchMode::Dense)
            .vector(qv)
            .k(100),
    )
    .await;
    assert_eq!(all.len(), 7, "every chunk once");
    let st = store.stats().await.expect("stats");
    assert_eq!(
        st.vectors, 7,
        "stats count chunks with vectors, not sentence vectors"
    );
    // Replacing the document without sentences removes them.
    docs[3].sentence_embeddings = None;
    docs[3].chunking = Some("contract-chunking-2".into());
    store.upsert(vec![docs[3].clone()]).await.expect("replace");
    let dense = search(
        store,
        &SearchQuery::new("")
            .mode(SearchMode::Dense)
            .vector(query_vector(&[(2, 1.0)]))
            .k(1),
    )
    .await;
    assert_eq!(
        dense[0].chunk.id,
        "a#1",
        "old sentence vectors are gone: {:?}",
        ids(&dense)
    );
}

/// Catalog: aliases resolve and switch atomically, errors are typed.
pub async fn catalog_aliases(f: &dyn StoreFactory) {
    let s = loaded(f, "catalog").await;
    let Some(cat) = s.catalog.clone() else { return };
    let stats = s.store.stats().await.expect("stats");
    let index = stats.index.clone();
    let names = cat.index_names().await.expect("index names");
    assert!(names.contains(&index), "{index} listed in {names:?}");
    let alias = format!("{index}-alias");
    assert_eq!(cat.resolve_alias(&alias).await.expect("resolve"), None);
    expect_err(
        cat.set_alias(&alias, &format!("{index}-missing")).await,
        "not_found",
        "alias to an unknown index",
    );
    cat.set_alias(&alias, &index).await.expect("set alias");
    assert_eq!(
        cat.resolve_alias(&alias).await.expect("resolve"),
        Some(index.clone())
    );
    assert_eq!(
        cat.resolve_alias(&index).await.expect("resolve an index"),
        None,
        "an index is not an alias"
    );
    let through = cat.open(&alias).await.expect("open through the alias");
    assert_eq!(through.stats().await.expect("stats").documents, 5);
    let hits = search(
        through.as_ref(),
        &SearchQuery::new("watchtowers").mode(SearchMode::Lexical),
    )
    .await;
    assert_eq!(ids(&hits), vec!["c#0".to_string()]);
    expect_err(
        cat.set_alias(&index, &index).await,
        "invalid_input",
        "an alias named like an index",
    );
    // Switch the alias to another index.
    let other_name = format!("{index}-b");
    let other = cat.open(&other_name).await.expect("open a new index");
    assert_eq!(other.stats().await.expect("stats").documents, 0);
    cat.set_alias(&alias, &other_name).await.expect("switch");
    assert_eq!(
        cat.resolve_alias(&alias).await.expect("resolve"),
        Some(other_name.clone())
    );
    drop(other);
    drop(through);
    cat.drop_index(&other_name).await.expect("drop index");
    assert!(!cat
        .index_names()
        .await
        .expect("names")
        .contains(&other_name));
    assert_eq!(
        cat.resolve_alias(&alias).await.expect("resolve"),
        None,
        "dropping an index drops its aliases"
    );
    expect_err(
        cat.drop_index(&other_name).await,
        "not_found",
        "dropping an unknown index",
    );
}

/// Cache: get/put, TTL expiry, tag and prefix busting.
pub async fn cache_busting(f: &dyn StoreFactory) {
    let s = open(f, "cache").await;
    let c = s.cache.as_ref();
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let p = format!("contract:{}:{n}:", std::process::id());
    let key = |k: &str| format!("{p}{k}");
    c.put(&key("a"), b"1", None, &[format!("{p}t1")])
        .await
        .expect("put");
    c.put(&key("b"), b"2", None, &[format!("{p}t1"), format!("{p}t2")])
        .await
        .expect("put");
    c.put(&key("sub:c"), b"3", None, &[]).await.expect("put");
    c.put(
        &key("short"),
        b"4",
        Some(Duration::from_millis(300)),
        &[format!("{p}t2")],
    )
    .await
    .expect("put");
    assert_eq!(
        c.get(&key("a")).await.expect("get").as_deref(),
        Some(&b"1"[..])
    );
    assert_eq!(c.get(&key("missing")).await.expect("get"), None);
    c.put(&key("a"), b"1bis", None, &[format!("{p}t1")])
        .await
        .expect("overwrite");
    assert_eq!(
        c.get(&key("a")).await.expect("get").as_deref(),
        Some(&b"1bis"[..])
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        c.get(&key("short")).await.expect("get"),
        None,
        "expired entry"
    );
    assert_eq!(
        c.invalidate_tag(&format!("{p}t2")).await.expect("tag"),
        1,
        "tag busting counts live entries"
    );
    assert_eq!(c.get(&key("b")).await.expect("get"), None);
    assert!(
        c.get(&key("a")).await.expect("get").is_some(),
        "other tags kept"
    );
    assert_eq!(c.invalidate_tag(&format!("{p}none")).await.expect("tag"), 0);
    assert_eq!(c.invalidate_prefix(&key("sub:")).await.expect("prefix"), 1);
    assert_eq!(c.get(&key("sub:c")).await.expect("get"), None);
    assert_eq!(c.invalidate_prefix(&p).await.expect("prefix"), 1);
    assert_eq!(c.get(&key("a")).await.expect("get"), None);
    // Prefixes are literal, not patterns.
    c.put(&key("x*y"), b"5", None, &[]).await.expect("put");
    c.put(&key("xzy"), b"6", None, &[]).await.expect("put");
    assert_eq!(c.invalidate_prefix(&key("x*")).await.expect("prefix"), 1);
    assert!(c.get(&key("xzy")).await.expect("get").is_some());
    assert_eq!(c.invalidate_prefix(&p).await.expect("prefix"), 1);
    expect_err(
        c.invalidate_prefix("").await,
        "invalid_input",
        "an empty prefix (the whole cache)",
    );
}

/// Run the fixture queries on two backends and check they agree: same hits
/// in the same order, dense scores within [`SCORE_TOLERANCE`], same relevance
/// ordering. Lexical scores may differ in scale (BM25 variants), not in order.
/// Hits whose reference scores tie (within [`SCORE_TOLERANCE`]: float32
/// rounding differs between the engines) may come in either order.
pub async fn compare(reference: &dyn StoreFactory, other: &dyn StoreFactory) {
    let a = loaded(reference, "compare").await;
    let b = loaded(other, "compare").await;
    let qv = query_vector(&[(0, 1.0), (4, 0.5), (3, 0.2)]);
    let queries = [
        SearchQuery::new("fees").mode(SearchMode::Lexical).k(10),
        SearchQuery::new("lightning channels")
            .mode(SearchMode::Lexical)
            .k(10),
        SearchQuery::new("")
            .mode(SearchMode::Dense)
            .vector(qv.clone())
            .k(7),
        SearchQuery::new("watchtowers lightning")
            .vector(qv.clone())
            .k(5),
        SearchQuery::new("fees")
            .vector(query_vector(&[(7, 1.0)]))
            .k(3),
        SearchQuery::new(ALL_WORDS)
            .vector(qv)
            .k(10)
            .filters(Filters {
                tags_any: vec!["lightning".into()],
                ..Default::default()
            }),
    ];
    for q in &queries {
        let ra = search(a.store.as_ref(), q).await;
        let rb = search(b.store.as_ref(), q).await;
        let what = format!("{} `{}` (k {})", q.mode, q.text, q.k);
        assert_same_ranking(&ra, &rb, &what, a.store.backend(), b.store.backend());
        let by_id: std::collections::HashMap<&str, &ScoredChunk> =
            rb.iter().map(|h| (h.chunk.id.as_str(), h)).collect();
        for x in &ra {
            let y = by_id[x.chunk.id.as_str()];
            match (x.dense, y.dense) {
                (Some(p), Some(q)) => assert!(
                    (p - q).abs() <= SCORE_TOLERANCE,
                    "{what}: dense {} vs {} for {}",
                    p,
                    q,
                    x.chunk.id
                ),
                (None, None) => {}
                _ => panic!(
                    "{what}: {} has a dense score on one backend only",
                    x.chunk.id
                ),
            }
            assert_eq!(
                x.lexical.is_some(),
                y.lexical.is_some(),
                "{what}: {} lexical presence",
                x.chunk.id
            );
            if q.mode == SearchMode::Dense {
                assert!(
                    (x.score - y.score).abs() <= SCORE_TOLERANCE,
                    "{what}: score of {}",
                    x.chunk.id
                );
            }
        }
    }
}

/// `b` ranks the same hits as `a`, in `a`'s order up to ties: wherever the
/// two lists name different hits at one position, `a` scores them equally.
fn assert_same_ranking(
    a: &[ScoredChunk],
    b: &[ScoredChunk],
    what: &str,
    name_a: &str,
    name_b: &str,
) {
    let mut sa = ids(a);
    let mut sb = ids(b);
    sa.sort();
    sb.sort();
    assert_eq!(
        sa,
        sb,
        "{what}: {name_a} and {name_b} return different hits: {:?} vs {:?}",
        ids(a),
        ids(b)
    );
    let score_in_a: std::collections::HashMap<&str, f32> =
        a.iter().map(|h| (h.chunk.id.as_str(), h.score)).collect();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let tied = score_in_a
            .get(y.chunk.id.as_str())
            .is_some_and(|s| (s - x.score).abs() <= SCORE_TOLERANCE);
        assert!(
            x.chunk.id == y.chunk.id || tied,
            "{what}: {name_a} and {name_b} disagree at rank {i}: {:?} vs {:?}",
            ids(a),
            ids(b)
        );
    }
}
