//! Lexical, dense and hybrid retrieval on a BEIR dataset with the local embedder
//! (all-MiniLM-L6-v2), through the real ingest pipeline and store.
//!
//! ```text
//! cargo run --release -p verity-eval --example beir_hybrid -- <dataset dir> <split> <work dir> \
//!     [--no-context] [--chunk-vectors-only] [--pooled-sentences] [--int8] [--max-tokens N] [--overlap N] [--ef N] [--limit N] [--grid] [--dump FILE] [--latency-only]
//! ```
//!
//! * The corpus is ingested (chunked, embedded, upserted) into `<work dir>/<variant>`; the
//!   embeddings are cached in `<work dir>/embed-cache`, so a second run, or another variant
//!   embedding the same texts, costs no model time. Re-runs skip unchanged documents.
//! * Prints nDCG@10, recall@5, recall@100, MRR@10 and latency p50/p95 (query embedding
//!   included, uncached) for lexical, dense and hybrid with the store's defaults.
//! * Sentence vectors are on (the ingest default: each chunk also gets one vector per
//!   sentence, chunks keep the chunker's own 700–900-token budget);
//!   `--chunk-vectors-only` turns them off and caps chunks at `--max-tokens` (254 by
//!   default, MiniLM's window).
//! * `--grid` also evaluates fusion variants offline on the same candidate lists (RRF k and
//!   weights, min-max and z-score weighted fusion, chunk- or document-level, candidate depth)
//!   and dense search with an exhaustive `ef_search` (HNSW approximation loss).
//! * `--dump FILE` (with `--grid`) writes the candidate lists as JSON lines
//!   (`qid`, `lex`/`den` as `[chunk, doc, score]`, `whole`: BM25 over whole
//!   abstracts as `[doc, score]`) for offline fusion experiments.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use verity_core::rank::fuse;
use verity_core::{Document, Embedder, Fusion, SearchMode, SearchQuery, SpanMode, VectorStore};
use verity_embed::{CachedEmbedder, LocalEmbedder, LocalEmbedderConfig, Precision};
use verity_eval::{
    evaluate, load_split, mrr_at, ndcg_at, percentile, recall_at, BeirSplit, EvalOptions,
};
use verity_ingest::{Chunker, ChunkerConfig, Ingestor, JsonlReader};
use verity_store::{SqliteStore, StoreOptions};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

struct Args {
    dir: PathBuf,
    split: String,
    work: PathBuf,
    context: bool,
    sentences: bool,
    max_tokens: Option<usize>,
    /// Sentence vectors pooled from the chunk's pass (`SpanMode::Pooled`).
    pooled: bool,
    /// 8-bit dense layers (`Precision::Int8`).
    int8: bool,
    overlap: Option<usize>,
    ef: Option<usize>,
    limit: Option<usize>,
    grid: bool,
    dump: Option<PathBuf>,
    /// Skip the quality evaluation; print only the latency lines.
    latency_only: bool,
}

fn args() -> Res<Args> {
    let mut it = std::env::args().skip(1);
    let usage = "usage: beir_hybrid <dataset dir> <split> <work dir> [--no-context] [--chunk-vectors-only] [--pooled-sentences] [--int8] [--max-tokens N] [--overlap N] [--ef N] [--limit N] [--grid] [--dump FILE] [--latency-only]";
    let dir = PathBuf::from(it.next().ok_or(usage)?);
    let split = it.next().ok_or(usage)?;
    let work = PathBuf::from(it.next().ok_or(usage)?);
    let mut a = Args {
        dir,
        split,
        work,
        context: true,
        sentences: true,
        max_tokens: None,
        pooled: false,
        int8: false,
        overlap: None,
        ef: None,
        limit: None,
        grid: false,
        dump: None,
        latency_only: false,
    };
    while let Some(flag) = it.next() {
        let mut num = || -> Res<usize> { Ok(it.next().ok_or(usage)?.parse()?) };
        match flag.as_str() {
            "--no-context" => a.context = false,
            "--chunk-vectors-only" => a.sentences = false,
            "--pooled-sentences" => a.pooled = true,
            "--int8" => a.int8 = true,
            "--max-tokens" => a.max_tokens = Some(num()?),
            "--overlap" => a.overlap = Some(num()?),
            "--ef" => a.ef = Some(num()?),
            "--limit" => a.limit = Some(num()?),
            "--grid" => a.grid = true,
            "--latency-only" => a.latency_only = true,
            "--dump" => a.dump = Some(PathBuf::from(it.next().ok_or(usage)?)),
            _ => return Err(usage.into()),
        }
    }
    Ok(a)
}

/// One ranked list: (chunk id, document uid, raw score), best first.
type Hits = Vec<(String, String, f32)>;

#[derive(Default, Clone, Copy)]
struct Acc {
    ndcg: f64,
    r5: f64,
    r100: f64,
    mrr: f64,
    n: usize,
}

impl Acc {
    fn add(&mut self, ranked: &[String], judged: &HashMap<String, u32>) {
        self.ndcg += ndcg_at(ranked, judged, 10);
        self.r5 += recall_at(ranked, judged, 5);
        self.r100 += recall_at(ranked, judged, 100);
        self.mrr += mrr_at(ranked, judged, 10);
        self.n += 1;
    }
    fn line(&self, name: &str) -> String {
        let d = self.n.max(1) as f64;
        format!(
            "{name:<44} nDCG@10 {:.4}  R@5 {:.4}  R@100 {:.4}  MRR@10 {:.4}",
            self.ndcg / d,
            self.r5 / d,
            self.r100 / d,
            self.mrr / d
        )
    }
}

/// Documents in first-occurrence order (a document's rank is its best chunk's).
fn doc_ranking<'a>(uids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen = HashSet::new();
    uids.into_iter()
        .filter(|u| seen.insert(*u))
        .map(str::to_string)
        .collect()
}

/// Collapse a chunk list to a document list (max score per document).
fn collapse(h: &[(String, String, f32)]) -> Vec<(String, f32)> {
    let mut seen = HashSet::new();
    h.iter()
        .filter(|(_, d, _)| seen.insert(d.clone()))
        .map(|(_, d, s)| (d.clone(), *s))
        .collect()
}

/// Z-score fusion: each list standardised, missing entries get the list's minimum.
fn zfuse(lex: &[(String, f32)], dense: &[(String, f32)], wl: f32) -> Vec<(String, f32)> {
    fuse(lex, dense, Fusion::ZScore { lexical_weight: wl })
}

async fn hits(store: &SqliteStore, q: SearchQuery) -> Res<Hits> {
    Ok(store
        .search(&q)
        .await?
        .into_iter()
        .map(|h| {
            let s = match q.mode {
                SearchMode::Lexical => h.lexical.unwrap_or(h.score),
                SearchMode::Dense => h.dense.unwrap_or(h.score),
                SearchMode::Hybrid => h.score,
            };
            (h.chunk.id, h.doc.uid, s)
        })
        .collect())
}

fn latency(v: &[f64]) -> String {
    format!(
        "p50 {:.2} ms, p95 {:.2} ms",
        percentile(v, 50.0),
        percentile(v, 95.0)
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Res<()> {
    let a = args()?;
    let spans = if a.pooled {
        SpanMode::Pooled
    } else {
        SpanMode::Separate
    };
    let local: Arc<dyn Embedder> = Arc::new(LocalEmbedder::load(
        LocalEmbedderConfig::new(LocalEmbedder::default_model_dir())
            .span_mode(spans)
            .precision(if a.int8 {
                Precision::Int8
            } else {
                Precision::F32
            }),
    )?);
    let cache_store = SqliteStore::open(&a.work.join("embed-cache"), StoreOptions::default())?;
    let cached: Arc<dyn Embedder> = Arc::new(CachedEmbedder::new(
        local.clone(),
        Arc::new(cache_store.cache()),
    ));
    let d = match (a.max_tokens, a.sentences) {
        (Some(n), _) => ChunkerConfig::for_embedder(n + 2),
        (None, true) => ChunkerConfig::default(),
        (None, false) => ChunkerConfig::for_embedder(256),
    };
    let cfg = ChunkerConfig {
        overlap_tokens: a.overlap.unwrap_or(d.overlap_tokens),
        ..d
    };
    let variant = format!(
        "ctx{}-max{}-ov{}{}",
        u8::from(a.context),
        cfg.max_tokens,
        cfg.overlap_tokens,
        if a.sentences { "-sent" } else { "" }
    );
    let home = a.work.join(&variant);
    let mut opts = StoreOptions::default();
    if let Some(ef) = a.ef {
        opts.hnsw.ef_search = ef;
    }
    let store = Arc::new(SqliteStore::open(&home, opts.clone())?);
    let ingestor = Ingestor::builder(store.clone())
        .embedder(Some(cached.clone()))
        .chunker(Chunker::new(cfg)?)
        .embed_context(a.context)
        .sentence_vectors(a.sentences)
        .build()?;
    let docs: Vec<Document> =
        JsonlReader::open(a.dir.join("corpus.jsonl"))?.collect::<Result<_, _>>()?;
    let t = Instant::now();
    let rep = ingestor.ingest(docs, &|_| {}).await?;
    let secs = t.elapsed().as_secs_f64();
    store.flush()?;
    let stats = store.stats().await?;
    println!(
        "variant {variant}: ingest {} inserted, {} unchanged, {} chunks written in {secs:.1} s ({:.1} chunks/s, {:.2} MB/s); store: {} docs, {} chunks",
        rep.upsert.inserted,
        rep.upsert.unchanged,
        rep.upsert.chunks,
        rep.upsert.chunks as f64 / secs,
        rep.bytes as f64 / 1e6 / secs,
        stats.documents,
        stats.chunks
    );

    let split: BeirSplit = load_split(&a.dir, &a.split)?;
    let queries: Vec<_> = split
        .queries
        .iter()
        .take(a.limit.unwrap_or(usize::MAX))
        .collect();
    let empty = HashMap::new();

    if a.grid {
        let exact_opts = StoreOptions {
            hnsw: verity_store::HnswParams {
                ef_search: 100_000,
                ..opts.hnsw
            },
            ..opts.clone()
        };
        let exact = SqliteStore::open(&home, exact_opts)?;
        let depth = 200;
        let mut runs: Vec<(String, Hits, Hits, Hits)> = Vec::new();
        for q in &queries {
            let v = cached.embed_query(&q.text).await?;
            let lex = hits(
                &store,
                SearchQuery::new(q.text.clone())
                    .mode(SearchMode::Lexical)
                    .k(depth),
            )
            .await?;
            let den = hits(
                &store,
                SearchQuery::new(q.text.clone())
                    .mode(SearchMode::Dense)
                    .k(depth)
                    .vector(v.clone()),
            )
            .await?;
            let ex = hits(
                &exact,
                SearchQuery::new(q.text.clone())
                    .mode(SearchMode::Dense)
                    .k(depth)
                    .vector(v),
            )
            .await?;
            runs.push((q.id.clone(), lex, den, ex));
        }
        if let Some(path) = &a.dump {
            // BM25 over whole abstracts (one chunk per document), lexical only.
            let whole = Arc::new(SqliteStore::open(
                &a.work.join("whole-doc"),
                StoreOptions::default(),
            )?);
            let big = ChunkerConfig {
                max_tokens: 100_000,
                min_tokens: 1,
                overlap_tokens: 0,
            };
            Ingestor::builder(whole.clone())
                .chunker(Chunker::new(big)?)
                .build()?
                .ingest(
                    JsonlReader::open(a.dir.join("corpus.jsonl"))?
                        .collect::<Result<Vec<_>, _>>()?,
                    &|_| {},
                )
                .await?;
            let mut out = String::new();
            for (qid, lex, den, _) in &runs {
                let text = &split
                    .queries
                    .iter()
                    .find(|q| &q.id == qid)
                    .ok_or("query vanished")?
                    .text;
                let w = hits(
                    &whole,
                    SearchQuery::new(text.clone())
                        .mode(SearchMode::Lexical)
                        .k(depth),
                )
                .await?;
                let line = serde_json::json!({
                    "qid": qid,
                    "lex": lex,
                    "den": den,
                    "whole": w.iter().map(|x| (x.1.clone(), x.2)).collect::<Vec<_>>(),
                });
                out.push_str(&line.to_string());
                out.push('\n');
            }
            std::fs::write(path, out)?;
            println!("dumped {} queries to {}", runs.len(), path.display());
        }
        let mut rows: Vec<(String, Acc)> = Vec::new();
        let mut ex_acc = Acc::default();
        let mut overlap10 = 0.0;
        for (qid, _, den, ex) in &runs {
            let judged = split.qrels.get(qid).unwrap_or(&empty);
            ex_acc.add(&doc_ranking(ex.iter().map(|x| x.1.as_str())), judged);
            let a: HashSet<&str> = den.iter().take(10).map(|x| x.0.as_str()).collect();
            overlap10 += ex
                .iter()
                .take(10)
                .filter(|x| a.contains(x.0.as_str()))
                .count() as f64
                / ex.len().clamp(1, 10) as f64;
        }
        rows.push(("dense (exhaustive ef_search)".into(), ex_acc));
        println!(
            "HNSW recall@10 vs exhaustive: {:.4}",
            overlap10 / runs.len().max(1) as f64
        );
        let mut add = |name: String, f: &dyn Fn(&Hits, &Hits) -> Vec<String>| {
            let mut acc = Acc::default();
            for (qid, lex, den, _) in &runs {
                let judged = split.qrels.get(qid).unwrap_or(&empty);
                acc.add(&f(lex, den), judged);
            }
            rows.push((name, acc));
        };
        add("lexical".into(), &|l, _| {
            doc_ranking(l.iter().map(|x| x.1.as_str()))
        });
        add("dense (HNSW)".into(), &|_, d| {
            doc_ranking(d.iter().map(|x| x.1.as_str()))
        });
        let cut = |h: &Hits, n: usize| -> Vec<(String, f32)> {
            h.iter().take(n).map(|x| (x.0.clone(), x.2)).collect()
        };
        let doc_of: HashMap<String, String> = runs
            .iter()
            .flat_map(|r| r.1.iter().chain(r.2.iter()))
            .map(|x| (x.0.clone(), x.1.clone()))
            .collect();
        let to_docs = |fused: Vec<(String, f32)>| -> Vec<String> {
            doc_ranking(
                fused
                    .iter()
                    .filter_map(|(c, _)| doc_of.get(c).map(String::as_str)),
            )
        };
        for depth in [50usize, 100, 200] {
            for k in [10.0f32, 20.0, 40.0, 60.0, 100.0] {
                for wl in [0.3f32, 0.4, 0.5, 0.6, 0.7] {
                    let fusion = Fusion::Rrf {
                        k,
                        lexical_weight: wl,
                    };
                    add(format!("rrf k={k} wl={wl} chunk depth={depth}"), &|l, d| {
                        to_docs(fuse(&cut(l, depth), &cut(d, depth), fusion))
                    });
                }
            }
            for wl in [0.2f32, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7] {
                let fusion = Fusion::Weighted { lexical_weight: wl };
                add(format!("minmax wl={wl} chunk depth={depth}"), &|l, d| {
                    to_docs(fuse(&cut(l, depth), &cut(d, depth), fusion))
                });
                add(format!("zscore wl={wl} chunk depth={depth}"), &|l, d| {
                    to_docs(zfuse(&cut(l, depth), &cut(d, depth), wl))
                });
                add(format!("minmax wl={wl} doc depth={depth}"), &|l, d| {
                    let (l, d) = (
                        collapse(&l[..depth.min(l.len())]),
                        collapse(&d[..depth.min(d.len())]),
                    );
                    fuse(&l, &d, fusion).into_iter().map(|x| x.0).collect()
                });
                add(format!("zscore wl={wl} doc depth={depth}"), &|l, d| {
                    let (l, d) = (
                        collapse(&l[..depth.min(l.len())]),
                        collapse(&d[..depth.min(d.len())]),
                    );
                    zfuse(&l, &d, wl).into_iter().map(|x| x.0).collect()
                });
            }
            for k in [20.0f32, 60.0] {
                let fusion = Fusion::Rrf {
                    k,
                    lexical_weight: 0.5,
                };
                add(format!("rrf k={k} wl=0.5 doc depth={depth}"), &|l, d| {
                    let (l, d) = (
                        collapse(&l[..depth.min(l.len())]),
                        collapse(&d[..depth.min(d.len())]),
                    );
                    fuse(&l, &d, fusion).into_iter().map(|x| x.0).collect()
                });
            }
        }
        for (name, acc) in &rows {
            println!("GRID {}", acc.line(name));
        }
        let best = rows
            .iter()
            .max_by(|a, b| a.1.ndcg.total_cmp(&b.1.ndcg))
            .map(|r| r.1.line(&r.0))
            .unwrap_or_default();
        println!("BEST {best}");
    }

    // Store defaults, through `verity_eval::evaluate` (query embedding uncached, included).
    let quality_modes: &[SearchMode] = if a.latency_only {
        &[]
    } else {
        &[SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid]
    };
    for &mode in quality_modes {
        let r = evaluate(
            store.as_ref(),
            Some(local.clone()),
            &split,
            &EvalOptions {
                mode,
                limit: a.limit,
                ..Default::default()
            },
        )
        .await?;
        println!(
            "EVAL {mode:<8} nDCG@10 {:.4}  R@5 {:.4}  R@100 {:.4}  MRR@10 {:.4}  (k=200 chunks: p50 {:.2} ms, p95 {:.2} ms)",
            r.ndcg_at_10, r.recall_at_5, r.recall_at_100, r.mrr_at_10, r.latency_p50_ms, r.latency_p95_ms
        );
    }
    // The same metrics on two halves of the claims (alternate queries in file
    // order): a change that only helps one half was fitted to it.
    for (half, parity) in [("A", 0), ("B", 1)] {
        let part = BeirSplit {
            queries: split
                .queries
                .iter()
                .take(a.limit.unwrap_or(usize::MAX))
                .enumerate()
                .filter(|(i, _)| i % 2 == parity)
                .map(|(_, q)| q.clone())
                .collect(),
            qrels: split.qrels.clone(),
        };
        for &mode in quality_modes {
            let r = evaluate(
                store.as_ref(),
                Some(local.clone()),
                &part,
                &EvalOptions {
                    mode,
                    ..Default::default()
                },
            )
            .await?;
            println!(
                "HALF {half} {mode:<8} nDCG@10 {:.4}  R@5 {:.4}  R@100 {:.4}  MRR@10 {:.4}  ({} claims)",
                r.ndcg_at_10, r.recall_at_5, r.recall_at_100, r.mrr_at_10, r.queries
            );
        }
    }
    // Latency at k = 10, as an application asks (query embedding uncached, included).
    for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
        let (mut lat, mut embed) = (Vec::new(), Vec::new());
        for q in &queries {
            let t = Instant::now();
            let mut sq = SearchQuery::new(q.text.clone()).mode(mode).k(10);
            if mode != SearchMode::Lexical {
                sq = sq.vector(local.embed_query(&q.text).await?);
                embed.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            std::hint::black_box(store.search(&sq).await?);
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let embed_note = if embed.is_empty() {
            String::new()
        } else {
            format!(" (query embedding {})", latency(&embed))
        };
        println!(
            "LATENCY k=10 {mode:<8} {} over {} queries{embed_note}",
            latency(&lat),
            lat.len()
        );
    }
    // The store alone (query vectors embedded beforehand), at k = 10 and at the
    // evaluator's depth: where the search time goes without the embedder.
    let mut vectors = Vec::with_capacity(queries.len());
    for q in &queries {
        vectors.push(local.embed_query(&q.text).await?);
    }
    for k in [10, 100] {
        for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
            let mut lat = Vec::new();
            for (q, v) in queries.iter().zip(&vectors) {
                let mut sq = SearchQuery::new(q.text.clone()).mode(mode).k(k);
                if mode != SearchMode::Lexical {
                    sq = sq.vector(v.clone());
                }
                let t = Instant::now();
                std::hint::black_box(store.search(&sq).await?);
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            println!(
                "STORE k={k:<3} {mode:<8} {} over {} queries",
                latency(&lat),
                lat.len()
            );
        }
    }
    Ok(())
}
