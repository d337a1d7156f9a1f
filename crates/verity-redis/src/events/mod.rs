//! [`RedisEventStore`]: the Redis [`EventStore`] (seed 004's event memory).
//!
//! * Each event is a hash `ev:{space}:{uuid}` (`content`, `metadata` as JSON,
//!   `vec` as FLOAT32 bytes, `text`, `ts` and `exp` in milliseconds, `mterms`
//!   the flattened containment terms, `hasvec`), indexed by RediSearch
//!   `idx:ev:{space}`: TEXT `text`, TAG `mterms`/`hasvec`, NUMERIC `ts`/`exp`,
//!   VECTOR `vec` (HNSW, cosine; added by `FT.ALTER` when the first vector arrives).
//! * Metadata filters become TAG clauses over the terms (a necessary
//!   condition) inside the query, so filtering happens during the search;
//!   every hit is then checked exactly against [`EventFilter::matches`].
//! * Distances: RediSearch's cosine distance `d` is `l2² / 2` between unit vectors.
//! * Writes of one call run in one `MULTI`/`EXEC`; a metadata merge is a
//!   compare-and-set script retried on conflict.

mod reply;

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use redis::aio::ConnectionManager;
use redis::{Cmd, Value};
use serde_json::{Map, Value as Json};
use uuid::Uuid;
use verity_core::events::{check_vector, field_err, l2_from_cosine, metadata_terms};
use verity_core::rank::{bm25_relevance, fuse};
use verity_core::{
    Error, Event, EventFilter, EventPage, EventRecord, EventSearch, EventSearchMode, EventStore,
    Fusion, Result, StoreError, TimeOrder,
};

use crate::conn::{after_schema_change, as_string, connect, map_err, ConnectOptions};
use crate::query::{escape, text_clause, TAG_SEPARATOR};
use reply::{parse_hits, Hit};

/// "Never expires", as a NUMERIC value.
const NEVER: i64 = 9_000_000_000_000_000;
/// Most hits one `FT.SEARCH` returns (RediSearch's default `MAXSEARCHRESULTS`).
const MAX_FETCH: usize = 10_000;

/// Settings of a [`RedisEventStore`].
#[derive(Debug, Clone, PartialEq)]
pub struct RedisEventOptions {
    /// Connection timeouts and reconnection.
    pub connect: ConnectOptions,
    /// HNSW `M`.
    pub hnsw_m: usize,
    /// HNSW `EF_CONSTRUCTION`.
    pub ef_construction: usize,
    /// HNSW `EF_RUNTIME`.
    pub ef_runtime: usize,
    /// Pivot mapping BM25 scores to `[0, 1)`.
    pub bm25_pivot: f32,
    /// Hybrid fusion.
    pub fusion: Fusion,
    /// Candidates per list in hybrid mode (at least `offset + limit`).
    pub hybrid_candidates: usize,
}

impl Default for RedisEventOptions {
    fn default() -> Self {
        Self {
            connect: ConnectOptions::default(),
            hnsw_m: 24,
            ef_construction: 200,
            ef_runtime: 128,
            bm25_pivot: 10.0,
            fusion: Fusion::default(),
            hybrid_candidates: 100,
        }
    }
}

/// Event memory in Redis (RediSearch + hashes).
pub struct RedisEventStore {
    con: ConnectionManager,
    space: String,
    opts: RedisEventOptions,
}

impl std::fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("space", &self.space)
            .finish()
    }
}

fn backend(msg: impl Into<String>) -> Error {
    StoreError::Backend(msg.into()).into()
}

fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_bytes(b: &[u8]) -> Option<Vec<f32>> {
    (b.len() % 4 == 0).then(|| {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter().map(|x| x / n).collect()
    } else {
        v.to_vec()
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The TAG/NUMERIC clause of a filter (metadata terms, time window, not expired).
fn filter_clause(f: &EventFilter, now: DateTime<Utc>) -> String {
    let mut parts: Vec<String> = f
        .terms()
        .iter()
        .map(|t| format!("@mterms:{{{}}}", escape(t)))
        .collect();
    if f.ts_start.is_some() || f.ts_end.is_some() {
        let lo = f
            .ts_start
            .map_or("-inf".to_string(), |t| t.timestamp_millis().to_string());
        let hi = f
            .ts_end
            .map_or("+inf".to_string(), |t| t.timestamp_millis().to_string());
        parts.push(format!("@ts:[{lo} {hi}]"));
    }
    parts.push(format!("@exp:[({} +inf]", now.timestamp_millis()));
    parts.join(" ")
}

impl RedisEventStore {
    /// Connect and bind to the event space `space` (letters, digits, `-`, `_`).
    pub async fn connect(url: &str, space: &str, opts: RedisEventOptions) -> Result<Self> {
        if space.is_empty()
            || !space
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(field_err(
                "space",
                "must be non-empty letters, digits, `-` or `_`",
            ));
        }
        let con = connect(url, &opts.connect).await?;
        let s = Self {
            con,
            space: space.to_string(),
            opts,
        };
        s.ensure_index().await?;
        Ok(s)
    }

    fn prefix(&self) -> String {
        format!("ev:{}:", self.space)
    }
    fn key(&self, id: &Uuid) -> String {
        format!("ev:{}:{id}", self.space)
    }
    fn index(&self) -> String {
        format!("idx:ev:{}", self.space)
    }
    fn meta_key(&self) -> String {
        format!("evmeta:{}", self.space)
    }

    async fn run(&self, cmd: &Cmd, what: &str) -> Result<Value> {
        let mut con = self.con.clone();
        cmd.query_async(&mut con)
            .await
            .map_err(|e| map_err(e, what))
    }

    async fn ensure_index(&self) -> Result<()> {
        let sep = TAG_SEPARATOR.to_string();
        let mut cmd = redis::cmd("FT.CREATE");
        cmd.arg(self.index())
            .arg("ON")
            .arg("HASH")
            .arg("PREFIX")
            .arg(1)
            .arg(self.prefix())
            .arg("STOPWORDS")
            .arg(0)
            .arg("SCHEMA")
            .arg(&["text", "TEXT"])
            .arg(&["mterms", "TAG", "SEPARATOR"])
            .arg(&sep)
            .arg("CASESENSITIVE")
            .arg(&["hasvec", "TAG"])
            .arg(&["ts", "NUMERIC", "SORTABLE"])
            .arg(&["exp", "NUMERIC"]);
        match self.run(&cmd, "FT.CREATE").await {
            Ok(_) => after_schema_change(&self.con, &self.index()).await?,
            Err(Error::Store(StoreError::Backend(m))) if m.contains("already exists") => {}
            Err(e) => return Err(e),
        }
        if let Some(d) = self.dim().await? {
            self.add_vector_field(d).await?;
        }
        Ok(())
    }

    async fn dim(&self) -> Result<Option<usize>> {
        let v = self
            .run(
                redis::cmd("HGET").arg(self.meta_key()).arg("dim"),
                "HGET dim",
            )
            .await?;
        Ok(as_string(&v).and_then(|s| s.parse().ok()))
    }

    async fn add_vector_field(&self, dim: usize) -> Result<()> {
        let mut alter = redis::cmd("FT.ALTER");
        alter
            .arg(self.index())
            .arg("SCHEMA")
            .arg("ADD")
            .arg(&["vec", "VECTOR", "HNSW", "12", "TYPE", "FLOAT32", "DIM"])
            .arg(dim.to_string())
            .arg(&["DISTANCE_METRIC", "COSINE", "M"])
            .arg(self.opts.hnsw_m.to_string())
            .arg("EF_CONSTRUCTION")
            .arg(self.opts.ef_construction.to_string())
            .arg("EF_RUNTIME")
            .arg(self.opts.ef_runtime.to_string());
        match self.run(&alter, "FT.ALTER add vector field").await {
            Ok(_) => after_schema_change(&self.con, &self.index()).await,
            Err(Error::Store(StoreError::Backend(m)))
                if m.contains("Duplicate") || m.contains("already exists") =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    async fn ft_search(&self, args: Vec<Vec<u8>>, what: &str) -> Result<(u64, Vec<Hit>)> {
        let mut cmd = redis::cmd("FT.SEARCH");
        cmd.arg(self.index());
        for a in args {
            cmd.arg(a);
        }
        let reply = self.run(&cmd, what).await?;
        parse_hits(reply)
    }

    fn tail(&self, args: &mut Vec<Vec<u8>>, fields: &[&str], limit: usize) {
        args.push(b"RETURN".to_vec());
        args.push(fields.len().to_string().into_bytes());
        args.extend(fields.iter().map(|f| f.as_bytes().to_vec()));
        args.extend([
            b"LIMIT".to_vec(),
            b"0".to_vec(),
            limit.to_string().into_bytes(),
            b"TIMEOUT".to_vec(),
            self.opts
                .connect
                .response_timeout
                .as_millis()
                .max(1)
                .to_string()
                .into_bytes(),
            b"DIALECT".to_vec(),
            b"2".to_vec(),
        ]);
    }

    /// Hits passing the exact filter, as `(id, hit)`.
    fn checked(filter: &EventFilter, hits: Vec<Hit>) -> Vec<(Uuid, Hit)> {
        hits.into_iter()
            .filter_map(|h| {
                let id = Uuid::parse_str(&h.str("id")?).ok()?;
                let ts = h.i64("ts")?;
                let meta = h.json_obj("metadata")?;
                let t = DateTime::from_timestamp_millis(ts)?;
                filter.matches(t, &meta).then_some((id, h))
            })
            .collect()
    }

    /// Vector candidates `(id, l2)` best first, and whether they are all of them.
    async fn nearest(
        &self,
        s: &EventSearch,
        q: &[f32],
        k: usize,
    ) -> Result<(Vec<(Uuid, f32)>, bool)> {
        let Some(dim) = self.dim().await? else {
            return Ok((Vec::new(), true));
        };
        check_vector("vector_query", q, Some(dim))?;
        let clause = filter_clause(&s.filter, s.now);
        let needs_check = s.filter.metadata.as_ref().is_some_and(|m| !m.is_empty());
        let fetch = if needs_check || s.max_distance.is_some() {
            MAX_FETCH
        } else {
            k.max(1)
        };
        let blob = to_bytes(q);
        let query = match s.max_distance {
            Some(m) => {
                let radius = (m * m / 2.0).max(0.0);
                format!(
                    "({clause}) @vec:[VECTOR_RANGE {radius} $BLOB]=>{{$YIELD_DISTANCE_AS: dist}}"
                )
            }
            None => {
                let ef = self.opts.ef_runtime.max(fetch);
                format!("({clause})=>[KNN {fetch} @vec $BLOB EF_RUNTIME {ef} AS dist]")
            }
        };
        let mut args = vec![
            query.into_bytes(),
            b"PARAMS".to_vec(),
            b"2".to_vec(),
            b"BLOB".to_vec(),
            blob,
            b"SORTBY".to_vec(),
            b"dist".to_vec(),
        ];
        self.tail(&mut args, &["id", "ts", "metadata", "dist"], fetch);
        let (total, hits) = self.ft_search(args, "FT.SEARCH vector").await?;
        let n = hits.len();
        let mut out: Vec<(Uuid, f32)> = Self::checked(&s.filter, hits)
            .into_iter()
            .filter_map(|(id, h)| {
                let d = h.f64("dist")? as f32;
                let l2 = l2_from_cosine(1.0 - d);
                s.max_distance.is_none_or(|m| l2 <= m).then_some((id, l2))
            })
            .collect();
        out.sort_by(|a, b| a.1.total_cmp(&b.1));
        let exhaustive = match s.max_distance {
            Some(_) => (total as usize) <= n,
            None => {
                // Top-K: the total is every matching event with a vector.
                if needs_check {
                    (total as usize) <= n && n < fetch
                } else {
                    false
                }
            }
        };
        Ok((out, exhaustive))
    }

    /// Number of matching, unexpired events with a vector (filters without metadata only).
    async fn count_vectors(&self, s: &EventSearch) -> Result<u64> {
        let query = format!("{} @hasvec:{{1}}", filter_clause(&s.filter, s.now));
        let mut args = vec![query.into_bytes()];
        self.tail(&mut args, &["id"], 0);
        Ok(self.ft_search(args, "FT.SEARCH count").await?.0)
    }

    async fn lexical(&self, s: &EventSearch, text: &str) -> Result<Vec<(Uuid, f32)>> {
        let Some(tc) = text_clause(text, true) else {
            return Ok(Vec::new());
        };
        let query = format!("@text:{tc} {}", filter_clause(&s.filter, s.now));
        let mut args = vec![
            query.into_bytes(),
            b"SCORER".to_vec(),
            b"BM25STD".to_vec(),
            b"WITHSCORES".to_vec(),
        ];
        self.tail(&mut args, &["id", "ts", "metadata"], MAX_FETCH);
        let (_, hits) = self.ft_search(args, "FT.SEARCH lexical").await?;
        let mut out: Vec<(Uuid, f32)> = Self::checked(&s.filter, hits)
            .into_iter()
            .map(|(id, h)| {
                (
                    id,
                    bm25_relevance(h.score.unwrap_or(0.0) as f32, self.opts.bm25_pivot),
                )
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(out)
    }

    async fn listing(
        &self,
        filter: &EventFilter,
        order: TimeOrder,
        now: DateTime<Utc>,
    ) -> Result<Vec<Uuid>> {
        let query = filter_clause(filter, now);
        let dir = match order {
            TimeOrder::NewestFirst => "DESC",
            TimeOrder::OldestFirst => "ASC",
        };
        let mut args = vec![
            query.into_bytes(),
            b"SORTBY".to_vec(),
            b"ts".to_vec(),
            dir.as_bytes().to_vec(),
        ];
        self.tail(&mut args, &["id", "ts", "metadata"], MAX_FETCH);
        let (_, hits) = self.ft_search(args, "FT.SEARCH list").await?;
        Ok(Self::checked(filter, hits)
            .into_iter()
            .map(|(id, _)| id)
            .collect())
    }

    async fn fetch(&self, ids: &[Uuid]) -> Result<HashMap<Uuid, Event>> {
        let mut out = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.cmd("HGETALL").arg(self.key(id));
        }
        let mut con = self.con.clone();
        let replies: Vec<Value> = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "HGETALL"))?;
        for r in replies {
            if let Some(e) = reply::event_of(r)? {
                out.insert(e.id, e);
            }
        }
        Ok(out)
    }

    async fn page(
        &self,
        ranked: Vec<(Uuid, Option<f32>, Option<f32>)>,
        total: Option<u64>,
        limit: usize,
        offset: usize,
        mode: EventSearchMode,
    ) -> Result<EventPage> {
        let window: Vec<_> = ranked.into_iter().skip(offset).take(limit).collect();
        let ids: Vec<Uuid> = window.iter().map(|w| w.0).collect();
        let mut events = self.fetch(&ids).await?;
        let data = window
            .into_iter()
            .filter_map(|(id, d, r)| {
                let mut e = events.remove(&id)?;
                e.similarity_score = d;
                e.rank_score = r;
                Some(e)
            })
            .collect();
        Ok(EventPage {
            data,
            total_hits: total,
            limit,
            offset,
            mode,
            ..EventPage::default()
        })
    }
}

fn need<'a, T: ?Sized>(v: Option<&'a T>, s: &EventSearch, what: &str) -> Result<&'a T> {
    v.ok_or_else(|| field_err("vector_query", format!("{} search needs {what}", s.mode)))
}

#[async_trait]
impl EventStore for RedisEventStore {
    fn backend(&self) -> &'static str {
        "redis"
    }

    async fn dimension(&self) -> Result<Option<usize>> {
        self.dim().await
    }

    async fn write(&self, events: Vec<EventRecord>) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let stored = self.dim().await?;
        let mut dim = stored;
        for r in &events {
            if let Some(v) = &r.event.embedding {
                check_vector("embedding", v, dim)?;
                dim = Some(v.len());
            }
        }
        if let (None, Some(d)) = (stored, dim) {
            let v = self
                .run(
                    redis::cmd("HSETNX").arg(self.meta_key()).arg("dim").arg(d),
                    "HSETNX dim",
                )
                .await?;
            if crate::conn::as_i64(&v) == Some(0) && self.dim().await? != Some(d) {
                return Err(field_err(
                    "embedding",
                    "another writer set a different dimension",
                ));
            }
            self.add_vector_field(d).await?;
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for r in &events {
            let e = &r.event;
            let key = self.key(&e.id);
            let content = serde_json::to_string(&e.content).map_err(|e| backend(e.to_string()))?;
            let meta = serde_json::to_string(&e.metadata).map_err(|e| backend(e.to_string()))?;
            let terms = metadata_terms(&e.metadata).join(&TAG_SEPARATOR.to_string());
            pipe.cmd("DEL").arg(&key).ignore();
            let cmd = pipe
                .cmd("HSET")
                .arg(&key)
                .arg("id")
                .arg(e.id.to_string())
                .arg("ts")
                .arg(e.timestamp.timestamp_millis())
                .arg("exp")
                .arg(e.expires_at.map_or(NEVER, |x| x.timestamp_millis()))
                .arg("content")
                .arg(content)
                .arg("metadata")
                .arg(meta)
                .arg("mterms")
                .arg(terms)
                .arg("hasvec")
                .arg(if e.embedding.is_some() { "1" } else { "0" });
            if let Some(t) = r.text.as_deref().filter(|t| !t.trim().is_empty()) {
                cmd.arg("text").arg(t);
            }
            if let Some(v) = &e.embedding {
                cmd.arg("vec").arg(to_bytes(v));
            }
            cmd.ignore();
        }
        let mut con = self.con.clone();
        let _: () = pipe
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "write events"))?;
        Ok(())
    }

    async fn get(&self, id: Uuid, now: DateTime<Utc>) -> Result<Option<Event>> {
        let mut m = self.fetch(&[id]).await?;
        Ok(m.remove(&id)
            .filter(|e| e.expires_at.is_none_or(|x| x > now)))
    }

    async fn delete(&self, ids: &[Uuid]) -> Result<usize> {
        if ids.is_empty() {
            return Ok(0);
        }
        let mut cmd = redis::cmd("DEL");
        for id in ids {
            cmd.arg(self.key(id));
        }
        let v = self.run(&cmd, "DEL events").await?;
        Ok(crate::conn::as_i64(&v).unwrap_or(0).max(0) as usize)
    }

    async fn merge_metadata(
        &self,
        id: Uuid,
        patch: &Map<String, Json>,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>> {
        // Compare-and-set on the stored JSON, retried when a concurrent writer won.
        const CAS: &str = "if redis.call('HGET', KEYS[1], 'metadata') == ARGV[1] then \
             redis.call('HSET', KEYS[1], 'metadata', ARGV[2], 'mterms', ARGV[3]) return 1 end return 0";
        for _ in 0..16 {
            let Some(mut ev) = self.get(id, now).await? else {
                return Ok(None);
            };
            let old = serde_json::to_string(&ev.metadata).map_err(|e| backend(e.to_string()))?;
            let raw = self
                .run(
                    redis::cmd("HGET").arg(self.key(&id)).arg("metadata"),
                    "HGET",
                )
                .await?;
            let raw = as_string(&raw).unwrap_or(old);
            for (k, v) in patch {
                ev.metadata.insert(k.clone(), v.clone());
            }
            let new = serde_json::to_string(&ev.metadata).map_err(|e| backend(e.to_string()))?;
            let terms = metadata_terms(&ev.metadata).join(&TAG_SEPARATOR.to_string());
            let v = self
                .run(
                    redis::cmd("EVAL")
                        .arg(CAS)
                        .arg(1)
                        .arg(self.key(&id))
                        .arg(raw)
                        .arg(new)
                        .arg(terms),
                    "merge metadata",
                )
                .await?;
            if crate::conn::as_i64(&v) == Some(1) {
                return Ok(Some(ev));
            }
        }
        Err(
            StoreError::Unavailable("metadata merge kept conflicting with other writers".into())
                .into(),
        )
    }

    async fn search(&self, s: &EventSearch) -> Result<EventPage> {
        let k = s.offset.saturating_add(s.limit);
        match s.mode {
            EventSearchMode::MetadataOnly => {
                let ids = self
                    .listing(&s.filter, TimeOrder::NewestFirst, s.now)
                    .await?;
                let total = ids.len() as u64;
                let ranked = ids.into_iter().map(|i| (i, None, None)).collect();
                self.page(ranked, Some(total), s.limit, s.offset, s.mode)
                    .await
            }
            EventSearchMode::Vector => {
                let q = need(s.vector.as_deref(), s, "a query vector")?;
                let (hits, exhaustive) = self.nearest(s, q, k).await?;
                let total = if exhaustive {
                    Some(hits.len() as u64)
                } else if s.max_distance.is_none()
                    && s.filter.metadata.as_ref().is_none_or(|m| m.is_empty())
                {
                    Some(self.count_vectors(s).await?)
                } else {
                    None
                };
                let ranked = hits.into_iter().map(|(i, d)| (i, Some(d), None)).collect();
                self.page(ranked, total, s.limit, s.offset, s.mode).await
            }
            EventSearchMode::Lexical => {
                let text = need(s.text.as_deref(), s, "query text")?;
                let hits = self.lexical(s, text).await?;
                let total = hits.len() as u64;
                let ranked = hits.into_iter().map(|(i, r)| (i, None, Some(r))).collect();
                self.page(ranked, Some(total), s.limit, s.offset, s.mode)
                    .await
            }
            EventSearchMode::Hybrid => {
                let q = need(s.vector.as_deref(), s, "a query vector")?;
                let text = need(s.text.as_deref(), s, "query text")?;
                let n = k.max(self.opts.hybrid_candidates);
                let (mut dense, exhaustive) = self.nearest(s, q, n).await?;
                let lexical = self.lexical(s, text).await?;
                let total = exhaustive.then(|| {
                    let mut all: std::collections::HashSet<Uuid> =
                        dense.iter().map(|h| h.0).collect();
                    all.extend(lexical.iter().map(|h| h.0));
                    all.len() as u64
                });
                dense.truncate(n);
                let lex: Vec<(String, f32)> = lexical
                    .iter()
                    .take(n)
                    .map(|(i, r)| (i.to_string(), *r))
                    .collect();
                let den: Vec<(String, f32)> = dense
                    .iter()
                    .map(|(i, d)| (i.to_string(), 2.0 - d))
                    .collect();
                let fused = fuse(&lex, &den, self.opts.fusion);
                let order: Vec<(Uuid, f32)> = fused
                    .into_iter()
                    .filter_map(|(i, sc)| Some((Uuid::parse_str(&i).ok()?, sc)))
                    .collect();
                // Distances of the page's events (lexical-only hits included) from their vectors.
                let window: Vec<(Uuid, f32)> =
                    order.iter().skip(s.offset).take(s.limit).copied().collect();
                let ids: Vec<Uuid> = window.iter().map(|w| w.0).collect();
                let mut events = self.fetch(&ids).await?;
                let qu = unit(q);
                let data = window
                    .into_iter()
                    .filter_map(|(i, sc)| {
                        let mut e = events.remove(&i)?;
                        e.similarity_score = e
                            .embedding
                            .as_deref()
                            .map(|v| l2_from_cosine(dot(&qu, &unit(v))));
                        e.rank_score = Some(sc);
                        Some(e)
                    })
                    .collect();
                Ok(EventPage {
                    data,
                    total_hits: total,
                    limit: s.limit,
                    offset: s.offset,
                    mode: s.mode,
                    ..EventPage::default()
                })
            }
        }
    }

    async fn list(
        &self,
        filter: &EventFilter,
        order: TimeOrder,
        limit: usize,
        offset: usize,
        now: DateTime<Utc>,
    ) -> Result<EventPage> {
        let ids = self.listing(filter, order, now).await?;
        let total = ids.len() as u64;
        let ranked = ids.into_iter().map(|i| (i, None, None)).collect();
        self.page(
            ranked,
            Some(total),
            limit,
            offset,
            EventSearchMode::MetadataOnly,
        )
        .await
    }

    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<usize> {
        let mut purged = 0;
        loop {
            let query = format!("@exp:[-inf {}]", now.timestamp_millis());
            let mut args = vec![query.into_bytes()];
            self.tail(&mut args, &["id"], 1000);
            let (_, hits) = self.ft_search(args, "FT.SEARCH expired").await?;
            let ids: Vec<Uuid> = hits
                .iter()
                .filter_map(|h| Uuid::parse_str(&h.str("id")?).ok())
                .collect();
            if ids.is_empty() {
                return Ok(purged);
            }
            let n = self.delete(&ids).await?;
            purged += n;
            if n == 0 {
                return Ok(purged);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_clause_escapes_terms() {
        let mut m = Map::new();
        m.insert("event type".into(), Json::String("a-b".into()));
        let f = EventFilter {
            metadata: Some(m),
            ..EventFilter::default()
        };
        let c = filter_clause(&f, DateTime::from_timestamp_millis(5).unwrap_or_default());
        assert_eq!(c, "@mterms:{event\\ type\\=s\\:a\\-b} @exp:[(5 +inf]");
    }
}
