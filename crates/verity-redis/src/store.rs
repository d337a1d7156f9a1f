//! [`RedisStore`]: documents as RedisJSON, chunks as hashes indexed by
//! RediSearch (BM25 full text, TAG/NUMERIC filters, HNSW cosine vectors).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use parking_lot::RwLock;
use redis::aio::ConnectionManager;
use redis::{Cmd, Script, Value};
use serde_json::{json, Map};
use verity_core::cache::{embed_hash_key, embed_hash_value, vector_to_bytes};
use verity_core::hash::sha1_hex;
use verity_core::rank::{bm25_relevance, fuse};
use verity_core::validate::{candidate_depth, check_embedder, validate_batch, validate_query};
use verity_core::{
    Chunk, Document, DocumentMeta, EmbedderId, Error, Fingerprint, IndexedDocument, Result,
    ScoredChunk, SearchMode, SearchQuery, StoreError, StoreStats, UpsertReport, VectorStore,
};

use crate::conn::{as_f64, as_i64, as_string, bad_reply, connect, map_err, ConnectOptions};
use crate::query::{
    filter_clause, lang_key, metadata_pair, text_clause, text_clause_verbatim, TAG_SEPARATOR,
};
use crate::scripts;

/// Set of the index names this crate created (`SMEMBERS verity:indexes`).
pub const CATALOG_KEY: &str = "verity:indexes";

/// How a [`RedisStore`] connects, indexes and ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct RedisStoreOptions {
    /// Connection timeouts and reconnection.
    pub connect: ConnectOptions,
    /// HNSW `M` (graph degree).
    pub hnsw_m: usize,
    /// HNSW `EF_CONSTRUCTION`.
    pub ef_construction: usize,
    /// HNSW `EF_RUNTIME` (raised to the number of neighbours asked for).
    pub ef_runtime: usize,
    /// RediSearch scorer of lexical queries. `BM25STD` (default) is the
    /// textbook BM25 whose scale matches SQLite FTS5's, so that the same
    /// `bm25_pivot` gives comparable relevances; `BM25` is RediSearch's
    /// length-normalised variant (scores around 0–3).
    pub scorer: String,
    /// Pivot of [`bm25_relevance`]: the BM25 score mapped to relevance 0.5.
    pub bm25_pivot: f32,
    /// Drop common English stop words from lexical queries (same list as the embedded store).
    pub drop_stopwords: bool,
    /// Over-fetch factor when part of the filters must be applied after the
    /// search (values that a TAG query cannot express; see [`crate::query`]).
    pub post_filter_factor: usize,
    /// Maintain `rag:embed:hash:{uid}` = `sha1(content)|EMBED_VERSION` on upsert/delete.
    pub embed_hash_keys: bool,
}

impl Default for RedisStoreOptions {
    fn default() -> Self {
        Self {
            connect: ConnectOptions::default(),
            hnsw_m: 16,
            ef_construction: 200,
            ef_runtime: 64,
            scorer: "BM25STD".to_string(),
            bm25_pivot: 10.0,
            drop_stopwords: true,
            post_filter_factor: 10,
            embed_hash_keys: true,
        }
    }
}

/// Check an index or alias name: `[A-Za-z0-9_.:-]`, 1 to 200 characters.
pub fn validate_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_input(format!(
            "index name `{name}` must be 1–200 characters among letters, digits, `_`, `.`, `:` and `-`"
        )))
    }
}

/// RediSearch index name of index `name`.
pub fn ft_name(name: &str) -> String {
    format!("idx:{name}")
}

/// Key of a document's JSON.
pub fn doc_key(index: &str, uid: &str) -> String {
    format!("doc:{{{index}}}:{uid}")
}

/// Prefix of the chunk hashes of an index (chunk key = prefix + chunk id).
pub fn chunk_prefix(index: &str) -> String {
    format!("hv:{{{index}}}:")
}

/// Key of an index's meta hash (embedder, counters, generation).
pub fn meta_key(index: &str) -> String {
    format!("meta:{{{index}}}")
}

fn backend(msg: impl Into<String>) -> Error {
    StoreError::Backend(msg.into()).into()
}

/// The Redis vector store, bound to one index (an alias is resolved at
/// connect for writes; searches go through the alias, so an alias switch
/// is seen atomically by every later query).
pub struct RedisStore {
    con: ConnectionManager,
    index: String,
    search_name: String,
    opts: RedisStoreOptions,
    embedder: RwLock<Option<EmbedderId>>,
    upsert_script: Arc<Script>,
    delete_script: Arc<Script>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("index", &self.index)
            .field("search", &self.search_name)
            .finish()
    }
}

/// One `FT.SEARCH` hit.
#[derive(Debug)]
struct Hit {
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

impl RedisStore {
    /// Connect to `url` and bind to index (or alias) `index`; an unknown
    /// name creates an empty index.
    pub async fn connect(url: &str, index: &str, opts: RedisStoreOptions) -> Result<Self> {
        let con = connect(url, &opts.connect).await?;
        Self::with_connection(con, index, opts).await
    }

    /// Connect to what readers of logical index `name` should see: the alias
    /// `<name>:current` when a re-index created it, else the index `name` itself.
    pub async fn connect_current(url: &str, name: &str, opts: RedisStoreOptions) -> Result<Self> {
        let con = connect(url, &opts.connect).await?;
        validate_name(name)?;
        let alias = verity_core::catalog::current_alias(name);
        let target = if resolve_alias(&con, &alias).await?.is_some() {
            alias
        } else {
            name.to_string()
        };
        Self::with_connection(con, &target, opts).await
    }

    /// Bind to `index` over an existing connection.
    pub async fn with_connection(
        con: ConnectionManager,
        index: &str,
        opts: RedisStoreOptions,
    ) -> Result<Self> {
        validate_name(index)?;
        let mut store = Self {
            con,
            index: index.to_string(),
            search_name: ft_name(index),
            opts,
            embedder: RwLock::new(None),
            upsert_script: Arc::new(Script::new(scripts::UPSERT)),
            delete_script: Arc::new(Script::new(scripts::DELETE)),
        };
        if let Some(target) = store.resolve_alias(index).await? {
            store.index = target;
        }
        let emb = store.read_embedder().await?;
        store.ensure_index(emb.as_ref().map(|e| e.dim)).await?;
        *store.embedder.write() = emb;
        Ok(store)
    }

    /// Name of the index written to (aliases resolved).
    pub fn index_name(&self) -> &str {
        &self.index
    }

    /// Options in force.
    pub fn options(&self) -> &RedisStoreOptions {
        &self.opts
    }

    /// The underlying (cloneable, multiplexed) connection.
    pub fn connection(&self) -> ConnectionManager {
        self.con.clone()
    }

    async fn run(&self, cmd: &Cmd, what: &str) -> Result<Value> {
        let mut con = self.con.clone();
        cmd.query_async::<Value>(&mut con)
            .await
            .map_err(|e| map_err(e, what))
    }

    async fn read_embedder(&self) -> Result<Option<EmbedderId>> {
        let v = self
            .run(
                redis::cmd("HGET")
                    .arg(meta_key(&self.index))
                    .arg("embedder"),
                "HGET meta",
            )
            .await?;
        match as_string(&v) {
            None => Ok(None),
            Some(s) => serde_json::from_str(&s).map(Some).map_err(|e| {
                StoreError::Corrupt(format!("index `{}`: bad embedder record: {e}", self.index))
                    .into()
            }),
        }
    }

    fn vec_field_args(&self, dim: usize) -> Vec<String> {
        vec![
            "vec".into(),
            "VECTOR".into(),
            "HNSW".into(),
            "12".into(),
            "TYPE".into(),
            "FLOAT32".into(),
            "DIM".into(),
            dim.to_string(),
            "DISTANCE_METRIC".into(),
            "COSINE".into(),
            "M".into(),
            self.opts.hnsw_m.to_string(),
            "EF_CONSTRUCTION".into(),
            self.opts.ef_construction.to_string(),
            "EF_RUNTIME".into(),
            self.opts.ef_runtime.to_string(),
        ]
    }

    /// `FT.CREATE` the index when missing (with the vector field when the dimension is known).
    async fn ensure_index(&self, dim: Option<usize>) -> Result<()> {
        let sep = TAG_SEPARATOR.to_string();
        let mut cmd = redis::cmd("FT.CREATE");
        cmd.arg(ft_name(&self.index))
            .arg("ON")
            .arg("HASH")
            .arg("PREFIX")
            .arg(1)
            .arg(chunk_prefix(&self.index))
            .arg("STOPWORDS")
            .arg(0)
            .arg("SCHEMA")
            .arg(&["text", "TEXT", "title", "TEXT", "heading", "TEXT"]);
        for f in ["tags", "source", "lang", "uid", "mkv"] {
            cmd.arg(f)
                .arg("TAG")
                .arg("SEPARATOR")
                .arg(&sep)
                .arg("CASESENSITIVE");
        }
        cmd.arg("ts").arg("NUMERIC");
        if let Some(d) = dim {
            cmd.arg(self.vec_field_args(d));
        }
        match self.run(&cmd, "FT.CREATE").await {
            Ok(_) => {}
            Err(Error::Store(StoreError::Backend(m))) if m.contains("already exists") => {}
            Err(e) => return Err(e),
        }
        let mut con = self.con.clone();
        let _: Value = redis::pipe()
            .cmd("SADD")
            .arg(CATALOG_KEY)
            .arg(&self.index)
            .cmd("HSETNX")
            .arg(meta_key(&self.index))
            .arg("created")
            .arg(Utc::now().to_rfc3339())
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "registering the index"))?;
        Ok(())
    }

    /// Record the embedder (first vectors) and add the vector field; refuse another embedder.
    async fn claim_embedder(&self, id: &EmbedderId) -> Result<()> {
        if let Some(cur) = self.embedder.read().clone() {
            return check_embedder(&self.index, &cur, id);
        }
        let record = serde_json::to_string(id).map_err(|e| backend(e.to_string()))?;
        self.run(
            redis::cmd("HSETNX")
                .arg(meta_key(&self.index))
                .arg("embedder")
                .arg(record),
            "HSETNX embedder",
        )
        .await?;
        let cur = self
            .read_embedder()
            .await?
            .ok_or_else(|| backend("embedder record vanished"))?;
        check_embedder(&self.index, &cur, id)?;
        let mut alter = redis::cmd("FT.ALTER");
        alter
            .arg(ft_name(&self.index))
            .arg("SCHEMA")
            .arg("ADD")
            .arg(self.vec_field_args(cur.dim));
        match self.run(&alter, "FT.ALTER add vector field").await {
            Ok(_) => {}
            Err(Error::Store(StoreError::Backend(m)))
                if m.to_ascii_lowercase().contains("duplicate") => {}
            Err(e) => return Err(e),
        }
        *self.embedder.write() = Some(cur);
        Ok(())
    }

    /// The index an alias points at (`None` when `name` is not an alias).
    pub async fn resolve_alias(&self, name: &str) -> Result<Option<String>> {
        resolve_alias(&self.con, name).await
    }

    /// Wait until RediSearch has finished (re)indexing existing hashes (after
    /// a restart or an `FT.ALTER`), up to `timeout`. Returns whether it finished.
    pub async fn wait_indexed(&self, timeout: std::time::Duration) -> Result<bool> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let info = self
                .run(redis::cmd("FT.INFO").arg(ft_name(&self.index)), "FT.INFO")
                .await?;
            let indexing = info_field(&info, "indexing")
                .and_then(as_f64)
                .unwrap_or(0.0);
            if indexing == 0.0 {
                return Ok(true);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(false);
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    fn chunk_fields(
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

    fn check_batch(&self, docs: &[IndexedDocument]) -> Result<Option<EmbedderId>> {
        let current = self.embedder.read().clone();
        validate_batch(
            docs,
            current.as_ref(),
            &self.index,
            self.supports_sentence_vectors(),
        )
    }

    async fn ft_search(&self, args: Vec<Vec<u8>>, what: &str) -> Result<Vec<Hit>> {
        let mut cmd = redis::cmd("FT.SEARCH");
        cmd.arg(&self.search_name);
        for a in args {
            cmd.arg(a);
        }
        let reply = self.run(&cmd, what).await?;
        parse_search(reply)
    }

    /// Arguments of a lexical `FT.SEARCH` (after the index name).
    fn lexical_args(&self, text: &str, filter: &str, limit: usize) -> Vec<Vec<u8>> {
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
    fn dense_args(
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
    async fn ft_search_atomic(
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
    async fn candidates(
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
        let dense_out = dense_hits
            .into_iter()
            .filter_map(|h| {
                let id = hit_chunk_id(&h)?;
                let dist = h
                    .fields
                    .get("dist")
                    .and_then(|b| std::str::from_utf8(b).ok()?.parse::<f32>().ok())?;
                Some((id, 1.0 - dist, h))
            })
            .collect();
        Ok((lex, dense_out))
    }

    async fn doc_metas(&self, uids: &[String]) -> Result<Vec<Option<serde_json::Value>>> {
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
}

fn push_return(args: &mut Vec<Vec<u8>>, with_dist: bool) {
    args.push(b"RETURN".to_vec());
    let n = RETURN_FIELDS.len() + usize::from(with_dist);
    args.push(n.to_string().into_bytes());
    for f in RETURN_FIELDS {
        args.push(f.as_bytes().to_vec());
    }
    if with_dist {
        args.push(b"dist".to_vec());
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
    while let Some(_key) = it.next() {
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
        out.push(Hit { score, fields });
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

/// Value of `name` in an `FT.INFO` reply (a flat `[name, value, …]` array).
pub(crate) fn info_field<'a>(info: &'a Value, name: &str) -> Option<&'a Value> {
    let Value::Array(items) = info else {
        return None;
    };
    let mut it = items.iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        if as_string(k).as_deref() == Some(name) {
            return Some(v);
        }
    }
    None
}

/// The index an alias points at (`None` when `name` is not an alias or does not exist).
pub async fn resolve_alias(con: &ConnectionManager, name: &str) -> Result<Option<String>> {
    let mut c = con.clone();
    let res = redis::cmd("FT.INFO")
        .arg(ft_name(name))
        .query_async::<Value>(&mut c)
        .await;
    let info = match res {
        Ok(v) => v,
        Err(e) => {
            let m = e.to_string().to_ascii_lowercase();
            if crate::conn::is_unknown_index(&m) {
                return Ok(None);
            }
            return Err(map_err(e, "FT.INFO"));
        }
    };
    let real = info_field(&info, "index_name")
        .and_then(as_string)
        .ok_or_else(|| bad_reply("FT.INFO"))?;
    let real = real.strip_prefix("idx:").unwrap_or(&real).to_string();
    Ok((real != name).then_some(real))
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

#[async_trait]
impl VectorStore for RedisStore {
    fn backend(&self) -> &'static str {
        "redis"
    }

    async fn embedder(&self) -> Result<Option<EmbedderId>> {
        Ok(self.embedder.read().clone())
    }

    async fn fingerprints(&self, uids: &[String]) -> Result<HashMap<String, Fingerprint>> {
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

    async fn upsert(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
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
            for (i, ch) in d.chunks.iter().enumerate() {
                let fields = self.chunk_fields(d, i, ch)?;
                inv.arg(fields.len());
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

    async fn delete(&self, uids: &[String]) -> Result<usize> {
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

    async fn get(&self, uid: &str) -> Result<Option<Document>> {
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

    async fn search(&self, q: &SearchQuery) -> Result<Vec<ScoredChunk>> {
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
        let pivot = self.opts.bm25_pivot;
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
            let lr = lexical.map(|s| bm25_relevance(s, pivot)).unwrap_or(0.0);
            let dr = dense.map(|s| s.clamp(0.0, 1.0)).unwrap_or(0.0);
            out.push(ScoredChunk {
                chunk,
                doc,
                score,
                relevance: lr.max(dr),
                lexical,
                dense,
                freshness: None,
            });
        }
        Ok(out)
    }

    async fn stats(&self) -> Result<StoreStats> {
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
