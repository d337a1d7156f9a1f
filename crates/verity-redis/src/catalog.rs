//! [`RedisCatalog`]: the [`IndexCatalog`] of a Redis server (indexes in the
//! set `verity:indexes`, aliases as RediSearch aliases).

use std::sync::Arc;

use async_trait::async_trait;
use redis::aio::ConnectionManager;
use redis::Value;
use verity_core::{Error, IndexCatalog, Result, StoreError, VectorStore};

use crate::conn::{as_string, map_err};
use crate::store::{
    chunk_prefix, doc_key, ft_name, meta_key, validate_name, RedisStore, RedisStoreOptions,
    CATALOG_KEY,
};

/// [`IndexCatalog`] over a Redis server.
#[derive(Clone)]
pub struct RedisCatalog {
    con: ConnectionManager,
    opts: RedisStoreOptions,
}

impl std::fmt::Debug for RedisCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCatalog").finish_non_exhaustive()
    }
}

impl RedisCatalog {
    /// Connect to `url`.
    pub async fn connect(url: &str, opts: RedisStoreOptions) -> Result<Self> {
        let con = crate::conn::connect(url, &opts.connect).await?;
        Ok(Self { con, opts })
    }

    /// Use an existing connection.
    pub fn with_connection(con: ConnectionManager, opts: RedisStoreOptions) -> Self {
        Self { con, opts }
    }

    /// A [`RedisStore`] bound to `index` or alias (concrete type).
    pub async fn store(&self, index: &str) -> Result<RedisStore> {
        RedisStore::with_connection(self.con.clone(), index, self.opts.clone()).await
    }
}

#[async_trait]
impl IndexCatalog for RedisCatalog {
    fn backend(&self) -> &'static str {
        "redis"
    }
    fn supports_sentence_vectors(&self) -> bool {
        true
    }
    async fn index_names(&self) -> Result<Vec<String>> {
        let mut con = self.con.clone();
        let mut v: Vec<String> = redis::cmd("SMEMBERS")
            .arg(CATALOG_KEY)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "SMEMBERS"))?;
        v.sort();
        Ok(v)
    }
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>> {
        validate_name(alias)?;
        crate::store::resolve_alias(&self.con, alias).await
    }
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        validate_name(alias)?;
        validate_name(index)?;
        let names = self.index_names().await?;
        if names.iter().any(|n| n == alias) {
            return Err(Error::invalid_input(format!(
                "`{alias}` is an index name, it cannot be an alias"
            )));
        }
        if !names.iter().any(|n| n == index) {
            return Err(StoreError::NotFound {
                what: "index",
                id: index.to_string(),
            }
            .into());
        }
        let mut con = self.con.clone();
        let _: Value = redis::cmd("FT.ALIASUPDATE")
            .arg(ft_name(alias))
            .arg(ft_name(index))
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "FT.ALIASUPDATE"))?;
        Ok(())
    }
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>> {
        Ok(Arc::new(self.store(index).await?))
    }
    async fn drop_index(&self, index: &str) -> Result<()> {
        validate_name(index)?;
        // Only indexes of the catalog: `FT.DROPINDEX` on an alias would drop
        // the index behind it.
        if !self.index_names().await?.iter().any(|n| n == index) {
            return Err(StoreError::NotFound {
                what: "index",
                id: index.to_string(),
            }
            .into());
        }
        let mut con = self.con.clone();
        let res: redis::RedisResult<Value> = redis::cmd("FT.DROPINDEX")
            .arg(ft_name(index))
            .arg("DD")
            .query_async(&mut con)
            .await;
        if let Err(e) = res {
            let m = e.to_string().to_ascii_lowercase();
            if !(crate::conn::is_unknown_index(&m)) {
                return Err(map_err(e, "FT.DROPINDEX"));
            }
        }
        for pattern in [
            format!("{}*", doc_key(index, "")),
            format!("{}*", chunk_prefix(index)),
        ] {
            let mut cursor: u64 = 0;
            loop {
                let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(500)
                    .query_async(&mut con)
                    .await
                    .map_err(|e| map_err(e, "SCAN"))?;
                if !keys.is_empty() {
                    let _: i64 = redis::cmd("UNLINK")
                        .arg(&keys)
                        .query_async(&mut con)
                        .await
                        .map_err(|e| map_err(e, "UNLINK"))?;
                }
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
        }
        let _: Value = redis::pipe()
            .cmd("DEL")
            .arg(meta_key(index))
            .cmd("SREM")
            .arg(CATALOG_KEY)
            .arg(index)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "dropping the index"))?;
        Ok(())
    }
}

/// Uids of the documents of a Redis index (for re-indexing from the index itself).
pub async fn redis_document_uids(con: &ConnectionManager, index: &str) -> Result<Vec<String>> {
    let mut con = con.clone();
    let prefix = doc_key(index, "");
    let mut cursor: u64 = 0;
    let mut out = Vec::new();
    loop {
        let (next, keys): (u64, Vec<Value>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}*"))
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut con)
            .await
            .map_err(|e| map_err(e, "SCAN"))?;
        out.extend(
            keys.iter()
                .filter_map(as_string)
                .filter_map(|k| k.strip_prefix(&prefix).map(str::to_string)),
        );
        cursor = next;
        if cursor == 0 {
            out.sort();
            return Ok(out);
        }
    }
}
