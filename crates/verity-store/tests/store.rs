//! Behaviour of the SQLite store: upsert/replace/delete, search modes, filters, embedder checks, aliases.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;

use chrono::{TimeZone, Utc};
use rand::{Rng, SeedableRng};
use serde_json::json;
use verity_core::{
    Chunk, Document, EmbedderId, Error, Filters, IndexedDocument, MetadataFilter, SearchMode,
    SearchQuery, StoreError, TimeRange, VectorStore,
};
use verity_store::{SqliteStore, StoreOptions};

fn chunked(doc: Document, parts: &[&str]) -> IndexedDocument {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut content = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            content.push(' ');
            start += 1;
        }
        content.push_str(p);
        chunks.push(Chunk {
            id: Chunk::make_id(&doc.uid, i as u32),
            doc_uid: doc.uid.clone(),
            index: i as u32,
            text: p.to_string(),
            start,
            end: start + p.len(),
            heading_path: vec!["Intro".into()],
            token_count: p.split_whitespace().count() as u32,
        });
        start += p.len();
    }
    let document = Document { content, ..doc };
    let content_hash = document.content_hash();
    IndexedDocument {
        document,
        chunks,
        embeddings: None,
        sentence_embeddings: None,
        chunking: None,
        embedder: None,
        content_hash,
    }
}

fn with_vectors(mut d: IndexedDocument, id: &EmbedderId, vecs: Vec<Vec<f32>>) -> IndexedDocument {
    d.embeddings = Some(vecs);
    d.embedder = Some(id.clone());
    d
}

fn emb() -> EmbedderId {
    EmbedderId::new("toy", "v1", 3)
}

#[tokio::test]
async fn upsert_get_replace_delete() {
    let s = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    let mut d = Document::new("a", "");
    d.title = Some("Lightning fees".into());
    d.tags = vec!["ln".into()];
    d.ts = Some(Utc.with_ymd_and_hms(2025, 3, 1, 12, 0, 0).unwrap());
    d.metadata.insert("node".into(), json!("02ab"));
    let r = s
        .upsert(vec![chunked(
            d.clone(),
            &["routing fees are low", "channels rebalance"],
        )])
        .await
        .unwrap();
    assert_eq!(
        (r.inserted, r.replaced, r.unchanged, r.chunks),
        (1, 0, 0, 2)
    );
    let got = s.get("a").await.unwrap().unwrap();
    assert_eq!(got.content, "routing fees are low channels rebalance");
    assert_eq!(got.title.as_deref(), Some("Lightning fees"));
    assert_eq!(got.metadata["node"], "02ab");
    assert_eq!(got.ts, d.ts);

    // Same content: unchanged. Fingerprint reflects it.
    let r = s
        .upsert(vec![chunked(
            d.clone(),
            &["routing fees are low", "channels rebalance"],
        )])
        .await
        .unwrap();
    assert_eq!(r.unchanged, 1);
    let fp = s.fingerprints(&["a".into(), "zz".into()]).await.unwrap();
    assert_eq!(fp.len(), 1);
    assert_eq!(fp["a"].embed_version, None);

    // New content replaces all chunks.
    let r = s
        .upsert(vec![chunked(d.clone(), &["completely new text"])])
        .await
        .unwrap();
    assert_eq!(r.replaced, 1);
    let hits = s
        .search(&SearchQuery::new("routing channels").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert!(hits.is_empty(), "old chunks must be gone: {hits:?}");
    let hits = s
        .search(&SearchQuery::new("new").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].chunk.id, "a#0");
    assert!(hits[0].score > 0.0 && hits[0].relevance > 0.0 && hits[0].relevance < 1.0);
    let st = s.stats().await.unwrap();
    assert_eq!((st.documents, st.chunks, st.vectors), (1, 1, 0));

    assert_eq!(s.delete(&["a".into(), "missing".into()]).await.unwrap(), 1);
    assert!(s.get("a").await.unwrap().is_none());
    assert!(s
        .search(&SearchQuery::new("new").mode(SearchMode::Lexical))
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn hostile_queries_never_error() {
    let s = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    s.upsert(vec![chunked(
        Document::new("a", ""),
        &["the NEAR operator and café 東京 data"],
    )])
    .await
    .unwrap();
    for q in [
        "\"unbalanced",
        "(a OR",
        "-minus",
        "star*",
        "NEAR(a b)",
        "AND",
        "OR OR",
        "NOT",
        "東京",
        "кириллица",
        "^x",
        "a:b",
        "{col}: x",
        "",
        "   ",
        "\"\"",
        "'",
        "café",
        "cafe",
        "x AND (y OR z) NOT \"w",
    ] {
        let r = s
            .search(&SearchQuery::new(q).mode(SearchMode::Lexical))
            .await;
        assert!(r.is_ok(), "query {q:?} failed: {r:?}");
    }
    let hits = s
        .search(&SearchQuery::new("cafe").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "diacritics are folded");
    let hits = s
        .search(&SearchQuery::new("東京").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    let hits = s
        .search(&SearchQuery::new("NEAR").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "NEAR is a plain word");
}

#[tokio::test]
async fn dense_and_hybrid_search() {
    let s = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    let id = emb();
    s.upsert(vec![
        with_vectors(
            chunked(Document::new("x", ""), &["apple pie recipe"]),
            &id,
            vec![vec![1.0, 0.0, 0.0]],
        ),
        with_vectors(
            chunked(Document::new("y", ""), &["banana bread"]),
            &id,
            vec![vec![0.0, 1.0, 0.0]],
        ),
        with_vectors(
            chunked(Document::new("z", ""), &["apple apple tart"]),
            &id,
            vec![vec![0.7, 0.7, 0.0]],
        ),
    ])
    .await
    .unwrap();
    assert_eq!(s.embedder().await.unwrap(), Some(id.clone()));
    let hits = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![0.0, 2.0, 0.0])
                .k(2),
        )
        .await
        .unwrap();
    assert_eq!(
        hits.iter().map(|h| h.doc.uid.as_str()).collect::<Vec<_>>(),
        ["y", "z"]
    );
    assert!((hits[0].dense.unwrap() - 1.0).abs() < 1e-5);
    assert!((hits[0].relevance - 1.0).abs() < 1e-5);

    let hits = s
        .search(&SearchQuery::new("apple").vector(vec![0.0, 1.0, 0.0]).k(3))
        .await
        .unwrap();
    let uids: Vec<_> = hits.iter().map(|h| h.doc.uid.as_str()).collect();
    assert_eq!(hits.len(), 3);
    // z leads the lexical list and is second in the dense one; x trails both and
    // y has no lexical match: the default z-score fusion puts z first.
    assert_eq!(uids[0], "z", "{uids:?}");
    let z = &hits[0];
    assert!(z.lexical.is_some() && z.dense.is_some());
    let terms = verity_core::rank::QueryTerms::new("apple");
    let want = verity_core::rank::relevance(
        SearchMode::Hybrid,
        &terms,
        z.dense,
        z.doc.title.as_deref(),
        &z.chunk.text,
    );
    assert!(
        (z.relevance - want).abs() < 1e-5,
        "{} vs {want}",
        z.relevance
    );

    // Wrong dimension / wrong embedder.
    let err = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![1.0, 0.0]),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Store(StoreError::EmbedderMismatch { .. })),
        "{err}"
    );
    let other = EmbedderId::new("other", "v1", 3);
    let err = s
        .upsert(vec![with_vectors(
            chunked(Document::new("w", ""), &["w"]),
            &other,
            vec![vec![1.0, 0.0, 0.0]],
        )])
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Store(StoreError::EmbedderMismatch { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("toy@v1/3d"), "{err}");
    let newer = EmbedderId::new("toy", "v2", 3);
    let err = s
        .upsert(vec![with_vectors(
            chunked(Document::new("w", ""), &["w"]),
            &newer,
            vec![vec![1.0, 0.0, 0.0]],
        )])
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Store(StoreError::ReindexRequired { .. })),
        "{err}"
    );
    assert!(
        s.get("w").await.unwrap().is_none(),
        "a refused batch writes nothing"
    );
    let err = s
        .search(&SearchQuery::new("x").mode(SearchMode::Dense))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input");

    // Replacing a document drops its old vector from the dense index.
    s.upsert(vec![with_vectors(
        chunked(Document::new("y", ""), &["banana split"]),
        &id,
        vec![vec![0.0, 0.0, 1.0]],
    )])
    .await
    .unwrap();
    let hits = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![0.0, 1.0, 0.0])
                .k(1),
        )
        .await
        .unwrap();
    assert_eq!(hits[0].doc.uid, "z");
    s.delete(&["z".into()]).await.unwrap();
    let hits = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![0.0, 1.0, 0.0])
                .k(3),
        )
        .await
        .unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits.iter().all(|h| h.doc.uid != "z"));
}

#[tokio::test]
async fn vectors_survive_reopen_and_aliases_switch() {
    let dir = tempfile::tempdir().unwrap();
    let id = emb();
    {
        let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
        s.upsert(vec![with_vectors(
            chunked(Document::new("x", ""), &["alpha"]),
            &id,
            vec![vec![1.0, 0.0, 0.0]],
        )])
        .await
        .unwrap();
        let info = s.create_index("v2", Some(&id)).unwrap();
        assert_eq!(info.embedder, Some(id.clone()));
        s.set_alias("live", "default").unwrap();
        assert_eq!(s.resolve_alias("live").unwrap().as_deref(), Some("default"));
        assert!(s.set_alias("live2", "nope").is_err());
        assert!(s.create_index("live", None).is_err());
        s.flush().unwrap();
    }
    let s = SqliteStore::open(dir.path(), StoreOptions::default().index("live")).unwrap();
    assert_eq!(s.index_name(), "default");
    let hits = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![1.0, 0.1, 0.0]),
        )
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    // Atomic switch to the (empty) v2 index.
    s.set_alias("live", "v2").unwrap();
    let v2 = SqliteStore::open(dir.path(), StoreOptions::default().index("live")).unwrap();
    assert_eq!(v2.index_name(), "v2");
    assert_eq!(v2.stats().await.unwrap().documents, 0);
    assert_eq!(v2.embedder().await.unwrap(), Some(id.clone()));
    let names: Vec<_> = s
        .list_indexes()
        .unwrap()
        .into_iter()
        .map(|i| (i.name, i.aliases))
        .collect();
    assert_eq!(
        names,
        vec![
            ("default".to_string(), vec![]),
            ("v2".to_string(), vec!["live".to_string()])
        ]
    );
    assert!(
        v2.drop_index("v2").is_err(),
        "bound index cannot be dropped"
    );
    drop(v2);
    s.drop_index("v2").unwrap();
    assert_eq!(s.resolve_alias("live").unwrap(), None);
    assert_eq!(s.list_indexes().unwrap().len(), 1);
    s.integrity_check().unwrap();
}

/// Random documents and filters: the SQL filters agree with `Filters::matches`.
#[tokio::test]
async fn sql_filters_agree_with_reference() {
    let s = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    let id = emb();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let sources = ["a", "b", "c"];
    let langs = ["en", "fr", "EN", "de"];
    let tags = ["t1", "t2", "t3", "t4"];
    let meta_vals = [
        json!(1),
        json!(2),
        json!("x"),
        json!("y"),
        json!(true),
        json!(null),
        json!(1.5),
        json!([1, 2]),
    ];
    let mut docs = Vec::new();
    let mut metas = Vec::new();
    for i in 0..120 {
        let mut d = Document::new(format!("d{i}"), "");
        d.source = sources[rng.random_range(0..3)].to_string();
        if rng.random_bool(0.8) {
            d.lang = Some(langs[rng.random_range(0..4)].to_string());
        }
        d.tags = tags
            .iter()
            .filter(|_| rng.random_bool(0.4))
            .map(|t| t.to_string())
            .collect();
        if rng.random_bool(0.8) {
            d.ts = Utc
                .timestamp_millis_opt(1_700_000_000_000 + rng.random_range(0..1_000_000_000i64))
                .single();
        }
        for key in ["k1", "k2"] {
            if rng.random_bool(0.7) {
                d.metadata.insert(
                    key.into(),
                    meta_vals[rng.random_range(0..meta_vals.len())].clone(),
                );
            }
        }
        let n = rng.random_range(1..4usize);
        let parts: Vec<String> = (0..n).map(|j| format!("common word part{j}")).collect();
        let parts_ref: Vec<&str> = parts.iter().map(|s| s.as_str()).collect();
        let v: Vec<Vec<f32>> = (0..n)
            .map(|_| vec![rng.random(), rng.random(), rng.random::<f32>() + 0.01])
            .collect();
        let idoc = with_vectors(chunked(d, &parts_ref), &id, v);
        metas.push(idoc.document.meta());
        docs.push(idoc);
    }
    s.upsert(docs).await.unwrap();
    for round in 0..150 {
        let mut f = Filters::default();
        if rng.random_bool(0.3) {
            f.sources = sources
                .iter()
                .filter(|_| rng.random_bool(0.5))
                .map(|x| x.to_string())
                .collect();
        }
        if rng.random_bool(0.3) {
            f.langs = vec![["en", "Fr", "DE", "xx"][rng.random_range(0..4)].to_string()];
        }
        if rng.random_bool(0.3) {
            f.tags_any = tags
                .iter()
                .filter(|_| rng.random_bool(0.4))
                .map(|x| x.to_string())
                .collect();
        }
        if rng.random_bool(0.3) {
            f.tags_all = tags
                .iter()
                .filter(|_| rng.random_bool(0.3))
                .map(|x| x.to_string())
                .collect();
        }
        if rng.random_bool(0.15) {
            f.uids = (0..5)
                .map(|_| format!("d{}", rng.random_range(0..130)))
                .collect();
        }
        if rng.random_bool(0.4) {
            let vals = (0..rng.random_range(1..3))
                .map(|_| meta_vals[rng.random_range(0..meta_vals.len())].clone())
                .collect();
            f.metadata = vec![MetadataFilter {
                key: ["k1", "k2"][rng.random_range(0..2)].into(),
                values: vals,
            }];
        }
        if rng.random_bool(0.3) {
            let a = 1_700_000_000_000 + rng.random_range(0..1_000_000_000i64);
            let b = a + rng.random_range(0..500_000_000i64);
            f.time = TimeRange {
                since: rng
                    .random_bool(0.7)
                    .then(|| Utc.timestamp_millis_opt(a).single().unwrap()),
                until: rng
                    .random_bool(0.7)
                    .then(|| Utc.timestamp_millis_opt(b).single().unwrap()),
            };
        }
        let expected: HashSet<String> = metas
            .iter()
            .filter(|m| f.matches(m))
            .map(|m| m.uid.clone())
            .collect();
        let lex = s
            .search(
                &SearchQuery::new("common")
                    .mode(SearchMode::Lexical)
                    .k(10_000)
                    .filters(f.clone()),
            )
            .await
            .unwrap();
        let got: HashSet<String> = lex.iter().map(|h| h.doc.uid.clone()).collect();
        assert_eq!(got, expected, "lexical, round {round}, filters {f:?}");
        let dense = s
            .search(
                &SearchQuery::new("")
                    .mode(SearchMode::Dense)
                    .vector(vec![0.3, 0.3, 0.3])
                    .k(10_000)
                    .filters(f.clone()),
            )
            .await
            .unwrap();
        let got: HashSet<String> = dense.iter().map(|h| h.doc.uid.clone()).collect();
        assert_eq!(got, expected, "dense, round {round}, filters {f:?}");
    }
}

/// A filtered query returns k hits when k matching chunks exist, even when
/// the unfiltered top-k holds none of them.
#[tokio::test]
async fn filtered_search_fills_k() {
    let s = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    let id = emb();
    let mut docs = Vec::new();
    for i in 0..200 {
        let mut d = Document::new(format!("d{i}"), "");
        d.source = if i % 50 == 0 {
            "rare".into()
        } else {
            "bulk".into()
        };
        // The rare documents are the worst matches for both indexes.
        let text = if d.source == "rare" {
            "needle"
        } else {
            "needle needle needle needle"
        };
        let v = if d.source == "rare" {
            vec![0.0, 0.0, 1.0]
        } else {
            vec![1.0, 0.0, 0.0]
        };
        docs.push(with_vectors(chunked(d, &[text]), &id, vec![v]));
    }
    s.upsert(docs).await.unwrap();
    let f = Filters {
        sources: vec!["rare".into()],
        ..Default::default()
    };
    for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
        let q = SearchQuery::new("needle")
            .mode(mode)
            .vector(vec![1.0, 0.0, 0.0])
            .k(4)
            .filters(f.clone());
        let hits = s.search(&q).await.unwrap();
        assert_eq!(hits.len(), 4, "{mode}");
        assert!(hits.iter().all(|h| h.doc.source == "rare"));
    }
}

/// The dense dump is used when its generation matches SQLite's; a stale dump
/// (writes after the last flush) is ignored and the index rebuilt from SQLite.
#[tokio::test]
async fn stale_dense_dump_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let id = emb();
    let q = || {
        SearchQuery::new("")
            .mode(SearchMode::Dense)
            .vector(vec![0.0, 1.0, 0.0])
            .k(10)
    };
    {
        let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
        s.upsert(vec![with_vectors(
            chunked(Document::new("x", ""), &["alpha"]),
            &id,
            vec![vec![1.0, 0.0, 0.0]],
        )])
        .await
        .unwrap();
        s.flush().unwrap();
    }
    assert!(
        dir.path().join("index").join("default.hnsw.meta").is_file(),
        "dump written at flush"
    );
    let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    s.upsert(vec![with_vectors(
        chunked(Document::new("y", ""), &["beta"]),
        &id,
        vec![vec![0.0, 1.0, 0.0]],
    )])
    .await
    .unwrap();
    // Simulate a crash: no flush, no drop.
    std::mem::forget(s);
    let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    let hits = s.search(&q()).await.unwrap();
    assert_eq!(
        hits.iter().map(|h| h.doc.uid.as_str()).collect::<Vec<_>>(),
        ["y", "x"]
    );
    // Corrupt dump files: still rebuilt, never a panic.
    drop(s);
    for e in std::fs::read_dir(dir.path().join("index")).unwrap() {
        std::fs::write(e.unwrap().path(), b"garbage").unwrap();
    }
    let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    assert_eq!(s.search(&q()).await.unwrap().len(), 2);
}

fn with_sentences(mut d: IndexedDocument, sentences: Vec<Vec<Vec<f32>>>) -> IndexedDocument {
    d.sentence_embeddings = Some(sentences);
    d
}

fn dense_uids_and_chunks(hits: &[verity_core::ScoredChunk]) -> Vec<String> {
    hits.iter().map(|h| h.chunk.id.clone()).collect()
}

/// A chunk ranks by the best of its own vector and its sentences' vectors;
/// sentence vectors survive a reopen (dump and SQLite rebuild) and go away
/// with their chunk.
#[tokio::test]
async fn sentence_vectors_rank_their_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let id = emb();
    let dense = |v: Vec<f32>| SearchQuery::new("").mode(SearchMode::Dense).vector(v).k(10);
    let doc = || {
        with_sentences(
            with_vectors(
                chunked(Document::new("a", ""), &["first part", "second part"]),
                &id,
                vec![vec![1.0, 0.0, 0.0], vec![1.0, 0.1, 0.0]],
            ),
            // Chunk 0 has no sentence vectors; chunk 1 has two.
            vec![vec![], vec![vec![0.0, 0.0, 1.0], vec![0.0, 1.0, 0.0]]],
        )
    };
    {
        let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
        assert!(s.supports_sentence_vectors());
        s.upsert(vec![doc()]).await.unwrap();
        let hits = s.search(&dense(vec![0.0, 0.0, 1.0])).await.unwrap();
        // One hit per chunk, the sentence vector's exact match first.
        assert_eq!(dense_uids_and_chunks(&hits), ["a#1", "a#0"]);
        assert!((hits[0].dense.unwrap() - 1.0).abs() < 1e-5);
        let stats = s.stats().await.unwrap();
        assert_eq!((stats.chunks, stats.vectors), (2, 2));
        s.flush().unwrap();
    }
    // Reopen from the dump, then with the dump gone (rebuilt from SQLite BLOBs).
    for remove_dump in [false, true] {
        if remove_dump {
            std::fs::remove_dir_all(dir.path().join("index")).unwrap();
        }
        let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
        let hits = s.search(&dense(vec![0.0, 1.0, 0.0])).await.unwrap();
        assert_eq!(
            dense_uids_and_chunks(&hits),
            ["a#1", "a#0"],
            "dump removed: {remove_dump}"
        );
        assert!((hits[0].dense.unwrap() - 1.0).abs() < 1e-5);
    }
    // Replacing the document without sentence vectors drops the old ones.
    let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    let mut plain = doc();
    plain.sentence_embeddings = None;
    plain.document.title = Some("changed".into());
    plain.content_hash = "changed".into();
    s.upsert(vec![plain]).await.unwrap();
    let hits = s.search(&dense(vec![0.0, 0.0, 1.0])).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert!(
        hits[0].dense.unwrap() < 0.2,
        "sentence vector still indexed"
    );
    // Deleting the document removes every vector.
    s.upsert(vec![with_sentences(
        with_vectors(
            chunked(Document::new("b", ""), &["other"]),
            &id,
            vec![vec![1.0, 0.0, 0.0]],
        ),
        vec![vec![vec![0.0, 0.0, 1.0]]],
    )])
    .await
    .unwrap();
    assert_eq!(s.delete(&["b".into(), "a".into()]).await.unwrap(), 2);
    assert!(s
        .search(&dense(vec![0.0, 0.0, 1.0]))
        .await
        .unwrap()
        .is_empty());
    s.integrity_check().unwrap();
}

/// Malformed sentence vectors are refused with a typed error and nothing is written.
#[tokio::test]
async fn bad_sentence_vectors_are_refused_whole() {
    let s = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    let id = emb();
    let base = || {
        with_vectors(
            chunked(Document::new("a", ""), &["one", "two"]),
            &id,
            vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]],
        )
    };
    let cases: Vec<(IndexedDocument, &str)> = vec![
        (
            with_sentences(base(), vec![vec![]]),
            "sentence vectors for 1 chunks",
        ),
        (
            with_sentences(base(), vec![vec![], vec![vec![1.0, 0.0]]]),
            "dimension 2",
        ),
        (
            with_sentences(base(), vec![vec![vec![f32::NAN, 0.0, 0.0]], vec![]]),
            "not finite",
        ),
        (
            {
                let mut d = with_sentences(base(), vec![vec![], vec![]]);
                d.embeddings = None;
                d
            },
            "no chunk vectors",
        ),
    ];
    for (doc, expected) in cases {
        let err = s.upsert(vec![doc]).await.unwrap_err();
        assert!(
            err.to_string().contains(expected),
            "{err} should mention `{expected}`"
        );
        assert!(!err.is_transient());
        let stats = s.stats().await.unwrap();
        assert_eq!((stats.documents, stats.chunks), (0, 0), "nothing written");
    }
}

/// Above the exact-scan size the graph walk with several vectors per chunk
/// still finds the chunks whose best vector is nearest, with filters applied
/// during the walk.
#[tokio::test]
async fn sentence_vectors_through_the_graph_walk() {
    let mut opts = StoreOptions::default();
    opts.hnsw.min_graph_points = 0; // the graph from the first vector
    let s = SqliteStore::open_in_memory(opts).unwrap();
    let dim = 8;
    let id = EmbedderId::new("toy8", "v1", dim);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut unit = move || -> Vec<f32> {
        let v: Vec<f32> = (0..dim).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
        v.into_iter().map(|x| x / n).collect()
    };
    let per_chunk = 7; // own vector + 6 sentences
    let mut all: Vec<(String, bool, Vec<Vec<f32>>)> = Vec::new(); // (chunk id, tagged, vectors)
    let mut docs = Vec::new();
    for i in 0..1_600 {
        let mut d = Document::new(format!("d{i}"), "");
        if i % 2 == 0 {
            d.tags = vec!["even".into()];
        }
        let vecs: Vec<Vec<f32>> = (0..per_chunk).map(|_| unit()).collect();
        all.push((format!("d{i}#0"), i % 2 == 0, vecs.clone()));
        docs.push(with_sentences(
            with_vectors(chunked(d, &["text"]), &id, vec![vecs[0].clone()]),
            vec![vecs[1..].to_vec()],
        ));
    }
    for batch in docs.chunks(200) {
        s.upsert(batch.to_vec()).await.unwrap();
    }
    assert!(1_600 * per_chunk > verity_store::EXACT_SCAN_MAX_POINTS);
    let mut found = 0;
    let mut expected_total = 0;
    for _ in 0..20 {
        let q = unit();
        for even_only in [false, true] {
            let mut truth: Vec<(f32, &str)> = all
                .iter()
                .filter(|(_, tagged, _)| !even_only || *tagged)
                .map(|(cid, _, vs)| {
                    let best = vs
                        .iter()
                        .map(|v| v.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>())
                        .fold(f32::MIN, f32::max);
                    (best, cid.as_str())
                })
                .collect();
            truth.sort_by(|a, b| b.0.total_cmp(&a.0));
            let truth: HashSet<&str> = truth.iter().take(10).map(|t| t.1).collect();
            let mut sq = SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(q.clone())
                .k(10);
            if even_only {
                sq.filters = Filters {
                    tags_any: vec!["even".into()],
                    ..Default::default()
                };
            }
            let hits = s.search(&sq).await.unwrap();
            assert_eq!(hits.len(), 10);
            let ids: HashSet<String> = hits.iter().map(|h| h.chunk.id.clone()).collect();
            assert_eq!(ids.len(), 10, "one hit per chunk");
            if even_only {
                assert!(hits.iter().all(|h| h.doc.tags == ["even"]));
            }
            found += ids.iter().filter(|c| truth.contains(c.as_str())).count();
            expected_total += 10;
        }
    }
    let recall = found as f64 / expected_total as f64;
    assert!(recall >= 0.95, "recall@10 over best-vector truth: {recall}");
}

#[tokio::test]
async fn the_chunking_fingerprint_is_recorded_compared_and_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    let mut two = chunked(Document::new("a", ""), &["one two", "three four"]);
    two.chunking = Some("chunk/1 max=2".into());
    let r = s.upsert(vec![two.clone()]).await.unwrap();
    assert_eq!(r.inserted, 1);
    let fp = s.fingerprints(&["a".into()]).await.unwrap();
    assert_eq!(fp["a"].chunking.as_deref(), Some("chunk/1 max=2"));
    assert_eq!(s.upsert(vec![two.clone()]).await.unwrap().unchanged, 1);

    // Same content, cut differently: replaced, not skipped.
    let mut one = chunked(Document::new("a", ""), &["one two three four"]);
    assert_eq!(one.content_hash, two.content_hash);
    one.chunking = Some("chunk/1 max=4".into());
    let r = s.upsert(vec![one]).await.unwrap();
    assert_eq!((r.replaced, r.unchanged), (1, 0));
    assert_eq!(s.stats().await.unwrap().chunks, 1);
    drop(s);

    // A version-1 database (no chunking column) opens, migrates and keeps its rows.
    {
        let c = rusqlite::Connection::open(dir.path().join(verity_store::DB_FILE)).unwrap();
        c.execute_batch("ALTER TABLE documents DROP COLUMN chunking; PRAGMA user_version = 1;")
            .unwrap();
    }
    let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    let fp = s.fingerprints(&["a".into()]).await.unwrap();
    assert_eq!(fp["a"].chunking, None);
    assert_eq!(
        s.get("a").await.unwrap().unwrap().content,
        "one two three four"
    );
    let hits = s
        .search(&SearchQuery::new("three").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
}

/// A re-index's shadow index has a version in its name (`default:v2025-10-15`):
/// its dense dump gets a safe file name, is written when the shadow is
/// flushed, and the next open through the `default:current` alias takes the
/// graph from it instead of rebuilding it.
#[tokio::test]
async fn cut_over_graph_is_saved_and_reopened_without_rebuild() {
    use verity_core::IndexCatalog;
    let dir = tempfile::tempdir().unwrap();
    let id = emb();
    let shadow = verity_core::catalog::versioned_index("default", "2025-10-15");
    let alias = verity_core::catalog::current_alias("default");
    let catalog = verity_store::SqliteCatalog::open(dir.path(), StoreOptions::default()).unwrap();
    {
        let s = catalog.open(&shadow).await.unwrap();
        let docs: Vec<IndexedDocument> = (0..50)
            .map(|i| {
                let a = (i as f32) / 50.0;
                with_vectors(
                    chunked(Document::new(format!("d{i}"), ""), &["text"]),
                    &id,
                    vec![vec![a.cos(), a.sin(), 0.1]],
                )
            })
            .collect();
        s.upsert(docs).await.unwrap();
        // Dropped: the store flushes its dense index.
    }
    catalog.set_alias(&alias, &shadow).await.unwrap();
    let base = verity_store::dump_basename(&shadow);
    assert!(base.starts_with("default_v2025-10-15."), "{base}");
    assert!(
        dir.path()
            .join("index")
            .join(format!("{base}.hnsw.meta"))
            .is_file(),
        "the shadow's graph was saved under a safe name"
    );
    let started = std::time::Instant::now();
    let s = SqliteStore::open(dir.path(), StoreOptions::default().index(&alias)).unwrap();
    let reopen = started.elapsed();
    assert_eq!(s.index_name(), shadow);
    let load = s.dense_load().unwrap();
    assert!(load.from_dump, "rebuilt instead of loaded: {load:?}");
    assert_eq!(load.vectors, 50);
    eprintln!("reopen after cutover: {reopen:?} ({load:?})");
    let hits = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![1.0, 0.0, 0.1])
                .k(3),
        )
        .await
        .unwrap();
    assert_eq!(hits[0].doc.uid, "d0");
    // Dropping the shadow removes its dump too.
    drop(s);
    let other = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    other.drop_index(&shadow).unwrap();
    assert!(!dir
        .path()
        .join("index")
        .join(format!("{base}.hnsw.meta"))
        .exists());
    // Plain names keep their file name.
    assert_eq!(verity_store::dump_basename("default"), "default");
}
