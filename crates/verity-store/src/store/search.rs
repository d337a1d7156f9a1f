//! Reads: lexical (in-memory BM25 or FTS5), dense and hybrid search with
//! filters; `get`, fingerprints and stats.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use rusqlite::types::Value as SqlValue;
use rusqlite::{params, Connection, OptionalExtension};
use verity_core::rank::{fuse, relevance, QueryTerms};
use verity_core::validate::{candidate_depth, validate_query};
use verity_core::{
    Chunk, Document, DocumentMeta, Fingerprint, Result, ScoredChunk, SearchMode, SearchQuery,
    StoreStats,
};

use super::{json_err, ms_to_dt, to_i64, to_usize, Inner};
use crate::db::{db_err, in_snapshot};
use crate::filter_sql::filters_to_sql;
use crate::fts::{query_words, words_expression};

/// Chunk ids with their scores, best first.
type Ranked = Vec<(i64, f32)>;

impl Inner {
    pub(super) fn fingerprints_sync(
        &self,
        uids: &[String],
    ) -> Result<HashMap<String, Fingerprint>> {
        self.db.read(|c| {
            let mut st = c
                .prepare_cached(
                    "SELECT content_hash, embed_version, chunking FROM documents WHERE index_id = ?1 AND uid = ?2",
                )
                .map_err(db_err)?;
            let mut out = HashMap::new();
            for uid in uids {
                let fp = st
                    .query_row(params![self.index_id, uid], |r| {
                        Ok(Fingerprint { content_hash: r.get(0)?, embed_version: r.get(1)?, chunking: r.get(2)? })
                    })
                    .optional()
                    .map_err(db_err)?;
                if let Some(fp) = fp {
                    out.insert(uid.clone(), fp);
                }
            }
            Ok(out)
        })
    }

    pub(super) fn get_sync(&self, uid: &str) -> Result<Option<Document>> {
        self.db.read(|c| {
            let sql = format!("SELECT {DOC_META_COLS}, d.content FROM documents d WHERE d.index_id = ?1 AND d.uid = ?2");
            let row = c
                .query_row(&sql, params![self.index_id, uid], |r| Ok((doc_meta(r, 0)?, r.get::<_, String>(8)?)))
                .optional()
                .map_err(db_err)?;
            let Some((meta, content)) = row else { return Ok(None) };
            let m = finish_meta(meta)?;
            Ok(Some(Document {
                uid: m.uid,
                source: m.source,
                ts: m.ts,
                lang: m.lang,
                title: m.title,
                content,
                tags: m.tags,
                url: m.url,
                metadata: m.metadata,
            }))
        })
    }

    pub(super) fn stats_sync(&self) -> Result<StoreStats> {
        let (documents, chunks, vectors, size) = self.db.read(|c| {
            let (d, ch, v): (i64, i64, i64) = c
                .query_row(
                    "SELECT (SELECT count(*) FROM documents WHERE index_id = ?1), \
                     (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1), \
                     (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1 AND c.vector IS NOT NULL)",
                    [self.index_id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .map_err(db_err)?;
            let size: i64 = c
                .query_row("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", [], |r| r.get(0))
                .map_err(db_err)?;
            Ok((d, ch, v, size))
        })?;
        Ok(StoreStats {
            backend: "sqlite".into(),
            index: self.index_name.clone(),
            documents: to_usize(documents),
            chunks: to_usize(chunks),
            vectors: to_usize(vectors),
            embedder: self.embedder.read().clone(),
            size_bytes: Some(size as u64),
        })
    }

    /// Lexical candidates: `(chunk id, positive BM25)`, best first.
    pub(super) fn lexical(
        &self,
        c: &Connection,
        q: &SearchQuery,
        limit: usize,
    ) -> Result<Vec<(i64, f32)>> {
        let words = query_words(&q.text, self.opts.drop_stopwords);
        if words.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(acc) = self.lexical_accelerator() {
            match acc.current(c)? {
                Some(index) => {
                    // `None`: a word is not exactly one FTS5 token (FTS5 would
                    // match it as a phrase); leave that query to FTS5.
                    if let Some(terms) = acc.query_terms(&words)? {
                        let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
                        let allowed = self.allowed_ids(c, q, false)?;
                        let accept = allowed.as_ref().map(|set| {
                            move |id: i64| u64::try_from(id).is_ok_and(|id| set.contains(&id))
                        });
                        let hits = index.top_k(
                            &terms,
                            limit,
                            accept.as_ref().map(|f| f as &dyn Fn(i64) -> bool),
                        );
                        acc.served();
                        return Ok(hits.into_iter().map(|(id, s)| (id, s as f32)).collect());
                    }
                }
                None => self.lexical_stale.store(true, Ordering::SeqCst),
            }
        }
        self.lexical_fts5(c, q, &words, limit)
    }

    /// Lexical candidates ranked by FTS5 itself (`bm25()`).
    pub(super) fn lexical_fts5(
        &self,
        c: &Connection,
        q: &SearchQuery,
        words: &[String],
        limit: usize,
    ) -> Result<Vec<(i64, f32)>> {
        let Some(expr) = words_expression(words) else {
            return Ok(Vec::new());
        };
        // Fast path: without filters and with a single index in the database,
        // FTS5 ranks and cuts by itself (`ORDER BY rank LIMIT`), which avoids
        // joining every matching row.
        if q.filters.is_empty() {
            let n_indexes: i64 = c
                .query_row("SELECT count(*) FROM indexes", [], |r| r.get(0))
                .map_err(db_err)?;
            if n_indexes == 1 {
                let rank = format!(
                    "bm25({}, {}, {})",
                    self.opts.title_weight, self.opts.heading_weight, self.opts.text_weight
                );
                let mut st = c
                    .prepare_cached(
                        "SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ?1 AND rank MATCH ?2 \
                         ORDER BY rank LIMIT ?3",
                    )
                    .map_err(db_err)?;
                let rows = st
                    .query_map(params![expr, rank, to_i64(limit)], |r| {
                        Ok((r.get::<_, i64>(0)?, -(r.get::<_, f64>(1)? as f32)))
                    })
                    .map_err(db_err)?;
                return rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err);
            }
        }
        let pred = filters_to_sql(&q.filters);
        let sql = format!(
            "SELECT chunks_fts.rowid, bm25(chunks_fts, ?, ?, ?) AS s FROM chunks_fts \
             JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.doc_id \
             WHERE chunks_fts MATCH ? AND d.index_id = ? AND {} ORDER BY s, chunks_fts.rowid LIMIT ?",
            pred.sql
        );
        let mut params: Vec<SqlValue> = vec![
            SqlValue::Real(f64::from(self.opts.title_weight)),
            SqlValue::Real(f64::from(self.opts.heading_weight)),
            SqlValue::Real(f64::from(self.opts.text_weight)),
            SqlValue::Text(expr),
            SqlValue::Integer(self.index_id),
        ];
        params.extend(pred.params);
        params.push(SqlValue::Integer(to_i64(limit)));
        let mut st = c.prepare_cached(&sql).map_err(db_err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(params), |r| {
                Ok((r.get::<_, i64>(0)?, -(r.get::<_, f64>(1)? as f32)))
            })
            .map_err(db_err)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err)
    }

    /// Chunk ids of the bound index allowed by the filters (`None`: no filter).
    pub(super) fn allowed_ids(
        &self,
        c: &Connection,
        q: &SearchQuery,
        with_vector: bool,
    ) -> Result<Option<HashSet<u64>>> {
        if q.filters.is_empty() {
            return Ok(None);
        }
        let pred = filters_to_sql(&q.filters);
        let sql = format!(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ? {} AND {}",
            if with_vector { "AND c.vector IS NOT NULL" } else { "" },
            pred.sql
        );
        let mut params = vec![SqlValue::Integer(self.index_id)];
        params.extend(pred.params);
        let mut st = c.prepare_cached(&sql).map_err(db_err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(params), |r| r.get::<_, i64>(0))
            .map_err(db_err)?;
        let mut set = HashSet::new();
        for r in rows {
            set.insert(r.map_err(db_err)? as u64);
        }
        Ok(Some(set))
    }

    /// Both candidate lists of a hybrid search, `depth` each. The dense
    /// ranking needs no connection: it runs on a rayon worker while this
    /// thread ranks lexically, so the two overlap on a multi-core machine.
    fn hybrid_candidates(
        &self,
        c: &Connection,
        q: &SearchQuery,
        depth: usize,
    ) -> Result<(Ranked, Ranked)> {
        let Some(v) = q.vector.as_deref() else {
            return Ok((self.lexical(c, q, depth)?, Vec::new()));
        };
        self.check_query_vector(v)?;
        let allowed = self.allowed_ids(c, q, true)?;
        let mut dense = None;
        let lex = rayon::in_place_scope(|s| {
            s.spawn(|_| dense = self.try_dense_ranked(v, depth, allowed.as_ref()));
            self.lexical(c, q, depth)
        });
        let lex = lex?;
        // A write held a lock: rank here, where waiting for it is harmless.
        let dense = match dense {
            Some(d) => d?,
            None => self.dense_ranked(v, depth, allowed.as_ref())?,
        };
        Ok((lex, dense))
    }

    pub(super) fn search_sync(&self, q: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        validate_query(q, self.embedder.read().as_ref())?;
        if q.k == 0 {
            return Ok(Vec::new());
        }
        let terms = QueryTerms::new(&q.text);
        let out = self.db.read(|c| {
            in_snapshot(c, |tx| {
                let depth = candidate_depth(q.k);
                let ranked: Vec<(i64, f32, Option<f32>, Option<f32>)> = match q.mode {
                    SearchMode::Lexical => self
                        .lexical(tx, q, q.k)?
                        .into_iter()
                        .map(|(id, s)| (id, s, Some(s), None))
                        .collect(),
                    SearchMode::Dense => {
                        let v = q.vector.as_deref().unwrap_or(&[]);
                        self.dense_candidates(tx, q, v, q.k)?
                            .into_iter()
                            .map(|(id, s)| (id, s, None, Some(s)))
                            .collect()
                    }
                    SearchMode::Hybrid => {
                        let (lex, dense) = self.hybrid_candidates(tx, q, depth)?;
                        let lex_map: HashMap<i64, f32> = lex.iter().copied().collect();
                        let dense_map: HashMap<i64, f32> = dense.iter().copied().collect();
                        let as_str = |l: &[(i64, f32)]| {
                            l.iter()
                                .map(|(id, s)| (id.to_string(), *s))
                                .collect::<Vec<_>>()
                        };
                        fuse(&as_str(&lex), &as_str(&dense), q.fusion)
                            .into_iter()
                            .filter_map(|(id, s)| id.parse::<i64>().ok().map(|id| (id, s)))
                            .take(q.k)
                            .map(|(id, s)| {
                                (
                                    id,
                                    s,
                                    lex_map.get(&id).copied(),
                                    dense_map.get(&id).copied(),
                                )
                            })
                            .collect()
                    }
                };
                let ids: Vec<i64> = ranked.iter().map(|r| r.0).collect();
                let mut rows = hydrate(tx, &ids)?;
                let mut out = Vec::with_capacity(ranked.len());
                for (id, score, lexical, dense) in ranked {
                    let Some((chunk, doc)) = rows.remove(&id) else {
                        continue;
                    };
                    let relevance =
                        relevance(q.mode, &terms, dense, doc.title.as_deref(), &chunk.text);
                    out.push(ScoredChunk {
                        chunk,
                        doc,
                        score,
                        relevance,
                        lexical,
                        dense,
                        freshness: None,
                    });
                }
                Ok(out)
            })
        });
        self.refresh_lexical();
        out
    }
}

const DOC_META_COLS: &str = "d.uid, d.source, d.ts, d.lang, d.title, d.url, d.tags, d.metadata";

fn doc_meta(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<(DocumentMeta, String, String)> {
    let ts: Option<i64> = r.get(at + 2)?;
    Ok((
        DocumentMeta {
            uid: r.get(at)?,
            source: r.get(at + 1)?,
            ts: ts.and_then(ms_to_dt),
            lang: r.get(at + 3)?,
            title: r.get(at + 4)?,
            url: r.get(at + 5)?,
            tags: Vec::new(),
            metadata: serde_json::Map::new(),
        },
        r.get(at + 6)?,
        r.get(at + 7)?,
    ))
}

fn finish_meta((mut m, tags, meta): (DocumentMeta, String, String)) -> Result<DocumentMeta> {
    m.tags = serde_json::from_str(&tags).map_err(json_err)?;
    m.metadata = serde_json::from_str(&meta).map_err(json_err)?;
    Ok(m)
}

/// Load chunks and their document metadata by chunk id.
fn hydrate(c: &Connection, ids: &[i64]) -> Result<HashMap<i64, (Chunk, DocumentMeta)>> {
    let mut out = HashMap::with_capacity(ids.len());
    for batch in ids.chunks(500) {
        let sql = format!(
            "SELECT c.id, c.idx, c.text, c.start, c.end, c.heading_path, c.token_count, {DOC_META_COLS} \
             FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN ({})",
            vec!["?"; batch.len()].join(", ")
        );
        let mut st = c.prepare_cached(&sql).map_err(db_err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(batch.iter()), |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                    doc_meta(r, 7)?,
                ))
            })
            .map_err(db_err)?;
        for row in rows {
            let (id, idx, text, start, end, heading, tokens, meta) = row.map_err(db_err)?;
            let meta = finish_meta(meta)?;
            let index = u32::try_from(idx).unwrap_or(0);
            let chunk = Chunk {
                id: Chunk::make_id(&meta.uid, index),
                doc_uid: meta.uid.clone(),
                index,
                text,
                start: to_usize(start),
                end: to_usize(end),
                heading_path: serde_json::from_str(&heading).map_err(json_err)?,
                token_count: u32::try_from(tokens).unwrap_or(0),
            };
            out.insert(id, (chunk, meta));
        }
    }
    Ok(out)
}
