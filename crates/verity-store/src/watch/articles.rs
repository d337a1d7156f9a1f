//! Rules, articles and the decision log in SQLite.

use async_trait::async_trait;
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use verity_core::watch::{simhash_blocks, simhash_probes, SIMHASH_MAX_DISTANCE};
use verity_core::{
    Article, ArticleFilter, Decision, DecisionFilter, Error, Priority, RelevanceRule, Result,
    RuleKind, RuleStore, StoreError, WatchStore,
};

use super::{from_json, ms, to_i64, to_json, SqliteWatchStore};
use crate::db::db_err;

fn rows<T: serde::de::DeserializeOwned>(
    stmt: &mut rusqlite::Statement<'_>,
    params: impl rusqlite::Params,
) -> Result<Vec<T>> {
    let raw: Vec<String> = stmt
        .query_map(params, |r| r.get::<_, String>(0))
        .map_err(db_err)?
        .collect::<std::result::Result<_, _>>()
        .map_err(db_err)?;
    raw.iter().map(|s| from_json(s)).collect()
}

/// Store `h` under its four 16-bit block keys for article `id`.
pub(crate) fn insert_blocks(tx: &rusqlite::Connection, id: &str, h: u64) -> Result<()> {
    let mut stmt = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO watch_simhash_blocks(block, value, article_id, simhash) \
             VALUES (?1, ?2, ?3, ?4)",
        )
        .map_err(db_err)?;
    for (block, value) in simhash_blocks(h) {
        stmt.execute(params![block, value, id, h as i64])
            .map_err(db_err)?;
    }
    Ok(())
}

#[async_trait]
impl RuleStore for SqliteWatchStore {
    async fn rules(
        &self,
        kind: Option<RuleKind>,
        priority: Option<Priority>,
    ) -> Result<Vec<RelevanceRule>> {
        self.db.read(|c| {
            let mut stmt = c
                .prepare_cached(
                    "SELECT data FROM watch_rules WHERE (?1 IS NULL OR kind = ?1) \
                     AND (?2 IS NULL OR priority = ?2) ORDER BY name",
                )
                .map_err(db_err)?;
            rows(
                &mut stmt,
                params![kind.map(RuleKind::as_str), priority.map(Priority::as_str)],
            )
        })
    }

    async fn upsert_rule(&self, rule: RelevanceRule) -> Result<()> {
        let data = to_json(&rule)?;
        self.db.write(|c| {
            c.execute(
                "INSERT INTO watch_rules(name, kind, priority, data) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, \
                 priority = excluded.priority, data = excluded.data",
                params![rule.name, rule.kind.as_str(), rule.priority.as_str(), data],
            )
            .map_err(db_err)?;
            Ok(())
        })
    }

    async fn delete_rule(&self, name: &str) -> Result<bool> {
        self.db.write(|c| {
            c.execute("DELETE FROM watch_rules WHERE name = ?1", [name])
                .map(|n| n > 0)
                .map_err(db_err)
        })
    }
}

#[async_trait]
impl WatchStore for SqliteWatchStore {
    async fn article_by_url(&self, canonical_url: &str) -> Result<Option<Article>> {
        let raw: Option<String> = self.db.read(|c| {
            c.prepare_cached(
                "SELECT a.data FROM watch_article_urls u JOIN watch_articles a ON a.id = u.article_id \
                 WHERE u.url = ?1",
            )
            .map_err(db_err)?
            .query_row([canonical_url], |r| r.get(0))
            .optional()
            .map_err(db_err)
        })?;
        raw.as_deref().map(from_json).transpose()
    }

    async fn article(&self, id: &str) -> Result<Option<Article>> {
        let raw: Option<String> = self.db.read(|c| {
            c.prepare_cached("SELECT data FROM watch_articles WHERE id = ?1")
                .map_err(db_err)?
                .query_row([id], |r| r.get(0))
                .optional()
                .map_err(db_err)
        })?;
        raw.as_deref().map(from_json).transpose()
    }

    async fn put_article(&self, a: &Article) -> Result<()> {
        let data = to_json(a)?;
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            tx.execute(
                "INSERT INTO watch_articles(id, source, validated, processed_at, data) \
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(id) DO UPDATE SET \
                 source = excluded.source, validated = excluded.validated, \
                 processed_at = excluded.processed_at, data = excluded.data",
                params![a.id, a.source, a.phi_validated, ms(a.processed_at), data],
            )
            .map_err(db_err)?;
            tx.execute(
                "DELETE FROM watch_article_urls WHERE article_id = ?1",
                [&a.id],
            )
            .map_err(db_err)?;
            tx.execute(
                "DELETE FROM watch_simhash_blocks WHERE article_id = ?1",
                [&a.id],
            )
            .map_err(db_err)?;
            for url in a.all_urls() {
                // A URL belongs to one article: the latest writer takes it.
                tx.execute(
                    "INSERT INTO watch_article_urls(url, article_id) VALUES (?1, ?2) \
                     ON CONFLICT(url) DO UPDATE SET article_id = excluded.article_id",
                    params![url, a.id],
                )
                .map_err(db_err)?;
            }
            if let Some(h) = a.simhash {
                insert_blocks(&tx, &a.id, h)?;
            }
            tx.commit().map_err(db_err)
        })
    }

    async fn near_duplicates(&self, simhash: u64, max_distance: u32) -> Result<Vec<Article>> {
        let max = max_distance.min(SIMHASH_MAX_DISTANCE);
        let probes = simhash_probes(simhash);
        self.db.read(|c| {
            // One indexed lookup per block (its value and one-bit variants):
            // ~N / 1,000 rows, each carrying the full hash.
            let ids: Vec<String> = {
                let marks = vec!["?"; 17].join(", ");
                let mut stmt = c
                    .prepare_cached(&format!(
                        "SELECT article_id, simhash FROM watch_simhash_blocks \
                         WHERE block = ? AND value IN ({marks})"
                    ))
                    .map_err(db_err)?;
                let mut ids = Vec::new();
                for block in probes.chunks(17) {
                    let mut args: Vec<i64> = Vec::with_capacity(18);
                    args.push(block.first().map_or(0, |p| i64::from(p.0)));
                    args.extend(block.iter().map(|p| i64::from(p.1)));
                    let rows = stmt
                        .query_map(rusqlite::params_from_iter(args), |r| {
                            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                        })
                        .map_err(db_err)?;
                    for row in rows {
                        let (id, h) = row.map_err(db_err)?;
                        if (h as u64 ^ simhash).count_ones() <= max && !ids.contains(&id) {
                            ids.push(id);
                        }
                    }
                }
                ids
            };
            let mut stmt = c
                .prepare_cached("SELECT data FROM watch_articles WHERE id = ?1")
                .map_err(db_err)?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                let raw: Option<String> = stmt
                    .query_row([&id], |r| r.get(0))
                    .optional()
                    .map_err(db_err)?;
                if let Some(raw) = raw {
                    out.push(from_json(&raw)?);
                }
            }
            Ok(out)
        })
    }

    async fn articles(&self, f: &ArticleFilter) -> Result<Vec<Article>> {
        self.db.read(|c| {
            let mut stmt = c
                .prepare_cached(
                    "SELECT data FROM watch_articles WHERE processed_at >= ?1 \
                     AND (?2 IS NULL OR source = ?2) AND (?3 = 0 OR validated = 1) \
                     ORDER BY processed_at DESC, id LIMIT ?4",
                )
                .map_err(db_err)?;
            rows(
                &mut stmt,
                params![
                    f.since.map(ms).unwrap_or(i64::MIN),
                    f.source,
                    f.validated_only,
                    to_i64(f.limit)
                ],
            )
        })
    }

    async fn article_count(&self) -> Result<usize> {
        self.db.read(|c| {
            c.query_row("SELECT count(*) FROM watch_articles", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(db_err)
        })
    }

    async fn append_decision(&self, d: &Decision) -> Result<()> {
        let data = to_json(d)?;
        self.db.write(|c| {
            let n = c
                .execute(
                    "INSERT OR IGNORE INTO watch_decisions(id, article_id, created_at, data) \
                     VALUES (?1, ?2, ?3, ?4)",
                    params![d.id, d.article_id, ms(d.created_at), data],
                )
                .map_err(db_err)?;
            if n == 0 {
                return Err(Error::from(StoreError::Backend(format!(
                    "decision `{}` is already logged (the log is append-only)",
                    d.id
                ))));
            }
            Ok(())
        })
    }

    async fn decisions(&self, f: &DecisionFilter) -> Result<Vec<Decision>> {
        let mut out: Vec<Decision> = self.db.read(|c| {
            let mut stmt = c
                .prepare_cached(
                    "SELECT data FROM watch_decisions WHERE (?1 IS NULL OR article_id = ?1) \
                     AND created_at >= ?2 AND created_at < ?3 \
                     ORDER BY created_at DESC, seq DESC LIMIT ?4",
                )
                .map_err(db_err)?;
            rows(
                &mut stmt,
                params![
                    f.article_id,
                    f.since.map(ms).unwrap_or(i64::MIN),
                    f.until.map(ms).unwrap_or(i64::MAX),
                    to_i64(f.limit)
                ],
            )
        })?;
        out.reverse();
        Ok(out)
    }
}
