//! The lexical accelerator: a [`Bm25Index`] kept in step with the `chunks_fts`
//! FTS5 table, which stays the source of truth.
//!
//! * Terms come from FTS5's own tokenisation: a full build reads an `fts5vocab`
//!   `instance` table over `chunks_fts`; new rows and query words go through a
//!   private in-memory FTS5 table with the same tokenizer (inserted, read
//!   through its own `instance` vocabulary, rolled back).
//! * Row lengths come from `chunks_fts_docsize` and the table totals from the
//!   FTS5 averages record, i.e. the very numbers `bm25()` uses.
//! * The index records the [`FtsState`] it reflects (averages record plus the
//!   write generation of every index). A search whose snapshot shows another
//!   state falls back to FTS5 and asks for a rebuild; this store's own writes
//!   update the index in place.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{MappedRwLockReadGuard, Mutex, RwLock, RwLockReadGuard};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};
use verity_core::{Error, StoreError};

use crate::bm25::{Bm25Index, Inconsistent, LexicalIndexStats};
use crate::db::db_err;

/// Columns of `chunks_fts`.
const N_COLS: usize = 3;
/// A batch adding more rows than this (and more than a quarter of the index)
/// drops the index for a lazy rebuild instead of an in-place update.
const BULK_ROWS: usize = 1000;
/// Query words whose FTS5 token is remembered.
const MAX_CACHED_WORDS: usize = 8192;

fn inconsistent(e: Inconsistent) -> Error {
    StoreError::Backend(format!("lexical index: {}", e.0)).into()
}

/// What the FTS5 table looked like when the index was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FtsState {
    averages: Vec<u8>,
    generations: String,
}

/// The state of `chunks_fts` seen by `c`'s current snapshot.
pub(crate) fn fts_state(c: &Connection) -> Result<FtsState, Error> {
    c.prepare_cached(
        "SELECT (SELECT block FROM chunks_fts_data WHERE id = 1), \
         (SELECT group_concat(id || ':' || generation, ',') FROM indexes)",
    )
    .and_then(|mut st| {
        st.query_row([], |r| {
            Ok(FtsState {
                averages: r.get::<_, Option<Vec<u8>>>(0)?.unwrap_or_default(),
                generations: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            })
        })
    })
    .map_err(db_err)
}

/// SQLite varint (as FTS5 writes them): value and length.
fn varint(buf: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..8 {
        let b = *buf.get(i)?;
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    let b = *buf.get(8)?;
    Some(((v << 8) | u64::from(b), 9))
}

/// Decode `n` varints.
fn varints(buf: &[u8], n: usize) -> Option<Vec<u64>> {
    let mut out = Vec::with_capacity(n);
    let mut at = 0;
    for _ in 0..n {
        let (v, len) = varint(buf.get(at..)?)?;
        out.push(v);
        at += len;
    }
    Some(out)
}

/// Append a SQLite varint (canonical, as `sqlite3PutVarint` writes it).
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    if v & (0xff00_0000u64 << 32) != 0 {
        let mut buf = [0u8; 9];
        buf[8] = v as u8;
        v >>= 8;
        for b in buf[..8].iter_mut().rev() {
            *b = ((v & 0x7f) as u8) | 0x80;
            v >>= 7;
        }
        out.extend_from_slice(&buf);
        return;
    }
    let mut buf = Vec::with_capacity(9);
    loop {
        buf.push(((v & 0x7f) as u8) | 0x80);
        v >>= 7;
        if v == 0 {
            break;
        }
    }
    buf[0] &= 0x7f;
    out.extend(buf.iter().rev());
}

/// FTS5's table totals (the averages record): row count and tokens per column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Totals {
    rows: u64,
    cols: [u64; N_COLS],
}

impl Totals {
    /// Decode the averages record (empty: all zero).
    fn decode(averages: &[u8]) -> Result<Self, Error> {
        if averages.is_empty() {
            return Ok(Self {
                rows: 0,
                cols: [0; N_COLS],
            });
        }
        let v = varints(averages, 1 + N_COLS)
            .ok_or_else(|| StoreError::Corrupt("bad FTS5 averages record".into()))?;
        let mut cols = [0; N_COLS];
        cols.copy_from_slice(&v[1..]);
        Ok(Self { rows: v[0], cols })
    }

    /// The averages record FTS5 writes for these totals.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.rows);
        for &c in &self.cols {
            put_varint(&mut out, c);
        }
        out
    }

    /// Row count and token count over all columns.
    fn for_bm25(&self) -> (i64, i64) {
        let tokens = self.cols.iter().fold(0u64, |a, &c| a.saturating_add(c));
        (
            i64::try_from(self.rows).unwrap_or(i64::MAX),
            i64::try_from(tokens).unwrap_or(i64::MAX),
        )
    }
}

/// Tokens per column of one row, from its `docsize` record.
fn row_sizes(sz: &[u8]) -> Result<[u64; N_COLS], Error> {
    let v =
        varints(sz, N_COLS).ok_or_else(|| StoreError::Corrupt("bad FTS5 docsize record".into()))?;
    let mut out = [0; N_COLS];
    out.copy_from_slice(&v);
    Ok(out)
}

/// Rows deleted from `chunks_fts` during a write, with their token counts,
/// to take out of FTS5's totals ([`DeletedRows::settle`]).
///
/// FTS5 does not subtract rows deleted from a `contentless_delete` table from
/// its averages record: without this, every replaced chunk would stay in
/// BM25's row count and average length forever (re-ingesting SciFact once
/// doubled the row count and moved nDCG@10 from 0.7086 to 0.7025).
#[derive(Debug, Default)]
pub(crate) struct DeletedRows(Totals);

impl DeletedRows {
    /// Record row `id`; call before deleting it from `chunks_fts`.
    pub(crate) fn record(&mut self, tx: &Connection, id: i64) -> Result<(), Error> {
        let sz: Option<Vec<u8>> = tx
            .prepare_cached("SELECT sz FROM chunks_fts_docsize WHERE id = ?1")
            .and_then(|mut st| st.query_row([id], |r| r.get(0)).optional())
            .map_err(db_err)?;
        if let Some(sz) = sz {
            let sizes = row_sizes(&sz)?;
            self.0.rows += 1;
            for (t, n) in self.0.cols.iter_mut().zip(sizes) {
                *t += n;
            }
        }
        Ok(())
    }

    /// Record every row of the `chunks` rows selected by `where_sql` (one `?1`
    /// parameter); call before deleting them.
    pub(crate) fn record_where(
        &mut self,
        tx: &Connection,
        where_sql: &str,
        param: i64,
    ) -> Result<(), Error> {
        let ids: Vec<i64> = tx
            .prepare(&format!("SELECT c.id FROM chunks c WHERE {where_sql}"))
            .and_then(|mut st| st.query_map([param], |r| r.get(0))?.collect())
            .map_err(db_err)?;
        for id in ids {
            self.record(tx, id)?;
        }
        Ok(())
    }

    /// End of a write, after its last `chunks_fts` statement: make FTS5 write
    /// the totals it caches during a transaction (opening a savepoint syncs
    /// them), then subtract the deleted rows. The averages record is then
    /// final in `tx`, which [`Accelerator::apply`] reads. If FTS5 already
    /// counts only live rows, nothing is subtracted.
    pub(crate) fn settle(&self, tx: &Connection) -> Result<(), Error> {
        tx.execute_batch("SAVEPOINT verity_fts_totals")
            .map_err(db_err)?;
        let fixed = self.subtract(tx);
        tx.execute_batch("RELEASE verity_fts_totals")
            .map_err(db_err)?;
        fixed
    }

    fn subtract(&self, tx: &Connection) -> Result<(), Error> {
        if self.0.rows == 0 {
            return Ok(());
        }
        let Some(block) = averages_record(tx)? else {
            return Ok(());
        };
        let mut totals = Totals::decode(&block)?;
        let live = live_rows(tx)?;
        if totals.rows <= live {
            return Ok(());
        }
        totals.rows = totals.rows.saturating_sub(self.0.rows).max(live);
        for (t, d) in totals.cols.iter_mut().zip(self.0.cols) {
            *t = t.saturating_sub(d);
        }
        write_averages(tx, &totals)
    }
}

/// Recompute FTS5's totals from the live rows' sizes (one pass over
/// `chunks_fts_docsize`): heals totals that counted deleted rows.
pub(crate) fn recount_totals(tx: &Connection) -> Result<(), Error> {
    if averages_record(tx)?.is_none() {
        return Ok(());
    }
    let mut totals = Totals::default();
    let mut st = tx
        .prepare("SELECT sz FROM chunks_fts_docsize")
        .map_err(db_err)?;
    let mut q = st.query([]).map_err(db_err)?;
    while let Some(r) = q.next().map_err(db_err)? {
        if let ValueRef::Blob(b) = r.get_ref(0).map_err(db_err)? {
            let sizes = row_sizes(b)?;
            totals.rows += 1;
            for (t, n) in totals.cols.iter_mut().zip(sizes) {
                *t += n;
            }
        }
    }
    write_averages(tx, &totals)
}

fn averages_record(c: &Connection) -> Result<Option<Vec<u8>>, Error> {
    c.query_row("SELECT block FROM chunks_fts_data WHERE id = 1", [], |r| {
        r.get(0)
    })
    .optional()
    .map_err(db_err)
}

fn live_rows(c: &Connection) -> Result<u64, Error> {
    c.query_row("SELECT count(*) FROM chunks_fts_docsize", [], |r| {
        r.get::<_, i64>(0)
    })
    .map(|n| u64::try_from(n).unwrap_or(0))
    .map_err(db_err)
}

fn write_averages(c: &Connection, totals: &Totals) -> Result<(), Error> {
    c.execute(
        "UPDATE chunks_fts_data SET block = ?1 WHERE id = 1",
        [totals.encode()],
    )
    .map_err(db_err)?;
    Ok(())
}

/// Token count of one row over all columns.
fn row_len(sizes: &[u64; N_COLS]) -> u32 {
    sizes.iter().fold(0u32, |a, &n| {
        a.saturating_add(u32::try_from(n).unwrap_or(u32::MAX))
    })
}

/// Tokenises through a private in-memory FTS5 table with the store's tokenizer.
struct Tokenizer {
    conn: Connection,
}

/// `(term, rowid, column)` instances, in `fts5vocab` order.
type Instances = Vec<(String, i64, i64)>;

impl Tokenizer {
    fn new(spec: &str) -> Result<Self, Error> {
        let conn = Connection::open_in_memory().map_err(db_err)?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE tok USING fts5(title, heading, text, content='', tokenize='{spec}');\
             CREATE VIRTUAL TABLE tok_i USING fts5vocab(tok, instance);"
        ))
        .map_err(db_err)?;
        Ok(Self { conn })
    }

    /// Insert rows, read their instances, roll back (the table stays empty).
    fn instances(&mut self, rows: &[(i64, &str, &str, &str)]) -> Result<Instances, Error> {
        let tx = self.conn.transaction().map_err(db_err)?;
        let mut out = Vec::new();
        {
            let mut ins = tx
                .prepare_cached(
                    "INSERT INTO tok(rowid, title, heading, text) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(db_err)?;
            for (id, title, heading, text) in rows {
                ins.execute(rusqlite::params![id, title, heading, text])
                    .map_err(db_err)?;
            }
            let mut st = tx
                .prepare_cached("SELECT term, doc, col FROM tok_i")
                .map_err(db_err)?;
            let mut q = st.query([]).map_err(db_err)?;
            while let Some(r) = q.next().map_err(db_err)? {
                out.push((
                    r.get(0).map_err(db_err)?,
                    r.get(1).map_err(db_err)?,
                    col_index(r)?,
                ));
            }
        }
        tx.rollback().map_err(db_err)?;
        Ok(out)
    }

    /// The FTS5 token of each query word; `None` when a word is not exactly
    /// one token (FTS5 would make it a phrase: the caller falls back).
    fn query_terms(&mut self, words: &[String]) -> Result<Option<Vec<String>>, Error> {
        let rows: Vec<(i64, &str, &str, &str)> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (i as i64 + 1, "", "", w.as_str()))
            .collect();
        let mut terms: Vec<Option<String>> = vec![None; words.len()];
        for (term, doc, _) in self.instances(&rows)? {
            let Some(slot) = usize::try_from(doc - 1).ok().and_then(|i| terms.get_mut(i)) else {
                return Ok(None);
            };
            if slot.is_some() {
                return Ok(None);
            }
            *slot = Some(term);
        }
        Ok(terms.into_iter().collect())
    }
}

/// Column number of an `fts5vocab` instance row: the column *name* is returned.
fn col_index(r: &rusqlite::Row<'_>) -> Result<i64, Error> {
    match r.get_ref(2).map_err(db_err)? {
        ValueRef::Text(b"title") => Ok(0),
        ValueRef::Text(b"heading") => Ok(1),
        ValueRef::Text(b"text") => Ok(2),
        ValueRef::Integer(i) => Ok(i),
        other => Err(StoreError::Backend(format!("unexpected fts5vocab column {other:?}")).into()),
    }
}

/// An index and the FTS5 state it reflects.
#[derive(Debug)]
pub(crate) struct Synced {
    index: Bm25Index,
    state: FtsState,
}

impl std::ops::Deref for Synced {
    type Target = Bm25Index;
    fn deref(&self) -> &Bm25Index {
        &self.index
    }
}

/// Rows a write removed and added (`(rowid, title, heading, text)`), to apply
/// to the index before the write commits.
#[derive(Debug, Default)]
pub(crate) struct Delta {
    pub(crate) removed: Vec<i64>,
    pub(crate) added: Vec<(i64, String, String, String)>,
}

/// The accelerator of one store.
pub(crate) struct Accelerator {
    index_id: i64,
    weights: Vec<f64>,
    tokenizer: Mutex<Tokenizer>,
    /// Query word → its single FTS5 token (`None`: not exactly one token).
    /// Tokenising through FTS5 costs an insert, a vocabulary scan and a
    /// rollback; a word's token never changes for a given tokenizer.
    word_terms: Mutex<HashMap<String, Option<String>>>,
    index: RwLock<Option<Synced>>,
    builds: AtomicU64,
    searches: AtomicU64,
}

impl std::fmt::Debug for Accelerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accelerator")
            .field("index_id", &self.index_id)
            .finish()
    }
}

impl Accelerator {
    /// An accelerator for the index `index_id`, using the FTS5 tokenizer `spec`;
    /// the index itself is built on first use. Weights are the exact `f64` of
    /// the `f32` options, as the filtered FTS5 path binds them (the unfiltered
    /// one parses their decimal form: same value for weights such as 3, 1, 0.5).
    pub(crate) fn new(index_id: i64, weights: [f32; N_COLS], spec: &str) -> Result<Self, Error> {
        Ok(Self {
            index_id,
            weights: weights.iter().map(|&w| f64::from(w)).collect(),
            tokenizer: Mutex::new(Tokenizer::new(spec)?),
            word_terms: Mutex::new(HashMap::new()),
            index: RwLock::new(None),
            builds: AtomicU64::new(0),
            searches: AtomicU64::new(0),
        })
    }

    /// The index when it reflects `c`'s snapshot.
    pub(crate) fn current(
        &self,
        c: &Connection,
    ) -> Result<Option<MappedRwLockReadGuard<'_, Synced>>, Error> {
        let state = fts_state(c)?;
        Ok(RwLockReadGuard::try_map(self.index.read(), |s| {
            s.as_ref().filter(|s| s.state == state)
        })
        .ok())
    }

    /// FTS5 tokens of the query words (see [`Tokenizer::query_terms`]).
    /// Words seen before are answered from memory (at most
    /// [`MAX_CACHED_WORDS`] kept; the cache starts over when full).
    pub(crate) fn query_terms(&self, words: &[String]) -> Result<Option<Vec<String>>, Error> {
        let mut missing: Vec<String> = Vec::new();
        {
            let cache = self.word_terms.lock();
            for w in words {
                if !cache.contains_key(w) && !missing.contains(w) {
                    missing.push(w.clone());
                }
            }
        }
        if !missing.is_empty() {
            let mut found = Vec::with_capacity(missing.len());
            {
                let mut tok = self.tokenizer.lock();
                for w in &missing {
                    let term = tok
                        .query_terms(std::slice::from_ref(w))?
                        .and_then(|mut t| t.pop());
                    found.push(term);
                }
            }
            let mut cache = self.word_terms.lock();
            if cache.len() + missing.len() > MAX_CACHED_WORDS {
                cache.clear();
            }
            cache.extend(missing.into_iter().zip(found));
        }
        let cache = self.word_terms.lock();
        let mut terms = Vec::with_capacity(words.len());
        for w in words {
            match cache.get(w) {
                Some(Some(t)) => terms.push(t.clone()),
                Some(None) => return Ok(None),
                // Evicted between the two locks (another query filled the
                // cache): tokenise this query directly.
                None => {
                    drop(cache);
                    return self.tokenizer.lock().query_terms(words);
                }
            }
        }
        Ok(Some(terms))
    }

    /// Size figures of the built index and use counters.
    pub(crate) fn stats(&self) -> Option<LexicalIndexStats> {
        self.index.read().as_ref().map(|s| LexicalIndexStats {
            builds: self.builds.load(Ordering::Relaxed),
            searches: self.searches.load(Ordering::Relaxed),
            ..s.index.stats()
        })
    }

    /// Count a search answered by the index.
    pub(crate) fn served(&self) {
        self.searches.fetch_add(1, Ordering::Relaxed);
    }

    /// Rebuild from `c` unless the index already reflects its snapshot.
    pub(crate) fn rebuild(&self, c: &mut Connection) -> Result<(), Error> {
        c.execute_batch(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.verity_fts_instance \
             USING fts5vocab(main, chunks_fts, instance)",
        )
        .map_err(db_err)?;
        let tx = c.transaction().map_err(db_err)?;
        let state = fts_state(&tx)?;
        if self.index.read().as_ref().is_some_and(|s| s.state == state) {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let index = self.build(&tx, &state)?;
        tx.commit().map_err(db_err)?;
        let st = index.stats();
        tracing::info!(
            rows = st.rows,
            terms = st.terms,
            postings = st.postings,
            bytes = st.memory_bytes,
            ms = started.elapsed().as_millis() as u64,
            "lexical index built from FTS5"
        );
        *self.index.write() = Some(Synced { index, state });
        self.builds.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn build(&self, c: &Connection, state: &FtsState) -> Result<Bm25Index, Error> {
        let mut mine = std::collections::HashSet::new();
        {
            let mut st = c
                .prepare_cached(
                    "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1",
                )
                .map_err(db_err)?;
            let mut q = st.query([self.index_id]).map_err(db_err)?;
            while let Some(r) = q.next().map_err(db_err)? {
                mine.insert(r.get::<_, i64>(0).map_err(db_err)?);
            }
        }
        let mut index = Bm25Index::new(self.weights.clone());
        {
            let mut st = c
                .prepare_cached("SELECT id, sz FROM chunks_fts_docsize ORDER BY id")
                .map_err(db_err)?;
            let mut q = st.query([]).map_err(db_err)?;
            while let Some(r) = q.next().map_err(db_err)? {
                let id: i64 = r.get(0).map_err(db_err)?;
                let len = match r.get_ref(1).map_err(db_err)? {
                    ValueRef::Blob(b) => row_len(&row_sizes(b)?),
                    _ => 0,
                };
                index
                    .push_row(id, len, mine.contains(&id))
                    .map_err(inconsistent)?;
            }
        }
        {
            let mut st = c
                .prepare_cached("SELECT term, doc, col FROM temp.verity_fts_instance")
                .map_err(db_err)?;
            let mut q = st.query([]).map_err(db_err)?;
            let mut sink = index.sink();
            while let Some(r) = q.next().map_err(db_err)? {
                let term = match r.get_ref(0).map_err(db_err)? {
                    ValueRef::Text(t) => std::str::from_utf8(t).unwrap_or(""),
                    _ => "",
                };
                let doc: i64 = r.get(1).map_err(db_err)?;
                sink.instance(term, doc, col_index(r)?)
                    .map_err(inconsistent)?;
            }
            sink.finish().map_err(inconsistent)?;
        }
        let (rows, tokens) = Totals::decode(&state.averages)?.for_bm25();
        index.set_totals(rows, tokens);
        index.check_totals().map_err(inconsistent)?;
        index.shrink();
        Ok(index)
    }

    /// Whether the index reflects `c`'s snapshot (call at the start of a write).
    pub(crate) fn in_sync(&self, c: &Connection) -> Result<bool, Error> {
        Ok(self.current(c)?.is_some())
    }

    /// Apply a write to the index, reading row lengths and the settled FTS5
    /// totals ([`DeletedRows::settle`]) through `tx` (the uncommitted write).
    /// Returns a guard to hold until the commit; on any problem the index is
    /// dropped (rebuilt on next use).
    pub(crate) fn apply(
        &self,
        tx: &Connection,
        delta: &Delta,
    ) -> parking_lot::RwLockWriteGuard<'_, Option<Synced>> {
        let prepared = self.prepare(tx, delta);
        let mut guard = self.index.write();
        let res = match (prepared, guard.as_mut()) {
            (Ok(Some(p)), Some(s)) => apply_to(&mut s.index, delta, &p).map(|()| s.state = p.state),
            (Ok(_), _) => Err(Inconsistent("dropped for a lazy rebuild".into())),
            (Err(e), _) => Err(Inconsistent(e.to_string())),
        };
        if let Err(e) = res {
            tracing::debug!(reason = %e.0, "lexical index dropped");
            *guard = None;
        }
        guard
    }

    /// Work done outside the index lock: new state and totals, row lengths
    /// and tokenisation of the added rows. `None`: too large, rebuild lazily.
    /// The write has been [settled](DeletedRows::settle): `tx` holds the final
    /// averages record.
    fn prepare(&self, tx: &Connection, delta: &Delta) -> Result<Option<Prepared>, Error> {
        let live = self.index.read().as_ref().map_or(0, |s| s.live_rows());
        if delta.added.len() > BULK_ROWS && delta.added.len() * 4 > live {
            return Ok(None);
        }
        if self.index.read().is_none() {
            return Ok(None);
        }
        let mut lens = Vec::with_capacity(delta.added.len());
        {
            let mut st = tx
                .prepare_cached("SELECT sz FROM chunks_fts_docsize WHERE id = ?1")
                .map_err(db_err)?;
            for (id, ..) in &delta.added {
                let sz: Vec<u8> = st.query_row([id], |r| r.get(0)).map_err(db_err)?;
                lens.push(row_len(&row_sizes(&sz)?));
            }
        }
        let state = fts_state(tx)?;
        let totals = Totals::decode(&state.averages)?;
        let totals = totals.for_bm25();
        let rows: Vec<(i64, &str, &str, &str)> = delta
            .added
            .iter()
            .map(|(id, a, b, c)| (*id, a.as_str(), b.as_str(), c.as_str()))
            .collect();
        let instances = self.tokenizer.lock().instances(&rows)?;
        Ok(Some(Prepared {
            state,
            totals,
            lens,
            instances,
        }))
    }
}

/// What [`Accelerator::prepare`] computed for a write.
struct Prepared {
    state: FtsState,
    totals: (i64, i64),
    lens: Vec<u32>,
    instances: Instances,
}

fn apply_to(index: &mut Bm25Index, delta: &Delta, p: &Prepared) -> Result<(), Inconsistent> {
    for &id in &delta.removed {
        index.remove_row(id);
    }
    let mut added: Vec<(i64, u32)> = delta
        .added
        .iter()
        .map(|(id, ..)| *id)
        .zip(p.lens.iter().copied())
        .collect();
    added.sort_unstable();
    for (id, len) in added {
        index.push_row(id, len, true)?;
    }
    let mut sink = index.sink();
    for (term, doc, col) in &p.instances {
        sink.instance(term, *doc, *col)?;
    }
    sink.finish()?;
    index.set_totals(p.totals.0, p.totals.1);
    index.check_totals()?;
    if index.dead_rows() > BULK_ROWS && index.dead_rows() > index.live_rows() {
        return Err(Inconsistent("too many removed rows; rebuilding".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn varints_decode() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0x81]), None);
        assert_eq!(varints(&[0x01, 0x02, 0x83, 0x04], 3), Some(vec![1, 2, 388]));
        assert_eq!(varint(&[0xff; 9]), Some((u64::MAX, 9)));
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            1 << 21,
            u64::from(u32::MAX),
            1 << 56,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(varint(&b), Some((v, b.len())), "{v}");
        }
        let t = Totals {
            rows: 5183,
            cols: [60_000, 0, 1_200_000],
        };
        assert_eq!(Totals::decode(&t.encode()).unwrap(), t);
    }
}
