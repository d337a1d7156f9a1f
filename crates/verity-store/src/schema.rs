//! Versioned schema (`PRAGMA user_version`) and its migrations.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};
use verity_core::{ConfigError, Error};

use crate::db::db_err;

/// Current schema version.
pub(crate) const SCHEMA_VERSION: i64 = 4;

/// Version 2: each document records the chunking fingerprint it was cut with
/// (`IndexedDocument::chunking`); rows from version 1 have none.
const V2: &str = "ALTER TABLE documents ADD COLUMN chunking TEXT;";

/// Version 4: cache entries record their class (`CacheClass::as_str`) and
/// size, and `cache_usage` keeps each class's total, maintained by triggers
/// whatever removes an entry (expiry, prefix, tag, eviction), so that a put
/// can evict the oldest entries of its class past the class's limit.
const V4_COLUMNS: &str = r#"
ALTER TABLE cache ADD COLUMN class TEXT NOT NULL DEFAULT 'other';
ALTER TABLE cache ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
"#;

const V4: &str = r#"
UPDATE cache SET
    class = CASE
        WHEN substr(key, 1, 14) = 'rag:retrieval:' THEN 'retrieval'
        WHEN substr(key, 1, 11) = 'rag:answer:' THEN 'answer'
        WHEN substr(key, 1, 14) = 'rag:embedding:' THEN 'embedding'
        ELSE 'other' END,
    size = length(CAST(key AS BLOB)) + length(value);
CREATE INDEX IF NOT EXISTS cache_class ON cache(class);
CREATE TABLE IF NOT EXISTS cache_usage (
    class   TEXT PRIMARY KEY,
    bytes   INTEGER NOT NULL DEFAULT 0,
    entries INTEGER NOT NULL DEFAULT 0
);
DELETE FROM cache_usage;
INSERT INTO cache_usage(class, bytes, entries)
    SELECT class, sum(size), count(*) FROM cache GROUP BY class;
CREATE TRIGGER IF NOT EXISTS cache_usage_insert AFTER INSERT ON cache BEGIN
    INSERT INTO cache_usage(class, bytes, entries) VALUES (new.class, new.size, 1)
    ON CONFLICT(class) DO UPDATE SET bytes = bytes + new.size, entries = entries + 1;
END;
CREATE TRIGGER IF NOT EXISTS cache_usage_delete AFTER DELETE ON cache BEGIN
    UPDATE cache_usage SET bytes = bytes - old.size, entries = entries - 1 WHERE class = old.class;
END;
"#;

const V1: &str = r#"
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS indexes (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    embedder_model TEXT,
    embed_version  TEXT,
    dim            INTEGER,
    created        INTEGER NOT NULL,
    generation     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS aliases (
    alias    TEXT PRIMARY KEY,
    index_id INTEGER NOT NULL REFERENCES indexes(id) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS documents (
    id            INTEGER PRIMARY KEY,
    index_id      INTEGER NOT NULL REFERENCES indexes(id) ON DELETE CASCADE,
    uid           TEXT NOT NULL,
    source        TEXT NOT NULL DEFAULT '',
    ts            INTEGER,
    lang          TEXT,
    title         TEXT,
    url           TEXT,
    tags          TEXT NOT NULL DEFAULT '[]',
    metadata      TEXT NOT NULL DEFAULT '{}',
    content       TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    embed_version TEXT,
    n_chunks      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (index_id, uid)
);
CREATE INDEX IF NOT EXISTS documents_ts ON documents(index_id, ts);
CREATE TABLE IF NOT EXISTS chunks (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    text         TEXT NOT NULL,
    start        INTEGER NOT NULL,
    end          INTEGER NOT NULL,
    heading_path TEXT NOT NULL DEFAULT '[]',
    token_count  INTEGER NOT NULL DEFAULT 0,
    vector       BLOB
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, idx);
CREATE TABLE IF NOT EXISTS cache (
    key        TEXT PRIMARY KEY,
    value      BLOB NOT NULL,
    expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS cache_expiry ON cache(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS cache_tags (
    tag TEXT NOT NULL,
    key TEXT NOT NULL REFERENCES cache(key) ON DELETE CASCADE,
    PRIMARY KEY (tag, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS cache_tags_key ON cache_tags(key);
"#;

/// Default FTS5 tokenizer (Porter stemming over Unicode words, diacritics folded).
pub(crate) const DEFAULT_TOKENIZER: &str = "porter unicode61 remove_diacritics 2";

fn check_tokenizer(t: &str) -> Result<(), Error> {
    if t.trim().is_empty()
        || !t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_')
    {
        return Err(ConfigError::Invalid {
            key: "fts_tokenizer".into(),
            message: format!(
                "`{t}` is not a valid FTS5 tokenizer spec (letters, digits, spaces, `_`)"
            ),
        }
        .into());
    }
    Ok(())
}

/// Apply migration step `to` in its own immediate transaction, unless another
/// process applied it while this one waited for the lock.
fn step(
    conn: &mut Connection,
    to: i64,
    apply: impl FnOnce(&Transaction<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err)?;
    if version < to {
        apply(&tx)?;
        tx.pragma_update(None, "user_version", to).map_err(db_err)?;
    }
    tx.commit().map_err(db_err)
}

/// Bring the database to [`SCHEMA_VERSION`]; returns the FTS tokenizer in force.
pub(crate) fn migrate(conn: &mut Connection, tokenizer: &str) -> Result<String, Error> {
    check_tokenizer(tokenizer)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err)?;
    if version > SCHEMA_VERSION {
        return Err(verity_core::StoreError::Backend(format!(
            "database schema version {version} is newer than this build supports ({SCHEMA_VERSION})"
        ))
        .into());
    }
    if version < 1 {
        step(conn, 1, |tx| {
            tx.execute_batch(V1).map_err(db_err)?;
            tx.execute_batch(&format!(
                "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(title, heading, text, \
                 content='', contentless_delete=1, tokenize='{tokenizer}');"
            ))
            .map_err(db_err)?;
            tx.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('fts_tokenizer', ?1)",
                [tokenizer],
            )
            .map_err(db_err)?;
            Ok(())
        })?;
    }
    if version < 2 {
        step(conn, 2, |tx| tx.execute_batch(V2).map_err(db_err))?;
    }
    if version < 3 {
        // FTS5's totals count live rows only (see `lexical::DeletedRows`):
        // recount them once from the live rows' sizes.
        step(conn, 3, |tx| crate::lexical::recount_totals(tx))?;
    }
    if version < 4 {
        step(conn, 4, |tx| {
            // A database whose version was set back by hand may have the columns.
            let has_class: i64 = tx
                .query_row(
                    "SELECT count(*) FROM pragma_table_info('cache') WHERE name = 'class'",
                    [],
                    |r| r.get(0),
                )
                .map_err(db_err)?;
            if has_class == 0 {
                tx.execute_batch(V4_COLUMNS).map_err(db_err)?;
            }
            tx.execute_batch(V4).map_err(db_err)
        })?;
    }
    let tok: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'fts_tokenizer'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(db_err)?;
    let tok = tok.unwrap_or_else(|| DEFAULT_TOKENIZER.to_string());
    if tok != tokenizer {
        tracing::warn!(existing = %tok, requested = %tokenizer, "FTS tokenizer is fixed at creation; keeping the existing one");
    }
    Ok(tok)
}
