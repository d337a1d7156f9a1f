//! Writes: upsert and delete, transactional per batch, applied to the
//! lexical and dense indexes under their locks across the commit.

use std::sync::atomic::Ordering;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use verity_core::validate::validate_batch;
use verity_core::{IndexedDocument, Result, UpsertReport};

use super::catalog::index_embedder;
use super::{json_err, to_i64, Inner};
use crate::db::db_err;
use crate::hnsw::DenseIndex;
use crate::lexical::{DeletedRows, Delta};
use crate::vector_keys;

impl Inner {
    pub(super) fn upsert_sync(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        let mut report = UpsertReport::default();
        if docs.is_empty() {
            return Ok(report);
        }
        let mut removed: Vec<u64> = Vec::new();
        let mut added: Vec<(u64, Vec<f32>)> = Vec::new();
        let started = std::time::Instant::now();
        let (new_embedder, mut dense) = self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let current = index_embedder(&tx, self.index_id)?;
            let emb = validate_batch(&docs, current.as_ref(), &self.index_name, true)?;
            let lex = match self.lexical_accelerator() {
                Some(acc) if acc.in_sync(&tx)? => Some(acc),
                _ => None,
            };
            let mut delta = Delta::default();
            let mut deleted = DeletedRows::default();
            let new_embedder = if current.is_none() { emb.clone() } else { None };
            if let Some(e) = &new_embedder {
                tx.execute(
                    "UPDATE indexes SET embedder_model = ?1, embed_version = ?2, dim = ?3 WHERE id = ?4",
                    params![e.model, e.version, to_i64(e.dim), self.index_id],
                )
                .map_err(db_err)?;
            }
            {
                let mut find = tx
                    .prepare_cached("SELECT id, content_hash, embed_version, chunking FROM documents WHERE index_id = ?1 AND uid = ?2")
                    .map_err(db_err)?;
                let mut old_chunks = tx.prepare_cached("SELECT id FROM chunks WHERE doc_id = ?1").map_err(db_err)?;
                let mut del_fts = tx.prepare_cached("DELETE FROM chunks_fts WHERE rowid = ?1").map_err(db_err)?;
                let mut del_chunks = tx.prepare_cached("DELETE FROM chunks WHERE doc_id = ?1").map_err(db_err)?;
                let mut upd_doc = tx
                    .prepare_cached(
                        "UPDATE documents SET source = ?2, ts = ?3, lang = ?4, title = ?5, url = ?6, tags = ?7, \
                         metadata = ?8, content = ?9, content_hash = ?10, embed_version = ?11, n_chunks = ?12, chunking = ?13 WHERE id = ?1",
                    )
                    .map_err(db_err)?;
                let mut ins_doc = tx
                    .prepare_cached(
                        "INSERT INTO documents(index_id, uid, source, ts, lang, title, url, tags, metadata, content, \
                         content_hash, embed_version, n_chunks, chunking) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                    )
                    .map_err(db_err)?;
                let mut ins_chunk = tx
                    .prepare_cached(
                        "INSERT INTO chunks(doc_id, idx, text, start, end, heading_path, token_count, vector) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )
                    .map_err(db_err)?;
                let mut ins_fts = tx
                    .prepare_cached("INSERT INTO chunks_fts(rowid, title, heading, text) VALUES (?1, ?2, ?3, ?4)")
                    .map_err(db_err)?;
                for d in &docs {
                    let doc = &d.document;
                    let ev = d.embeddings.as_ref().and_then(|_| d.embedder.as_ref().map(|e| e.version.clone()));
                    let existing: Option<(i64, String, Option<String>, Option<String>)> = find
                        .query_row(params![self.index_id, doc.uid], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                        })
                        .optional()
                        .map_err(db_err)?;
                    let tags = serde_json::to_string(&doc.tags).map_err(json_err)?;
                    let metadata = serde_json::to_string(&doc.metadata).map_err(json_err)?;
                    let ts = doc.ts.map(|t| t.timestamp_millis());
                    let n = to_i64(d.chunks.len());
                    let doc_id = match existing {
                        Some((_, ref h, ref e, ref c)) if *h == d.content_hash && *e == ev && *c == d.chunking => {
                            report.unchanged += 1;
                            continue;
                        }
                        Some((id, _, _, _)) => {
                            let ids: Vec<i64> = old_chunks
                                .query_map([id], |r| r.get(0))
                                .map_err(db_err)?
                                .collect::<rusqlite::Result<_>>()
                                .map_err(db_err)?;
                            for cid in ids {
                                deleted.record(&tx, cid)?;
                                del_fts.execute([cid]).map_err(db_err)?;
                                removed.push(cid as u64);
                            }
                            del_chunks.execute([id]).map_err(db_err)?;
                            upd_doc
                                .execute(params![
                                    id,
                                    doc.source,
                                    ts,
                                    doc.lang,
                                    doc.title,
                                    doc.url,
                                    tags,
                                    metadata,
                                    doc.content,
                                    d.content_hash,
                                    ev,
                                    n,
                                    d.chunking
                                ])
                                .map_err(db_err)?;
                            report.replaced += 1;
                            id
                        }
                        None => {
                            ins_doc
                                .execute(params![
                                    self.index_id,
                                    doc.uid,
                                    doc.source,
                                    ts,
                                    doc.lang,
                                    doc.title,
                                    doc.url,
                                    tags,
                                    metadata,
                                    doc.content,
                                    d.content_hash,
                                    ev,
                                    n,
                                    d.chunking
                                ])
                                .map_err(db_err)?;
                            report.inserted += 1;
                            tx.last_insert_rowid()
                        }
                    };
                    let title = doc.title.as_deref().unwrap_or("");
                    for (i, ch) in d.chunks.iter().enumerate() {
                        // The chunk's own vector, then its sentences', in one BLOB.
                        let vectors: Vec<&Vec<f32>> = match d.embeddings.as_ref().and_then(|v| v.get(i)) {
                            Some(v) => std::iter::once(v)
                                .chain(
                                    d.sentence_embeddings
                                        .as_ref()
                                        .and_then(|s| s.get(i))
                                        .into_iter()
                                        .flatten(),
                                )
                                .collect(),
                            None => Vec::new(),
                        };
                        let blob = (!vectors.is_empty()).then(|| {
                            vectors
                                .iter()
                                .flat_map(|v| verity_core::cache::vector_to_bytes(v))
                                .collect::<Vec<u8>>()
                        });
                        let heading = serde_json::to_string(&ch.heading_path).map_err(json_err)?;
                        ins_chunk
                            .execute(params![
                                doc_id,
                                i64::from(ch.index),
                                ch.text,
                                to_i64(ch.start),
                                to_i64(ch.end),
                                heading,
                                i64::from(ch.token_count),
                                blob
                            ])
                            .map_err(db_err)?;
                        let cid = tx.last_insert_rowid();
                        let heading = ch.heading_path.join(" / ");
                        ins_fts.execute(params![cid, title, heading, ch.text]).map_err(db_err)?;
                        if lex.is_some() {
                            delta.added.push((cid, title.to_string(), heading, ch.text.clone()));
                        }
                        for (n, v) in vectors.into_iter().enumerate() {
                            added.push((vector_keys::key(cid, n), v.clone()));
                        }
                        report.chunks += 1;
                    }
                }
            }
            // Only a write that changes something moves the generation (and
            // with it the caches' keys and the dense dump's stamp).
            if report.inserted + report.replaced > 0 || new_embedder.is_some() {
                tx.execute("UPDATE indexes SET generation = generation + 1 WHERE id = ?1", [self.index_id])
                    .map_err(db_err)?;
            }
            // The lexical index is updated from the uncommitted write and its lock
            // held across the commit (dropped if the commit fails).
            deleted.settle(&tx)?;
            delta.removed = removed.iter().map(|&id| id as i64).collect();
            let mut lex_guard = lex.map(|acc| acc.apply(&tx, &delta));
            // Take the dense index's lock before the commit, so that a dense
            // search never sees ids that SQLite does not have yet, and keep it
            // until the vectors are in.
            let dense = self.dense.write();
            if let Err(e) = tx.commit() {
                if let Some(g) = lex_guard.as_mut() {
                    **g = None;
                }
                return Err(db_err(e));
            }
            drop(lex_guard);
            if let Some(e) = &new_embedder {
                *self.embedder.write() = Some(e.clone());
            }
            Ok((new_embedder, dense))
        })?;
        // The SQLite writer is free again (the next batch's cache writes and
        // transaction need not wait for the graph): HNSW insertion is most of
        // an ingest's CPU (84 % of a SciFact ingest with an instant embedder,
        // docs/benchmarks.d/ingest.md).
        let committed = started.elapsed();
        if let Some(e) = &new_embedder {
            if dense.is_none() {
                *dense = Some(DenseIndex::new(e.dim, self.opts.hnsw, 1024));
            }
        }
        let mut points = 0;
        if let Some(idx) = dense.as_mut() {
            for id in &removed {
                vector_keys::remove_chunk(idx, *id as i64);
            }
            // Vectors were validated before the commit; a failure here leaves
            // SQLite right and the cache stale, so rebuild it at next open.
            if let Err(e) = idx.insert_batch(&added) {
                tracing::error!(error = %e, "dense index update failed; it will be rebuilt from SQLite");
                *dense = None;
                return Err(e);
            }
            if idx.needs_rebuild() {
                idx.rebuild()?;
            }
            points = idx.points();
        }
        drop(dense);
        if new_embedder.is_some() || !added.is_empty() || !removed.is_empty() {
            self.dense_dirty.store(true, Ordering::SeqCst);
        }
        tracing::debug!(
            docs = docs.len(),
            chunks = report.chunks,
            vectors = added.len(),
            dense_points = points,
            sqlite_ms = committed.as_secs_f64() * 1e3,
            dense_ms = started.elapsed().saturating_sub(committed).as_secs_f64() * 1e3,
            "store upsert"
        );
        Ok(report)
    }

    pub(super) fn delete_sync(&self, uids: &[String]) -> Result<usize> {
        let mut removed: Vec<u64> = Vec::new();
        let mut count = 0;
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            let lex = match self.lexical_accelerator() {
                Some(acc) if acc.in_sync(&tx)? => Some(acc),
                _ => None,
            };
            let mut deleted = DeletedRows::default();
            {
                let mut find = tx
                    .prepare_cached("SELECT id FROM documents WHERE index_id = ?1 AND uid = ?2")
                    .map_err(db_err)?;
                let mut chunks = tx
                    .prepare_cached("SELECT id FROM chunks WHERE doc_id = ?1")
                    .map_err(db_err)?;
                for uid in uids {
                    let Some(id): Option<i64> = find
                        .query_row(params![self.index_id, uid], |r| r.get(0))
                        .optional()
                        .map_err(db_err)?
                    else {
                        continue;
                    };
                    let ids: Vec<i64> = chunks
                        .query_map([id], |r| r.get(0))
                        .map_err(db_err)?
                        .collect::<rusqlite::Result<_>>()
                        .map_err(db_err)?;
                    for cid in ids {
                        deleted.record(&tx, cid)?;
                        tx.execute("DELETE FROM chunks_fts WHERE rowid = ?1", [cid])
                            .map_err(db_err)?;
                        removed.push(cid as u64);
                    }
                    tx.execute("DELETE FROM chunks WHERE doc_id = ?1", [id])
                        .map_err(db_err)?;
                    tx.execute("DELETE FROM documents WHERE id = ?1", [id])
                        .map_err(db_err)?;
                    count += 1;
                }
            }
            if count > 0 {
                tx.execute(
                    "UPDATE indexes SET generation = generation + 1 WHERE id = ?1",
                    [self.index_id],
                )
                .map_err(db_err)?;
            }
            deleted.settle(&tx)?;
            let delta = Delta {
                removed: removed.iter().map(|&id| id as i64).collect(),
                added: Vec::new(),
            };
            let mut lex_guard = lex.map(|acc| acc.apply(&tx, &delta));
            let mut dense = self.dense.write();
            if let Err(e) = tx.commit() {
                if let Some(g) = lex_guard.as_mut() {
                    **g = None;
                }
                return Err(db_err(e));
            }
            drop(lex_guard);
            if let Some(idx) = dense.as_mut() {
                for id in &removed {
                    vector_keys::remove_chunk(idx, *id as i64);
                }
            }
            Ok(())
        })?;
        if !removed.is_empty() {
            self.dense_dirty.store(true, Ordering::SeqCst);
        }
        Ok(count)
    }
}
