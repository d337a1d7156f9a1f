//! In-memory BM25 index that reproduces SQLite FTS5's `bm25()` exactly, with
//! max-score top-k pruning.
//!
//! * One posting list per term: document slots (`u32`, ascending) and the
//!   column-weighted term frequency of each, accumulated instance by instance
//!   in `(column, offset)` order exactly as `fts5Bm25Function` does.
//! * Slots are assigned in ascending rowid order, so walking postings in slot
//!   order visits rows in rowid order (the tie-break of the FTS5 path).
//! * Scores follow `fts5_aux.c` operation by operation (IDF
//!   `ln((N − n + 0.5)/(n + 0.5))`, clamped to `1e-6` when not positive;
//!   `k1 = 1.2`, `b = 0.75`; the row length is the token count over all
//!   columns; phrase contributions summed in query order), so the f64 results
//!   are meant to equal FTS5's exactly (the tests check the `f32` the store
//!   returns).
//! * Top-k uses max-score: terms sorted by their upper bound; terms whose
//!   bounds together cannot reach the current k-th score are only probed for
//!   documents found through the others.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Relative slack on pruning decisions: bounds summed in another order may
/// round a few ulps below the exact score; never prune on such a margin.
const SLACK: f64 = 1.0 + 1e-9;

/// The index breaks one of its invariants (input out of order or unknown
/// rows); the caller drops it and falls back to FTS5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inconsistent(pub(crate) String);

#[derive(Debug, Default, Clone)]
struct Postings {
    docs: Vec<u32>,
    wtf: Vec<f64>,
    /// Largest `tf·(k1+1)/(tf+norm)` over the list (IDF excluded).
    max_part: f64,
}

/// Size figures of a `Bm25Index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LexicalIndexStats {
    /// Live rows (all indexes of the database: FTS5 statistics are global).
    pub rows: usize,
    /// Distinct terms.
    pub terms: usize,
    /// `(term, row)` postings.
    pub postings: usize,
    /// Approximate heap memory in bytes.
    pub memory_bytes: usize,
    /// Full builds from FTS5 since the store was opened.
    pub builds: u64,
    /// Searches answered by the index (the others went to FTS5).
    pub searches: u64,
}

/// The in-memory BM25 index.
#[derive(Debug, Clone)]
pub(crate) struct Bm25Index {
    weights: Vec<f64>,
    terms: HashMap<Box<str>, u32>,
    postings: Vec<Postings>,
    rowids: Vec<i64>,
    lens: Vec<u32>,
    norms: Vec<f64>,
    live: Vec<bool>,
    mine: Vec<bool>,
    doc_terms: Vec<Vec<u32>>,
    slots: HashMap<i64, u32>,
    n_rows: i64,
    n_tokens: i64,
    avgdl: f64,
    dead: usize,
    n_postings: usize,
}

/// Feeds `(term, rowid, column)` instances, sorted by term then rowid then
/// position (the order of an `fts5vocab` `instance` table), into an index.
pub(crate) struct InstanceSink<'a> {
    index: &'a mut Bm25Index,
    term: String,
    term_id: Option<u32>,
    slot: Option<u32>,
    wtf: f64,
}

impl InstanceSink<'_> {
    /// Add one instance.
    pub(crate) fn instance(
        &mut self,
        term: &str,
        rowid: i64,
        col: i64,
    ) -> Result<(), Inconsistent> {
        if self.term_id.is_none() || term != self.term {
            self.flush()?;
            self.term.clear();
            self.term.push_str(term);
            self.term_id = Some(self.index.term_id(term));
        }
        let slot = *self
            .index
            .slots
            .get(&rowid)
            .ok_or_else(|| Inconsistent(format!("instance of unknown row {rowid}")))?;
        if self.slot != Some(slot) {
            self.flush_posting()?;
            self.slot = Some(slot);
        }
        let w = usize::try_from(col)
            .ok()
            .and_then(|c| self.index.weights.get(c).copied())
            .unwrap_or(1.0);
        self.wtf += w;
        Ok(())
    }

    fn flush_posting(&mut self) -> Result<(), Inconsistent> {
        let (Some(t), Some(slot)) = (self.term_id, self.slot.take()) else {
            return Ok(());
        };
        let wtf = std::mem::replace(&mut self.wtf, 0.0);
        let p = &mut self.index.postings[t as usize];
        if p.docs.last().is_some_and(|&last| last >= slot) {
            return Err(Inconsistent(format!(
                "postings of `{}` out of order",
                self.term
            )));
        }
        p.docs.push(slot);
        p.wtf.push(wtf);
        self.index.doc_terms[slot as usize].push(t);
        self.index.n_postings += 1;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Inconsistent> {
        self.flush_posting()?;
        self.term_id = None;
        Ok(())
    }

    /// Flush the last posting; the index needs [`Bm25Index::set_totals`] next.
    pub(crate) fn finish(mut self) -> Result<(), Inconsistent> {
        self.flush()
    }
}

/// One query term: its postings, IDF, the query phrases it stands for and
/// its score upper bound.
struct Cursor<'a> {
    docs: &'a [u32],
    wtf: &'a [f64],
    pos: usize,
    idf: f64,
    phrases: Vec<usize>,
    ub: f64,
}

impl Cursor<'_> {
    fn current(&self) -> Option<u32> {
        self.docs.get(self.pos).copied()
    }

    fn seek(&mut self, slot: u32) {
        if self.docs.get(self.pos).is_some_and(|&d| d < slot) {
            self.pos += self.docs[self.pos..].partition_point(|&d| d < slot);
        }
    }
}

/// A top-k entry; `Ord` puts the *worst* entry (lowest score, then highest
/// rowid) on top of a max-heap.
#[derive(Debug, Clone, Copy)]
struct Entry {
    score: f64,
    rowid: i64,
}

impl Entry {
    fn better_than(&self, other: &Entry) -> bool {
        self.score > other.score || (self.score == other.score && self.rowid < other.rowid)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.rowid.cmp(&other.rowid))
    }
}

impl Bm25Index {
    /// An empty index with per-column weights (columns beyond count 1.0, as in FTS5).
    pub(crate) fn new(weights: Vec<f64>) -> Self {
        Self {
            weights,
            terms: HashMap::new(),
            postings: Vec::new(),
            rowids: Vec::new(),
            lens: Vec::new(),
            norms: Vec::new(),
            live: Vec::new(),
            mine: Vec::new(),
            doc_terms: Vec::new(),
            slots: HashMap::new(),
            n_rows: 0,
            n_tokens: 0,
            avgdl: 0.0,
            dead: 0,
            n_postings: 0,
        }
    }

    fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&t) = self.terms.get(term) {
            return t;
        }
        let t = u32::try_from(self.postings.len()).unwrap_or(u32::MAX);
        self.postings.push(Postings::default());
        self.terms.insert(term.into(), t);
        t
    }

    /// Append a row: `len` is its token count over all columns, `mine` whether
    /// it belongs to the bound index. Rowids must be appended in ascending order.
    pub(crate) fn push_row(
        &mut self,
        rowid: i64,
        len: u32,
        mine: bool,
    ) -> Result<(), Inconsistent> {
        if self.rowids.last().is_some_and(|&last| last >= rowid) {
            return Err(Inconsistent(format!("row {rowid} appended out of order")));
        }
        let slot = u32::try_from(self.rowids.len())
            .map_err(|_| Inconsistent("too many rows for u32 slots".into()))?;
        self.rowids.push(rowid);
        self.lens.push(len);
        self.norms.push(0.0);
        self.live.push(true);
        self.mine.push(mine);
        self.doc_terms.push(Vec::new());
        self.slots.insert(rowid, slot);
        Ok(())
    }

    /// A sink for the instances of rows already appended with [`Self::push_row`].
    pub(crate) fn sink(&mut self) -> InstanceSink<'_> {
        InstanceSink {
            index: self,
            term: String::new(),
            term_id: None,
            slot: None,
            wtf: 0.0,
        }
    }

    /// Remove a row (no-op when unknown).
    pub(crate) fn remove_row(&mut self, rowid: i64) {
        let Some(slot) = self.slots.remove(&rowid) else {
            return;
        };
        let s = slot as usize;
        for t in std::mem::take(&mut self.doc_terms[s]) {
            let p = &mut self.postings[t as usize];
            if let Ok(i) = p.docs.binary_search(&slot) {
                p.docs.remove(i);
                p.wtf.remove(i);
                self.n_postings -= 1;
            }
        }
        self.live[s] = false;
        self.mine[s] = false;
        self.dead += 1;
    }

    /// Release spare capacity (after a full build).
    pub(crate) fn shrink(&mut self) {
        for p in &mut self.postings {
            p.docs.shrink_to_fit();
            p.wtf.shrink_to_fit();
        }
        for d in &mut self.doc_terms {
            d.shrink_to_fit();
        }
        self.postings.shrink_to_fit();
    }

    /// Rows removed since the last full build (slots are not reused).
    pub(crate) fn dead_rows(&self) -> usize {
        self.dead
    }

    /// Live rows.
    pub(crate) fn live_rows(&self) -> usize {
        self.rowids.len() - self.dead
    }

    /// Set FTS5's table totals (row count, token count over all columns) and
    /// recompute length norms and per-term bounds.
    pub(crate) fn set_totals(&mut self, n_rows: i64, n_tokens: i64) {
        self.n_rows = n_rows;
        self.n_tokens = n_tokens;
        self.avgdl = if n_rows > 0 {
            n_tokens as f64 / n_rows as f64
        } else {
            0.0
        };
        for (norm, &len) in self.norms.iter_mut().zip(&self.lens) {
            *norm = K1 * (1.0 - B + B * f64::from(len) / self.avgdl);
        }
        for p in &mut self.postings {
            p.max_part = p
                .docs
                .iter()
                .zip(&p.wtf)
                .map(|(&d, &f)| part(f, self.norms[d as usize]))
                .fold(0.0, f64::max);
        }
    }

    /// Check that the live rows fit in FTS5's totals. The totals may count
    /// more: a `contentless_delete` table does not subtract deleted rows from
    /// them (and `bm25()` uses them as they are).
    pub(crate) fn check_totals(&self) -> Result<(), Inconsistent> {
        let rows = self.live_rows() as i64;
        let tokens: i64 = self
            .lens
            .iter()
            .zip(&self.live)
            .filter(|(_, &l)| l)
            .map(|(&n, _)| i64::from(n))
            .sum();
        if rows > self.n_rows || tokens > self.n_tokens {
            return Err(Inconsistent(format!(
                "FTS5 totals say {} rows / {} tokens, the index has {rows} / {tokens} live",
                self.n_rows, self.n_tokens
            )));
        }
        Ok(())
    }

    /// Size figures.
    pub(crate) fn stats(&self) -> LexicalIndexStats {
        let term_bytes: usize = self.terms.keys().map(|t| t.len() + 32).sum();
        let postings: usize = self
            .postings
            .iter()
            .map(|p| p.docs.capacity() * 4 + p.wtf.capacity() * 8 + std::mem::size_of::<Postings>())
            .sum();
        let rows = self.rowids.capacity() * (8 + 4 + 8 + 1 + 1 + std::mem::size_of::<Vec<u32>>())
            + self
                .doc_terms
                .iter()
                .map(|d| d.capacity() * 4)
                .sum::<usize>()
            + self.slots.capacity() * 16;
        LexicalIndexStats {
            rows: self.live_rows(),
            terms: self.terms.len(),
            postings: self.n_postings,
            memory_bytes: term_bytes + postings + rows,
            builds: 0,
            searches: 0,
        }
    }

    fn idf(&self, df: usize) -> f64 {
        let n_hit = df as i64;
        let idf = (((self.n_rows - n_hit) as f64 + 0.5) / (n_hit as f64 + 0.5)).ln();
        if idf <= 0.0 {
            1e-6
        } else {
            idf
        }
    }

    fn cursors<'a>(&'a self, phrases: &[&str]) -> Vec<Cursor<'a>> {
        let mut cursors: Vec<Cursor<'a>> = Vec::new();
        let mut by_term: HashMap<u32, usize> = HashMap::new();
        for (i, ph) in phrases.iter().enumerate() {
            let Some(&t) = self.terms.get(*ph) else {
                continue;
            };
            let p = &self.postings[t as usize];
            if p.docs.is_empty() {
                continue;
            }
            if let Some(&c) = by_term.get(&t) {
                cursors[c].phrases.push(i);
                continue;
            }
            let idf = self.idf(p.docs.len());
            by_term.insert(t, cursors.len());
            cursors.push(Cursor {
                docs: &p.docs,
                wtf: &p.wtf,
                pos: 0,
                idf,
                phrases: vec![i],
                ub: idf * p.max_part,
            });
        }
        for c in &mut cursors {
            c.ub *= c.phrases.len() as f64;
        }
        cursors
    }

    /// The `k` best rows of the bound index for OR-ed single-token phrases, as
    /// `(rowid, score)` with FTS5's score (positive, `-bm25()`), best first,
    /// ties by ascending rowid. `accept` filters rowids further.
    pub(crate) fn top_k(
        &self,
        phrases: &[&str],
        k: usize,
        accept: Option<&dyn Fn(i64) -> bool>,
    ) -> Vec<(i64, f64)> {
        if k == 0 || self.n_rows <= 0 {
            return Vec::new();
        }
        let mut cur = self.cursors(phrases);
        if cur.is_empty() {
            return Vec::new();
        }
        cur.sort_by(|a, b| a.ub.total_cmp(&b.ub));
        // cum[i]: bound of terms 0..=i together.
        let mut cum = Vec::with_capacity(cur.len());
        let mut acc = 0.0;
        for c in &cur {
            acc += c.ub;
            cum.push(acc);
        }
        let mut heap: BinaryHeap<Entry> = BinaryHeap::with_capacity(k.min(self.rowids.len()) + 1);
        let mut theta = f64::NEG_INFINITY;
        let mut first_ess = 0usize;
        let mut contrib = vec![0.0f64; phrases.len()];
        while let Some(cand) = cur[first_ess..].iter().filter_map(Cursor::current).min() {
            let s = cand as usize;
            let ok = self.mine[s] && accept.is_none_or(|f| f(self.rowids[s]));
            if !ok {
                for c in &mut cur[first_ess..] {
                    if c.current() == Some(cand) {
                        c.pos += 1;
                    }
                }
                continue;
            }
            let norm = self.norms[s];
            contrib.iter_mut().for_each(|x| *x = 0.0);
            let mut partial = 0.0;
            for c in &mut cur[first_ess..] {
                if c.current() == Some(cand) {
                    let v = c.idf * part(c.wtf[c.pos], norm);
                    for &i in &c.phrases {
                        contrib[i] = v;
                    }
                    partial += v * c.phrases.len() as f64;
                    c.pos += 1;
                }
            }
            let mut pruned = false;
            for i in (0..first_ess).rev() {
                if (partial + cum[i]) * SLACK < theta {
                    pruned = true;
                    break;
                }
                let c = &mut cur[i];
                c.seek(cand);
                if c.current() == Some(cand) {
                    let v = c.idf * part(c.wtf[c.pos], norm);
                    for &j in &c.phrases {
                        contrib[j] = v;
                    }
                    partial += v * c.phrases.len() as f64;
                }
            }
            if pruned || partial * SLACK < theta {
                continue;
            }
            // Exact score: FTS5 sums phrase contributions in query order.
            let score = contrib.iter().fold(0.0, |a, &v| a + v);
            let e = Entry {
                score,
                rowid: self.rowids[s],
            };
            if heap.len() < k {
                heap.push(e);
            } else if heap.peek().is_some_and(|w| e.better_than(w)) {
                heap.pop();
                heap.push(e);
            } else {
                continue;
            }
            if heap.len() == k {
                if let Some(w) = heap.peek() {
                    theta = w.score;
                }
                while first_ess < cur.len() && cum[first_ess] * SLACK < theta {
                    first_ess += 1;
                }
                if first_ess == cur.len() {
                    break;
                }
            }
        }
        let mut out: Vec<Entry> = heap.into_vec();
        out.sort();
        out.into_iter().map(|e| (e.rowid, e.score)).collect()
    }

    /// Reference ranking: every matching row scored (term at a time, in
    /// query order), sorted. Used to check [`Self::top_k`].
    #[cfg(test)]
    pub(crate) fn top_k_exhaustive(&self, phrases: &[&str], k: usize) -> Vec<(i64, f64)> {
        let mut acc: HashMap<u32, f64> = HashMap::new();
        for ph in phrases {
            let Some(&t) = self.terms.get(*ph) else {
                continue;
            };
            let p = &self.postings[t as usize];
            if p.docs.is_empty() {
                continue;
            }
            let idf = self.idf(p.docs.len());
            for (&d, &f) in p.docs.iter().zip(&p.wtf) {
                *acc.entry(d).or_insert(0.0) += idf * part(f, self.norms[d as usize]);
            }
        }
        let mut out: Vec<Entry> = acc
            .into_iter()
            .filter(|(d, _)| self.mine[*d as usize])
            .map(|(d, score)| Entry {
                score,
                rowid: self.rowids[d as usize],
            })
            .collect();
        out.sort();
        out.truncate(k);
        out.into_iter().map(|e| (e.rowid, e.score)).collect()
    }
}

/// `tf·(k1+1)/(tf+norm)`, written as in `fts5Bm25Function`.
fn part(f: f64, norm: f64) -> f64 {
    (f * (K1 + 1.0)) / (f + norm)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// Tiny deterministic generator (no dev-dependency needed in unit tests).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn random_index(seed: u64, rows: i64, vocab: u64) -> Bm25Index {
        let mut rng = Lcg(seed);
        let mut idx = Bm25Index::new(vec![3.0, 1.0, 0.5]);
        // (term, rowid, col) instances, generated per row then sorted like fts5vocab.
        let mut inst: Vec<(String, i64, i64, u64)> = Vec::new();
        let mut total = 0i64;
        let mut rowid = 0i64;
        for _ in 0..rows {
            rowid += 1 + rng.below(3) as i64;
            let mut len = 0u32;
            for col in 0..3i64 {
                let n = rng.below(if col == 2 { 40 } else { 6 });
                for off in 0..n {
                    // Zipf-ish: small term ids are common.
                    let r = rng.below(vocab);
                    let t = rng.below(1 + r);
                    inst.push((format!("t{t}"), rowid, col, (col as u64) << 32 | off));
                    len += 1;
                }
            }
            idx.push_row(rowid, len, rng.below(5) != 0).unwrap();
            total += i64::from(len);
        }
        inst.sort();
        let mut sink = idx.sink();
        for (t, r, c, _) in &inst {
            sink.instance(t, *r, *c).unwrap();
        }
        sink.finish().unwrap();
        idx.set_totals(rows, total);
        idx.check_totals().unwrap();
        idx
    }

    #[test]
    fn max_score_equals_exhaustive() {
        let mut rng = Lcg(42);
        for seed in 0..6 {
            let mut idx = random_index(seed, 600, 300);
            for round in 0..80 {
                if round == 40 {
                    // Deletes keep the two rankings equal too.
                    for r in 1..200 {
                        if rng.below(3) == 0 {
                            idx.remove_row(r);
                        }
                    }
                    let rows = idx.live_rows() as i64;
                    let tokens: i64 = idx
                        .lens
                        .iter()
                        .zip(&idx.live)
                        .filter(|(_, &l)| l)
                        .map(|(&n, _)| i64::from(n))
                        .sum();
                    idx.set_totals(rows, tokens);
                }
                let n = 1 + rng.below(12) as usize;
                let q: Vec<String> = (0..n)
                    .map(|_| {
                        let r = rng.below(320);
                        format!("t{}", rng.below(1 + r))
                    })
                    .collect();
                let q: Vec<&str> = q.iter().map(String::as_str).collect();
                for k in [1, 3, 10, 100] {
                    let a = idx.top_k(&q, k, None);
                    let b = idx.top_k_exhaustive(&q, k);
                    assert_eq!(a, b, "seed {seed} round {round} k {k} query {q:?}");
                }
            }
        }
    }

    #[test]
    fn accept_filters_and_empty_cases() {
        let idx = random_index(9, 300, 50);
        let all = idx.top_k(&["t0", "t1", "t2"], 1000, None);
        let even = idx.top_k(&["t0", "t1", "t2"], 1000, Some(&|r| r % 2 == 0));
        let expect: Vec<_> = all.iter().filter(|(r, _)| r % 2 == 0).copied().collect();
        assert_eq!(even, expect);
        assert!(idx.top_k(&["nope"], 10, None).is_empty());
        assert!(idx.top_k(&[], 10, None).is_empty());
        assert!(idx.top_k(&["t0"], 0, None).is_empty());
    }

    #[test]
    fn out_of_order_input_is_refused() {
        let mut idx = Bm25Index::new(vec![1.0]);
        idx.push_row(5, 1, true).unwrap();
        assert!(idx.push_row(5, 1, true).is_err());
        let mut sink = idx.sink();
        assert!(sink.instance("a", 7, 0).is_err());
    }
}
