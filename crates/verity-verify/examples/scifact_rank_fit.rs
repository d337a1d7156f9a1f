//! Fit the passage ranking's linear weights on SciFact, one half of the
//! claims at a time, and test them on the other half.
//!
//! ```text
//! cargo run --release -p verity-verify --example scifact_quotes -- <shared/data> \
//!     --dense --tokens --embed-cache F --features feats.jsonl
//! cargo run --release -p verity-verify --example scifact_rank_fit -- feats.jsonl
//! ```
//!
//! Model: a sentence's score is `w · x` (x: [`verity_verify::rank::feature_vectors`]);
//! per claim–abstract pair, a softmax over its sentences, trained to put
//! the probability on the gold rationale sentences (listwise, a conditional
//! logit) with an L2 penalty, by gradient descent. Reported: how often the
//! first-ranked sentence is gold (top-1) and one of the first 3 is (top-3),
//! on the half fitted and on the held-out half, both ways round (2-fold).

use std::collections::BTreeMap;

use serde_json::Value;
use verity_verify::rank::{FeatureSet, FEATURES};

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Pair {
    half: usize,
    xs: Vec<[f64; FEATURES]>,
    gold: Vec<bool>,
}

fn load(path: &str, set: FeatureSet) -> Res<Vec<Pair>> {
    let mut groups: BTreeMap<(u64, String), Vec<Value>> = BTreeMap::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let v: Value = serde_json::from_str(line)?;
        let key = (
            v["id"].as_u64().unwrap_or(0),
            v["doc"].as_str().unwrap_or("").to_string(),
        );
        groups.entry(key).or_default().push(v);
    }
    let mut out = Vec::new();
    for ((id, _), rows) in groups {
        let feats: Vec<verity_verify::evidence::SentenceFeatures> = rows
            .iter()
            .filter_map(|r| serde_json::from_value(r["f"].clone()).ok())
            .collect();
        if feats.len() != rows.len() {
            continue;
        }
        let xs = verity_verify::rank::feature_vectors(&feats, set);
        let gold: Vec<bool> = rows.iter().map(|r| r["gold"] == true).collect();
        if !gold.iter().any(|&g| g) {
            continue;
        }
        out.push(Pair {
            half: (id % 2) as usize,
            xs,
            gold,
        });
    }
    Ok(out)
}

fn dot(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

/// Top-1 and top-3 of the ranking by `w` on the pairs of `half`.
fn evaluate(pairs: &[Pair], w: &[f64], half: usize) -> (f64, f64, usize) {
    let (mut t1, mut t3, mut n) = (0, 0, 0);
    for p in pairs.iter().filter(|p| p.half == half) {
        let mut order: Vec<usize> = (0..p.xs.len()).collect();
        let s: Vec<f64> = p.xs.iter().map(|x| dot(w, x)).collect();
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]).then(a.cmp(&b)));
        n += 1;
        if p.gold[order[0]] {
            t1 += 1;
        }
        if order.iter().take(3).any(|&i| p.gold[i]) {
            t3 += 1;
        }
    }
    (t1 as f64 / n.max(1) as f64, t3 as f64 / n.max(1) as f64, n)
}

/// Listwise softmax fit on the pairs of `half`.
fn fit(pairs: &[Pair], half: usize, l2: f64) -> Vec<f64> {
    let mut w = vec![0.0; FEATURES];
    let train: Vec<&Pair> = pairs.iter().filter(|p| p.half == half).collect();
    let lr = 0.5;
    for _ in 0..3000 {
        let mut g = [0.0; FEATURES];
        for p in &train {
            let s: Vec<f64> = p.xs.iter().map(|x| dot(&w, x)).collect();
            let m = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|v| (v - m).exp()).collect();
            let z: f64 = e.iter().sum();
            let zg: f64 = e
                .iter()
                .zip(&p.gold)
                .filter(|(_, &g)| g)
                .map(|(v, _)| v)
                .sum();
            // d/dw of -log(zg / z)
            for (i, x) in p.xs.iter().enumerate() {
                let pa = e[i] / z;
                let pg = if p.gold[i] { e[i] / zg } else { 0.0 };
                for (k, xk) in x.iter().enumerate() {
                    g[k] += (pa - pg) * xk;
                }
            }
        }
        let n = train.len().max(1) as f64;
        for k in 0..FEATURES {
            w[k] -= lr * (g[k] / n + l2 * w[k]);
        }
    }
    w
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: scifact_rank_fit <features.jsonl>")?;
    let l2: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0.001);
    for set in [FeatureSet::Lexical, FeatureSet::Dense, FeatureSet::Tokens] {
        let pairs = load(path, set)?;
        println!("== {set:?}: {} pairs", pairs.len());
        for half in [0, 1] {
            let w = fit(&pairs, half, l2);
            let (a1, a3, an) = evaluate(&pairs, &w, half);
            let (b1, b3, bn) = evaluate(&pairs, &w, 1 - half);
            println!(
                "fit on {} ({an}): top-1 {a1:.3} top-3 {a3:.3} | held out ({bn}): top-1 {b1:.3} top-3 {b3:.3}",
                if half == 0 { "even" } else { "odd" }
            );
            println!(
                "  weights {:?}",
                w.iter()
                    .map(|x| (x * 1000.0).round() / 1000.0)
                    .collect::<Vec<_>>()
            );
        }
        let w = verity_verify::rank::weights(set);
        for half in [0, 1] {
            let (t1, t3, n) = evaluate(&pairs, w, half);
            println!(
                "shipped weights on {} ({n}): top-1 {t1:.3} top-3 {t3:.3}",
                if half == 0 { "even" } else { "odd" }
            );
        }
    }
    Ok(())
}
