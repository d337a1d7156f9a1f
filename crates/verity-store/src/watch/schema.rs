//! Watch tables and their migrations (`watch_meta.schema_version`), apart
//! from the document schema's `user_version`.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use verity_core::{Error, StoreError};

use crate::db::db_err;

/// Current watch schema version.
pub(crate) const WATCH_SCHEMA_VERSION: i64 = 2;

const V1: &str = r#"
CREATE TABLE IF NOT EXISTS watch_rules (
    name       TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    priority   TEXT NOT NULL,
    data       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS watch_articles (
    id           TEXT PRIMARY KEY,
    source       TEXT NOT NULL,
    validated    INTEGER NOT NULL,
    processed_at INTEGER NOT NULL,
    data         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS watch_articles_time ON watch_articles(processed_at);
CREATE INDEX IF NOT EXISTS watch_articles_source ON watch_articles(source, processed_at);
CREATE TABLE IF NOT EXISTS watch_article_urls (
    url        TEXT PRIMARY KEY,
    article_id TEXT NOT NULL REFERENCES watch_articles(id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS watch_article_urls_article ON watch_article_urls(article_id);
CREATE TABLE IF NOT EXISTS watch_simhash_bands (
    band       INTEGER NOT NULL,
    value      INTEGER NOT NULL,
    article_id TEXT NOT NULL REFERENCES watch_articles(id) ON DELETE CASCADE,
    PRIMARY KEY (band, value, article_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS watch_simhash_bands_article ON watch_simhash_bands(article_id);
CREATE TABLE IF NOT EXISTS watch_decisions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    article_id TEXT,
    created_at INTEGER NOT NULL,
    data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS watch_decisions_article ON watch_decisions(article_id, created_at);
CREATE INDEX IF NOT EXISTS watch_decisions_time ON watch_decisions(created_at);
CREATE TRIGGER IF NOT EXISTS watch_decisions_no_update BEFORE UPDATE ON watch_decisions
BEGIN SELECT RAISE(ABORT, 'the decision log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS watch_decisions_no_delete BEFORE DELETE ON watch_decisions
BEGIN SELECT RAISE(ABORT, 'the decision log is append-only'); END;
CREATE TABLE IF NOT EXISTS aura_projects (
    id         TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    data       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS aura_contexts (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES aura_projects(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aura_contexts_project ON aura_contexts(project_id, created_at);
CREATE TABLE IF NOT EXISTS aura_tasks (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES aura_projects(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aura_tasks_project ON aura_tasks(project_id, created_at);
CREATE TABLE IF NOT EXISTS aura_decisions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES aura_projects(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aura_decisions_project ON aura_decisions(project_id, created_at);
"#;

/// Version 2: the SimHash multi-index (4 blocks of 16 bits, the full hash
/// beside each key so candidates are checked without decoding articles)
/// replaces the 8-bit bands, whose lookups read N / 32 articles.
const V2: &str = r#"
CREATE TABLE IF NOT EXISTS watch_simhash_blocks (
    block      INTEGER NOT NULL,
    value      INTEGER NOT NULL,
    article_id TEXT NOT NULL REFERENCES watch_articles(id) ON DELETE CASCADE,
    simhash    INTEGER NOT NULL,
    PRIMARY KEY (block, value, article_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS watch_simhash_blocks_article ON watch_simhash_blocks(article_id);
DROP TABLE IF EXISTS watch_simhash_bands;
"#;

/// Index the SimHash of every logged article (version 2).
fn fill_blocks(tx: &Connection) -> Result<(), Error> {
    let mut read = tx
        .prepare("SELECT id, data FROM watch_articles")
        .map_err(db_err)?;
    let rows: Vec<(String, String)> = read
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(db_err)?
        .collect::<Result<_, _>>()
        .map_err(db_err)?;
    for (id, data) in rows {
        let v: serde_json::Value = serde_json::from_str(&data)
            .map_err(|e| StoreError::Corrupt(format!("bad watch record `{id}`: {e}")))?;
        if let Some(h) = v.get("simhash").and_then(serde_json::Value::as_u64) {
            super::articles::insert_blocks(tx, &id, h)?;
        }
    }
    Ok(())
}

fn version(conn: &Connection) -> Result<i64, Error> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS watch_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    )
    .map_err(db_err)?;
    let v: Option<String> = conn
        .query_row(
            "SELECT value FROM watch_meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(db_err)?;
    Ok(v.and_then(|s| s.parse().ok()).unwrap_or(0))
}

type Fill = fn(&Connection) -> Result<(), Error>;

/// Apply step `to` (its SQL, then `fill`) in its own immediate transaction
/// unless another process did.
fn step(conn: &mut Connection, to: i64, sql: &str, fill: Option<Fill>) -> Result<(), Error> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    if version(&tx)? < to {
        tx.execute_batch(sql).map_err(db_err)?;
        if let Some(f) = fill {
            f(&tx)?;
        }
        tx.execute(
            "INSERT OR REPLACE INTO watch_meta(key, value) VALUES ('schema_version', ?1)",
            [to.to_string()],
        )
        .map_err(db_err)?;
    }
    tx.commit().map_err(db_err)
}

/// Bring the watch tables to [`WATCH_SCHEMA_VERSION`].
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), Error> {
    let v = version(conn)?;
    if v > WATCH_SCHEMA_VERSION {
        return Err(StoreError::Backend(format!(
            "watch schema version {v} is newer than this build supports ({WATCH_SCHEMA_VERSION})"
        ))
        .into());
    }
    if v < 1 {
        step(conn, 1, V1, None)?;
    }
    if v < 2 {
        step(conn, 2, V2, Some(fill_blocks))?;
    }
    Ok(())
}
