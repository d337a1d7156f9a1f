//! RedisStore against a real Redis 8 + RediSearch + RedisJSON server:
//! upsert/replace/delete, filters (vs the reference semantics), escaping,
//! embedder checks, and parity with the embedded SQLite store.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::collections::BTreeSet;

use chrono::{TimeZone, Utc};
use serde_json::json;
use verity_core::{
    Document, EmbedderId, Error, Filters, MetadataFilter, SearchMode, SearchQuery, StoreError,
    TimeRange, VectorStore,
};
use verity_redis::{RedisStore, RedisStoreOptions};
use verity_store::{SqliteStore, StoreOptions};

use common::{bow, chunked, server, with_vectors};

fn emb() -> EmbedderId {
    EmbedderId::new("toy", "v1", 3)
}

#[tokio::test]
async fn upsert_get_replace_delete_stats() {
    let Some(srv) = server("upsert_get_replace_delete_stats") else {
        return;
    };
    let s = RedisStore::connect(&srv.url(), "t", RedisStoreOptions::default())
        .await
        .unwrap();
    let mut d = Document::new("a", "");
    d.title = Some("Lightning fees".into());
    d.tags = vec!["ln".into(), "fees, and more".into()];
    d.ts = Some(Utc.with_ymd_and_hms(2025, 3, 1, 12, 0, 0).unwrap());
    d.lang = Some("en".into());
    d.url = Some("https://x.test/a".into());
    d.metadata.insert("node".into(), json!("02ab"));
    d.metadata.insert("n".into(), json!(7));
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
    assert_eq!(got.title, d.title);
    assert_eq!(got.tags, d.tags);
    assert_eq!(got.ts, d.ts);
    assert_eq!(got.url, d.url);
    assert_eq!(got.metadata, d.metadata);
    assert_eq!(got.lang.as_deref(), Some("en"));
    // Same content again: unchanged.
    let r = s
        .upsert(vec![chunked(
            d.clone(),
            &["routing fees are low", "channels rebalance"],
        )])
        .await
        .unwrap();
    assert_eq!((r.inserted, r.replaced, r.unchanged), (0, 0, 1));
    // Replace with a single chunk: the old second chunk must disappear.
    let r = s
        .upsert(vec![chunked(d.clone(), &["routing fees went up"])])
        .await
        .unwrap();
    assert_eq!((r.inserted, r.replaced, r.chunks), (0, 1, 1));
    let hits = s
        .search(&SearchQuery::new("channels rebalance").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert!(hits.is_empty(), "stale chunk still indexed: {hits:?}");
    let hits = s
        .search(&SearchQuery::new("fees").mode(SearchMode::Lexical))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].chunk.id, "a#0");
    assert_eq!(hits[0].chunk.text, "routing fees went up");
    assert_eq!(hits[0].doc.tags, d.tags);
    assert_eq!(hits[0].doc.metadata, d.metadata);
    assert_eq!(hits[0].chunk.heading_path, vec!["Intro".to_string()]);
    assert!(hits[0].lexical.unwrap() > 0.0 && hits[0].relevance > 0.0);
    let st = s.stats().await.unwrap();
    assert_eq!(
        (st.backend.as_str(), st.documents, st.chunks, st.vectors),
        ("redis", 1, 1, 0)
    );
    // Delete.
    let b = chunked(Document::new("b", ""), &["other text"]);
    s.upsert(vec![b]).await.unwrap();
    assert_eq!(s.delete(&["a".into(), "zz".into()]).await.unwrap(), 1);
    assert!(s.get("a").await.unwrap().is_none());
    assert!(s
        .search(&SearchQuery::new("fees").mode(SearchMode::Lexical))
        .await
        .unwrap()
        .is_empty());
    let st = s.stats().await.unwrap();
    assert_eq!((st.documents, st.chunks), (1, 1));
    let fp = s.fingerprints(&["a".into(), "b".into()]).await.unwrap();
    assert_eq!(fp.len(), 1);
    assert!(fp.contains_key("b"));
}

#[tokio::test]
async fn embedder_checks_and_dense_search() {
    let Some(srv) = server("embedder_checks_and_dense_search") else {
        return;
    };
    let s = RedisStore::connect(&srv.url(), "e", RedisStoreOptions::default())
        .await
        .unwrap();
    // Lexical document first: the vector field is added when vectors arrive.
    s.upsert(vec![chunked(Document::new("lex", ""), &["plain words"])])
        .await
        .unwrap();
    let d = with_vectors(
        chunked(Document::new("a", ""), &["x axis", "y axis"]),
        &emb(),
        vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]],
    );
    s.upsert(vec![d]).await.unwrap();
    assert_eq!(s.embedder().await.unwrap(), Some(emb()));
    let q = SearchQuery::new("")
        .mode(SearchMode::Dense)
        .vector(vec![0.9, 0.1, 0.0])
        .k(2);
    let hits = s.search(&q).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].chunk.id, "a#0");
    let expected = verity_core::embed::cosine(&[0.9, 0.1, 0.0], &[1.0, 0.0, 0.0]);
    assert!(
        (hits[0].dense.unwrap() - expected).abs() < 1e-4,
        "{:?} vs {expected}",
        hits[0].dense
    );
    // Relevance is the calibrated scale of `rank::relevance` (the cosine, its
    // knee mapped to the guardrail), the same on every backend.
    let relevance = verity_core::rank::relevance(
        SearchMode::Dense,
        &verity_core::rank::QueryTerms::new(&q.text),
        Some(expected),
        hits[0].doc.title.as_deref(),
        &hits[0].chunk.text,
    );
    assert!((hits[0].relevance - relevance).abs() < 1e-4);
    // Another model: refused. Another version: re-index required. Wrong query dim: refused.
    let other = EmbedderId::new("other", "v1", 3);
    let d = with_vectors(
        chunked(Document::new("b", ""), &["z"]),
        &other,
        vec![vec![0.0, 0.0, 1.0]],
    );
    let e = s.upsert(vec![d]).await.unwrap_err();
    assert!(
        matches!(e, Error::Store(StoreError::EmbedderMismatch { .. })),
        "{e}"
    );
    let v2 = EmbedderId::new("toy", "v2", 3);
    let d = with_vectors(
        chunked(Document::new("b", ""), &["z"]),
        &v2,
        vec![vec![0.0, 0.0, 1.0]],
    );
    let e = s.upsert(vec![d]).await.unwrap_err();
    assert!(
        matches!(e, Error::Store(StoreError::ReindexRequired { .. })),
        "{e}"
    );
    let e = s
        .search(
            &SearchQuery::new("")
                .mode(SearchMode::Dense)
                .vector(vec![1.0, 0.0]),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::Store(StoreError::EmbedderMismatch { .. })),
        "{e}"
    );
    // A new connection reads the recorded embedder back.
    let s2 = RedisStore::connect(&srv.url(), "e", RedisStoreOptions::default())
        .await
        .unwrap();
    assert_eq!(s2.embedder().await.unwrap(), Some(emb()));
    assert_eq!(s2.stats().await.unwrap().vectors, 2);
    // The embed-hash key is maintained on upsert.
    let mut con = s.connection();
    let v: Option<String> = redis::cmd("GET")
        .arg("rag:embed:hash:a")
        .query_async(&mut con)
        .await
        .unwrap();
    let sha = verity_core::hash::sha1_hex(b"x axis y axis");
    assert_eq!(v.as_deref(), Some(format!("{sha}|v1").as_str()));
}

fn corpus() -> Vec<Document> {
    let mut docs = Vec::new();
    let sources = ["amboss", "mempool", "", "blog post"];
    let langs = [Some("en"), Some("FR"), None];
    let tags: [&[&str]; 5] = [
        &["ln"],
        &["ln", "fees"],
        &["c++", "a b"],
        &[],
        &["fees", "x{y}"],
    ];
    for i in 0..40 {
        let mut d = Document::new(
            format!("u{i}"),
            format!("common word number {i} and filler"),
        );
        d.source = sources[i % sources.len()].into();
        d.lang = langs[i % langs.len()].map(str::to_string);
        d.tags = tags[i % tags.len()].iter().map(|s| s.to_string()).collect();
        if i % 4 != 3 {
            d.ts = Some(
                Utc.with_ymd_and_hms(2025, 1 + (i % 12) as u32, 1, 0, 0, 0)
                    .unwrap()
                    + chrono::Duration::milliseconds(i as i64),
            );
        }
        d.metadata.insert("channel".into(), json!(i % 3));
        d.metadata.insert(
            "kind".into(),
            json!(if i % 2 == 0 { "even" } else { "odd" }),
        );
        if i % 5 == 0 {
            d.metadata.insert("list".into(), json!([1, 2]));
        }
        docs.push(d);
    }
    docs
}

#[tokio::test]
async fn filters_agree_with_the_reference_semantics() {
    let Some(srv) = server("filters_agree_with_the_reference_semantics") else {
        return;
    };
    let s = RedisStore::connect(&srv.url(), "f", RedisStoreOptions::default())
        .await
        .unwrap();
    let docs = corpus();
    let id = EmbedderId::new("toy-bow", "v1", 64);
    let indexed: Vec<_> = docs
        .iter()
        .map(|d| {
            let c = chunked(d.clone(), &[d.content.as_str()]);
            let v = bow(&d.content, 64);
            with_vectors(c, &id, vec![v])
        })
        .collect();
    s.upsert(indexed).await.unwrap();
    let t = |m, d| Utc.with_ymd_and_hms(2025, m, d, 0, 0, 0).unwrap();
    let cases: Vec<Filters> = vec![
        Filters {
            sources: vec!["amboss".into(), "blog post".into()],
            ..Default::default()
        },
        Filters {
            sources: vec!["".into()],
            ..Default::default()
        },
        Filters {
            langs: vec!["fr".into()],
            ..Default::default()
        },
        Filters {
            langs: vec!["EN".into()],
            ..Default::default()
        },
        Filters {
            tags_any: vec!["c++".into(), "fees".into()],
            ..Default::default()
        },
        Filters {
            tags_all: vec!["ln".into(), "fees".into()],
            ..Default::default()
        },
        Filters {
            tags_any: vec!["a b".into()],
            ..Default::default()
        },
        Filters {
            tags_any: vec!["x{y}".into()],
            ..Default::default()
        },
        Filters {
            uids: vec!["u1".into(), "u7".into(), "nope".into()],
            ..Default::default()
        },
        Filters {
            metadata: vec![MetadataFilter::parse("channel=1").unwrap()],
            ..Default::default()
        },
        Filters {
            metadata: vec![
                MetadataFilter::parse("kind=even|odd").unwrap(),
                MetadataFilter::parse("channel=2").unwrap(),
            ],
            ..Default::default()
        },
        Filters {
            metadata: vec![MetadataFilter {
                key: "list".into(),
                values: vec![json!([1, 2])],
            }],
            ..Default::default()
        },
        Filters {
            time: TimeRange {
                since: Some(t(3, 1)),
                until: Some(t(6, 1)),
            },
            ..Default::default()
        },
        Filters {
            time: TimeRange {
                since: Some(t(10, 1)),
                until: None,
            },
            ..Default::default()
        },
        Filters {
            time: TimeRange {
                since: Some(t(2, 1) + chrono::Duration::microseconds(13_500)),
                until: None,
            },
            langs: vec!["en".into()],
            ..Default::default()
        },
    ];
    for f in cases {
        let expected: BTreeSet<String> = docs
            .iter()
            .filter(|d| f.matches(&d.meta()))
            .map(|d| d.uid.clone())
            .collect();
        for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
            let q = SearchQuery::new("common word")
                .mode(mode)
                .k(100)
                .filters(f.clone())
                .vector(bow("common word", 64));
            let got: BTreeSet<String> = s
                .search(&q)
                .await
                .unwrap()
                .into_iter()
                .map(|h| h.doc.uid)
                .collect();
            assert_eq!(got, expected, "mode {mode}, filters {f:?}");
        }
        // k smaller than the matches: a filtered search still fills k.
        let k = expected.len().min(3);
        let q = SearchQuery::new("common")
            .mode(SearchMode::Lexical)
            .k(3)
            .filters(f.clone());
        assert_eq!(s.search(&q).await.unwrap().len(), k, "filters {f:?}");
    }
}

#[tokio::test]
async fn any_text_and_tag_value_is_safe() {
    let Some(srv) = server("any_text_and_tag_value_is_safe") else {
        return;
    };
    let s = RedisStore::connect(&srv.url(), "x", RedisStoreOptions::default())
        .await
        .unwrap();
    let weird = [
        "a*b",
        "@title:{x}",
        "(a|b)",
        "-neg",
        "~opt",
        "\"quoted\"",
        "a:b",
        "%fuzzy%",
        "$param",
        "{}",
        "[1 2]",
        "\\",
        "é ü ß 漢字",
        "x=>[KNN 3 @vec $B]",
        "'; DROP",
        "a\u{1f}b",
        " ",
        "",
        "!!!",
        "ISMISSING(@x)",
        "w*",
        "1e5",
        "-1",
        "½",
    ];
    let docs: Vec<_> = weird
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let mut d = Document::new(format!("w{i}"), format!("content {w} body"));
            d.source = w.to_string();
            d.tags = vec![w.to_string(), "base".into()];
            chunked(d, &[&format!("content {w} body")])
        })
        .collect();
    s.upsert(docs).await.unwrap();
    for (i, w) in weird.iter().enumerate() {
        for mode in [SearchMode::Lexical, SearchMode::Hybrid] {
            s.search(&SearchQuery::new(*w).mode(mode))
                .await
                .unwrap_or_else(|e| panic!("query {w:?}: {e}"));
        }
        let f = Filters {
            tags_all: vec![w.to_string(), "base".into()],
            sources: vec![w.to_string()],
            ..Default::default()
        };
        let hits = s
            .search(
                &SearchQuery::new("content")
                    .mode(SearchMode::Lexical)
                    .filters(f)
                    .k(50),
            )
            .await
            .unwrap();
        let uids: Vec<String> = hits.iter().map(|h| h.doc.uid.clone()).collect();
        assert_eq!(uids, vec![format!("w{i}")], "tag/source {w:?}");
    }
    // Pseudo-random strings over punctuation, letters, digits and non-ASCII.
    let pool: Vec<char> =
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\nabcXYZ019éß漢\u{1f}\u{0}ismissing"
            .chars()
            .collect();
    let mut seed = 0x9e3779b97f4a7c15u64;
    for _ in 0..300 {
        let mut s_ = String::new();
        for _ in 0..(seed % 24) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s_.push(pool[(seed % pool.len() as u64) as usize]);
        }
        seed = seed.wrapping_add(0x9e3779b97f4a7c15);
        let f = Filters {
            tags_any: vec![s_.clone()],
            sources: vec![s_.clone()],
            uids: vec![s_.clone()],
            ..Default::default()
        };
        for mode in [SearchMode::Lexical, SearchMode::Hybrid] {
            s.search(&SearchQuery::new(s_.clone()).mode(mode))
                .await
                .unwrap_or_else(|e| panic!("query {s_:?}: {e}"));
            s.search(&SearchQuery::new("content").mode(mode).filters(f.clone()))
                .await
                .unwrap_or_else(|e| panic!("filter {s_:?}: {e}"));
        }
    }
}

/// The same data in both backends gives the same top results.
#[tokio::test]
async fn parity_with_the_embedded_store() {
    let Some(srv) = server("parity_with_the_embedded_store") else {
        return;
    };
    let r = RedisStore::connect(&srv.url(), "p", RedisStoreOptions::default())
        .await
        .unwrap();
    let l = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    let topics = [
        (
            "bitcoin",
            "Bitcoin mining difficulty adjusts every two thousand blocks to keep block time stable",
        ),
        (
            "lightning",
            "Lightning channels route payments through intermediate nodes charging routing fees",
        ),
        (
            "rust",
            "Rust ownership and borrowing rules prevent data races at compile time",
        ),
        (
            "sqlite",
            "SQLite stores the whole database in one file and supports full text search with FTS5",
        ),
        (
            "redis",
            "Redis keeps data in memory and offers modules for search and JSON documents",
        ),
        (
            "cooking",
            "Slow cooking a stew with onions carrots and red wine for three hours",
        ),
        (
            "hiking",
            "Hiking in the alps requires good boots water and a map of the trails",
        ),
        (
            "music",
            "A string quartet plays music for two violins a viola and a cello",
        ),
    ];
    let id = EmbedderId::new("toy-bow", "v1", 64);
    let docs: Vec<_> = topics
        .iter()
        .enumerate()
        .map(|(i, (t, text))| {
            let mut d = Document::new(t.to_string(), "");
            d.title = Some(format!("About {t}"));
            d.tags = vec![if i % 2 == 0 {
                "even".into()
            } else {
                "odd".into()
            }];
            let parts = [*text, "Some shared filler sentence about general topics"];
            let c = chunked(d, &parts);
            let vecs = parts.iter().map(|p| bow(p, 64)).collect();
            with_vectors(c, &id, vecs)
        })
        .collect();
    r.upsert(docs.clone()).await.unwrap();
    l.upsert(docs).await.unwrap();
    let queries = [
        "mining difficulty blocks",
        "payments routing fees",
        "ownership borrowing data races",
        "database file full text search",
        "memory modules search JSON",
        "stew onions wine",
        "boots trails map",
        "violins viola cello",
    ];
    for (qi, text) in queries.iter().enumerate() {
        for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
            let q = SearchQuery::new(*text)
                .mode(mode)
                .k(3)
                .vector(bow(text, 64));
            let a = r.search(&q).await.unwrap();
            let b = l.search(&q).await.unwrap();
            assert!(!a.is_empty() && !b.is_empty(), "{text} {mode}");
            assert_eq!(
                a[0].chunk.id, b[0].chunk.id,
                "top hit differs for `{text}` ({mode})"
            );
            assert_eq!(a[0].doc.uid, topics[qi].0, "{text} {mode}");
            if mode == SearchMode::Dense {
                let ids_a: Vec<_> = a.iter().map(|h| &h.chunk.id).collect();
                let ids_b: Vec<_> = b.iter().map(|h| &h.chunk.id).collect();
                assert_eq!(ids_a[0], ids_b[0]);
                assert!(
                    (a[0].relevance - b[0].relevance).abs() < 1e-3,
                    "dense relevance {} vs {}",
                    a[0].relevance,
                    b[0].relevance
                );
            }
            // Filters give the same result set in both backends.
            let f = Filters {
                tags_any: vec!["odd".into()],
                ..Default::default()
            };
            let q = q.clone().filters(f).k(10);
            let sa: BTreeSet<_> = r
                .search(&q)
                .await
                .unwrap()
                .into_iter()
                .map(|h| h.chunk.id)
                .collect();
            let sb: BTreeSet<_> = l
                .search(&q)
                .await
                .unwrap()
                .into_iter()
                .map(|h| h.chunk.id)
                .collect();
            if mode != SearchMode::Lexical {
                assert_eq!(sa, sb, "filtered {mode} `{text}`");
            } else {
                assert!(
                    sa.iter().all(|id| sb.contains(id)) || sb.iter().all(|id| sa.contains(id)),
                    "filtered lexical `{text}`: {sa:?} vs {sb:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn unreachable_server_is_a_transient_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut opts = RedisStoreOptions::default();
    opts.connect.connect_timeout = std::time::Duration::from_millis(300);
    let e = RedisStore::connect(&format!("redis://127.0.0.1:{port}/"), "t", opts)
        .await
        .unwrap_err();
    assert!(e.is_transient(), "{e}");
    assert!(matches!(e, Error::Store(StoreError::Unavailable(_))), "{e}");
    let e = RedisStore::connect(
        "redis://127.0.0.1:1/",
        "bad name!",
        RedisStoreOptions::default(),
    )
    .await;
    assert!(e.is_err());
}

#[tokio::test]
async fn the_chunking_fingerprint_is_recorded_and_compared() {
    let Some(srv) = server("the_chunking_fingerprint_is_recorded_and_compared") else {
        return;
    };
    let s = RedisStore::connect(&srv.url(), "ck", RedisStoreOptions::default())
        .await
        .unwrap();
    let mut two = chunked(Document::new("a", ""), &["one two", "three four"]);
    two.chunking = Some("chunk/1 max=2".into());
    assert_eq!(s.upsert(vec![two.clone()]).await.unwrap().inserted, 1);
    let fp = s.fingerprints(&["a".into()]).await.unwrap();
    assert_eq!(fp["a"].chunking.as_deref(), Some("chunk/1 max=2"));
    assert_eq!(s.upsert(vec![two]).await.unwrap().unchanged, 1);

    let mut one = chunked(Document::new("a", ""), &["one two three four"]);
    one.chunking = Some("chunk/1 max=4".into());
    let r = s.upsert(vec![one]).await.unwrap();
    assert_eq!((r.replaced, r.unchanged), (1, 0));
    assert_eq!(s.stats().await.unwrap().chunks, 1);
    let fp = s.fingerprints(&["a".into()]).await.unwrap();
    assert_eq!(fp["a"].chunking.as_deref(), Some("chunk/1 max=4"));
}
