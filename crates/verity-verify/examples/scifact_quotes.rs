//! Where the local judge's quote misses SciFact's gold rationale sentences.
//!
//! ```text
//! cargo run --release -p verity-verify --example scifact_quotes -- <shared/data> \
//!     [--dense] [--embed-cache FILE] [--dump FILE] [--limit N] [--distortion | --verdicts]
//! ```
//!
//! For every claim–abstract pair with gold rationale sentences it prints, once
//! for the passage ranking and once for the judge's quote: how often the first
//! pick is a gold sentence, the rank of the best-ranked gold sentence, and how
//! often the gold sentence is not one of our sentences at all (splitting
//! mismatch). Each figure is also given for the even and odd claim ids
//! separately (the halves used to fit and to check ranking weights).
//! `--dense` adds sentence vectors from the local MiniLM model (cached in
//! `--embed-cache`, so re-runs cost no model time); `--dump` writes one JSON
//! line per pair (sentences with their scores, gold flags, picks) for reading.
//! `--distortion` and `--verdicts` run `verity_verify::eval`'s numeric
//! distortion and SciFact sets instead (what `verity eval verify` runs).
//!
//! `--fold-forests PREFIX` (with `--dense --tokens`): the ranking forest is
//! the one `scifact_rank_fit --write-folds PREFIX` fitted without the
//! claim's fold (`PREFIX.{id % 5}.txt`), so the quote figures are held out
//! rather than in sample: the passages are ranked by that forest and the
//! top 5 go to the local judge, as the verifier does with the shipped one.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use verity_core::{Embedder, EmbedderId, Embedding, Result};
use verity_verify::eval::same_sentence;
use verity_verify::text::sentence_spans;
use verity_verify::Verifier;

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The local embedder behind an in-memory map persisted as JSON lines.
struct FileCached {
    inner: verity_embed::LocalEmbedder,
    map: Mutex<HashMap<String, Embedding>>,
    file: Option<PathBuf>,
    /// Give word-piece vectors (token alignment; cached in memory only).
    tokens: bool,
    token_map: Mutex<HashMap<String, verity_core::TokenEmbeddings>>,
}

fn lock_err() -> verity_core::Error {
    verity_core::Error::invalid_input("lock")
}

/// The texts `map` has no entry for, in order.
fn not_in<V>(map: &Mutex<HashMap<String, V>>, texts: &[String]) -> Result<Vec<String>> {
    let m = map.lock().map_err(|_| lock_err())?;
    Ok(texts
        .iter()
        .filter(|t| !m.contains_key(*t))
        .cloned()
        .collect())
}

impl FileCached {
    fn load(file: Option<PathBuf>, tokens: bool) -> Res<Self> {
        let mut map = HashMap::new();
        if let Some(f) = &file {
            if let Ok(s) = std::fs::read_to_string(f) {
                for l in s.lines() {
                    if let Ok((t, v)) = serde_json::from_str::<(String, Embedding)>(l) {
                        map.insert(t, v);
                    }
                }
            }
        }
        eprintln!("embedding cache: {} vectors", map.len());
        Ok(Self {
            inner: verity_embed::LocalEmbedder::load_default()?,
            map: Mutex::new(map),
            file,
            tokens,
            token_map: Mutex::new(HashMap::new()),
        })
    }
}

#[async_trait::async_trait]
impl Embedder for FileCached {
    fn id(&self) -> &EmbedderId {
        self.inner.id()
    }
    fn max_tokens(&self) -> usize {
        self.inner.max_tokens()
    }
    async fn embed_tokens(
        &self,
        texts: &[String],
    ) -> Result<Option<Vec<verity_core::TokenEmbeddings>>> {
        if !self.tokens {
            return Ok(None);
        }
        // Kept in memory for the run (the two verifiers index each source).
        let missing = not_in(&self.token_map, texts)?;
        if !missing.is_empty() {
            let got = self.inner.embed_tokens(&missing).await?.unwrap_or_default();
            let mut m = self.token_map.lock().map_err(|_| lock_err())?;
            for (t, v) in missing.into_iter().zip(got) {
                m.insert(t, v);
            }
        }
        let m = self.token_map.lock().map_err(|_| lock_err())?;
        Ok(texts.iter().map(|t| m.get(t).cloned()).collect())
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        let missing = not_in(&self.map, texts)?;
        if !missing.is_empty() {
            let vs = self.inner.embed(&missing).await?;
            let mut m = self.map.lock().map_err(|_| lock_err())?;
            let mut out = self.file.as_ref().and_then(|f| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(f)
                    .ok()
            });
            for (t, v) in missing.into_iter().zip(vs) {
                if let Some(o) = out.as_mut() {
                    let _ = writeln!(o, "{}", json!([t, v]));
                }
                m.insert(t, v);
            }
        }
        let m = self.map.lock().map_err(|_| lock_err())?;
        Ok(texts
            .iter()
            .map(|t| m.get(t).cloned().unwrap_or_default())
            .collect())
    }
}

#[derive(Default)]
struct Tally {
    held_out_first: [usize; 2],
    held_out_judge: [usize; 2],
    n: [usize; 2],
    first: [usize; 2],
    top3: [usize; 2],
    unsplit: [usize; 2],
    judge: [usize; 2],
    judge_outside_top1: [usize; 2],
    judge_overrode_good: [usize; 2],
    rank_hist: HashMap<String, usize>,
}

fn pct(a: usize, b: usize) -> String {
    format!("{:.3}", a as f64 / b.max(1) as f64)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = PathBuf::from(
        args.first()
            .ok_or("usage: scifact_quotes <shared/data> …")?,
    );
    let flag = |f: &str| args.iter().any(|a| a == f);
    let opt = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let limit: usize = opt("--limit")
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let embedder: Option<Arc<dyn Embedder>> = if flag("--dense") {
        Some(Arc::new(FileCached::load(
            opt("--embed-cache").map(PathBuf::from),
            flag("--tokens"),
        )?))
    } else {
        None
    };
    let mut dump = opt("--dump").map(std::fs::File::create).transpose()?;
    let mut feats = opt("--features").map(std::fs::File::create).transpose()?;
    let fetcher = Arc::new(verity_fetch::HttpFetcher::with_defaults()?);
    // `--covering-min-relative X`: the judge's LocalJudgeConfig::covering_min_relative.
    let judge_config = verity_verify::judge_local::LocalJudgeConfig {
        covering_min_relative: opt("--covering-min-relative")
            .and_then(|s| s.parse().ok())
            .unwrap_or(verity_verify::LocalJudgeConfig::default().covering_min_relative),
        ..Default::default()
    };
    let v = Verifier::builder(fetcher.clone())
        .embedder(embedder.clone())
        .judge(Arc::new(
            verity_verify::judge_local::LocalJudge::with_config(judge_config.clone()),
        ))
        .build();
    // Same passages, all of them: the ranking the judge's top 5 are cut from.
    // `--time`: per citation once its source is indexed — the claim's own
    // model pass (uncached) plus ranking, judge and checks.
    let timer = if flag("--time") {
        Some(verity_embed::LocalEmbedder::load_default()?)
    } else {
        None
    };
    let mut timed = (0usize, 0f64);
    let all_of = Verifier::builder(fetcher)
        .embedder(embedder)
        .top_k(10_000)
        .build();

    if flag("--distortion") {
        let d = verity_verify::eval::distortion(&v, &data.join("article-extraction"), None).await?;
        println!("{}", serde_json::to_string_pretty(&d)?);
        return Ok(());
    }
    if flag("--verdicts") {
        let d = verity_verify::eval::scifact(&v, &data.join("scifact"), None).await?;
        println!("{}", serde_json::to_string_pretty(&d)?);
        return Ok(());
    }
    let dir = data.join("scifact");
    let corpus = verity_verify::eval::scifact_corpus(&dir)?;
    let mut t = Tally::default();
    // `--min-relative 0,0.1,0.3`: the judge's quote with each
    // LocalJudgeConfig::covering_min_relative.
    let sweep: Vec<f32> = opt("--min-relative")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_default();
    let mut swept = vec![[0usize; 2]; sweep.len()];
    // The verifier ranking with each fold's forest (the judge's top 5 as
    // with the shipped one).
    let fold_verifiers: Vec<Verifier> = match opt("--fold-forests") {
        Some(prefix) => (0..5)
            .map(|f| {
                let text = std::fs::read_to_string(format!("{prefix}.{f}.txt"))?;
                let forest = verity_verify::forest::Forest::parse(&text)?;
                Ok(v.with_ranking(Arc::new(forest)))
            })
            .collect::<Res<_>>()?,
        None => Vec::new(),
    };
    let plain_judge = verity_verify::LocalJudge::with_config(judge_config.clone());
    for line in std::fs::read_to_string(dir.join("claims_train.jsonl"))?
        .lines()
        .take(limit)
    {
        let c: Value = serde_json::from_str(line)?;
        let cid = c["id"].as_u64().unwrap_or(0);
        let half = (cid % 2) as usize;
        let claim = c["claim"].as_str().unwrap_or("");
        let Some(ev) = c["evidence"].as_object() else {
            continue;
        };
        for (doc, sets) in ev {
            let Some(sents) = corpus.get(doc) else {
                continue;
            };
            let gold_idx: Vec<usize> = sets
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|e| e["sentences"].as_array().cloned().unwrap_or_default())
                .filter_map(|i| i.as_u64().map(|i| i as usize))
                .collect();
            let gold: Vec<&str> = gold_idx
                .iter()
                .filter_map(|&i| sents.get(i).map(String::as_str))
                .collect();
            if gold.is_empty() {
                continue;
            }
            let content = sents.join(" ");
            let source = verity_verify::SourceText::plain(content.clone());
            let j = v.assess(claim, &source, None).await;
            let all = all_of.passages(claim, &content).await?;
            if let Some(e) = &timer {
                let t0 = std::time::Instant::now();
                if flag("--tokens") {
                    e.embed_tokens_blocking(&[claim])?;
                } else if flag("--dense") {
                    e.embed_blocking(&[claim])?;
                }
                v.assess(claim, &source, None).await;
                timed.0 += 1;
                timed.1 += t0.elapsed().as_secs_f64() * 1000.0;
            }
            let is_gold = |s: &str| gold.iter().any(|g| same_sentence(s, g));
            if let Some(vf) = fold_verifiers.get((cid % 5) as usize) {
                let top = vf.passages(claim, &content).await?;
                let first = top.first().is_some_and(|p| is_gold(&p.text));
                let quote = plain_judge.decide(claim, &top).source_quote;
                t.held_out_first[half] += usize::from(first);
                t.held_out_judge[half] += usize::from(quote.as_deref().is_some_and(is_gold));
            }
            let rank = all.iter().position(|p| is_gold(&p.text));
            let quote = j.source_quote.clone().unwrap_or_default();
            t.n[half] += 1;
            if rank == Some(0) {
                t.first[half] += 1;
            }
            if rank.is_some_and(|r| r < 3) {
                t.top3[half] += 1;
            }
            for (k, w) in sweep.iter().enumerate() {
                let judge = verity_verify::judge_local::LocalJudge::with_config(
                    verity_verify::judge_local::LocalJudgeConfig {
                        covering_min_relative: *w,
                        ..Default::default()
                    },
                );
                let top: Vec<verity_core::Passage> = all.iter().take(5).cloned().collect();
                let q = judge.decide(claim, &top).source_quote.unwrap_or_default();
                if is_gold(&q) {
                    swept[k][half] += 1;
                }
            }
            let ours = sentence_spans(&content);
            let split_ok = gold
                .iter()
                .all(|g| ours.iter().any(|r| same_sentence(&content[r.clone()], g)));
            if !split_ok {
                t.unsplit[half] += 1;
            }
            let jg = is_gold(&quote);
            if jg {
                t.judge[half] += 1;
                if rank != Some(0) {
                    t.judge_outside_top1[half] += 1;
                }
            } else if rank == Some(0) {
                t.judge_overrode_good[half] += 1;
            }
            let key = match rank {
                Some(r) if r < 5 => format!("rank {}", r + 1),
                Some(_) => "rank > 5".into(),
                None if split_ok => "zero score".into(),
                None => "not a sentence of ours".into(),
            };
            *t.rank_hist.entry(key).or_default() += 1;
            if let Some(fo) = feats.as_mut() {
                let (idx, fs) = v.features(claim, &content).await?;
                for f in &fs {
                    let text = idx.sentence(f.index).unwrap_or_default();
                    writeln!(
                        fo,
                        "{}",
                        json!({"id": cid, "doc": doc, "f": f, "gold": is_gold(text),
                               "judge": same_sentence(text, &quote),
                               "text": text, "claim": claim})
                    )?;
                }
            }
            if let Some(d) = dump.as_mut() {
                let ps: Vec<Value> = all
                    .iter()
                    .map(|p| json!({"text": p.text, "score": p.score, "gold": is_gold(&p.text), "start": p.start}))
                    .collect();
                writeln!(
                    d,
                    "{}",
                    json!({"id": cid, "doc": doc, "claim": claim, "gold_idx": gold_idx,
                           "n_sci": sents.len(), "quote": quote, "quote_gold": jg,
                           "verdict": j.verdict.as_str(), "explanation": j.explanation,
                           "ranked": ps})
                )?;
            }
        }
    }
    let total = |a: [usize; 2]| a[0] + a[1];
    println!(
        "pairs with gold rationales: {} (even {}, odd {})",
        total(t.n),
        t.n[0],
        t.n[1]
    );
    for (name, a) in [
        ("ranking: first sentence is gold", t.first),
        ("ranking: gold within the first 3", t.top3),
        ("a gold sentence is not one of ours", t.unsplit),
        ("judge quote is gold (top-1)", t.judge),
        ("  … gold quote not ranked first", t.judge_outside_top1),
        ("  judge left a gold first sentence", t.judge_overrode_good),
        ("held out: first sentence is gold", t.held_out_first),
        ("held out: judge quote is gold (top-1)", t.held_out_judge),
    ] {
        if name.starts_with("held out") && fold_verifiers.is_empty() {
            continue;
        }
        println!(
            "{name:40} {} (even {}, odd {})",
            pct(total(a), total(t.n)),
            pct(a[0], t.n[0]),
            pct(a[1], t.n[1])
        );
    }
    for (w, a) in sweep.iter().zip(&swept) {
        println!(
            "judge quote, covering min relative {w:<4}   {} (even {}, odd {})",
            pct(total(*a), total(t.n)),
            pct(a[0], t.n[0]),
            pct(a[1], t.n[1])
        );
    }
    if timed.0 > 0 {
        println!(
            "per citation, source indexed: {:.2} ms (claim pass, ranking, judge, checks; {} pairs)",
            timed.1 / timed.0 as f64,
            timed.0
        );
    }
    let mut h: Vec<_> = t.rank_hist.into_iter().collect();
    h.sort();
    for (k, n) in h {
        println!("  best gold {k}: {n}");
    }
    Ok(())
}
