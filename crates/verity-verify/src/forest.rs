//! Gradient-boosted regression trees (Friedman 2001) with second-order
//! leaf values (XGBoost, Chen & Guestrin 2016), fitted per row (logistic
//! loss) or per group (a listwise softmax, [`Forest::fit_ranking`]): the
//! passage ranking's model when word pieces are available
//! ([`crate::rank::forest`]).
//!
//! Why trees and not the linear score: SciFact's rationale sentences are
//! told apart by interactions — a high alignment matters in a finding and
//! less in a background sentence, the first sentence is special in short
//! abstracts only — that a weighted sum cannot express. Measured on the
//! same features, held out by claim (docs/benchmarks.d/verify.md).
//!
//! Small on purpose: exact greedy splits, best-first growth to a leaf
//! budget, no sampling. Fitting 5,500 rows × 45 features takes about two
//! seconds (release); scoring a sentence walks 100 trees of at most 16
//! leaves. The model is stored as text ([`Forest::to_text`] /
//! [`Forest::parse`]), values in Rust's shortest round-trip form, so a fit
//! is reproduced bit for bit.

use std::fmt::Write as _;

/// How a forest is grown.
#[derive(Debug, Clone, PartialEq)]
pub struct ForestParams {
    /// Number of trees.
    pub trees: usize,
    /// Shrinkage applied to every leaf value.
    pub learning_rate: f64,
    /// Leaves per tree at most (best-first growth).
    pub max_leaves: usize,
    /// Least rows in a leaf.
    pub min_leaf: usize,
    /// L2 penalty on leaf values (λ).
    pub l2: f64,
}

impl Default for ForestParams {
    fn default() -> Self {
        Self {
            trees: 100,
            learning_rate: 0.1,
            max_leaves: 16,
            min_leaf: 40,
            l2: 1.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// `x[feature] <= threshold` goes left.
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
    Leaf(f64),
}

/// A boosted forest: `base + Σ tree(x)`, a log-odds.
#[derive(Debug, Clone, PartialEq)]
pub struct Forest {
    features: usize,
    base: f64,
    trees: Vec<Vec<Node>>,
}

/// A forest file that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the model text.
    pub line: usize,
    /// What is wrong there.
    pub reason: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "forest model, line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ParseError {}

impl Forest {
    /// Number of features a row must have.
    pub fn features(&self) -> usize {
        self.features
    }

    /// Number of trees.
    pub fn len(&self) -> usize {
        self.trees.len()
    }

    /// `true` for a forest without trees (it scores every row `base`).
    pub fn is_empty(&self) -> bool {
        self.trees.is_empty()
    }

    /// The log-odds of `x` (missing features read as 0).
    pub fn score(&self, x: &[f64]) -> f64 {
        self.base + self.trees.iter().map(|t| leaf_of(t, x)).sum::<f64>()
    }

    /// Fit on rows `xs` (all of one length) labelled `ys`, each row on its
    /// own (logistic loss).
    pub fn fit(xs: &[Vec<f64>], ys: &[bool], params: &ForestParams) -> Self {
        let n = xs.len().min(ys.len());
        let positives = ys[..n].iter().filter(|&&y| y).count() as f64;
        let rate = ((positives + 0.5) / (n as f64 + 1.0)).clamp(1e-6, 1.0 - 1e-6);
        let base = (rate / (1.0 - rate)).ln();
        Self::boost(xs, base, params, |f, g, h| {
            for i in 0..n {
                let p = 1.0 / (1.0 + (-f[i]).exp());
                g[i] = p - f64::from(u8::from(ys[i]));
                h[i] = (p * (1.0 - p)).max(1e-12);
            }
        })
    }

    /// Fit to rank: per group of rows (its rows and their labels), a
    /// softmax over the scores is trained to put the probability on the
    /// rows labelled `true` (listwise). A group without one has no
    /// gradient, but its rows still count towards a leaf's least rows.
    /// What it optimises is which row comes first, not each row's
    /// probability.
    pub fn fit_ranking<'a>(
        groups: impl IntoIterator<Item = (&'a [Vec<f64>], &'a [bool])>,
        params: &ForestParams,
    ) -> Self {
        let (mut xs, mut ys, mut runs) = (Vec::new(), Vec::new(), Vec::new());
        for (rows, labels) in groups {
            let n = rows.len().min(labels.len());
            if labels[..n].iter().any(|&y| y) {
                runs.push(xs.len()..xs.len() + n);
            }
            xs.extend_from_slice(&rows[..n]);
            ys.extend_from_slice(&labels[..n]);
        }
        Self::boost(&xs, 0.0, params, |f, g, h| {
            g.fill(0.0);
            h.fill(0.0);
            for r in &runs {
                let m = f[r.clone()]
                    .iter()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max);
                let z: f64 = f[r.clone()].iter().map(|v| (v - m).exp()).sum();
                let gold = ys[r.clone()].iter().filter(|&&y| y).count() as f64;
                for i in r.clone() {
                    let p = (f[i] - m).exp() / z;
                    let q = if ys[i] { 1.0 / gold } else { 0.0 };
                    g[i] = p - q;
                    h[i] = (p * (1.0 - p)).max(1e-12);
                }
            }
        })
    }

    /// Boosting: each tree fits the gradients `grad` writes for the current
    /// scores.
    fn boost(
        xs: &[Vec<f64>],
        base: f64,
        params: &ForestParams,
        mut grad: impl FnMut(&[f64], &mut [f64], &mut [f64]),
    ) -> Self {
        let features = xs.first().map_or(0, Vec::len);
        let n = xs.len();
        let mut f = vec![base; n];
        // Each feature's row order, sorted once.
        let sorted: Vec<Vec<u32>> = (0..features)
            .map(|k| {
                let mut idx: Vec<u32> = (0..n as u32).collect();
                idx.sort_by(|&a, &b| xs[a as usize][k].total_cmp(&xs[b as usize][k]));
                idx
            })
            .collect();
        let mut trees = Vec::with_capacity(params.trees);
        let mut g = vec![0.0; n];
        let mut h = vec![0.0; n];
        for _ in 0..params.trees {
            grad(&f, &mut g, &mut h);
            let grown = Grower {
                xs,
                sorted: &sorted,
                g: &g,
                h: &h,
                params,
            }
            .grow(n);
            for (i, fi) in f.iter_mut().enumerate() {
                *fi += leaf_of(&grown, &xs[i]);
            }
            trees.push(grown);
        }
        Self {
            features,
            base,
            trees,
        }
    }

    /// The model as text: a header line, then one line per tree.
    pub fn to_text(&self) -> String {
        let mut out = format!("forest v1 features {} base {}\n", self.features, self.base);
        for tree in &self.trees {
            let nodes: Vec<String> = tree
                .iter()
                .map(|n| match n {
                    Node::Split {
                        feature,
                        threshold,
                        left,
                        right,
                    } => format!("s{feature}:{threshold}:{left}:{right}"),
                    Node::Leaf(v) => format!("l{v}"),
                })
                .collect();
            let _ = writeln!(out, "{}", nodes.join(" "));
        }
        out
    }

    /// Read a model written by [`to_text`](Self::to_text).
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let err = |line: usize, reason: &str| ParseError {
            line,
            reason: reason.to_string(),
        };
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap_or_default().split(' ').collect();
        let (features, base) = match head.as_slice() {
            ["forest", "v1", "features", k, "base", b] => (
                k.parse::<usize>()
                    .map_err(|_| err(1, "feature count is not a number"))?,
                b.parse::<f64>()
                    .map_err(|_| err(1, "base is not a number"))?,
            ),
            _ => return Err(err(1, "expected `forest v1 features K base B`")),
        };
        let mut trees = Vec::new();
        for (i, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let no = i + 2;
            let mut tree = Vec::new();
            for (at, tok) in line.split(' ').enumerate() {
                let node = if let Some(v) = tok.strip_prefix('l') {
                    Node::Leaf(v.parse().map_err(|_| err(no, "leaf value"))?)
                } else if let Some(s) = tok.strip_prefix('s') {
                    let p: Vec<&str> = s.split(':').collect();
                    let [k, t, l, r] = p.as_slice() else {
                        return Err(err(no, "split needs feature:threshold:left:right"));
                    };
                    let num = |s: &str| s.parse::<usize>().map_err(|_| err(no, "split index"));
                    let (feature, left, right) = (num(k)?, num(l)?, num(r)?);
                    if feature >= features || left <= at || right <= at {
                        return Err(err(no, "split out of range or pointing backwards"));
                    }
                    Node::Split {
                        feature,
                        threshold: t.parse().map_err(|_| err(no, "split threshold"))?,
                        left,
                        right,
                    }
                } else {
                    return Err(err(no, "node is neither `s…` nor `l…`"));
                };
                tree.push(node);
            }
            let n = tree.len();
            let dangling = tree.iter().any(
                |node| matches!(node, Node::Split { left, right, .. } if *left >= n || *right >= n),
            );
            if dangling {
                return Err(err(no, "a split points past the tree"));
            }
            trees.push(tree);
        }
        Ok(Self {
            features,
            base,
            trees,
        })
    }
}

/// The value of the leaf `x` falls in (missing features read as 0). A
/// parsed or grown tree's children always point forward, so this ends.
fn leaf_of(tree: &[Node], x: &[f64]) -> f64 {
    let mut i = 0;
    while let Some(node) = tree.get(i) {
        match node {
            Node::Split {
                feature,
                threshold,
                left,
                right,
            } => {
                let v = x.get(*feature).copied().unwrap_or(0.0);
                i = if v <= *threshold { *left } else { *right };
            }
            Node::Leaf(v) => return *v,
        }
    }
    0.0
}

/// The best split of a node's rows.
struct Split {
    gain: f64,
    feature: usize,
    threshold: f64,
}

struct Grower<'a> {
    xs: &'a [Vec<f64>],
    sorted: &'a [Vec<u32>],
    g: &'a [f64],
    h: &'a [f64],
    params: &'a ForestParams,
}

impl Grower<'_> {
    fn value(&self, rows: &[u32]) -> f64 {
        let (g, h) = self.sums(rows);
        -self.params.learning_rate * g / (h + self.params.l2)
    }

    fn sums(&self, rows: &[u32]) -> (f64, f64) {
        rows.iter().fold((0.0, 0.0), |(g, h), &i| {
            (g + self.g[i as usize], h + self.h[i as usize])
        })
    }

    fn best_split(&self, rows: &[u32], member: &[bool]) -> Option<Split> {
        let lambda = self.params.l2;
        let min = self.params.min_leaf.max(1);
        if rows.len() < 2 * min {
            return None;
        }
        let (gt, ht) = self.sums(rows);
        let parent = gt * gt / (ht + lambda);
        let mut best: Option<Split> = None;
        for (k, order) in self.sorted.iter().enumerate() {
            let (mut gl, mut hl, mut nl) = (0.0, 0.0, 0usize);
            let mut prev: Option<f64> = None;
            for &i in order.iter().filter(|&&i| member[i as usize]) {
                let v = self.xs[i as usize][k];
                if let Some(p) = prev {
                    if v > p && nl >= min && rows.len() - nl >= min {
                        let (gr, hr) = (gt - gl, ht - hl);
                        let gain = gl * gl / (hl + lambda) + gr * gr / (hr + lambda) - parent;
                        if best.as_ref().is_none_or(|b| gain > b.gain) {
                            best = Some(Split {
                                gain,
                                feature: k,
                                threshold: (p + v) / 2.0,
                            });
                        }
                    }
                }
                gl += self.g[i as usize];
                hl += self.h[i as usize];
                nl += 1;
                prev = Some(v);
            }
        }
        best.filter(|b| b.gain > 1e-9)
    }

    /// One tree, grown best-first to the leaf budget.
    fn grow(&self, n: usize) -> Vec<Node> {
        let mut nodes = vec![Node::Leaf(0.0)];
        let all: Vec<u32> = (0..n as u32).collect();
        // Open leaves: (node index, rows, best split).
        let mut open: Vec<(usize, Vec<u32>, Option<Split>)> = Vec::new();
        let mut member = vec![false; n];
        let split_of = |rows: &[u32], member: &mut Vec<bool>| {
            for &i in rows {
                member[i as usize] = true;
            }
            let s = self.best_split(rows, member);
            for &i in rows {
                member[i as usize] = false;
            }
            s
        };
        let s = split_of(&all, &mut member);
        open.push((0, all, s));
        let mut leaves = 1;
        while leaves < self.params.max_leaves {
            let pick = open
                .iter()
                .enumerate()
                .filter_map(|(j, (_, _, s))| s.as_ref().map(|s| (j, s.gain)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let Some((j, _)) = pick else { break };
            let (at, rows, split) = open.swap_remove(j);
            let Some(split) = split else { break };
            let (l, r): (Vec<u32>, Vec<u32>) = rows
                .iter()
                .partition(|&&i| self.xs[i as usize][split.feature] <= split.threshold);
            let (li, ri) = (nodes.len(), nodes.len() + 1);
            nodes.push(Node::Leaf(0.0));
            nodes.push(Node::Leaf(0.0));
            nodes[at] = Node::Split {
                feature: split.feature,
                threshold: split.threshold,
                left: li,
                right: ri,
            };
            let ls = split_of(&l, &mut member);
            let rs = split_of(&r, &mut member);
            open.push((li, l, ls));
            open.push((ri, r, rs));
            leaves += 1;
        }
        for (at, rows, _) in open {
            nodes[at] = Node::Leaf(self.value(&rows));
        }
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows on a grid where the second feature's effect flips with the
    /// first: large `b` is positive when `a` is large, small `b` when `a`
    /// is small. No weighted sum separates them; two levels of splits do.
    /// (Balanced XOR would not do: its first split has no gain, and greedy
    /// growth stops there.)
    fn flipped() -> (Vec<Vec<f64>>, Vec<bool>) {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for i in 0..20 {
            for j in 0..20 {
                let (a, b) = (f64::from(i) / 19.0, f64::from(j) / 19.0);
                xs.push(vec![a, b, 0.5]);
                ys.push(if a > 0.5 { b > 0.5 } else { b < 0.25 });
            }
        }
        (xs, ys)
    }

    #[test]
    fn learns_an_interaction_a_linear_score_cannot() {
        let (xs, ys) = flipped();
        let f = Forest::fit(&xs, &ys, &ForestParams::default());
        let right = xs
            .iter()
            .zip(&ys)
            .filter(|(x, &y)| (f.score(x) > 0.0) == y)
            .count();
        assert_eq!(right, xs.len(), "every grid point classified");
        assert!(f.score(&[0.9, 0.9, 0.5]) > 2.0);
        assert!(f.score(&[0.9, 0.1, 0.5]) < -2.0);
        assert!(f.score(&[0.1, 0.1, 0.5]) > 2.0);
    }

    #[test]
    fn ranking_puts_the_labelled_row_of_each_group_first() {
        // Groups of 4 rows; the labelled one has the largest `a` only
        // where `b` is high, else the smallest.
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for g in 0..60 {
            let high = g % 2 == 0;
            let b = if high { 0.9 } else { 0.1 };
            let target = if high { 3 } else { 0 };
            for k in 0..4 {
                xs.push(vec![f64::from(k) / 3.0 + f64::from(g) * 1e-4, b]);
                ys.push(k == target);
            }
        }
        let groups = xs.chunks(4).zip(ys.chunks(4));
        let f = Forest::fit_ranking(
            groups,
            &ForestParams {
                min_leaf: 10,
                ..Default::default()
            },
        );
        for g in 0..60usize {
            let rows = &xs[g * 4..g * 4 + 4];
            let best = (0..4)
                .max_by(|&a, &b| f.score(&rows[a]).total_cmp(&f.score(&rows[b])))
                .unwrap_or(0);
            assert!(ys[g * 4 + best], "group {g}");
        }
    }

    #[test]
    fn leaves_respect_the_budget_and_the_least_rows() {
        let (xs, ys) = flipped();
        let p = ForestParams {
            trees: 3,
            max_leaves: 4,
            min_leaf: 150,
            ..Default::default()
        };
        let f = Forest::fit(&xs, &ys, &p);
        assert_eq!(f.len(), 3);
        for tree in &f.trees {
            let leaves = tree.iter().filter(|n| matches!(n, Node::Leaf(_))).count();
            assert!(leaves <= 4, "{leaves} leaves");
            // 400 rows, 150 at least per leaf: two leaves at most.
            assert!(leaves <= 2, "{leaves} leaves");
        }
    }

    #[test]
    fn text_round_trips_bit_for_bit() {
        let (xs, ys) = flipped();
        let f = Forest::fit(
            &xs,
            &ys,
            &ForestParams {
                trees: 5,
                ..Default::default()
            },
        );
        let back = Forest::parse(&f.to_text()).expect("parses");
        assert_eq!(back, f);
        for x in &xs {
            assert_eq!(back.score(x).to_bits(), f.score(x).to_bits());
        }
    }

    #[test]
    fn malformed_models_are_refused_with_the_line() {
        assert_eq!(Forest::parse("").unwrap_err().line, 1);
        assert_eq!(
            Forest::parse("forest v2 features 3 base 0")
                .unwrap_err()
                .line,
            1
        );
        let bad = [
            "forest v1 features 3 base 0\nl0.5\nq1",
            "forest v1 features 3 base 0\ns0:0.5:1:2 l1",
            "forest v1 features 3 base 0\ns7:0.5:1:2 l1 l2",
            "forest v1 features 3 base 0\ns0:0.5:0:2 l1 l2",
            "forest v1 features 3 base 0\ns0:x:1:2 l1 l2",
        ];
        for text in bad {
            let e = Forest::parse(text).unwrap_err();
            assert_eq!(
                e.line,
                if text.contains("q1") { 3 } else { 2 },
                "{text}: {e}"
            );
        }
        let ok = Forest::parse("forest v1 features 3 base 0.25\ns0:0.5:1:2 l1 l-1\n").unwrap();
        assert_eq!(ok.score(&[0.2, 0.0, 0.0]), 1.25);
        assert_eq!(ok.score(&[0.7, 0.0, 0.0]), -0.75);
        // A short row reads missing features as 0.
        assert_eq!(ok.score(&[]), 1.25);
    }
}
