//! The in-memory side of the event store: timestamps, expiries, metadata
//! posting lists (flattened containment terms), unit vectors in one arena and
//! an HNSW graph over them. Rebuilt from SQLite at open (and when another
//! process wrote), the graph taken from its dump when that dump is current
//! ([`Catalog::adopt`]); SQLite stays the source of truth.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;

use serde_json::{Map, Value};
use uuid::Uuid;
use verity_core::events::{l2_from_cosine, metadata_contains, metadata_terms, EventFilter};
use verity_core::Result;

use super::terms::{plain_filter, plain_metadata, IdMap, IdSet};
use crate::hnsw::{DenseIndex, HnswParams};

/// Allowed sets up to this size are scanned exactly (perfect recall, exact
/// `total_hits`); larger ones walk the HNSW graph with the filter applied
/// during the walk.
pub(crate) const EXACT_MAX: usize = 10_000;

/// What the catalog keeps of one event.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) id: Uuid,
    pub(crate) ts: i64,
    pub(crate) expires: Option<i64>,
    pub(crate) metadata: Map<String, Value>,
    /// Offset of the unit vector in the arena (in vectors).
    pub(crate) slot: Option<usize>,
}

/// Filter resolved against the catalog.
pub(crate) struct Resolved<'a> {
    filter: &'a EventFilter,
    start: Option<i64>,
    end: Option<i64>,
    now: i64,
    terms: Vec<String>,
    /// The filter's terms decide containment on plain metadata (`terms.rs`).
    plain: bool,
}

impl<'a> Resolved<'a> {
    pub(crate) fn new(filter: &'a EventFilter, now: i64) -> Self {
        Self {
            filter,
            start: filter.ts_start.map(|t| t.timestamp_millis()),
            end: filter.ts_end.map(|t| t.timestamp_millis()),
            now,
            terms: filter.terms(),
            plain: filter.metadata.as_ref().is_none_or(plain_filter),
        }
    }

    fn has_time(&self) -> bool {
        self.start.is_some() || self.end.is_some()
    }

    fn in_time(&self, ts: i64) -> bool {
        self.start.is_none_or(|s| ts >= s) && self.end.is_none_or(|x| ts <= x)
    }
}

/// The catalog of one event table.
pub(crate) struct Catalog {
    pub(crate) generation: i64,
    pub(crate) dim: Option<usize>,
    entries: IdMap<Entry>,
    by_id: HashMap<Uuid, i64>,
    by_time: BTreeSet<(i64, i64)>,
    postings: HashMap<String, IdSet>,
    /// Row ids whose metadata is not plain (containment needs the JSON walk).
    complex: IdSet,
    arena: Vec<f32>,
    arena_free: usize,
    dense: Option<DenseIndex>,
    hnsw: HnswParams,
    expiring: usize,
}

fn normalized(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter().map(|x| x / n).collect()
    } else {
        v.to_vec()
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

impl Catalog {
    pub(crate) fn new(hnsw: HnswParams) -> Self {
        Self {
            generation: 0,
            dim: None,
            entries: IdMap::default(),
            by_id: HashMap::new(),
            by_time: BTreeSet::new(),
            postings: HashMap::new(),
            complex: IdSet::default(),
            arena: Vec::new(),
            arena_free: 0,
            dense: None,
            hnsw,
            expiring: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn vector(&self, slot: usize) -> Option<&[f32]> {
        let d = self.dim?;
        self.arena.get(slot * d..(slot + 1) * d)
    }

    /// Insert or replace entries (vectors raw; normalised here). The HNSW
    /// graph gets the new vectors in one parallel batch.
    pub(crate) fn upsert(&mut self, rows: Vec<(i64, Entry, Option<Vec<f32>>)>) -> Result<()> {
        let batch = self.insert_entries(rows);
        self.index(&batch)?;
        self.maybe_compact().map(|_| ())
    }

    /// Insert or replace entries and their unit vectors, leaving the HNSW
    /// graph alone; returns the `(rowid, unit vector)` batch to index.
    pub(crate) fn insert_entries(
        &mut self,
        rows: Vec<(i64, Entry, Option<Vec<f32>>)>,
    ) -> Vec<(u64, Vec<f32>)> {
        let mut batch = Vec::new();
        for (rowid, mut e, vec) in rows {
            self.remove(rowid);
            if let Some(v) = vec {
                let d = *self.dim.get_or_insert(v.len());
                let unit = normalized(&v);
                if unit.len() == d {
                    let slot = self.arena.len() / d;
                    self.arena.extend_from_slice(&unit);
                    e.slot = Some(slot);
                    batch.push((rowid as u64, unit));
                }
            }
            for t in metadata_terms(&e.metadata) {
                self.postings.entry(t).or_default().insert(rowid);
            }
            if e.expires.is_some() {
                self.expiring += 1;
            }
            if !plain_metadata(&e.metadata) {
                self.complex.insert(rowid);
            }
            self.by_time.insert((e.ts, rowid));
            self.by_id.insert(e.id, rowid);
            self.entries.insert(rowid, e);
        }
        batch
    }

    /// Add a batch of [`Self::insert_entries`] to the HNSW graph.
    pub(crate) fn index(&mut self, batch: &[(u64, Vec<f32>)]) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        if let Some(d) = self.dim {
            let hnsw = self.hnsw;
            let cap = self.entries.len();
            let dense = self
                .dense
                .get_or_insert_with(|| DenseIndex::new(d, hnsw, cap));
            dense.insert_batch(batch)?;
        }
        Ok(())
    }

    /// The HNSW graph (`None` until a vector was indexed).
    pub(crate) fn dense(&self) -> Option<&DenseIndex> {
        self.dense.as_ref()
    }

    /// Number of entries with a vector.
    pub(crate) fn vectors(&self) -> usize {
        self.dim.map_or(0, |d| {
            (self.arena.len() / d.max(1)).saturating_sub(self.arena_free)
        })
    }

    /// Take a dumped graph as this catalog's, once it holds exactly the
    /// entries' vectors (same rowids, same unit vectors): a dump whose
    /// generation matches but whose database was edited is refused.
    pub(crate) fn adopt(&mut self, dense: DenseIndex) -> std::result::Result<(), String> {
        let dim = self.dim.ok_or("no vector dimension recorded")?;
        if dense.dim() != dim {
            return Err(format!(
                "dump has dimension {}, {dim} expected",
                dense.dim()
            ));
        }
        let want = self.vectors();
        if dense.len() != want {
            return Err(format!(
                "dump holds {} vectors, the database {want}",
                dense.len()
            ));
        }
        for (rowid, e) in self.entries.iter() {
            let Some(v) = e.slot.and_then(|s| self.vector(s)) else {
                continue;
            };
            let Some(w) = dense.vector(*rowid as u64) else {
                return Err(format!("event {} is missing from the dump", e.id));
            };
            if v.iter().zip(w).any(|(a, b)| (a - b).abs() > 1e-4) {
                return Err(format!(
                    "the vector of event {} differs from the dump",
                    e.id
                ));
            }
        }
        self.dense = Some(dense);
        Ok(())
    }

    /// Forget an entry; returns whether it existed.
    pub(crate) fn remove(&mut self, rowid: i64) -> bool {
        let Some(e) = self.entries.remove(&rowid) else {
            return false;
        };
        self.by_id.remove(&e.id);
        self.by_time.remove(&(e.ts, rowid));
        self.complex.remove(&rowid);
        for t in metadata_terms(&e.metadata) {
            if let Some(p) = self.postings.get_mut(&t) {
                p.remove(&rowid);
                if p.is_empty() {
                    self.postings.remove(&t);
                }
            }
        }
        if e.expires.is_some() {
            self.expiring = self.expiring.saturating_sub(1);
        }
        if e.slot.is_some() {
            self.arena_free += 1;
            if let Some(d) = self.dense.as_mut() {
                d.remove(rowid as u64);
            }
        }
        true
    }

    /// Replace an entry's metadata (postings follow).
    pub(crate) fn set_metadata(&mut self, rowid: i64, metadata: Map<String, Value>) {
        let Some(e) = self.entries.get_mut(&rowid) else {
            return;
        };
        let old = std::mem::replace(&mut e.metadata, metadata);
        for t in metadata_terms(&old) {
            if let Some(p) = self.postings.get_mut(&t) {
                p.remove(&rowid);
            }
        }
        for t in metadata_terms(&e.metadata) {
            self.postings.entry(t).or_default().insert(rowid);
        }
        if plain_metadata(&e.metadata) {
            self.complex.remove(&rowid);
        } else {
            self.complex.insert(rowid);
        }
    }

    /// Compact the arena and the graph once a fifth of the vectors (or of
    /// the graph's points: a loaded dump keeps its tombstones) are dead;
    /// returns whether it did.
    pub(crate) fn maybe_compact(&mut self) -> Result<bool> {
        let Some(d) = self.dim else { return Ok(false) };
        let total = self.arena.len() / d.max(1);
        let graph_dead = self
            .dense
            .as_ref()
            .is_some_and(|g| g.points() >= 64 && g.needs_rebuild());
        if (self.arena_free * 5 <= total || total < 64) && !graph_dead {
            return Ok(false);
        }
        let mut arena = Vec::with_capacity((total - self.arena_free) * d);
        let mut batch = Vec::new();
        for (rowid, e) in self.entries.iter_mut() {
            if let Some(slot) = e.slot {
                if let Some(v) = self.arena.get(slot * d..(slot + 1) * d) {
                    let new = arena.len() / d;
                    arena.extend_from_slice(v);
                    e.slot = Some(new);
                    batch.push((*rowid as u64, v.to_vec()));
                }
            }
        }
        self.arena = arena;
        self.arena_free = 0;
        let mut dense = DenseIndex::new(d, self.hnsw, batch.len());
        dense.insert_batch(&batch)?;
        self.dense = Some(dense);
        Ok(true)
    }

    /// Whether any entry can expire (the graph walk then needs a filter).
    fn has_expiring(&self) -> bool {
        self.expiring > 0
    }

    /// `r` resolved against the posting lists, for one query.
    pub(crate) fn plan<'c>(&'c self, r: &'c Resolved<'c>) -> Plan<'c> {
        let mut sets = Vec::with_capacity(r.terms.len());
        let mut empty = false;
        for t in &r.terms {
            match self.postings.get(t) {
                Some(p) if !p.is_empty() => sets.push(p),
                _ => empty = true,
            }
        }
        sets.sort_by_key(|p| p.len());
        Plan {
            cat: self,
            r,
            sets,
            empty,
        }
    }

    /// Rowids kept by `r`, when they can be enumerated from a posting list
    /// or a time range no larger than `cap` (`None`: too many, or no index narrows it).
    pub(crate) fn allowed(&self, p: &Plan<'_>, cap: usize) -> Option<Vec<i64>> {
        if p.empty {
            return Some(Vec::new());
        }
        let posting = p.sets.first().map(|s| s.len());
        // Count the time range only as far as it could still be the smaller driver.
        let bound = posting.unwrap_or(usize::MAX).min(cap * 4).saturating_add(1);
        let time_len =
            p.r.has_time()
                .then(|| self.time_range(p.r).take(bound).count());
        let mut out: Vec<i64> = match (posting, time_len) {
            (Some(n), tl) if tl.is_none_or(|tl| n <= tl) => {
                if n > cap * 4 {
                    return None;
                }
                let first = p.sets.first()?;
                first
                    .iter()
                    .copied()
                    .filter(|id| p.keeps_except_first(*id))
                    .collect()
            }
            (_, Some(tl)) => {
                if tl > cap * 4 {
                    return None;
                }
                self.time_range(p.r)
                    .map(|(_, id)| *id)
                    .filter(|id| p.keeps_in_time(*id))
                    .collect()
            }
            _ => return None,
        };
        if out.len() > cap {
            return None;
        }
        out.sort_unstable();
        Some(out)
    }

    fn time_range<'s>(
        &'s self,
        r: &Resolved<'_>,
    ) -> impl DoubleEndedIterator<Item = &'s (i64, i64)> + 's {
        let lo = r
            .start
            .map_or(Bound::Unbounded, |s| Bound::Included((s, i64::MIN)));
        let hi = r
            .end
            .map_or(Bound::Unbounded, |e| Bound::Included((e, i64::MAX)));
        self.by_time.range((lo, hi))
    }

    /// Rowids kept by `r` in time order (listing): driven by the smallest
    /// posting list when it is smaller than the time range, else by the range.
    pub(crate) fn listing(&self, r: &Resolved<'_>, newest_first: bool) -> Vec<i64> {
        let p = &self.plan(r);
        if p.empty {
            return Vec::new();
        }
        if let Some(first) = p.sets.first() {
            let n = first.len();
            if self.time_range(p.r).nth(n).is_some() {
                let mut hits: Vec<(i64, i64)> = first
                    .iter()
                    .filter(|id| p.keeps_except_first(**id))
                    .filter_map(|id| Some((self.entries.get(id)?.ts, *id)))
                    .collect();
                hits.sort_unstable();
                if newest_first {
                    hits.reverse();
                }
                return hits.into_iter().map(|(_, id)| id).collect();
            }
        }
        let it = self.time_range(p.r);
        let keep = |(_, id): &&(i64, i64)| p.keeps_in_time(*id);
        if newest_first {
            it.rev().filter(keep).map(|(_, id)| *id).collect()
        } else {
            it.filter(keep).map(|(_, id)| *id).collect()
        }
    }

    /// Vector candidates, best first, as `(rowid, l2)`, within `max_distance`
    /// (all of them when the search is exact, else the best `k`), and
    /// whether the list is exhaustive.
    pub(crate) fn nearest(
        &self,
        r: &Resolved<'_>,
        query: &[f32],
        k: usize,
        max_distance: Option<f32>,
    ) -> Result<(Vec<(i64, f32)>, bool)> {
        let Some(dim) = self.dim else {
            return Ok((Vec::new(), true));
        };
        if query.len() != dim {
            return Err(verity_core::events::field_err(
                "vector_query",
                format!("has dimension {}, expected {dim}", query.len()),
            ));
        }
        let q = normalized(query);
        let within = |l2: f32| max_distance.is_none_or(|m| l2 <= m);
        let p = &self.plan(r);
        let allowed =
            if r.filter.is_empty() && !self.has_expiring() && self.entries.len() > EXACT_MAX {
                None
            } else {
                self.allowed(p, EXACT_MAX)
            };
        let exact_all = allowed.is_none() && self.entries.len() <= EXACT_MAX;
        if allowed.is_some() || exact_all {
            let ids: Box<dyn Iterator<Item = i64>> = match allowed {
                Some(a) => Box::new(a.into_iter()),
                None => Box::new(
                    self.entries
                        .keys()
                        .copied()
                        .filter(|id| p.keeps(*id))
                        .collect::<Vec<_>>()
                        .into_iter(),
                ),
            };
            let mut hits: Vec<(i64, f32)> = ids
                .filter_map(|id| {
                    let v = self.vector(self.entries.get(&id)?.slot?)?;
                    let l2 = l2_from_cosine(dot(&q, v));
                    within(l2).then_some((id, l2))
                })
                .collect();
            hits.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            return Ok((hits, true));
        }
        let Some(dense) = &self.dense else {
            return Ok((Vec::new(), true));
        };
        let needs_filter = !r.filter.is_empty() || self.has_expiring();
        let keep = |id: u64| p.keeps(id as i64);
        let f: Option<&(dyn Fn(u64) -> bool + Sync)> =
            if needs_filter { Some(&keep) } else { None };
        let raw = dense.search(&q, k, f)?;
        let n = raw.len();
        let hits: Vec<(i64, f32)> = raw
            .into_iter()
            .map(|(id, cos)| (id as i64, l2_from_cosine(cos)))
            .filter(|(_, l2)| within(*l2))
            .collect();
        // Fewer hits than asked within the threshold: every closer point was seen.
        let exhaustive = hits.len() < k || n < k;
        Ok((hits, exhaustive))
    }

    /// Keep the `(rowid, _)` pairs `r` keeps.
    pub(crate) fn retain<T>(&self, r: &Resolved<'_>, hits: &mut Vec<(i64, T)>) {
        let p = self.plan(r);
        hits.retain(|(id, _)| p.keeps(*id));
    }

    /// L2 distance of an entry's vector to a unit query.
    pub(crate) fn distance(&self, rowid: i64, query: &[f32]) -> Option<f32> {
        let e = self.entries.get(&rowid)?;
        let v = self.vector(e.slot?)?;
        Some(l2_from_cosine(dot(&normalized(query), v)))
    }
}

/// A filter resolved against the posting lists for one query: the sets of
/// the filter's terms (a necessary condition, and a sufficient one on plain
/// metadata), then expiry, time and the exact JSON check only when needed.
pub(crate) struct Plan<'c> {
    cat: &'c Catalog,
    r: &'c Resolved<'c>,
    /// Posting sets of the filter's terms, smallest first.
    sets: Vec<&'c IdSet>,
    /// A term has no posting: nothing matches.
    empty: bool,
}

impl Plan<'_> {
    /// Whether `rowid` is a live entry kept by the filter.
    pub(crate) fn keeps(&self, rowid: i64) -> bool {
        !self.empty
            && self.sets.iter().all(|s| s.contains(&rowid))
            && self.cat.entries.contains_key(&rowid)
            && self.rest(rowid, false)
    }

    /// [`Self::keeps`] for an entry of the smallest posting set.
    fn keeps_except_first(&self, rowid: i64) -> bool {
        self.sets.iter().skip(1).all(|s| s.contains(&rowid)) && self.rest(rowid, false)
    }

    /// [`Self::keeps`] for an entry of the time range.
    fn keeps_in_time(&self, rowid: i64) -> bool {
        self.sets.iter().all(|s| s.contains(&rowid)) && self.rest(rowid, true)
    }

    /// Expiry, time and exact containment, once the postings agreed.
    fn rest(&self, rowid: i64, time_checked: bool) -> bool {
        let r = self.r;
        let exact = r.plain && !self.cat.complex.contains(&rowid);
        let time = !time_checked && r.has_time();
        if exact && !time && !self.cat.has_expiring() {
            return true;
        }
        let Some(e) = self.cat.entries.get(&rowid) else {
            return false;
        };
        e.expires.is_none_or(|x| x > r.now)
            && (!time || r.in_time(e.ts))
            && (exact
                || r.filter
                    .metadata
                    .as_ref()
                    .is_none_or(|f| metadata_contains(&e.metadata, f)))
    }
}
