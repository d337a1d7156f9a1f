//! The event tables and every statement on them.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde_json::{Map, Value};
use uuid::Uuid;
use verity_core::events::field_err;
use verity_core::{Error, Event, EventRecord, Result, StoreError};

use super::catalog::Entry;
use super::ms_to_dt;
use crate::db::db_err;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS events_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    ts         INTEGER NOT NULL,
    expires_at INTEGER,
    content    TEXT NOT NULL,
    metadata   TEXT NOT NULL,
    embedding  BLOB,
    text       TEXT
);
CREATE INDEX IF NOT EXISTS events_ts ON events(ts);
CREATE INDEX IF NOT EXISTS events_expiry ON events(expires_at) WHERE expires_at IS NOT NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(
    text, content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2'
);
INSERT OR IGNORE INTO events_meta(key, value) VALUES ('schema', '1');
INSERT OR IGNORE INTO events_meta(key, value) VALUES ('generation', '0');
"#;

/// Create the tables (idempotent).
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    tx.execute_batch(SCHEMA).map_err(db_err)?;
    tx.commit().map_err(db_err)
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> Error {
    StoreError::Corrupt(format!("events: bad {what}: {e}")).into()
}

fn meta_get(c: &Connection, key: &str) -> Result<Option<String>> {
    c.prepare_cached("SELECT value FROM events_meta WHERE key = ?1")
        .map_err(db_err)?
        .query_row([key], |r| r.get(0))
        .optional()
        .map_err(db_err)
}

/// The write generation.
pub(crate) fn generation(c: &mut Connection) -> Result<i64> {
    Ok(meta_get(c, "generation")?
        .and_then(|g| g.parse().ok())
        .unwrap_or(0))
}

fn bump(tx: &Transaction<'_>) -> Result<i64> {
    tx.query_row(
        "UPDATE events_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation' RETURNING CAST(value AS INTEGER)",
        [],
        |r| r.get(0),
    )
    .map_err(db_err)
}

fn blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn unblob(b: &[u8]) -> Result<Vec<f32>> {
    if b.len() % 4 != 0 {
        return Err(corrupt("embedding", "length is not a multiple of 4"));
    }
    Ok(b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn obj(s: &str, what: &str) -> Result<Map<String, Value>> {
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(corrupt(what, "not an object")),
        Err(e) => Err(corrupt(what, e)),
    }
}

fn to_json(m: &Map<String, Value>) -> Result<String> {
    serde_json::to_string(m).map_err(|e| StoreError::Backend(format!("events: {e}")).into())
}

type Loaded = (i64, Option<usize>, Vec<(i64, Entry, Option<Vec<f32>>)>);

/// Every event, for the catalog.
pub(crate) fn load_all(c: &mut Connection) -> Result<Loaded> {
    let generation = generation(c)?;
    let dim = meta_get(c, "dim")?.and_then(|d| d.parse().ok());
    let mut stmt = c
        .prepare("SELECT seq, id, ts, expires_at, metadata, embedding FROM events")
        .map_err(db_err)?;
    let mut rows = stmt.query([]).map_err(db_err)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(db_err)? {
        let seq: i64 = r.get(0).map_err(db_err)?;
        let id: String = r.get(1).map_err(db_err)?;
        let id = Uuid::parse_str(&id).map_err(|e| corrupt("id", e))?;
        let meta: String = r.get(4).map_err(db_err)?;
        let emb: Option<Vec<u8>> = r.get(5).map_err(db_err)?;
        let entry = Entry {
            id,
            ts: r.get(2).map_err(db_err)?,
            expires: r.get(3).map_err(db_err)?,
            metadata: obj(&meta, "metadata")?,
            slot: None,
        };
        out.push((seq, entry, emb.map(|b| unblob(&b)).transpose()?));
    }
    Ok((generation, dim, out))
}

const EVENT_COLUMNS: &str = "seq, id, ts, expires_at, content, metadata, embedding";

fn row_event(r: &rusqlite::Row<'_>) -> Result<(i64, Event)> {
    let seq: i64 = r.get(0).map_err(db_err)?;
    let id: String = r.get(1).map_err(db_err)?;
    let content: String = r.get(4).map_err(db_err)?;
    let meta: String = r.get(5).map_err(db_err)?;
    let emb: Option<Vec<u8>> = r.get(6).map_err(db_err)?;
    let expires: Option<i64> = r.get(3).map_err(db_err)?;
    Ok((
        seq,
        Event {
            id: Uuid::parse_str(&id).map_err(|e| corrupt("id", e))?,
            timestamp: ms_to_dt(r.get(2).map_err(db_err)?),
            content: obj(&content, "content")?,
            metadata: obj(&meta, "metadata")?,
            embedding: emb.map(|b| unblob(&b)).transpose()?,
            similarity_score: None,
            rank_score: None,
            expires_at: expires.map(ms_to_dt),
        },
    ))
}

/// One event by id.
pub(crate) fn event_by_id(c: &mut Connection, id: &Uuid) -> Result<Option<Event>> {
    let mut stmt = c
        .prepare_cached(&format!("SELECT {EVENT_COLUMNS} FROM events WHERE id = ?1"))
        .map_err(db_err)?;
    let mut rows = stmt.query([id.to_string()]).map_err(db_err)?;
    match rows.next().map_err(db_err)? {
        Some(r) => Ok(Some(row_event(r)?.1)),
        None => Ok(None),
    }
}

/// Events by row id.
pub(crate) fn events_by_rowid(c: &mut Connection, ids: &[i64]) -> Result<HashMap<i64, Event>> {
    let mut out = HashMap::with_capacity(ids.len());
    if ids.is_empty() {
        return Ok(out);
    }
    let mut stmt = c
        .prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE seq = ?1"
        ))
        .map_err(db_err)?;
    for id in ids {
        let mut rows = stmt.query([id]).map_err(db_err)?;
        if let Some(r) = rows.next().map_err(db_err)? {
            let (seq, e) = row_event(r)?;
            out.insert(seq, e);
        }
    }
    Ok(out)
}

/// FTS5 matches as `(rowid, positive BM25 score)`.
pub(crate) fn fts_match(c: &mut Connection, expr: &str) -> Result<Vec<(i64, f32)>> {
    let mut stmt = c
        .prepare_cached("SELECT rowid, bm25(events_fts) FROM events_fts WHERE events_fts MATCH ?1")
        .map_err(db_err)?;
    let rows = stmt
        .query_map([expr], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))
        .map_err(db_err)?;
    let mut out = Vec::new();
    for r in rows {
        let (id, s) = r.map_err(db_err)?;
        out.push((id, (-s) as f32));
    }
    Ok(out)
}

type Written = (i64, Vec<(i64, Entry, Option<Vec<f32>>)>);

/// Insert or replace events in one transaction.
pub(crate) fn write(
    c: &mut Connection,
    events: &[EventRecord],
    dim: Option<usize>,
) -> Result<Written> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    if let Some(d) = dim {
        let stored: Option<usize> = meta_get(&tx, "dim")?.and_then(|d| d.parse().ok());
        match stored {
            Some(s) if s != d => {
                return Err(field_err(
                    "embedding",
                    format!("has dimension {d}, the store holds {s}-dimensional vectors"),
                ))
            }
            Some(_) => {}
            None => {
                tx.execute(
                    "INSERT OR REPLACE INTO events_meta(key, value) VALUES ('dim', ?1)",
                    [d.to_string()],
                )
                .map_err(db_err)?;
            }
        }
    }
    let mut out = Vec::with_capacity(events.len());
    {
        let mut upsert = tx
            .prepare_cached(
                "INSERT INTO events(id, ts, expires_at, content, metadata, embedding, text) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
                 ON CONFLICT(id) DO UPDATE SET ts = excluded.ts, expires_at = excluded.expires_at, \
                 content = excluded.content, metadata = excluded.metadata, \
                 embedding = excluded.embedding, text = excluded.text RETURNING seq",
            )
            .map_err(db_err)?;
        let mut fts_del = tx
            .prepare_cached("DELETE FROM events_fts WHERE rowid = ?1")
            .map_err(db_err)?;
        let mut fts_ins = tx
            .prepare_cached("INSERT INTO events_fts(rowid, text) VALUES (?1, ?2)")
            .map_err(db_err)?;
        for r in events {
            let e = &r.event;
            let ts = e.timestamp.timestamp_millis();
            let expires = e.expires_at.map(|x| x.timestamp_millis());
            let seq: i64 = upsert
                .query_row(
                    params![
                        e.id.to_string(),
                        ts,
                        expires,
                        to_json(&e.content)?,
                        to_json(&e.metadata)?,
                        e.embedding.as_deref().map(blob),
                        r.text,
                    ],
                    |row| row.get(0),
                )
                .map_err(db_err)?;
            fts_del.execute([seq]).map_err(db_err)?;
            if let Some(t) = r.text.as_deref().filter(|t| !t.trim().is_empty()) {
                fts_ins.execute(params![seq, t]).map_err(db_err)?;
            }
            out.push((
                seq,
                Entry {
                    id: e.id,
                    ts,
                    expires,
                    metadata: e.metadata.clone(),
                    slot: None,
                },
                e.embedding.clone(),
            ));
        }
    }
    let g = bump(&tx)?;
    tx.commit().map_err(db_err)?;
    Ok((g, out))
}

/// Delete `seqs` and bump the generation, only when there is something to
/// delete (an empty purge leaves readers' catalogs and the index dump current).
fn bump_if_removed(tx: &Transaction<'_>, seqs: &[i64]) -> Result<i64> {
    if seqs.is_empty() {
        return Ok(meta_get(tx, "generation")?
            .and_then(|g| g.parse().ok())
            .unwrap_or(0));
    }
    delete_seqs(tx, seqs)?;
    bump(tx)
}

fn delete_seqs(tx: &Transaction<'_>, seqs: &[i64]) -> Result<()> {
    let mut del = tx
        .prepare_cached("DELETE FROM events WHERE seq = ?1")
        .map_err(db_err)?;
    let mut fts = tx
        .prepare_cached("DELETE FROM events_fts WHERE rowid = ?1")
        .map_err(db_err)?;
    for s in seqs {
        del.execute([s]).map_err(db_err)?;
        fts.execute([s]).map_err(db_err)?;
    }
    Ok(())
}

/// Delete events by id; returns the generation and the removed row ids.
pub(crate) fn delete(c: &mut Connection, ids: &[Uuid]) -> Result<(i64, Vec<i64>)> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    let mut seqs = Vec::new();
    {
        let mut find = tx
            .prepare_cached("SELECT seq FROM events WHERE id = ?1")
            .map_err(db_err)?;
        for id in ids {
            if let Some(s) = find
                .query_row([id.to_string()], |r| r.get::<_, i64>(0))
                .optional()
                .map_err(db_err)?
            {
                seqs.push(s);
            }
        }
    }
    seqs.sort_unstable();
    seqs.dedup();
    let g = bump_if_removed(&tx, &seqs)?;
    tx.commit().map_err(db_err)?;
    Ok((g, seqs))
}

/// Delete events expired at `now_ms`.
pub(crate) fn purge(c: &mut Connection, now_ms: i64) -> Result<(i64, Vec<i64>)> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    let seqs: Vec<i64> = {
        let mut stmt = tx
            .prepare_cached(
                "SELECT seq FROM events WHERE expires_at IS NOT NULL AND expires_at <= ?1",
            )
            .map_err(db_err)?;
        let rows = stmt
            .query_map([now_ms], |r| r.get::<_, i64>(0))
            .map_err(db_err)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_err)?
    };
    let g = bump_if_removed(&tx, &seqs)?;
    tx.commit().map_err(db_err)?;
    Ok((g, seqs))
}

/// Merge a metadata patch; `None` when the event is unknown or expired.
pub(crate) fn merge_metadata(
    c: &mut Connection,
    id: &Uuid,
    patch: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Option<(i64, i64, Event)>> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    let found = {
        let mut stmt = tx
            .prepare_cached(&format!("SELECT {EVENT_COLUMNS} FROM events WHERE id = ?1"))
            .map_err(db_err)?;
        let mut rows = stmt.query([id.to_string()]).map_err(db_err)?;
        match rows.next().map_err(db_err)? {
            Some(r) => Some(row_event(r)?),
            None => None,
        }
    };
    let Some((seq, mut ev)) = found else {
        return Ok(None);
    };
    if ev.expires_at.is_some_and(|x| x <= now) {
        return Ok(None);
    }
    for (k, v) in patch {
        ev.metadata.insert(k.clone(), v.clone());
    }
    tx.execute(
        "UPDATE events SET metadata = ?1 WHERE seq = ?2",
        params![to_json(&ev.metadata)?, seq],
    )
    .map_err(db_err)?;
    let g = bump(&tx)?;
    tx.commit().map_err(db_err)?;
    Ok(Some((g, seq, ev)))
}
