//! Search: lexical (BM25) and KNN `FT.SEARCH` in one `MULTI`, fusion,
//! post-filtering and hydration of hits from the chunk hashes.

use std::collections::HashMap;

use chrono::{TimeZone, Utc};
use redis::Value;
use serde_json::Map;
use verity_core::cache::vector_to_bytes;
use verity_core::rank::{fuse, relevance, QueryTerms};
use verity_core::validate::{candidate_depth, validate_query};
use verity_core::{
    Chunk, DocumentMeta, Error, Result, ScoredChunk, SearchMode, SearchQuery, StoreError,
    StoreStats,
};

use super::keys::meta_key;
use super::RedisStore;
use crate::conn::{as_f64, as_string, bad_reply, map_err, ConnectOptions};
use crate::query::{filter_clause, text_clause, text_clause_verbatim};

impl RedisStore {
    pub(super) async fn ft_search(&self, args: Vec<Vec<u8>>, what: &str) -> Result<Vec<Hit>> {
        let mut cmd = redis::cmd("FT.SEARCH");
        cmd.arg(&self.search_name);
        for a in args {
            cmd.arg(a);
        }
        let reply = self.run(&cmd, what).await?;
        parse_search(reply)
    }

    /// Arguments of a lexical `FT.SEARCH` (after the index name).
    pub(super) fn lexical_args(&self, text: &str, filter: &str, limit: usize) -> Vec<Vec<u8>> {
        let query = if filter.is_empty() {
            text.to_string()
        } else {
            format!("{text} {filter}")
        };
        let mut args: Vec<Vec<u8>> = vec![
            query.into_bytes(),
            b"SCORER".to_vec(),
            self.opts.scorer.clone().into_bytes(),
            b"WITHSCORES".to_vec(),
        ];
        push_return(&mut args, false);
        push_tail(&mut args, limit, &self.opts.connect);
        args
    }

    /// Arguments of a KNN `FT.SEARCH`; `None` when the index has no vectors.
    pub(super) fn dense_args(
        &self,
        vector: &[f32],
        filter: &str,
        limit: usize,
    ) -> Result<Option<Vec<Vec<u8>>>> {
        let Some(emb) = self.embedder.read().clone() else {
            return Ok(None);
        };
        if vector.len() != emb.dim {
            return Err(StoreError::EmbedderMismatch {
                expected: emb.to_string(),
                found: format!("a query vector of dimension {}", vector.len()),
            }
            .into());
        }
        let base = if filter.is_empty() {
            "*".to_string()
        } else {
            format!("({filter})")
        };
        let ef = self.opts.ef_runtime.max(limit);
        let query = format!("{base}=>[KNN {limit} @vec $BLOB EF_RUNTIME {ef} AS dist]");
        let mut args: Vec<Vec<u8>> = vec![
            query.into_bytes(),
            b"PARAMS".to_vec(),
            b"2".to_vec(),
            b"BLOB".to_vec(),
            vector_to_bytes(vector),
            b"SORTBY".to_vec(),
            b"dist".to_vec(),
        ];
        push_return(&mut args, true);
        push_tail(&mut args, limit, &self.opts.connect);
        Ok(Some(args))
    }

    /// Run one or two `FT.SEARCH` in one `MULTI`/`EXEC`, so that both read
    /// the same index even if the alias is switched meanwhile.
    pub(super) async fn ft_search_atomic(
        &self,
        queries: &[Vec<Vec<u8>>],
        what: &str,
    ) -> Result<Vec<Vec<Hit>>> {
        if let [one] = queries {
            return Ok(vec![self.ft_search(one.clone(), what).await?]);
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for args in queries {
            let cmd = pipe.cmd("FT.SEARCH").arg(&self.search_name);
            for a in args {
                cmd.arg(a.as_slice());
            }
        }
        let mut con = self.con.clone();
        let replies: Vec<Value> = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, what))?;
        replies.into_iter().map(parse_search).collect()
    }

    /// Lexical and dense candidates, `(chunk id, raw score, hit)` best first
    /// (cosine similarity for dense), fetched atomically.
    pub(super) async fn candidates(
        &self,
        q: &SearchQuery,
        filter: &str,
        lexical_limit: Option<usize>,
        dense_limit: Option<usize>,
    ) -> Result<(Vec<(String, f32, Hit)>, Vec<(String, f32, Hit)>)> {
        let text = lexical_limit
            .and_then(|l| text_clause(&q.text, self.opts.drop_stopwords).map(|t| (t, l)));
        let dense = match (dense_limit, q.vector.as_deref()) {
            (Some(l), Some(v)) => self.dense_args(v, filter, l)?,
            _ => None,
        };
        let run = |text: Option<&(String, usize)>| {
            let mut queries = Vec::new();
            if let Some((t, l)) = text {
                queries.push(self.lexical_args(t, filter, *l));
            }
            if let Some(d) = &dense {
                queries.push(d.clone());
            }
            queries
        };
        let queries = run(text.as_ref());
        if queries.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let results = match self.ft_search_atomic(&queries, "FT.SEARCH").await {
            Err(Error::Store(StoreError::Backend(m)))
                if m.to_ascii_lowercase().contains("syntax") && text.is_some() =>
            {
                // A word the parser reads as syntax: retry with every term quoted.
                tracing::debug!(error = %m, "lexical query rejected; retrying verbatim");
                let verbatim = lexical_limit.and_then(|l| {
                    text_clause_verbatim(&q.text, self.opts.drop_stopwords).map(|t| (t, l))
                });
                self.ft_search_atomic(&run(verbatim.as_ref()), "FT.SEARCH")
                    .await?
            }
            other => other?,
        };
        let mut results = results.into_iter();
        let lex = if text.is_some() {
            results.next().unwrap_or_default()
        } else {
            Vec::new()
        };
        let dense_hits = if dense.is_some() {
            results.next().unwrap_or_default()
        } else {
            Vec::new()
        };
        let lex = lex
            .into_iter()
            .filter_map(|h| {
                let id = hit_chunk_id(&h)?;
                let s = h.score.unwrap_or(0.0) as f32;
                Some((id, s, h))
            })
            .collect();
        let mut dense_out = best_per_chunk(dense_hits);
        // A chunk may own several vectors (its own and its sentences'): when
        // the hits collapsed to fewer chunks than asked, fetch deeper until
        // enough chunks are found or the index is exhausted.
        if let (Some(limit), Some(v), Some(mut args)) = (dense_limit, q.vector.as_deref(), dense) {
            let mut fetch = limit;
            while dense_out.len() < limit && fetch < MAX_DENSE_FETCH {
                let raw = dense_out.iter().map(|x| x.3).sum::<usize>();
                if raw < fetch {
                    break;
                }
                fetch = (fetch * 4).min(MAX_DENSE_FETCH);
                if let Some(a) = self.dense_args(v, filter, fetch)? {
                    args = a;
                }
                dense_out = best_per_chunk(self.ft_search(args.clone(), "FT.SEARCH").await?);
            }
        }
        let mut dense_out: Vec<(String, f32, Hit)> = dense_out
            .into_iter()
            .take(dense_limit.unwrap_or(0))
            .map(|(id, s, h, _)| (id, s, h))
            .collect();
        self.hydrate_sentence_hits(&mut dense_out).await?;
        Ok((lex, dense_out))
    }

    /// Replace hits of sentence-vector hashes (no text) by their chunk's hash,
    /// keeping the distance.
    async fn hydrate_sentence_hits(&self, hits: &mut [(String, f32, Hit)]) -> Result<()> {
        let todo: Vec<usize> = (0..hits.len())
            .filter(|&i| hits[i].2.fields.contains_key("sv"))
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for &i in &todo {
            let key = &hits[i].2.key;
            let chunk_key = key.rsplit_once('~').map_or(key.as_str(), |(k, _)| k);
            pipe.cmd("HMGET").arg(chunk_key).arg(RETURN_FIELDS);
        }
        let mut con = self.con.clone();
        let replies: Vec<Value> = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "HMGET chunk"))?;
        for (&i, reply) in todo.iter().zip(replies) {
            let Value::Array(values) = reply else {
                return Err(bad_reply("HMGET"));
            };
            let hit = &mut hits[i].2;
            for (name, v) in RETURN_FIELDS.iter().zip(values) {
                if let Some(b) = bytes_of(&v) {
                    hit.fields.insert((*name).to_string(), b);
                }
            }
            hit.fields.remove("sv");
        }
        Ok(())
    }

    pub(super) async fn search_impl(&self, q: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        validate_query(q, self.embedder.read().as_ref())?;
        if q.k == 0 {
            return Ok(Vec::new());
        }
        let fc = filter_clause(&q.filters);
        let factor = if fc.post_filter {
            self.opts.post_filter_factor.max(1)
        } else {
            1
        };
        let depth = candidate_depth(q.k);
        let cap = |n: usize| (n * factor).min(10_000);
        let terms = QueryTerms::new(&q.text);
        let mut ranked: Vec<(String, f32, Option<f32>, Option<f32>)> = Vec::new();
        let mut hits: HashMap<String, Hit> = HashMap::new();
        match q.mode {
            SearchMode::Lexical => {
                for (id, s, h) in self
                    .candidates(q, &fc.clause, Some(cap(q.k)), None)
                    .await?
                    .0
                {
                    ranked.push((id.clone(), s, Some(s), None));
                    hits.insert(id, h);
                }
            }
            SearchMode::Dense => {
                for (id, s, h) in self
                    .candidates(q, &fc.clause, None, Some(cap(q.k)))
                    .await?
                    .1
                {
                    ranked.push((id.clone(), s, None, Some(s)));
                    hits.insert(id, h);
                }
            }
            SearchMode::Hybrid => {
                let (lex, dense) = self
                    .candidates(q, &fc.clause, Some(cap(depth)), Some(cap(depth)))
                    .await?;
                let lex_list: Vec<(String, f32)> =
                    lex.iter().map(|(id, s, _)| (id.clone(), *s)).collect();
                let dense_list: Vec<(String, f32)> =
                    dense.iter().map(|(id, s, _)| (id.clone(), *s)).collect();
                let lex_map: HashMap<String, f32> = lex_list.iter().cloned().collect();
                let dense_map: HashMap<String, f32> = dense_list.iter().cloned().collect();
                let (lex_list, dense_list) = if fc.post_filter {
                    (
                        filter_list(lex_list, &lex, q),
                        filter_list(dense_list, &dense, q),
                    )
                } else {
                    (lex_list, dense_list)
                };
                for (id, s) in fuse(&lex_list, &dense_list, q.fusion) {
                    let l = lex_map.get(&id).copied();
                    let d = dense_map.get(&id).copied();
                    ranked.push((id, s, l, d));
                }
                for (id, _, h) in lex.into_iter().chain(dense) {
                    hits.entry(id).or_insert(h);
                }
            }
        }
        let mut out = Vec::with_capacity(q.k);
        for (id, score, lexical, dense) in ranked {
            if out.len() >= q.k {
                break;
            }
            let Some(h) = hits.get(&id) else { continue };
            let (chunk, doc) = hydrate(h)?;
            if !q.filters.matches(&doc) {
                continue;
            }
            let relevance = relevance(q.mode, &terms, dense, doc.title.as_deref(), &chunk.text);
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
    }

    pub(super) async fn stats_impl(&self) -> Result<StoreStats> {
        let v = self
            .run(
                redis::cmd("HGETALL").arg(meta_key(&self.index)),
                "HGETALL meta",
            )
            .await?;
        let mut m: HashMap<String, String> = HashMap::new();
        match v {
            Value::Array(items) => {
                let mut it = items.iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    if let (Some(k), Some(v)) = (as_string(k), as_string(v)) {
                        m.insert(k, v);
                    }
                }
            }
            Value::Map(pairs) => {
                for (k, v) in &pairs {
                    if let (Some(k), Some(v)) = (as_string(k), as_string(v)) {
                        m.insert(k, v);
                    }
                }
            }
            _ => return Err(bad_reply("HGETALL")),
        }
        let count = |k: &str| {
            m.get(k)
                .and_then(|s| s.parse::<i64>().ok())
                .unwrap_or(0)
                .max(0) as usize
        };
        let embedder = match m.get("embedder") {
            Some(s) => Some(
                serde_json::from_str(s)
                    .map_err(|e| StoreError::Corrupt(format!("embedder record: {e}")))?,
            ),
            None => None,
        };
        Ok(StoreStats {
            backend: "redis".into(),
            index: self.index.clone(),
            documents: count("documents"),
            chunks: count("chunks"),
            vectors: count("vectors"),
            embedder,
            size_bytes: None,
        })
    }
}

/// One `FT.SEARCH` hit.
#[derive(Debug)]
pub(super) struct Hit {
    key: String,
    score: Option<f64>,
    fields: HashMap<String, Vec<u8>>,
}

const RETURN_FIELDS: &[&str] = &[
    "uid",
    "idx",
    "text",
    "start",
    "end",
    "heading_json",
    "tokens",
    "source",
    "lang_raw",
    "ts",
    "title",
    "url",
    "tags_json",
    "meta",
];

fn push_return(args: &mut Vec<Vec<u8>>, with_dist: bool) {
    args.push(b"RETURN".to_vec());
    // KNN hits also say whether they are a sentence-vector hash (`sv`).
    let n = RETURN_FIELDS.len() + if with_dist { 2 } else { 0 };
    args.push(n.to_string().into_bytes());
    for f in RETURN_FIELDS {
        args.push(f.as_bytes().to_vec());
    }
    if with_dist {
        args.push(b"dist".to_vec());
        args.push(b"sv".to_vec());
    }
}

fn push_tail(args: &mut Vec<Vec<u8>>, limit: usize, c: &ConnectOptions) {
    args.extend([
        b"LIMIT".to_vec(),
        b"0".to_vec(),
        limit.to_string().into_bytes(),
        b"TIMEOUT".to_vec(),
        c.response_timeout
            .as_millis()
            .max(1)
            .to_string()
            .into_bytes(),
        b"DIALECT".to_vec(),
        b"2".to_vec(),
    ]);
}

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.clone().into_bytes()),
        other => as_string(other).map(String::into_bytes),
    }
}

/// Parse an `FT.SEARCH` reply (RESP2): `[total, key, (score), [field, value, …], …]`.
fn parse_search(reply: Value) -> Result<Vec<Hit>> {
    let Value::Array(items) = reply else {
        return Err(bad_reply("FT.SEARCH"));
    };
    let mut out = Vec::new();
    let mut it = items.into_iter().skip(1).peekable();
    while let Some(key) = it.next() {
        let key = as_string(&key).unwrap_or_default();
        let mut score = None;
        if let Some(v) = it.peek() {
            if !matches!(v, Value::Array(_)) {
                score = as_f64(v);
                it.next();
            }
        }
        let mut fields = HashMap::new();
        if let Some(Value::Array(kv)) = it.next() {
            let mut kv = kv.into_iter();
            while let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                if let (Some(k), Some(v)) = (as_string(&k), bytes_of(&v)) {
                    fields.insert(k, v);
                }
            }
        }
        out.push(Hit { key, score, fields });
    }
    Ok(out)
}

fn field_str(h: &Hit, f: &str) -> Option<String> {
    h.fields
        .get(f)
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

fn hit_chunk_id(h: &Hit) -> Option<String> {
    let uid = field_str(h, "uid")?;
    let idx: u32 = field_str(h, "idx")?.parse().ok()?;
    Some(Chunk::make_id(&uid, idx))
}

/// Most KNN neighbours fetched when deepening a dense search.
const MAX_DENSE_FETCH: usize = 10_000;

/// KNN hits (best first) grouped by chunk: `(chunk id, cosine, best hit,
/// raw hits seen for it)`, best first. A chunk ranks by its best vector.
fn best_per_chunk(hits: Vec<Hit>) -> Vec<(String, f32, Hit, usize)> {
    let mut out: Vec<(String, f32, Hit, usize)> = Vec::new();
    let mut pos: HashMap<String, usize> = HashMap::new();
    for h in hits {
        let Some(id) = hit_chunk_id(&h) else { continue };
        let Some(dist) = h
            .fields
            .get("dist")
            .and_then(|b| std::str::from_utf8(b).ok()?.parse::<f32>().ok())
        else {
            continue;
        };
        match pos.get(&id) {
            Some(&i) => out[i].3 += 1,
            None => {
                pos.insert(id.clone(), out.len());
                out.push((id, 1.0 - dist, h, 1));
            }
        }
    }
    out
}

/// Rebuild the chunk and its document's metadata from the hash fields.
fn hydrate(h: &Hit) -> Result<(Chunk, DocumentMeta)> {
    let corrupt = |what: &str| -> Error {
        StoreError::Corrupt(format!("chunk hash: bad or missing `{what}`")).into()
    };
    let uid = field_str(h, "uid").ok_or_else(|| corrupt("uid"))?;
    let num = |f: &str| -> Result<usize> {
        field_str(h, f)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| corrupt(f))
    };
    let index = u32::try_from(num("idx")?).map_err(|_| corrupt("idx"))?;
    let heading_path: Vec<String> =
        serde_json::from_str(&field_str(h, "heading_json").unwrap_or_else(|| "[]".into()))
            .map_err(|_| corrupt("heading_json"))?;
    let tags: Vec<String> =
        serde_json::from_str(&field_str(h, "tags_json").unwrap_or_else(|| "[]".into()))
            .map_err(|_| corrupt("tags_json"))?;
    let metadata: Map<String, serde_json::Value> =
        serde_json::from_str(&field_str(h, "meta").unwrap_or_else(|| "{}".into()))
            .map_err(|_| corrupt("meta"))?;
    let ts = match field_str(h, "ts") {
        Some(s) => Some(
            s.parse::<i64>()
                .ok()
                .and_then(|ms| Utc.timestamp_millis_opt(ms).single())
                .ok_or_else(|| corrupt("ts"))?,
        ),
        None => None,
    };
    let title = field_str(h, "title").filter(|t| !t.is_empty());
    let chunk = Chunk {
        id: Chunk::make_id(&uid, index),
        doc_uid: uid.clone(),
        index,
        text: field_str(h, "text").unwrap_or_default(),
        start: num("start")?,
        end: num("end")?,
        heading_path,
        token_count: u32::try_from(num("tokens")?).unwrap_or(u32::MAX),
    };
    let meta = DocumentMeta {
        uid,
        source: field_str(h, "source").unwrap_or_default(),
        ts,
        lang: field_str(h, "lang_raw"),
        title,
        tags,
        url: field_str(h, "url"),
        metadata,
    };
    Ok((chunk, meta))
}

/// Keep the ids whose hit passes the filters (post-filtering before fusion).
fn filter_list(
    list: Vec<(String, f32)>,
    hits: &[(String, f32, Hit)],
    q: &SearchQuery,
) -> Vec<(String, f32)> {
    let ok: std::collections::HashSet<&str> = hits
        .iter()
        .filter(|(_, _, h)| {
            hydrate(h)
                .map(|(_, d)| q.filters.matches(&d))
                .unwrap_or(false)
        })
        .map(|(id, _, _)| id.as_str())
        .collect();
    list.into_iter()
        .filter(|(id, _)| ok.contains(id.as_str()))
        .collect()
}
