//! The evaluation gate of a re-index: recall@k and retrieval latency of a
//! store on an evaluation set, against thresholds.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use verity_core::{Embedder, Error, Result, SearchMode, SearchQuery, VectorStore};

/// One evaluation query with the uids of the documents that answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalQuery {
    /// The query text.
    pub query: String,
    /// Uids of the relevant documents.
    pub relevant_uids: Vec<String>,
}

/// An evaluation set for the gate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalSet {
    /// The queries (those without any relevant uid are ignored).
    pub queries: Vec<EvalQuery>,
}

fn unreadable(path: &Path, e: impl std::fmt::Display) -> Error {
    verity_core::InputError::Unreadable {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
    .into()
}

fn malformed(path: &Path, line: usize, message: impl Into<String>) -> Error {
    verity_core::InputError::MalformedRecord {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
    .into()
}

impl EvalSet {
    /// Read a JSONL file of `{"query": …, "relevant_uids": [...]}` records.
    pub fn from_jsonl(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
        let mut queries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let q: EvalQuery =
                serde_json::from_str(line).map_err(|e| malformed(path, i + 1, e.to_string()))?;
            if !q.relevant_uids.is_empty() {
                queries.push(q);
            }
        }
        Ok(Self { queries })
    }

    /// Read a BEIR split: `queries.jsonl` (`{"_id", "text"}`) and a qrels TSV
    /// (`query-id  corpus-id  score`, header optional; score > 0 is relevant).
    pub fn from_beir(queries: &Path, qrels: &Path) -> Result<Self> {
        let qrels_text = std::fs::read_to_string(qrels).map_err(|e| unreadable(qrels, e))?;
        let mut rel: HashMap<String, Vec<String>> = HashMap::new();
        for (i, line) in qrels_text.lines().enumerate() {
            let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
            let (Some(q), Some(d)) = (cols.first(), cols.get(1)) else {
                continue;
            };
            if i == 0 && q.eq_ignore_ascii_case("query-id") {
                continue;
            }
            let score: f64 = match cols.get(2) {
                Some(s) => s
                    .parse()
                    .map_err(|_| malformed(qrels, i + 1, format!("bad score `{s}`")))?,
                None => 1.0,
            };
            if score > 0.0 {
                rel.entry(q.to_string()).or_default().push(d.to_string());
            }
        }
        let text = std::fs::read_to_string(queries).map_err(|e| unreadable(queries, e))?;
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| malformed(queries, i + 1, e.to_string()))?;
            let id = match v.get("_id") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => return Err(malformed(queries, i + 1, "missing `_id`")),
            };
            let Some(q) = v.get("text").and_then(|t| t.as_str()) else {
                return Err(malformed(queries, i + 1, "missing `text`"));
            };
            if let Some(r) = rel.remove(&id) {
                out.push(EvalQuery {
                    query: q.to_string(),
                    relevant_uids: r,
                });
            }
        }
        Ok(Self { queries: out })
    }
}

/// Thresholds of the cutover gate (seed 001: recall@5 ≥ 0.8, p95 ≤ 2.5 s).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GateConfig {
    /// Minimum mean recall@k.
    pub min_recall: f64,
    /// The `k` of recall@k (distinct documents).
    pub k: usize,
    /// Maximum 95th percentile of retrieval latency (query embedding + search).
    pub max_p95: Duration,
}

impl Default for GateConfig {
    fn default() -> Self {
        Self {
            min_recall: 0.8,
            k: 5,
            max_p95: Duration::from_millis(2500),
        }
    }
}

impl GateConfig {
    /// Parse `recall@5=0.8`, `p95=2.5s` / `p95=800ms`, comma-separated,
    /// over the defaults.
    pub fn parse(spec: &str) -> Result<Self> {
        let mut g = Self::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                Error::invalid_input(format!(
                    "gate `{part}` must look like recall@5=0.8 or p95=2.5s"
                ))
            })?;
            let k = k.trim().to_ascii_lowercase();
            let v = v.trim();
            if let Some(n) = k.strip_prefix("recall@") {
                g.k = n
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| Error::invalid_input(format!("bad k in `{part}`")))?;
                g.min_recall = v
                    .parse::<f64>()
                    .ok()
                    .filter(|r| (0.0..=1.0).contains(r))
                    .ok_or_else(|| {
                        Error::invalid_input(format!("recall in `{part}` must be in [0, 1]"))
                    })?;
            } else if k == "p95" {
                let secs = if let Some(ms) = v.strip_suffix("ms") {
                    ms.trim().parse::<f64>().ok().map(|x| x / 1000.0)
                } else {
                    v.strip_suffix('s').unwrap_or(v).trim().parse::<f64>().ok()
                };
                let secs = secs
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| Error::invalid_input(format!("bad duration in `{part}`")))?;
                g.max_p95 = Duration::from_secs_f64(secs);
            } else {
                return Err(Error::invalid_input(format!(
                    "unknown gate `{k}` (expected recall@K or p95)"
                )));
            }
        }
        Ok(g)
    }
}

/// Outcome of the gate on the shadow index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// Queries evaluated.
    pub queries: usize,
    /// The `k` of recall@k.
    pub k: usize,
    /// Mean recall@k.
    pub recall: f64,
    /// Median retrieval latency.
    pub p50: Duration,
    /// 95th percentile retrieval latency.
    pub p95: Duration,
    /// Search mode used.
    pub mode: SearchMode,
    /// Both thresholds met.
    pub passed: bool,
    /// Why it failed, when it did.
    pub failures: Vec<String>,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.clamp(1, sorted.len()) - 1)
        .copied()
        .unwrap_or_default()
}

/// Evaluate a store on an evaluation set: mean recall@k over distinct
/// documents and retrieval latency (query embedding + search).
pub async fn evaluate(
    store: &dyn VectorStore,
    embedder: Option<&dyn Embedder>,
    eval: &EvalSet,
    gate: &GateConfig,
    mode: SearchMode,
) -> Result<GateReport> {
    let mut recalls = Vec::with_capacity(eval.queries.len());
    let mut lat = Vec::with_capacity(eval.queries.len());
    let k = gate.k.max(1);
    for q in &eval.queries {
        if q.relevant_uids.is_empty() {
            continue;
        }
        let started = Instant::now();
        let mut sq = SearchQuery::new(q.query.clone())
            .mode(mode)
            .k((k * 4).max(20));
        if mode != SearchMode::Lexical {
            if let Some(e) = embedder {
                sq = sq.vector(e.embed_query(&q.query).await?);
            }
        }
        let hits = store.search(&sq).await?;
        lat.push(started.elapsed());
        let mut top: Vec<&str> = Vec::with_capacity(k);
        for h in &hits {
            if top.len() >= k {
                break;
            }
            if !top.contains(&h.doc.uid.as_str()) {
                top.push(&h.doc.uid);
            }
        }
        let rel: HashSet<&str> = q.relevant_uids.iter().map(String::as_str).collect();
        let found = top.iter().filter(|u| rel.contains(**u)).count();
        recalls.push(found as f64 / rel.len() as f64);
    }
    lat.sort();
    let recall = if recalls.is_empty() {
        0.0
    } else {
        recalls.iter().sum::<f64>() / recalls.len() as f64
    };
    let p50 = percentile(&lat, 50.0);
    let p95 = percentile(&lat, 95.0);
    let mut failures = Vec::new();
    if recalls.is_empty() {
        failures.push("the evaluation set has no query with a relevant document".to_string());
    }
    if recall < gate.min_recall {
        failures.push(format!("recall@{k} = {recall:.3} < {:.3}", gate.min_recall));
    }
    if p95 > gate.max_p95 {
        failures.push(format!(
            "p95 = {:.0} ms > {:.0} ms",
            p95.as_secs_f64() * 1e3,
            gate.max_p95.as_secs_f64() * 1e3
        ));
    }
    Ok(GateReport {
        queries: recalls.len(),
        k,
        recall,
        p50,
        p95,
        mode,
        passed: failures.is_empty(),
        failures,
    })
}
