//! Writes: one Lua script per document (a reader never sees half a
//! document), pipelined per batch; the document JSON layout.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use redis::Value;
use serde_json::json;
use verity_core::cache::{embed_hash_key, embed_hash_value, vector_to_bytes};
use verity_core::hash::sha1_hex;
use verity_core::validate::validate_batch;
use verity_core::{
    Chunk, Document, EmbedderId, Error, Fingerprint, IndexedDocument, Result, StoreError,
    UpsertReport, VectorStore,
};

use super::keys::{chunk_prefix, doc_key, meta_key};
use super::{backend, RedisStore};
use crate::conn::{as_i64, as_string, bad_reply, map_err};
use crate::query::{lang_key, metadata_pair, TAG_SEPARATOR};
use crate::scripts;

impl RedisStore {
    pub(super) fn chunk_fields(
        &self,
        d: &IndexedDocument,
        i: usize,
        ch: &Chunk,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let doc = &d.document;
        let sep = TAG_SEPARATOR.to_string();
        let mut f: Vec<(String, Vec<u8>)> = vec![
            ("uid".into(), doc.uid.clone().into_bytes()),
            ("idx".into(), ch.index.to_string().into_bytes()),
            ("text".into(), ch.text.clone().into_bytes()),
            (
                "title".into(),
                doc.title.clone().unwrap_or_default().into_bytes(),
            ),
            ("heading".into(), ch.heading_path.join(" / ").into_bytes()),
            (
                "heading_json".into(),
                serde_json::to_vec(&ch.heading_path).map_err(|e| backend(e.to_string()))?,
            ),
            ("start".into(), ch.start.to_string().into_bytes()),
            ("end".into(), ch.end.to_string().into_bytes()),
            ("tokens".into(), ch.token_count.to_string().into_bytes()),
            ("source".into(), doc.source.clone().into_bytes()),
            (
                "tags_json".into(),
                serde_json::to_vec(&doc.tags).map_err(|e| backend(e.to_string()))?,
            ),
            (
                "meta".into(),
                serde_json::to_vec(&doc.metadata).map_err(|e| backend(e.to_string()))?,
            ),
        ];
        if let Some(l) = &doc.lang {
            f.push(("lang".into(), lang_key(l).into_bytes()));
            f.push(("lang_raw".into(), l.clone().into_bytes()));
        }
        if let Some(ts) = doc.ts {
            f.push(("ts".into(), ts.timestamp_millis().to_string().into_bytes()));
        }
        if let Some(u) = &doc.url {
            f.push(("url".into(), u.clone().into_bytes()));
        }
        if !doc.tags.is_empty() {
            f.push(("tags".into(), doc.tags.join(&sep).into_bytes()));
        }
        let pairs: Vec<String> = doc
            .metadata
            .iter()
            .filter_map(|(k, v)| metadata_pair(k, v))
            .collect();
        if !pairs.is_empty() {
            f.push(("mkv".into(), pairs.join(&sep).into_bytes()));
        }
        if let Some(v) = d.embeddings.as_ref().and_then(|e| e.get(i)) {
            f.push(("vec".into(), vector_to_bytes(v)));
        }
        Ok(f)
    }

    pub(super) fn check_batch(&self, docs: &[IndexedDocument]) -> Result<Option<EmbedderId>> {
        let current = self.embedder.read().clone();
        validate_batch(
            docs,
            current.as_ref(),
            &self.index,
            self.supports_sentence_vectors(),
        )
    }

    pub(super) async fn doc_metas(
        &self,
        uids: &[String],
    ) -> Result<Vec<Option<serde_json::Value>>> {
        if uids.is_empty() {
            return Ok(Vec::new());
        }
        let mut cmd = redis::cmd("JSON.MGET");
        for u in uids {
            cmd.arg(doc_key(&self.index, u));
        }
        cmd.arg("$.meta");
        let reply = self.run(&cmd, "JSON.MGET").await?;
        let Value::Array(items) = reply else {
            return Err(bad_reply("JSON.MGET"));
        };
        items
            .iter()
            .map(|v| match as_string(v) {
                None => Ok(None),
                Some(s) => {
                    let arr: serde_json::Value = serde_json::from_str(&s)
                        .map_err(|e| StoreError::Corrupt(format!("document meta: {e}")))?;
                    Ok(arr.get(0).cloned())
                }
            })
            .collect()
    }

    pub(super) async fn fingerprints_impl(
        &self,
        uids: &[String],
    ) -> Result<HashMap<String, Fingerprint>> {
        let mut out = HashMap::new();
        for batch in uids.chunks(500) {
            let metas = self.doc_metas(batch).await?;
            for (uid, m) in batch.iter().zip(metas) {
                let Some(m) = m else { continue };
                let Some(h) = m.get("content_hash").and_then(|x| x.as_str()) else {
                    continue;
                };
                let ev = m
                    .get("embed_version")
                    .and_then(|x| x.as_str())
                    .map(str::to_string);
                let chunking = m
                    .get("chunking")
                    .and_then(|x| x.as_str())
                    .map(str::to_string);
                out.insert(
                    uid.clone(),
                    Fingerprint {
                        content_hash: h.to_string(),
                        embed_version: ev,
                        chunking,
                    },
                );
            }
        }
        Ok(out)
    }

    pub(super) async fn upsert_impl(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        let mut report = UpsertReport::default();
        if docs.is_empty() {
            return Ok(report);
        }
        let emb = self.check_batch(&docs)?;
        if docs.iter().any(|d| d.embeddings.is_some()) {
            if let Some(e) = &emb {
                self.claim_embedder(e).await?;
            }
        }
        let mut con = self.con.clone();
        // Scripts are lost when the server restarts: load (idempotent) before each batch.
        let _: String = redis::cmd("SCRIPT")
            .arg("LOAD")
            .arg(scripts::UPSERT)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "SCRIPT LOAD"))?;
        let mut pipe = redis::pipe();
        let prefix = chunk_prefix(&self.index);
        let meta = meta_key(&self.index);
        let mut chunk_counts = Vec::with_capacity(docs.len());
        for d in &docs {
            let ev = d
                .embeddings
                .as_ref()
                .and_then(|_| d.embedder.as_ref().map(|e| e.version.clone()));
            let n_vec = d.embeddings.as_ref().map_or(0, Vec::len);
            let body = serde_json::to_string(&document_json(d, n_vec, ev.as_deref()))
                .map_err(|e| backend(e.to_string()))?;
            let (hk, hv) = if self.opts.embed_hash_keys {
                (
                    embed_hash_key(&d.document.uid),
                    embed_hash_value(
                        &sha1_hex(d.document.content.as_bytes()),
                        ev.as_deref().unwrap_or(""),
                    ),
                )
            } else {
                (String::new(), String::new())
            };
            let mut inv = self
                .upsert_script
                .key(doc_key(&self.index, &d.document.uid));
            inv.key(&meta)
                .arg(&prefix)
                .arg(&d.document.uid)
                .arg(&d.content_hash)
                .arg(ev.as_deref().unwrap_or(""))
                .arg(body)
                .arg(hk)
                .arg(hv)
                .arg(d.chunks.len())
                .arg(n_vec)
                .arg(d.chunking.as_deref().unwrap_or(""));
            let mut hashes: Vec<(String, Fields)> = Vec::new();
            for (i, ch) in d.chunks.iter().enumerate() {
                let fields = self.chunk_fields(d, i, ch)?;
                let sentences = sentence_vectors(d, i);
                for (j, v) in sentences.iter().enumerate() {
                    hashes.push((format!("#{i}~{}", j + 1), sentence_fields(&fields, v)));
                }
                hashes.push((format!("#{i}"), fields));
            }
            inv.arg(hashes.len());
            for (suffix, fields) in hashes {
                inv.arg(suffix).arg(fields.len());
                for (k, v) in fields {
                    inv.arg(k).arg(v);
                }
            }
            pipe.invoke_script(&inv);
            chunk_counts.push(d.chunks.len());
        }
        let results: Vec<Value> = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "upsert"))?;
        for (r, n) in results.iter().zip(chunk_counts) {
            match as_i64(r) {
                Some(0) => report.unchanged += 1,
                Some(1) => {
                    report.inserted += 1;
                    report.chunks += n;
                }
                Some(2) => {
                    report.replaced += 1;
                    report.chunks += n;
                }
                _ => return Err(bad_reply("the upsert script")),
            }
        }
        Ok(report)
    }

    pub(super) async fn delete_impl(&self, uids: &[String]) -> Result<usize> {
        if uids.is_empty() {
            return Ok(0);
        }
        let mut con = self.con.clone();
        let _: String = redis::cmd("SCRIPT")
            .arg("LOAD")
            .arg(scripts::DELETE)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "SCRIPT LOAD"))?;
        let mut pipe = redis::pipe();
        for uid in uids {
            let mut inv = self.delete_script.key(doc_key(&self.index, uid));
            inv.key(meta_key(&self.index))
                .arg(chunk_prefix(&self.index))
                .arg(uid)
                .arg(if self.opts.embed_hash_keys {
                    embed_hash_key(uid)
                } else {
                    String::new()
                });
            pipe.invoke_script(&inv);
        }
        let results: Vec<Value> = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "delete"))?;
        Ok(results.iter().filter(|r| as_i64(r) == Some(1)).count())
    }

    pub(super) async fn get_impl(&self, uid: &str) -> Result<Option<Document>> {
        let v = self
            .run(
                redis::cmd("JSON.GET")
                    .arg(doc_key(&self.index, uid))
                    .arg("$"),
                "JSON.GET",
            )
            .await?;
        let Some(s) = as_string(&v) else {
            return Ok(None);
        };
        let arr: serde_json::Value = serde_json::from_str(&s)
            .map_err(|e| StoreError::Corrupt(format!("document JSON: {e}")))?;
        match arr.get(0) {
            Some(d) => document_from_json(d).map(Some),
            None => Ok(None),
        }
    }
}

fn document_json(
    d: &IndexedDocument,
    n_vectors: usize,
    embed_version: Option<&str>,
) -> serde_json::Value {
    let doc = &d.document;
    json!({
        "uid": doc.uid,
        "title": doc.title,
        "content": doc.content,
        "tags": doc.tags,
        "source": doc.source,
        "url": doc.url,
        "metadata": doc.metadata,
        "meta": {
            "ts": doc.ts.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
            "ts_ms": doc.ts.map(|t| t.timestamp_millis()),
            "lang": doc.lang,
            "embed_version": embed_version,
            "content_hash": d.content_hash,
            "chunking": d.chunking,
            "chunks": d.chunks.len(),
            "sentences": (0..d.chunks.len()).map(|i| sentence_vectors(d, i).len()).collect::<Vec<_>>(),
            "vectors": n_vectors,
        }
    })
}

fn document_from_json(v: &serde_json::Value) -> Result<Document> {
    let corrupt =
        |m: String| -> Error { StoreError::Corrupt(format!("document JSON: {m}")).into() };
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let meta = v.get("meta").cloned().unwrap_or(serde_json::Value::Null);
    let ts = match meta.get("ts").and_then(|x| x.as_str()) {
        Some(t) => Some(
            DateTime::parse_from_rfc3339(t)
                .map_err(|e| corrupt(e.to_string()))?
                .with_timezone(&Utc),
        ),
        None => None,
    };
    Ok(Document {
        uid: s("uid").ok_or_else(|| corrupt("missing uid".into()))?,
        source: s("source").unwrap_or_default(),
        ts,
        lang: meta
            .get("lang")
            .and_then(|x| x.as_str())
            .map(str::to_string),
        title: s("title"),
        content: s("content").unwrap_or_default(),
        tags: serde_json::from_value(v.get("tags").cloned().unwrap_or(json!([])))
            .map_err(|e| corrupt(e.to_string()))?,
        url: s("url"),
        metadata: serde_json::from_value(v.get("metadata").cloned().unwrap_or(json!({})))
            .map_err(|e| corrupt(e.to_string()))?,
    })
}

/// Field/value pairs of one hash.
type Fields = Vec<(String, Vec<u8>)>;

/// The sentence vectors of chunk `i` (none when the document has none).
fn sentence_vectors(d: &IndexedDocument, i: usize) -> &[Vec<f32>] {
    d.sentence_embeddings
        .as_ref()
        .and_then(|s| s.get(i))
        .map_or(&[], Vec::as_slice)
}

/// Fields of a sentence-vector hash: the chunk's filter and metadata fields
/// and the vector, no text (so that lexical queries never match it) and the
/// marker `sv` (its hit is hydrated from the chunk's hash).
fn sentence_fields(chunk: &[(String, Vec<u8>)], v: &[f32]) -> Fields {
    const CHUNK_ONLY: &[&str] = &["text", "title", "heading", "heading_json", "vec"];
    let mut f: Vec<(String, Vec<u8>)> = chunk
        .iter()
        .filter(|(k, _)| !CHUNK_ONLY.contains(&k.as_str()))
        .cloned()
        .collect();
    f.push(("sv".into(), b"1".to_vec()));
    f.push(("vec".into(), vector_to_bytes(v)));
    f
}
