//! Retrieval evaluation on BEIR-format datasets.
//!
//! A BEIR dataset directory holds `corpus.jsonl` (`{_id, title, text}`),
//! `queries*.jsonl` (`{_id, text}`) and `qrels/<split>.tsv`
//! (`query-id \t corpus-id \t score`, with a header line). [`evaluate`] runs
//! every query of a split against an already ingested [`VectorStore`] and
//! reports nDCG@10, recall@5, recall@100, MRR@10 (document level: a
//! document's score is its best chunk's) and latency percentiles.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use verity_core::{
    Chunk, Document, Embedder, Error, IndexedDocument, InputError, Result, SearchMode, SearchQuery,
    VectorStore,
};

/// One corpus record (`{_id, title, text}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeirDoc {
    /// Document id.
    #[serde(rename = "_id")]
    pub id: String,
    /// Title (may be empty).
    #[serde(default)]
    pub title: String,
    /// Body text.
    #[serde(default)]
    pub text: String,
}

impl BeirDoc {
    /// As a Verity document (uid = `_id`, source = `beir`, content = text).
    pub fn to_document(&self) -> Document {
        let mut d = Document::new(self.id.clone(), self.text.clone());
        d.source = "beir".into();
        if !self.title.trim().is_empty() {
            d.title = Some(self.title.clone());
        }
        d
    }

    /// As a lexical-only [`IndexedDocument`] with the whole text as one chunk
    /// (what BEIR evaluates; real ingestion goes through `verity-ingest`).
    pub fn to_indexed(&self) -> IndexedDocument {
        let document = self.to_document();
        let chunk = Chunk {
            id: Chunk::make_id(&document.uid, 0),
            doc_uid: document.uid.clone(),
            index: 0,
            text: document.content.clone(),
            start: 0,
            end: document.content.len(),
            heading_path: Vec::new(),
            token_count: u32::try_from(document.content.split_whitespace().count())
                .unwrap_or(u32::MAX),
        };
        let content_hash = document.content_hash();
        IndexedDocument {
            document,
            chunks: vec![chunk],
            embeddings: None,
            sentence_embeddings: None,
            chunking: None,
            embedder: None,
            content_hash,
        }
    }
}

/// One query (`{_id, text}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeirQuery {
    /// Query id.
    #[serde(rename = "_id")]
    pub id: String,
    /// Query text.
    pub text: String,
}

/// Relevance judgements: query id → (doc id → graded relevance).
pub type Qrels = HashMap<String, HashMap<String, u32>>;

/// A split of a BEIR dataset: its queries (those with judgements) and qrels.
#[derive(Debug, Clone, Default)]
pub struct BeirSplit {
    /// Queries that have at least one judgement, in file order.
    pub queries: Vec<BeirQuery>,
    /// Judgements.
    pub qrels: Qrels,
}

fn unreadable(path: &Path, e: impl std::fmt::Display) -> Error {
    InputError::Unreadable {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
    .into()
}

fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let f = std::fs::File::open(path).map_err(|e| unreadable(path, e))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| unreadable(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let rec = serde_json::from_str(&line).map_err(|e| InputError::MalformedRecord {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(rec);
    }
    Ok(out)
}

/// Read `corpus.jsonl` of a BEIR dataset directory.
pub fn load_corpus(dir: &Path) -> Result<Vec<BeirDoc>> {
    read_jsonl(&dir.join("corpus.jsonl"))
}

/// Read `qrels/<split>.tsv` (header `query-id corpus-id score`; tab or space separated).
pub fn load_qrels(path: &Path) -> Result<Qrels> {
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
    let mut qrels: Qrels = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.is_empty()
            || (i == 0
                && cols
                    .first()
                    .is_some_and(|c| c.eq_ignore_ascii_case("query-id")))
        {
            continue;
        }
        let bad = |m: &str| -> Error {
            InputError::MalformedRecord {
                path: path.to_path_buf(),
                line: i + 1,
                message: m.to_string(),
            }
            .into()
        };
        let [q, d, s] = cols.as_slice() else {
            return Err(bad("expected 3 columns: query-id corpus-id score"));
        };
        let score: i64 = s.parse().map_err(|_| bad("score is not an integer"))?;
        qrels
            .entry((*q).to_string())
            .or_default()
            .insert((*d).to_string(), u32::try_from(score.max(0)).unwrap_or(0));
    }
    Ok(qrels)
}

/// Load a split: `queries_<split>.jsonl` when present, else `queries.jsonl`,
/// restricted to the queries judged in `qrels/<split>.tsv`.
pub fn load_split(dir: &Path, split: &str) -> Result<BeirSplit> {
    let qrels = load_qrels(&dir.join("qrels").join(format!("{split}.tsv")))?;
    let specific: PathBuf = dir.join(format!("queries_{split}.jsonl"));
    let path = if specific.is_file() {
        specific
    } else {
        dir.join("queries.jsonl")
    };
    let queries: Vec<BeirQuery> = read_jsonl(&path)?;
    let queries = queries
        .into_iter()
        .filter(|q| qrels.contains_key(&q.id))
        .collect();
    Ok(BeirSplit { queries, qrels })
}

/// nDCG@k with linear gains (trec_eval / BEIR): `Σ rel_i / log2(i + 1)` over
/// the ranking, divided by the same sum over the ideal ranking.
pub fn ndcg_at(ranked: &[String], judged: &HashMap<String, u32>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| f64::from(judged.get(d).copied().unwrap_or(0)) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = judged.values().copied().filter(|r| *r > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, r)| f64::from(*r) / ((i + 2) as f64).log2())
        .sum();
    if idcg > 0.0 {
        dcg / idcg
    } else {
        0.0
    }
}

/// Fraction of the relevant documents (relevance > 0) found in the top `k`.
pub fn recall_at(ranked: &[String], judged: &HashMap<String, u32>, k: usize) -> f64 {
    let relevant: HashSet<&String> = judged
        .iter()
        .filter(|(_, r)| **r > 0)
        .map(|(d, _)| d)
        .collect();
    if relevant.is_empty() {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| relevant.contains(d))
        .count();
    found as f64 / relevant.len() as f64
}

/// Reciprocal rank of the first relevant document within the top `k` (0 if none).
pub fn mrr_at(ranked: &[String], judged: &HashMap<String, u32>, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|d| judged.get(d).is_some_and(|r| *r > 0))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64)
}

/// The `p`-th percentile (nearest rank, `p` in `[0, 100]`) of `values`.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v.get(rank.clamp(1, v.len()) - 1).copied().unwrap_or(0.0)
}

/// Collapse a chunk ranking into a document ranking (first occurrence = best chunk).
pub fn docs_from_chunks<'a>(doc_uids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen = HashSet::new();
    doc_uids
        .into_iter()
        .filter(|u| seen.insert(*u))
        .map(str::to_string)
        .collect()
}

/// Settings of an evaluation run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalOptions {
    /// Retrieval mode.
    pub mode: SearchMode,
    /// Documents ranked per query (at least 100 for recall@100).
    pub depth: usize,
    /// Chunks requested per query (several chunks may share a document).
    pub chunk_depth: usize,
    /// Evaluate only the first `limit` queries.
    pub limit: Option<usize>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        Self {
            mode: SearchMode::Lexical,
            depth: 100,
            chunk_depth: 200,
            limit: None,
        }
    }
}

/// Metrics of one run (means over queries; latencies in milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvalReport {
    /// Mode evaluated.
    pub mode: SearchMode,
    /// Queries evaluated.
    pub queries: usize,
    /// Mean nDCG@10.
    pub ndcg_at_10: f64,
    /// Mean recall@5.
    pub recall_at_5: f64,
    /// Mean recall@100.
    pub recall_at_100: f64,
    /// Mean MRR@10.
    pub mrr_at_10: f64,
    /// Median latency per query (embedding the query included), ms.
    pub latency_p50_ms: f64,
    /// 95th percentile latency per query, ms.
    pub latency_p95_ms: f64,
    /// Per-query nDCG@10, by query id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_query_ndcg: BTreeMap<String, f64>,
}

/// Run every query of `split` against `store` and compute the metrics. Dense
/// and hybrid modes embed each query with `embedder` (required for dense).
pub async fn evaluate(
    store: &dyn VectorStore,
    embedder: Option<Arc<dyn Embedder>>,
    split: &BeirSplit,
    opts: &EvalOptions,
) -> Result<EvalReport> {
    if opts.mode == SearchMode::Dense && embedder.is_none() {
        return Err(Error::invalid_input("dense evaluation needs an embedder"));
    }
    let empty = HashMap::new();
    let mut latencies = Vec::new();
    let (mut ndcg, mut r5, mut r100, mut mrr) = (0.0, 0.0, 0.0, 0.0);
    let mut per_query = BTreeMap::new();
    let queries = split.queries.iter().take(opts.limit.unwrap_or(usize::MAX));
    let mut n = 0usize;
    for q in queries {
        let started = Instant::now();
        let mut sq = SearchQuery::new(q.text.clone())
            .mode(opts.mode)
            .k(opts.chunk_depth.max(opts.depth));
        if opts.mode != SearchMode::Lexical {
            if let Some(e) = &embedder {
                sq = sq.vector(e.embed_query(&q.text).await?);
            }
        }
        let hits = store.search(&sq).await?;
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        let mut ranked = docs_from_chunks(hits.iter().map(|h| h.doc.uid.as_str()));
        ranked.truncate(opts.depth);
        let judged = split.qrels.get(&q.id).unwrap_or(&empty);
        let nd = ndcg_at(&ranked, judged, 10);
        per_query.insert(q.id.clone(), nd);
        ndcg += nd;
        r5 += recall_at(&ranked, judged, 5);
        r100 += recall_at(&ranked, judged, 100);
        mrr += mrr_at(&ranked, judged, 10);
        n += 1;
    }
    let d = n.max(1) as f64;
    Ok(EvalReport {
        mode: opts.mode,
        queries: n,
        ndcg_at_10: ndcg / d,
        recall_at_5: r5 / d,
        recall_at_100: r100 / d,
        mrr_at_10: mrr / d,
        latency_p50_ms: percentile(&latencies, 50.0),
        latency_p95_ms: percentile(&latencies, 95.0),
        per_query_ndcg: per_query,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(pairs: &[(&str, u32)]) -> HashMap<String, u32> {
        pairs.iter().map(|(d, r)| (d.to_string(), *r)).collect()
    }
    fn r(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ndcg_hand_computed() {
        // One relevant doc at rank 2: DCG = 1/log2(3), IDCG = 1.
        let judged = j(&[("b", 1)]);
        assert!((ndcg_at(&r(&["a", "b", "c"]), &judged, 10) - 1.0 / 3f64.log2()).abs() < 1e-12);
        assert!((ndcg_at(&r(&["b", "a"]), &judged, 10) - 1.0).abs() < 1e-12);
        assert_eq!(ndcg_at(&r(&["a", "c"]), &judged, 10), 0.0);
        // Graded: rels (a=2, b=1); ranking b, a: DCG = 1 + 2/log2 3 ; IDCG = 2 + 1/log2 3.
        let judged = j(&[("a", 2), ("b", 1)]);
        let want = (1.0 + 2.0 / 3f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&r(&["b", "a"]), &judged, 10) - want).abs() < 1e-12);
        // Cut-off: relevant doc at rank 3 with k = 2 counts nothing.
        assert_eq!(ndcg_at(&r(&["x", "y", "a"]), &judged, 2), 0.0);
    }

    #[test]
    fn recall_and_mrr_hand_computed() {
        let judged = j(&[("a", 1), ("b", 1), ("c", 0)]);
        let ranked = r(&["c", "x", "a", "y", "z", "b"]);
        assert_eq!(recall_at(&ranked, &judged, 5), 0.5);
        assert_eq!(recall_at(&ranked, &judged, 100), 1.0);
        // "c" has relevance 0: the first relevant is "a" at rank 3.
        assert!((mrr_at(&ranked, &judged, 10) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(mrr_at(&ranked, &judged, 2), 0.0);
        assert_eq!(recall_at(&ranked, &j(&[]), 5), 0.0);
    }

    #[test]
    fn percentiles_and_doc_collapse() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 95.0), 95.0);
        assert_eq!(percentile(&[3.0], 95.0), 3.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!(
            docs_from_chunks(["a", "b", "a", "c", "b"]),
            r(&["a", "b", "c"])
        );
    }

    #[test]
    fn qrels_parse_and_errors() {
        let dir = std::env::temp_dir().join(format!("verity-eval-qrels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.tsv");
        std::fs::write(
            &p,
            "query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t2\n2\td3\t0\n",
        )
        .unwrap();
        let q = load_qrels(&p).unwrap();
        assert_eq!(q["1"]["d2"], 2);
        assert_eq!(q["2"]["d3"], 0);
        std::fs::write(&p, "query-id\tcorpus-id\tscore\n1\td1\n").unwrap();
        let e = load_qrels(&p).unwrap_err();
        assert!(e.to_string().contains(":2:"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
