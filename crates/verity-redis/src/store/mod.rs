//! [`RedisStore`]: documents as RedisJSON, chunks as hashes indexed by
//! RediSearch (BM25 full text, TAG/NUMERIC filters, HNSW cosine vectors).

mod keys;
mod schema;
mod search;
mod write;

pub use keys::{chunk_prefix, doc_key, ft_name, meta_key, validate_name, CATALOG_KEY};
pub use schema::resolve_alias;

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use parking_lot::RwLock;
use redis::aio::ConnectionManager;
use redis::{Cmd, Script, Value};
use verity_core::{
    Document, EmbedderId, Error, Fingerprint, IndexedDocument, Result, ScoredChunk, SearchQuery,
    StoreError, StoreStats, UpsertReport, VectorStore, WriteGeneration,
};

use crate::conn::{connect, map_err, ConnectOptions};
use crate::scripts;

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
    /// RediSearch scorer of lexical queries (`BM25STD`, the textbook BM25
    /// whose scale matches SQLite FTS5's, by default; `BM25` is RediSearch's
    /// length-normalised variant). Ranks only: relevance is
    /// [`verity_core::rank::relevance`] on both backends.
    pub scorer: String,
    /// Drop common English stop words from lexical queries (same list as the embedded store).
    pub drop_stopwords: bool,
    /// Over-fetch factor when part of the filters must be applied after the
    /// search (values that a TAG query cannot express; see [`crate::query`]).
    pub post_filter_factor: usize,
    /// Maintain `rag:embed:hash:{uid}` = `sha1(content)|EMBED_VERSION` on upsert/delete.
    pub embed_hash_keys: bool,
    /// RediSearch `WEIGHT` of the title field (chunk text and headings: 1),
    /// as the embedded store weighs its title column; fixed when the index is
    /// created.
    pub title_weight: f32,
}

impl Default for RedisStoreOptions {
    fn default() -> Self {
        Self {
            connect: ConnectOptions::default(),
            hnsw_m: 16,
            ef_construction: 200,
            ef_runtime: 64,
            scorer: "BM25STD".to_string(),
            drop_stopwords: true,
            post_filter_factor: 10,
            embed_hash_keys: true,
            title_weight: verity_core::DEFAULT_TITLE_WEIGHT,
        }
    }
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

    /// The index searches read: the alias's target now when bound through
    /// an alias (searches go through it), else the bound index.
    async fn searched_index(&self) -> Result<String> {
        if self.search_name == ft_name(&self.index) {
            return Ok(self.index.clone());
        }
        let alias = self
            .search_name
            .strip_prefix("idx:")
            .unwrap_or(&self.search_name);
        Ok(resolve_alias(&self.con, alias)
            .await?
            .unwrap_or_else(|| self.index.clone()))
    }

    /// The [`WriteGeneration`] of the index searches read: the `generation`
    /// of its meta hash (bumped by the write scripts) and its `created` time.
    pub async fn write_generation_now(&self) -> Result<WriteGeneration> {
        let index = self.searched_index().await?;
        let v = self
            .run(
                redis::cmd("HMGET")
                    .arg(meta_key(&index))
                    .arg("generation")
                    .arg("created"),
                "HMGET meta",
            )
            .await?;
        let Value::Array(items) = v else {
            return Err(crate::conn::bad_reply("HMGET"));
        };
        let field = |i: usize| items.get(i).and_then(crate::conn::as_string);
        Ok(WriteGeneration {
            counter: field(0).and_then(|g| g.parse().ok()).unwrap_or(0),
            epoch: field(1).unwrap_or_default(),
            index,
        })
    }

    pub(super) async fn run(&self, cmd: &Cmd, what: &str) -> Result<Value> {
        let mut con = self.con.clone();
        cmd.query_async::<Value>(&mut con)
            .await
            .map_err(|e| map_err(e, what))
    }
}

#[async_trait]
impl VectorStore for RedisStore {
    fn backend(&self) -> &'static str {
        "redis"
    }

    fn supports_sentence_vectors(&self) -> bool {
        true
    }

    async fn embedder(&self) -> Result<Option<EmbedderId>> {
        Ok(self.embedder.read().clone())
    }

    async fn fingerprints(&self, uids: &[String]) -> Result<HashMap<String, Fingerprint>> {
        self.fingerprints_impl(uids).await
    }

    async fn upsert(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        self.upsert_impl(docs).await
    }

    async fn delete(&self, uids: &[String]) -> Result<usize> {
        self.delete_impl(uids).await
    }

    async fn get(&self, uid: &str) -> Result<Option<Document>> {
        self.get_impl(uid).await
    }

    async fn search(&self, q: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        self.search_impl(q).await
    }

    async fn stats(&self) -> Result<StoreStats> {
        self.stats_impl().await
    }

    async fn write_generation(&self) -> Result<Option<WriteGeneration>> {
        self.write_generation_now().await.map(Some)
    }

    fn ranking_fingerprint(&self) -> String {
        let o = &self.opts;
        format!(
            "redis|{}|s{}|t{}|ef{}|pf{}",
            o.scorer, o.drop_stopwords, o.title_weight, o.ef_runtime, o.post_filter_factor
        )
    }
}
