//! The fixed corpus of the checks: five documents, seven chunks, 8-dimensional
//! vectors close to the axes so that every ranking is unambiguous.

use chrono::{TimeZone, Utc};
use serde_json::{json, Map, Value};
use verity_core::{Chunk, Document, EmbedderId, IndexedDocument};

/// Dimension of the fixture vectors.
pub const DIM: usize = 8;

/// The embedder the fixture vectors claim to come from.
pub fn fixture_embedder() -> EmbedderId {
    EmbedderId::new("contract-toy", "1", DIM)
}

/// A unit vector `axis + Σ weight · other axis`, normalised.
pub fn query_vector(parts: &[(usize, f32)]) -> Vec<f32> {
    let mut v = [0.0f32; DIM];
    for &(i, w) in parts {
        v[i % DIM] += w;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

fn meta(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

struct Spec {
    uid: &'static str,
    source: &'static str,
    lang: &'static str,
    ts: Option<(i32, u32, u32, u32)>,
    title: Option<&'static str>,
    tags: &'static [&'static str],
    metadata: Value,
    chunks: &'static [(&'static str, &'static [(usize, f32)])],
}

fn specs() -> Vec<Spec> {
    vec![
        Spec {
            uid: "a",
            source: "amboss",
            lang: "en",
            ts: Some((2025, 1, 10, 12)),
            title: Some("Notes"),
            tags: &["lightning", "fees"],
            metadata: json!({"channel": 7, "kind": "note"}),
            chunks: &[
                (
                    "routing fees on lightning channels are low",
                    &[(0, 1.0), (1, 0.1)],
                ),
                (
                    "channel liquidity matters for routing",
                    &[(1, 1.0), (2, 0.2)],
                ),
            ],
        },
        Spec {
            uid: "b",
            source: "blog",
            lang: "fr",
            ts: Some((2025, 3, 1, 0)),
            title: None,
            tags: &["bitcoin"],
            metadata: json!({"channel": 8, "kind": "post"}),
            chunks: &[("bitcoin mempool fees rise during congestion", &[(3, 1.0)])],
        },
        Spec {
            uid: "c",
            source: "amboss",
            lang: "en",
            ts: None,
            title: None,
            tags: &["lightning"],
            metadata: json!({"kind": "note"}),
            chunks: &[(
                "watchtowers protect lightning channels offline",
                &[(4, 1.0), (0, 0.3)],
            )],
        },
        Spec {
            uid: "d",
            source: "wiki",
            lang: "en",
            ts: Some((2024, 12, 31, 23)),
            title: None,
            tags: &[],
            metadata: json!({}),
            chunks: &[
                ("proof of work secures the ledger", &[(5, 1.0)]),
                ("difficulty adjusts every two weeks", &[(6, 1.0)]),
            ],
        },
        Spec {
            uid: "e",
            source: "blog",
            lang: "en",
            ts: Some((2025, 6, 1, 0)),
            title: None,
            tags: &["bitcoin", "fees"],
            metadata: json!({"channel": 7}),
            chunks: &[(
                "fees fees fees how fee markets clear",
                &[(7, 1.0), (3, 0.2)],
            )],
        },
    ]
}

/// The fixture documents, chunked and embedded with [`fixture_embedder`].
pub fn corpus() -> Vec<IndexedDocument> {
    specs().into_iter().map(build).collect()
}

fn build(s: Spec) -> IndexedDocument {
    let mut content = String::new();
    let mut chunks = Vec::new();
    let mut vectors = Vec::new();
    for (i, (text, parts)) in s.chunks.iter().enumerate() {
        if i > 0 {
            content.push('\n');
        }
        let start = content.len();
        content.push_str(text);
        chunks.push(Chunk {
            id: Chunk::make_id(s.uid, i as u32),
            doc_uid: s.uid.to_string(),
            index: i as u32,
            text: text.to_string(),
            start,
            end: content.len(),
            heading_path: vec!["Notes".to_string()],
            token_count: text.split_whitespace().count() as u32,
        });
        vectors.push(query_vector(parts));
    }
    let document = Document {
        uid: s.uid.to_string(),
        source: s.source.to_string(),
        ts: s
            .ts
            .and_then(|(y, m, d, h)| Utc.with_ymd_and_hms(y, m, d, h, 0, 0).single()),
        lang: Some(s.lang.to_string()),
        title: s.title.map(str::to_string),
        content,
        tags: s.tags.iter().map(|t| t.to_string()).collect(),
        url: Some(format!("https://example.org/{}", s.uid)),
        metadata: meta(s.metadata),
    };
    IndexedDocument {
        content_hash: document.content_hash(),
        document,
        chunks,
        embeddings: Some(vectors),
        sentence_embeddings: None,
        embedder: Some(fixture_embedder()),
        chunking: Some("contract-chunking-1".to_string()),
    }
}

/// Cosine similarity (the fixture vectors are unit vectors).
pub(crate) fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}
