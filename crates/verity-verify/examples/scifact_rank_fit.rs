//! Fit the passage ranking on SciFact and test it on claims it was not
//! fitted on.
//!
//! ```text
//! cargo run --release -p verity-verify --example scifact_quotes -- <shared/data> \
//!     --dense --tokens --embed-cache F --features feats.jsonl
//! cargo run --release -p verity-verify --example scifact_rank_fit -- feats.jsonl \
//!     [--write crates/verity-verify/src/rank_forest.txt] [--write-folds PREFIX]
//! ```
//!
//! Two models, both scored by how often the first-ranked sentence of a
//! claim–abstract pair is a gold rationale sentence (top-1) and one of the
//! first 3 is (top-3):
//!
//! * linear, `w · x` (x: [`verity_verify::rank::feature_vectors`]), per pair
//!   a softmax over its sentences trained to put the probability on the
//!   gold sentences (listwise, a conditional logit), L2 penalty, gradient
//!   descent; fitted on one half of the claims (even / odd ids), tested on
//!   the other, both ways round. Printed for the record: the shipped
//!   weights of words alone and of words with sentence vectors.
//! * the boosted forest ([`verity_verify::forest`]) on
//!   [`verity_verify::rank::forest_rows`], the ranking with word pieces:
//!   cross-validated by claim (5 folds by id, 5 folds by a hash of the id,
//!   the even / odd halves), then fitted on every pair and, with
//!   `--write FILE`, written as the shipped model.

use std::collections::BTreeMap;

use serde_json::Value;
use verity_verify::forest::{Forest, ForestParams};
use verity_verify::rank::{FeatureSet, FEATURES};

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Pair {
    id: u64,
    half: usize,
    xs: Vec<[f64; FEATURES]>,
    rows: Vec<Vec<f64>>,
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
        let forest_rows = verity_verify::rank::forest_rows(&feats, set);
        let gold: Vec<bool> = rows.iter().map(|r| r["gold"] == true).collect();
        if !gold.iter().any(|&g| g) {
            continue;
        }
        out.push(Pair {
            id,
            half: (id % 2) as usize,
            xs,
            rows: forest_rows,
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

/// Top-1 and top-3 of `score` over `pairs`, and how many.
fn top(pairs: &[&Pair], score: impl Fn(&Pair, usize) -> f64) -> (usize, usize, usize) {
    let (mut t1, mut t3) = (0, 0);
    for p in pairs {
        let s: Vec<f64> = (0..p.gold.len()).map(|i| score(p, i)).collect();
        let mut order: Vec<usize> = (0..s.len()).collect();
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]).then(a.cmp(&b)));
        t1 += usize::from(order.first().is_some_and(|&i| p.gold[i]));
        t3 += usize::from(order.iter().take(3).any(|&i| p.gold[i]));
    }
    (t1, t3, pairs.len())
}

/// A forest fitted on `pairs`: listwise per pair (`ranking`) or per row.
fn fit_forest<'a>(
    pairs: impl Iterator<Item = &'a Pair>,
    params: &ForestParams,
    ranking: bool,
) -> Forest {
    if ranking {
        return Forest::fit_ranking(
            pairs.map(|p| (p.rows.as_slice(), p.gold.as_slice())),
            params,
        );
    }
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for p in pairs {
        xs.extend(p.rows.iter().cloned());
        ys.extend(p.gold.iter().copied());
    }
    Forest::fit(&xs, &ys, params)
}

/// The forest fitted on the pairs `train` accepts, scored on the others.
fn forest_fold(
    pairs: &[Pair],
    params: &ForestParams,
    ranking: bool,
    train: impl Fn(&Pair) -> bool,
) -> (usize, usize, usize) {
    let forest = fit_forest(pairs.iter().filter(|p| train(p)), params, ranking);
    let test: Vec<&Pair> = pairs.iter().filter(|p| !train(p)).collect();
    top(&test, |p, i| forest.score(&p.rows[i]))
}

/// A fixed, well-mixed hash of a claim id (SplitMix64's finaliser).
fn mix(id: u64) -> u64 {
    let mut z = id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: scifact_rank_fit <features.jsonl> [--write FILE]")?;
    let opt = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
    };
    let write = opt("--write");
    let write_folds = opt("--write-folds");
    let l2 = 0.001;
    let sets: &[FeatureSet] = if args.iter().any(|a| a == "--forest-only") {
        &[]
    } else {
        &[FeatureSet::Lexical, FeatureSet::Dense, FeatureSet::Tokens]
    };
    for &set in sets {
        let pairs = load(path, set)?;
        println!("== {set:?}: {} pairs, linear", pairs.len());
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
        if let Some(w) = verity_verify::rank::weights(set) {
            for half in [0, 1] {
                let (t1, t3, n) = evaluate(&pairs, w, half);
                println!(
                    "shipped weights on {} ({n}): top-1 {t1:.3} top-3 {t3:.3}",
                    if half == 0 { "even" } else { "odd" }
                );
            }
        }
    }
    let pairs = load(path, FeatureSet::Tokens)?;
    let num = |f: &str| opt(f).and_then(|s| s.parse::<f64>().ok());
    let d = ForestParams::default();
    let params = ForestParams {
        trees: num("--trees").map_or(d.trees, |x| x as usize),
        learning_rate: num("--learning-rate").unwrap_or(d.learning_rate),
        max_leaves: num("--leaves").map_or(d.max_leaves, |x| x as usize),
        min_leaf: num("--min-leaf").map_or(d.min_leaf, |x| x as usize),
        l2: num("--l2").unwrap_or(d.l2),
    };
    let ranking = opt("--objective").is_none_or(|o| o != "logistic");
    println!(
        "== Tokens: {} pairs, forest {params:?}, {}",
        pairs.len(),
        if ranking { "listwise" } else { "logistic" }
    );
    let pct = |(a, b, n): (usize, usize, usize)| {
        format!(
            "top-1 {:.3} top-3 {:.3} ({n} pairs)",
            a as f64 / n.max(1) as f64,
            b as f64 / n.max(1) as f64
        )
    };
    let sum = |xs: Vec<(usize, usize, usize)>| {
        xs.into_iter()
            .fold((0, 0, 0), |(a, b, c), (x, y, z)| (a + x, b + y, c + z))
    };
    type Fold = fn(u64) -> u64;
    for (name, key, folds) in [
        ("5 folds by id", (|id| id) as Fold, 5u64),
        ("5 folds by hashed id", mix as Fold, 5),
        ("even / odd ids", (|id| id) as Fold, 2),
    ] {
        let per: Vec<_> = (0..folds)
            .map(|f| forest_fold(&pairs, &params, ranking, |p| key(p.id) % folds != f))
            .collect();
        let parts: Vec<String> = per
            .iter()
            .map(|&(a, _, n)| format!("{:.3}", a as f64 / n.max(1) as f64))
            .collect();
        println!(
            "held out, {name}: {} (per fold {})",
            pct(sum(per)),
            parts.join(" ")
        );
    }
    // The forests of the 5 folds by id, each fitted without its fold, for
    // `scifact_quotes --fold-forests` (held-out quotes).
    if let Some(prefix) = write_folds {
        for f in 0..5u64 {
            let forest = fit_forest(pairs.iter().filter(|p| p.id % 5 != f), &params, ranking);
            std::fs::write(format!("{prefix}.{f}.txt"), forest.to_text())?;
        }
        println!("wrote {prefix}.{{0..4}}.txt");
    }
    let forest = fit_forest(pairs.iter(), &params, ranking);
    let all: Vec<&Pair> = pairs.iter().collect();
    println!(
        "fitted on all, in sample: {}",
        pct(top(&all, |p, i| forest.score(&p.rows[i])))
    );
    if let Some(shipped) = verity_verify::rank::forest() {
        println!(
            "shipped forest, in sample: {}",
            pct(top(&all, |p, i| shipped.score(&p.rows[i])))
        );
    }
    if let Some(out) = write {
        std::fs::write(out, forest.to_text())?;
        println!("wrote {out}");
    }
    Ok(())
}
