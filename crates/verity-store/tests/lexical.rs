//! The in-memory lexical index (`StoreOptions::lexical_accelerator`) ranks and
//! scores exactly like FTS5's `bm25()`: same top-k, same scores, through
//! writes, deletes, other indexes and filters.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use verity_core::{
    Chunk, Document, Filters, IndexedDocument, ScoredChunk, SearchMode, SearchQuery, VectorStore,
};
use verity_store::{SqliteStore, StoreOptions};

fn doc(
    uid: &str,
    title: Option<&str>,
    parts: &[(&str, &[&str])],
    tags: &[&str],
) -> IndexedDocument {
    let mut d = Document::new(uid, "");
    d.title = title.map(str::to_string);
    d.tags = tags.iter().map(|t| t.to_string()).collect();
    let mut chunks = Vec::new();
    let mut content = String::new();
    for (i, (text, heading)) in parts.iter().enumerate() {
        let start = content.len();
        content.push_str(text);
        content.push('\n');
        chunks.push(Chunk {
            id: Chunk::make_id(uid, i as u32),
            doc_uid: uid.to_string(),
            index: i as u32,
            text: text.to_string(),
            start,
            end: start + text.len(),
            heading_path: heading.iter().map(|h| h.to_string()).collect(),
            token_count: text.split_whitespace().count() as u32,
        });
    }
    d.content = content;
    let content_hash = d.content_hash();
    IndexedDocument {
        document: d,
        chunks,
        embeddings: None,
        sentence_embeddings: None,
        chunking: None,
        embedder: None,
        content_hash,
    }
}

fn scifact_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/data"))
        .join("scifact");
    dir.join("corpus.jsonl").is_file().then_some(dir)
}

fn jsonl(path: &Path, n: usize) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A corpus: SciFact abstracts when available (two chunks each, headings),
/// else a synthetic one; plus hostile and Unicode-heavy documents.
fn corpus(n: usize) -> (Vec<IndexedDocument>, Vec<String>) {
    let mut docs = Vec::new();
    let mut queries: Vec<String> = Vec::new();
    // VERITY_PARITY_FULL=1: the whole corpus and every train query (slow in debug).
    let full = std::env::var_os("VERITY_PARITY_FULL");
    let n = full.as_ref().map_or(n, |_| usize::MAX);
    if let Some(dir) = scifact_dir() {
        for v in jsonl(&dir.join("corpus.jsonl"), n) {
            let text = v["text"].as_str().unwrap_or("");
            let (a, b) = text.split_at(
                text.char_indices()
                    .nth(text.chars().count() / 2)
                    .map_or(0, |(i, _)| i),
            );
            docs.push(doc(
                v["_id"].as_str().unwrap(),
                v["title"].as_str(),
                &[(a, &["Abstract"]), (b, &["Abstract", "Results"])],
                &[if docs.len() % 3 == 0 { "even" } else { "odd" }],
            ));
        }
        queries.extend(
            jsonl(
                &dir.join("queries_train.jsonl"),
                full.map_or(150, |_| usize::MAX),
            )
            .iter()
            .map(|v| v["text"].as_str().unwrap().to_string()),
        );
    } else {
        eprintln!("SciFact not found: synthetic corpus only");
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let words = [
            "cell",
            "cells",
            "protein",
            "gene",
            "expression",
            "cancer",
            "mouse",
            "risk",
            "study",
            "patients",
            "running",
            "runs",
            "immune",
            "tumour",
            "growth",
            "factor",
            "signal",
        ];
        for i in 0..n {
            let text: Vec<&str> = (0..rng.random_range(5..60))
                .map(|_| words[rng.random_range(0..words.len())])
                .collect();
            let text = text.join(" ");
            docs.push(doc(
                &format!("s{i}"),
                Some(words[i % words.len()]),
                &[(&text, &[])],
                &["odd"],
            ));
        }
        for i in 0..100 {
            let q: Vec<&str> = (0..rng.random_range(1..8))
                .map(|_| words[rng.random_range(0..words.len())])
                .collect();
            queries.push(format!("{} {i}", q.join(" ")));
        }
    }
    docs.push(doc(
        "hostile",
        Some("Café NEAR AND"),
        &[
            (
                "the NEAR operator and café 東京 data x² ǅ हिन्दी e\u{301}te naïve",
                &["Über", "Ünïcödé"],
            ),
            ("running runs ran runner cells cell CELLS", &[]),
        ],
        &["odd"],
    ));
    queries.extend(
        [
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
            "x²",
            "ǅ",
            "हिन्दी",
            "e\u{301}te",
            "naive",
            "running runs cells cell",
            "the of",
            "x AND (y OR z) NOT \"w",
            "Über uber",
            "cancer cancer CANCER",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    (docs, queries)
}

fn opts(accelerated: bool) -> StoreOptions {
    StoreOptions {
        lexical_accelerator: accelerated,
        ..StoreOptions::default()
    }
}

fn lexical(q: &str, k: usize) -> SearchQuery {
    SearchQuery::new(q).mode(SearchMode::Lexical).k(k)
}

/// Same scores, position by position, and the same chunks except inside a
/// tie group cut by `k` (FTS5's `ORDER BY rank` orders ties its own way).
fn assert_same(got: &[ScoredChunk], want: &[ScoredChunk], what: &str) {
    let gs: Vec<f32> = got.iter().map(|h| h.score).collect();
    let ws: Vec<f32> = want.iter().map(|h| h.score).collect();
    assert_eq!(gs, ws, "scores differ: {what}");
    let group = |hits: &[ScoredChunk]| {
        let mut m: HashMap<u32, BTreeSet<String>> = HashMap::new();
        for h in hits {
            m.entry(h.score.to_bits())
                .or_default()
                .insert(h.chunk.id.clone());
        }
        m
    };
    let (g, w) = (group(got), group(want));
    let last = ws.last().map(|s| s.to_bits());
    for (score, ids) in &w {
        if Some(*score) != last {
            assert_eq!(g.get(score), Some(ids), "chunks differ: {what}");
        }
    }
}

async fn check_parity(
    fast: &SqliteStore,
    reference: &SqliteStore,
    queries: &[String],
    filters: &Filters,
    tag: &str,
) {
    for q in queries {
        for k in [1, 10, 100] {
            let mut sq = lexical(q, k);
            sq.filters = filters.clone();
            let got = fast.search(&sq).await.unwrap();
            let want = reference.search(&sq).await.unwrap();
            assert_same(&got, &want, &format!("{tag}: query {q:?} k {k}"));
        }
    }
}

fn searches(s: &SqliteStore) -> u64 {
    s.lexical_index_stats().map_or(0, |st| st.searches)
}

#[tokio::test]
async fn accelerator_matches_fts5_in_memory() {
    let (docs, queries) = corpus(400);
    let fast = SqliteStore::open_in_memory(opts(true)).unwrap();
    let reference = SqliteStore::open_in_memory(opts(false)).unwrap();
    for batch in docs.chunks(100) {
        fast.upsert(batch.to_vec()).await.unwrap();
        reference.upsert(batch.to_vec()).await.unwrap();
    }
    assert!(reference.lexical_index_stats().is_none());
    fast.warm_lexical_index().unwrap();
    let st = fast.lexical_index_stats().unwrap();
    assert_eq!(st.rows, docs.iter().map(|d| d.chunks.len()).sum::<usize>());
    assert!(st.terms > 0 && st.postings > st.terms && st.memory_bytes > 0);
    check_parity(&fast, &reference, &queries, &Filters::default(), "built").await;
    assert!(searches(&fast) > queries.len() as u64, "the index answered");

    // Incremental: replace some documents, delete others, add new ones.
    let mut changed: Vec<IndexedDocument> = docs.iter().step_by(7).take(30).cloned().collect();
    for d in &mut changed {
        d.chunks.truncate(1);
        d.chunks[0].text.push_str(" protein cancer extra words");
        d.document.content.push_str(" changed");
        d.content_hash = d.document.content_hash();
    }
    changed.push(doc(
        "new-1",
        Some("Brand new"),
        &[("cells of the immune system in mice", &[])],
        &["even"],
    ));
    let gone: Vec<String> = docs
        .iter()
        .skip(3)
        .step_by(11)
        .take(20)
        .map(|d| d.document.uid.clone())
        .collect();
    for s in [&fast, &reference] {
        s.upsert(changed.clone()).await.unwrap();
        assert_eq!(s.delete(&gone).await.unwrap(), gone.len());
    }
    check_parity(
        &fast,
        &reference,
        &queries,
        &Filters::default(),
        "after writes",
    )
    .await;
    assert_eq!(
        fast.lexical_index_stats().unwrap().builds,
        1,
        "updated in place, not rebuilt"
    );

    let f = Filters {
        tags_any: vec!["even".into()],
        ..Filters::default()
    };
    check_parity(
        &fast,
        &reference,
        &queries[..40.min(queries.len())],
        &f,
        "filtered",
    )
    .await;
}

/// Two indexes in one database (global FTS5 statistics), filters, writes by
/// another handle on the same file: always equal to the FTS5 path.
#[tokio::test]
async fn accelerator_matches_fts5_across_indexes_and_handles() {
    let dir = tempfile::tempdir().unwrap();
    let (docs, queries) = corpus(240);
    let queries = &queries[..60.min(queries.len())];
    let a_fast = SqliteStore::open(dir.path(), opts(true).index("a")).unwrap();
    let a_ref = SqliteStore::open(dir.path(), opts(false).index("a")).unwrap();
    let b_writer = SqliteStore::open(dir.path(), opts(false).index("b")).unwrap();
    let (first, second) = docs.split_at(docs.len() / 2);
    a_fast.upsert(first.to_vec()).await.unwrap();
    b_writer.upsert(second.to_vec()).await.unwrap();
    check_parity(&a_fast, &a_ref, queries, &Filters::default(), "two indexes").await;
    let served = searches(&a_fast);
    assert!(served > 0);

    // Writes through another handle: the first search notices and falls back,
    // then the index is rebuilt.
    b_writer.upsert(first[..20].to_vec()).await.unwrap();
    a_ref
        .delete(&[first[0].document.uid.clone()])
        .await
        .unwrap();
    check_parity(
        &a_fast,
        &a_ref,
        queries,
        &Filters::default(),
        "foreign writes",
    )
    .await;
    assert_eq!(a_fast.lexical_index_stats().unwrap().builds, 2);

    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for round in 0..20 {
        let mut f = Filters::default();
        if rng.random_bool(0.5) {
            f.tags_any = vec![["even", "odd"][rng.random_range(0..2)].into()];
        }
        if rng.random_bool(0.5) {
            f.uids = (0..30)
                .map(|_| first[rng.random_range(0..first.len())].document.uid.clone())
                .collect();
        }
        check_parity(
            &a_fast,
            &a_ref,
            &queries[..10],
            &f,
            &format!("filters round {round}"),
        )
        .await;
    }

    // Own writes are applied in place.
    let builds = a_fast.lexical_index_stats().unwrap().builds;
    a_fast.upsert(second[..10].to_vec()).await.unwrap();
    a_fast
        .delete(&[first[1].document.uid.clone()])
        .await
        .unwrap();
    check_parity(&a_fast, &a_ref, queries, &Filters::default(), "own writes").await;
    assert_eq!(a_fast.lexical_index_stats().unwrap().builds, builds);

    // Dropping the other index changes the global statistics.
    b_writer
        .upsert(vec![doc("x", None, &[("cancer cells", &[])], &[])])
        .await
        .unwrap();
    drop(b_writer);
    a_fast.create_index("c", None).unwrap();
    a_fast.drop_index("b").unwrap();
    check_parity(&a_fast, &a_ref, queries, &Filters::default(), "after drop").await;
    a_fast.integrity_check().unwrap();
}

#[tokio::test]
async fn reopen_and_empty_store() {
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteStore::open(dir.path(), opts(true)).unwrap();
    assert!(s.search(&lexical("anything", 10)).await.unwrap().is_empty());
    s.upsert(vec![doc(
        "a",
        Some("Title"),
        &[("alpha beta gamma", &[])],
        &[],
    )])
    .await
    .unwrap();
    assert_eq!(s.search(&lexical("beta", 10)).await.unwrap().len(), 1);
    drop(s);
    let s = SqliteStore::open(dir.path(), opts(true)).unwrap();
    let hits = s.search(&lexical("title gamma", 10)).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert!(hits[0].score > 0.0);
    s.delete(&["a".into()]).await.unwrap();
    assert!(s.search(&lexical("beta", 10)).await.unwrap().is_empty());
}

/// BM25 statistics count live rows only: a store whose documents were all
/// replaced (and some deleted) ranks and scores exactly like a store that
/// only ever held the final documents, through the accelerator and through
/// FTS5. (FTS5 itself keeps deleted rows of a `contentless_delete` table in
/// its totals; the store takes them out.) A database written before that fix
/// is healed when it is opened.
#[tokio::test]
async fn replaced_and_deleted_rows_leave_no_trace_in_bm25() {
    let (docs, queries) = corpus(200);
    let queries = &queries[..40.min(queries.len())];
    let gone: Vec<String> = docs
        .iter()
        .step_by(9)
        .map(|d| d.document.uid.clone())
        .collect();
    // Same content, cut differently (one chunk per document).
    let recut: Vec<IndexedDocument> = docs
        .iter()
        .map(|d| {
            let mut d = d.clone();
            let text = d
                .chunks
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            d.chunks.truncate(1);
            d.chunks[0].end = d.chunks[0].start + text.len();
            d.chunks[0].text = text;
            d.chunking = Some("one chunk".into());
            d
        })
        .collect();
    let kept: Vec<IndexedDocument> = recut
        .iter()
        .filter(|d| !gone.contains(&d.document.uid))
        .cloned()
        .collect();

    let dir = tempfile::tempdir().unwrap();
    for accelerated in [true, false] {
        let path = dir.path().join(format!("churn-{accelerated}"));
        let churned = SqliteStore::open(&path, opts(accelerated)).unwrap();
        churned.upsert(docs.clone()).await.unwrap();
        churned.upsert(recut.clone()).await.unwrap();
        churned.delete(&gone).await.unwrap();
        let fresh = SqliteStore::open_in_memory(opts(false)).unwrap();
        fresh.upsert(kept.clone()).await.unwrap();
        let tag = format!("churned, accelerated {accelerated}");
        check_parity(&churned, &fresh, queries, &Filters::default(), &tag).await;

        // A version-1 database: totals still counting the deleted rows.
        drop(churned);
        {
            let c = rusqlite::Connection::open(path.join(verity_store::DB_FILE)).unwrap();
            let (rows, tokens): (i64, i64) = (10_000, 3_000_000);
            let mut block = Vec::new();
            for v in [rows, 0, 0, tokens] {
                let mut b = Vec::new();
                let mut v = v as u64;
                loop {
                    b.push((v & 0x7f) as u8);
                    v >>= 7;
                    if v == 0 {
                        break;
                    }
                }
                b.reverse();
                let n = b.len();
                for x in &mut b[..n - 1] {
                    *x |= 0x80;
                }
                block.extend(b);
            }
            c.execute(
                "UPDATE chunks_fts_data SET block = ?1 WHERE id = 1",
                [block],
            )
            .unwrap();
            c.execute_batch("ALTER TABLE documents DROP COLUMN chunking; PRAGMA user_version = 1;")
                .unwrap();
        }
        let healed = SqliteStore::open(&path, opts(accelerated)).unwrap();
        let tag = format!("healed, accelerated {accelerated}");
        check_parity(&healed, &fresh, queries, &Filters::default(), &tag).await;
    }
}
