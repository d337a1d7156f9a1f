//! Dense vector index over hnsw_rs: cosine, filtered search during the graph walk, tombstone deletes, dumps.
//!
//! * Vectors are L2-normalised on insert and query; the graph uses a dot-product distance
//!   (`1 − cos`, clamped at 0) and searches return the cosine similarity, best first.
//! * External ids are `u64`; internally each inserted vector gets a *slot* (the hnsw_rs data id).
//!   Deleting an id tombstones its slot; re-inserting an id tombstones the old slot and adds a new
//!   one. Tombstoned slots are never returned; [`DenseIndex::rebuild`] compacts them away.
//! * Filters run *during* the graph walk (hnsw_rs `FilterT`); when a filter is very selective the
//!   search switches to an exact scan over the allowed points, so `k` hits come back whenever `k`
//!   allowed points exist.
//! * [`DenseIndex::dump`] writes generation-named files and commits them by renaming a small
//!   sidecar (`<basename>.hnsw.meta`) that holds the generation, dimension, counts and the size
//!   and CRC-32 of every file. [`DenseIndex::load`] verifies the sidecar and the checksums before
//!   handing the files to hnsw_rs (which may exit the process on damaged files), so a missing,
//!   stale, truncated or corrupt dump gives a typed error, never a panic.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use hnsw_rs::anndists::dist::Distance;
use hnsw_rs::prelude::{FilterT, Hnsw, Point};
use verity_core::{Error, Result, StoreError};

use crate::quantized::QuantizedVectors;

mod dump;
mod grouped;

/// Tuning of the HNSW graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HnswParams {
    /// Maximum number of links per node and layer (layer 0 keeps `2 × m`). Clamped to `2..=255`.
    pub m: usize,
    /// Candidate list size while building; larger = better graph, slower inserts.
    pub ef_construction: usize,
    /// Candidate list size while searching (raised to `k` when smaller); larger = better recall, slower queries.
    pub ef_search: usize,
    /// Fewest live vectors for which the graph is built: smaller indexes are searched by a scan
    /// of their int8 copy (exact after f32 re-scoring) and cost no graph insertion at all; the
    /// ingest that crosses the size builds the graph of every live vector in one parallel pass.
    /// `0`: always a graph. Default [`DEFAULT_MIN_GRAPH_POINTS`].
    pub min_graph_points: usize,
}

/// Default [`HnswParams::min_graph_points`]. Graph insertion was 84 % of the CPU of a SciFact
/// ingest (49,880 vectors) with an instant embedder, and the cost per vector grows with the
/// graph; the int8 scan that replaces the walk below this size answers a grouped top-10 in a few
/// milliseconds (docs/benchmarks.d/ingest.md), less than embedding the query.
pub const DEFAULT_MIN_GRAPH_POINTS: usize = 100_000;

impl Default for HnswParams {
    /// Defaults chosen by measurement (see `docs/benchmarks.d/hnsw.md`).
    fn default() -> Self {
        Self {
            m: 24,
            ef_construction: 200,
            ef_search: 128,
            min_graph_points: DEFAULT_MIN_GRAPH_POINTS,
        }
    }
}

impl HnswParams {
    fn sanitized(self) -> Self {
        let m = self.m.clamp(2, 255);
        Self {
            m,
            ef_construction: self.ef_construction.max(m).max(8),
            ef_search: self.ef_search.max(1),
            min_graph_points: self.min_graph_points,
        }
    }
}

/// Distance used in the graph: `1 − a·b` on L2-normalised vectors, clamped at 0 so that rounding
/// never produces the negative distances hnsw_rs asserts against.
#[derive(Debug, Default, Clone, Copy)]
struct CosineDot;

impl Distance<f32> for CosineDot {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - simd_dot(va, vb)).max(0.0)
    }
}

/// [`dot`] compiled for the CPU's widest vector unit (AVX2 + FMA or AVX-512
/// here, picked at run time through `pulp`): graph inserts and walks spend
/// most of their time in it, and the generic x86-64 build alone would use
/// 4-lane SSE2. The 16 accumulators, and so the sums, are the same.
#[inline]
fn simd_dot(a: &[f32], b: &[f32]) -> f32 {
    struct Dot<'a>(&'a [f32], &'a [f32]);
    impl pulp::WithSimd for Dot<'_> {
        type Output = f32;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) -> f32 {
            dot(self.0, self.1)
        }
    }
    static ARCH: std::sync::OnceLock<pulp::Arch> = std::sync::OnceLock::new();
    ARCH.get_or_init(pulp::Arch::new).dispatch(Dot(a, b))
}

/// Dot product with 16 independent accumulators (auto-vectorised by LLVM; inlined
/// into [`grouped`]'s `pulp` function it runs on the CPU's widest unit, with the same
/// lanes and so the same result).
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 16];
    let ca = a.chunks_exact(16);
    let cb = b.chunks_exact(16);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut s = 0.0f32;
    for v in acc {
        s += v;
    }
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

type Graph = Hnsw<'static, f32, CosineDot>;
type PointRef = Arc<Point<'static, f32>>;

/// Maximum number of layers of the graph (hnsw_rs caps it at 16).
const MAX_LAYERS: usize = 16;
/// Share of tombstoned slots above which [`DenseIndex::needs_rebuild`] says yes.
const REBUILD_TOMBSTONE_RATIO: f64 = 0.20;
/// Filters estimated to allow fewer than this share of the live points use the exact scan.
/// hnsw_rs's filtered walk has no early exit until `ef` allowed points are found, so at 10 % and
/// 1 % selectivity it visits most of the graph and was ~200× slower than the exact scan
/// (`docs/benchmarks.d/hnsw.md`); the graph walk is kept for broad filters only.
const EXACT_SELECTIVITY: f64 = 0.5;
/// Filters estimated to allow fewer than this many points use the exact scan whatever the share.
const EXACT_MAX_ALLOWED: f64 = 2_000.0;
/// Indexes with at most this many live points are searched exactly (brute force): below this size
/// a scan of every vector is faster than the graph walk at the default `ef_search` and has perfect
/// recall (`docs/benchmarks.d/hnsw.md`). [`DenseIndex::search_graph`] always walks the graph.
pub const EXACT_SCAN_MAX_POINTS: usize = 10_000;
/// Number of slots sampled to estimate a filter's selectivity.
const SELECTIVITY_SAMPLES: usize = 256;

/// One inserted vector.
struct Slot {
    /// External id.
    id: u64,
    /// `false` once deleted or replaced.
    live: bool,
    /// The hnsw_rs point (shares the stored vector; no copy), once the graph is built.
    point: Option<PointRef>,
    /// The vector while the index has no graph ([`HnswParams::min_graph_points`]).
    raw: Option<Box<[f32]>>,
}

impl Slot {
    /// The stored (L2-normalised) vector, in the graph or not.
    fn vector(&self) -> Option<&[f32]> {
        match &self.point {
            Some(p) => Some(p.get_v()),
            None => self.raw.as_deref(),
        }
    }
}

/// Approximate cosine index (HNSW) over `u64` ids. `Send + Sync`; searches take `&self`.
///
/// Below [`HnswParams::min_graph_points`] live vectors the index holds no graph: searches scan
/// the int8 copy and re-score exactly, and inserts cost only a copy.
pub struct DenseIndex {
    dim: usize,
    params: HnswParams,
    graph: Graph,
    slots: Vec<Slot>,
    by_id: HashMap<u64, usize>,
    tombstones: usize,
    /// Int8 copy of every slot's vector, in slot order, for full scans ([`grouped`]).
    quant: QuantizedVectors,
}

impl std::fmt::Debug for DenseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseIndex")
            .field("dim", &self.dim)
            .field("params", &self.params)
            .field("live", &self.by_id.len())
            .field("tombstones", &self.tombstones)
            .finish()
    }
}

fn new_graph(params: HnswParams, capacity: usize) -> Graph {
    Hnsw::new(
        params.m,
        capacity.max(16),
        MAX_LAYERS,
        params.ef_construction,
        CosineDot,
    )
}

fn store_err(msg: impl Into<String>) -> Error {
    Error::Store(StoreError::Backend(msg.into()))
}

fn corrupt(msg: impl Into<String>) -> Error {
    Error::Store(StoreError::Corrupt(msg.into()))
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Check the dimension and finiteness of `v` and return it L2-normalised.
fn normalized(v: &[f32], dim: usize, what: &str) -> Result<Vec<f32>> {
    if v.len() != dim {
        return Err(Error::invalid_input(format!(
            "{what}: dimension {} does not match the index dimension {dim}",
            v.len()
        )));
    }
    if let Some(pos) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::invalid_input(format!(
            "{what}: component {pos} is not a finite number"
        )));
    }
    let norm = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return Err(Error::invalid_input(format!(
            "{what}: zero vector has no cosine similarity"
        )));
    }
    Ok(v.iter().map(|x| (f64::from(*x) / norm) as f32).collect())
}

fn by_similarity(a: &(u64, f32), b: &(u64, f32)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

impl DenseIndex {
    /// An empty index for vectors of `dim` components. `capacity` is an allocation hint.
    /// Out-of-range parameters are clamped (`m` to `2..=255`, `ef_construction ≥ m`, `ef_search ≥ 1`).
    pub fn new(dim: usize, params: HnswParams, capacity: usize) -> Self {
        let params = params.sanitized();
        Self {
            dim,
            params,
            graph: new_graph(params, capacity),
            slots: Vec::new(),
            by_id: HashMap::new(),
            tombstones: 0,
            quant: QuantizedVectors::new(dim),
        }
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The (sanitised) parameters in use.
    pub fn params(&self) -> HnswParams {
        self.params
    }

    /// Change `ef_search` (no rebuild needed).
    pub fn set_ef_search(&mut self, ef_search: usize) {
        self.params.ef_search = ef_search.max(1);
    }

    /// Apply the settings that need no rebuild (`ef_search`, `min_graph_points`) of `params`,
    /// e.g. to an index loaded from a dump written under other settings. A graphless index
    /// that is already at least `min_graph_points` large builds its graph at its next insert.
    pub fn apply_search_params(&mut self, params: HnswParams) {
        self.set_ef_search(params.ef_search);
        self.params.min_graph_points = params.min_graph_points;
    }

    /// Number of live (non-deleted) vectors.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// `true` when no live vector is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Number of stored vectors, tombstones included.
    pub fn points(&self) -> usize {
        self.slots.len()
    }

    /// `true` once the graph is built (see [`HnswParams::min_graph_points`]).
    pub fn has_graph(&self) -> bool {
        self.graph.get_nb_point() > 0
    }

    /// Number of tombstoned (deleted or replaced) points still in the graph.
    pub fn tombstones(&self) -> usize {
        self.tombstones
    }

    /// `true` when `id` is live in the index.
    pub fn contains(&self, id: u64) -> bool {
        self.by_id.contains_key(&id)
    }

    /// The stored (L2-normalised) vector of a live `id`.
    pub fn vector(&self, id: u64) -> Option<&[f32]> {
        let slot = *self.by_id.get(&id)?;
        self.slots.get(slot)?.vector()
    }

    /// Insert or replace vectors. All vectors are checked first (dimension, finite, non-zero):
    /// on error nothing is inserted. Within one batch the last vector of a repeated id wins.
    /// Large batches are inserted in the graph in parallel (rayon); without a graph (fewer than
    /// [`HnswParams::min_graph_points`] live vectors) they are only stored, and the batch that
    /// reaches that size builds the graph of every live vector.
    pub fn insert_batch(&mut self, items: &[(u64, Vec<f32>)]) -> Result<()> {
        let mut last: HashMap<u64, usize> = HashMap::with_capacity(items.len());
        for (i, (id, _)) in items.iter().enumerate() {
            last.insert(*id, i);
        }
        let mut prepared: Vec<(u64, Vec<f32>)> = Vec::with_capacity(last.len());
        for (i, (id, v)) in items.iter().enumerate() {
            if last.get(id) != Some(&i) {
                continue;
            }
            prepared.push((
                *id,
                normalized(v, self.dim, &format!("vector for id {id}"))?,
            ));
        }
        if prepared.is_empty() {
            return Ok(());
        }
        let first = self.slots.len();
        for (id, _) in &prepared {
            let slot = self.slots.len();
            if let Some(old) = self.by_id.insert(*id, slot) {
                if let Some(s) = self.slots.get_mut(old) {
                    s.live = false;
                    self.tombstones += 1;
                }
            }
            self.slots.push(Slot {
                id: *id,
                live: true,
                point: None,
                raw: None,
            });
        }
        if !self.has_graph() {
            for (i, (_, v)) in prepared.into_iter().enumerate() {
                self.quant.push(&v);
                if let Some(s) = self.slots.get_mut(first + i) {
                    s.raw = Some(v.into_boxed_slice());
                }
            }
            if self.by_id.len() >= self.params.min_graph_points {
                self.build_graph()?;
            }
            return Ok(());
        }
        self.insert_in_graph(first, &prepared)
    }

    /// Replace a graphless index by one whose graph holds every live vector (one parallel pass).
    fn build_graph(&mut self) -> Result<()> {
        let live: Vec<(u64, Vec<f32>)> = self
            .slots
            .iter()
            .filter(|s| s.live)
            .filter_map(|s| s.vector().map(|v| (s.id, v.to_vec())))
            .collect();
        let mut fresh = DenseIndex::new(self.dim, self.params, live.len());
        for (slot, (id, _)) in live.iter().enumerate() {
            fresh.by_id.insert(*id, slot);
            fresh.slots.push(Slot {
                id: *id,
                live: true,
                point: None,
                raw: None,
            });
        }
        fresh.insert_in_graph(0, &live)?;
        *self = fresh;
        Ok(())
    }

    /// Insert `prepared` (normalised, the vectors of slots `first..`) in the graph.
    fn insert_in_graph(&mut self, first: usize, prepared: &[(u64, Vec<f32>)]) -> Result<()> {
        let data: Vec<(&Vec<f32>, usize)> = prepared
            .iter()
            .enumerate()
            .map(|(i, (_, v))| (v, first + i))
            .collect();
        let graph = &self.graph;
        let res = catch_unwind(AssertUnwindSafe(|| {
            if data.len() >= 64 {
                graph.parallel_insert(&data);
            } else {
                for (v, slot) in &data {
                    graph.insert((v.as_slice(), *slot));
                }
            }
        }));
        if let Err(p) = res {
            return Err(store_err(format!(
                "hnsw insert failed: {}",
                panic_message(p.as_ref())
            )));
        }
        self.attach_points(first)
    }

    /// Record the hnsw_rs point of every slot `>= first`.
    fn attach_points(&mut self, first: usize) -> Result<()> {
        if self.graph.get_nb_point() == 0 {
            return Ok(());
        }
        for p in self.graph.get_point_indexation() {
            let slot = p.get_origin_id();
            if slot >= first {
                match self.slots.get_mut(slot) {
                    Some(s) => s.point = Some(p),
                    None => return Err(corrupt(format!("hnsw point with unknown slot {slot}"))),
                }
            }
        }
        if let Some(pos) = self
            .slots
            .iter()
            .skip(first)
            .position(|s| s.point.is_none())
        {
            return Err(corrupt(format!(
                "slot {} missing from the hnsw graph",
                first + pos
            )));
        }
        self.quant.truncate(first);
        for s in self.slots.iter().skip(first) {
            if let Some(p) = &s.point {
                self.quant.push(p.get_v());
            }
        }
        Ok(())
    }

    /// Delete `id` (tombstone). Returns `false` when it was not live.
    pub fn remove(&mut self, id: u64) -> bool {
        match self.by_id.remove(&id) {
            Some(slot) => {
                if let Some(s) = self.slots.get_mut(slot) {
                    s.live = false;
                    self.tombstones += 1;
                }
                true
            }
            None => false,
        }
    }

    /// `true` when tombstones exceed 20 % of the graph's points: call [`Self::rebuild`].
    pub fn needs_rebuild(&self) -> bool {
        !self.slots.is_empty()
            && self.tombstones as f64 > REBUILD_TOMBSTONE_RATIO * self.slots.len() as f64
    }

    /// Rebuild the index from the live vectors only (drops tombstones); the graph is built when
    /// they are at least [`HnswParams::min_graph_points`].
    pub fn rebuild(&mut self) -> Result<()> {
        let mut live: Vec<(u64, Vec<f32>)> = Vec::with_capacity(self.by_id.len());
        for s in self.slots.iter().filter(|s| s.live) {
            if let Some(v) = s.vector() {
                live.push((s.id, v.to_vec()));
            }
        }
        let mut fresh = DenseIndex::new(self.dim, self.params, live.len());
        fresh.insert_batch(&live)?;
        *self = fresh;
        Ok(())
    }

    fn allowed(&self, slot: usize, filter: Option<&(dyn Fn(u64) -> bool + Sync)>) -> Option<u64> {
        let s = self.slots.get(slot)?;
        if !s.live {
            return None;
        }
        match filter {
            Some(f) if !f(s.id) => None,
            _ => Some(s.id),
        }
    }

    /// `k` nearest live vectors by cosine similarity, best first, as `(id, similarity)`.
    ///
    /// Indexes of at most [`EXACT_SCAN_MAX_POINTS`] live points are scanned exactly, and so are
    /// requests deep enough that the walk would compute as many distances as a scan
    /// (`max(ef_search, k) × 2m ≥ live points`). Above that,
    /// `filter` restricts the hits to ids for which it returns `true`; it is applied during the
    /// graph walk. Selective filters (estimated < 50 % of the points or < 2,000 points) and
    /// graph walks that come back short use an exact scan instead, so `k` hits come back whenever
    /// `k` allowed points exist.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
    ) -> Result<Vec<(u64, f32)>> {
        let q = normalized(query, self.dim, "query")?;
        if k == 0 || self.by_id.is_empty() {
            return Ok(Vec::new());
        }
        if self.by_id.len() <= EXACT_SCAN_MAX_POINTS {
            return Ok(self.exact(&q, k, filter));
        }
        if !self.has_graph() {
            // The int8 scan, re-scored exactly: every vector its own group.
            return self.search_grouped(query, k, &|id| id, filter);
        }
        // Deep requests (a store over-fetching sentence vectors, an evaluator
        // asking for hundreds of chunks): a walk whose candidate list is `ef`
        // long computes about `ef × 2m` distances (layer 0 keeps 2m links),
        // with random memory access; once that reaches the number of points,
        // the sequential scan is cheaper and exact.
        let ef = self.params.ef_search.max(k);
        if ef.saturating_mul(2 * self.params.m) >= self.by_id.len() {
            return Ok(self.exact(&q, k, filter));
        }
        if let Some(f) = filter {
            let est = self.estimate_allowed(f);
            if est < EXACT_MAX_ALLOWED || est < EXACT_SELECTIVITY * self.by_id.len() as f64 {
                return Ok(self.exact(&q, k, filter));
            }
        }
        let hits = self.graph_search(&q, k, filter)?;
        if hits.len() < k && hits.len() < self.by_id.len() {
            // Possibly fewer reachable allowed points than exist: the exact scan is authoritative.
            let exact = self.exact(&q, k, filter);
            if exact.len() > hits.len() {
                return Ok(exact);
            }
        }
        Ok(hits)
    }

    /// Always walk the graph (no exact fallback; an index without a graph is scanned); for
    /// benchmarks and diagnostics.
    pub fn search_graph(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
    ) -> Result<Vec<(u64, f32)>> {
        let q = normalized(query, self.dim, "query")?;
        if k == 0 || self.by_id.is_empty() {
            return Ok(Vec::new());
        }
        if !self.has_graph() {
            return Ok(self.exact(&q, k, filter));
        }
        self.graph_search(&q, k, filter)
    }

    /// Exact (brute-force) search over the live vectors; the reference for recall measurements.
    pub fn search_exact(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
    ) -> Result<Vec<(u64, f32)>> {
        let q = normalized(query, self.dim, "query")?;
        if k == 0 {
            return Ok(Vec::new());
        }
        Ok(self.exact(&q, k, filter))
    }

    /// Estimated number of live points the filter allows (sampled).
    fn estimate_allowed(&self, f: &(dyn Fn(u64) -> bool + Sync)) -> f64 {
        let n = self.slots.len();
        if n <= SELECTIVITY_SAMPLES {
            return self.slots.iter().filter(|s| s.live && f(s.id)).count() as f64;
        }
        let (mut live, mut ok) = (0usize, 0usize);
        // Deterministic spread-out sample (golden-ratio stride).
        let stride = ((n as f64) * 0.618_033_988_75) as usize | 1;
        let mut pos = 0usize;
        for _ in 0..SELECTIVITY_SAMPLES {
            pos = (pos + stride) % n;
            if let Some(s) = self.slots.get(pos) {
                if s.live {
                    live += 1;
                    if f(s.id) {
                        ok += 1;
                    }
                }
            }
        }
        if live == 0 {
            return 0.0;
        }
        ok as f64 / live as f64 * self.by_id.len() as f64
    }

    fn exact(
        &self,
        q: &[f32],
        k: usize,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
    ) -> Vec<(u64, f32)> {
        // Bounded buffer: keep the best `k` so far, compact when it reaches `2k` (no allocation
        // proportional to the index size).
        if k == 0 {
            return Vec::new();
        }
        let cap = k.saturating_mul(2).max(k + 1);
        let mut best: Vec<(u64, f32)> = Vec::with_capacity(cap.min(self.slots.len()));
        let mut floor = f32::NEG_INFINITY;
        for (slot, s) in self.slots.iter().enumerate() {
            let (Some(id), Some(v)) = (self.allowed(slot, filter), s.vector()) else {
                continue;
            };
            let sim = dot(q, v).clamp(-1.0, 1.0);
            if sim < floor {
                continue;
            }
            best.push((id, sim));
            if best.len() >= cap {
                best.select_nth_unstable_by(k - 1, by_similarity);
                best.truncate(k);
                floor = best.iter().map(|h| h.1).fold(f32::INFINITY, f32::min);
            }
        }
        best.sort_by(by_similarity);
        best.truncate(k);
        best
    }

    fn graph_search(
        &self,
        q: &[f32],
        k: usize,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
    ) -> Result<Vec<(u64, f32)>> {
        let ef = self.params.ef_search.max(k);
        let allow = |slot: &usize| self.allowed(*slot, filter).is_some();
        let run = |with_filter: bool| {
            let f: Option<&dyn FilterT> = if with_filter { Some(&allow) } else { None };
            catch_unwind(AssertUnwindSafe(|| self.graph.search_filter(q, ef, ef, f))).map_err(|p| {
                store_err(format!("hnsw search failed: {}", panic_message(p.as_ref())))
            })
        };
        let collect = |neighbours: Vec<hnsw_rs::prelude::Neighbour>| -> Vec<(u64, f32)> {
            let mut out: Vec<(u64, f32)> = neighbours
                .iter()
                .filter_map(|n| {
                    self.allowed(n.d_id, filter)
                        .map(|id| (id, (1.0 - n.distance).clamp(-1.0, 1.0)))
                })
                .collect();
            out.sort_by(by_similarity);
            out.truncate(k);
            out
        };
        if filter.is_none() {
            // Unfiltered walk (early termination), then drop tombstones; walk again with the
            // tombstone filter only if that left too few hits.
            let hits = collect(run(false)?);
            if hits.len() >= k.min(self.by_id.len()) || self.tombstones == 0 {
                return Ok(hits);
            }
        }
        Ok(collect(run(true)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn index_is_send_and_sync() {
        assert_send_sync::<DenseIndex>();
    }

    #[test]
    fn dot_matches_naive_for_odd_lengths() {
        for n in [0usize, 1, 7, 16, 17, 33, 384] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "n={n}");
        }
    }

    #[test]
    fn distance_never_negative_on_identical_vectors() {
        let v = normalized(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], 7, "v").unwrap_or_default();
        assert!(CosineDot.eval(&v, &v) >= 0.0);
        assert!(CosineDot.eval(&v, &v) < 1e-5);
    }

    #[test]
    fn normalization_rejects_bad_vectors() {
        assert!(normalized(&[1.0, 2.0], 3, "v").is_err());
        assert!(normalized(&[1.0, f32::NAN, 0.0], 3, "v").is_err());
        assert!(normalized(&[1.0, f32::INFINITY, 0.0], 3, "v").is_err());
        assert!(normalized(&[0.0, 0.0, 0.0], 3, "v").is_err());
        let n = normalized(&[3.0, 4.0], 2, "v").unwrap_or_default();
        assert!((n[0] - 0.6).abs() < 1e-6 && (n[1] - 0.8).abs() < 1e-6);
    }
}
