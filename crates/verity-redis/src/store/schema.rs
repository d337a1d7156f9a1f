//! The RediSearch schema of an index: creation, the vector field added
//! with the first embedder, aliases and `FT.INFO`.

use chrono::Utc;
use redis::aio::ConnectionManager;
use redis::Value;
use verity_core::validate::check_embedder;
use verity_core::{EmbedderId, Error, Result, StoreError};

use super::keys::{chunk_prefix, ft_name, meta_key, CATALOG_KEY};
use super::{backend, RedisStore};
use crate::conn::{after_schema_change, as_string, bad_reply, info_field, map_err, wait_scanned};
use crate::query::TAG_SEPARATOR;

impl RedisStore {
    pub(super) async fn read_embedder(&self) -> Result<Option<EmbedderId>> {
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

    pub(super) fn vec_field_args(&self, dim: usize) -> Vec<String> {
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
    pub(super) async fn ensure_index(&self, dim: Option<usize>) -> Result<()> {
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
            .arg(&["text", "TEXT", "title", "TEXT", "WEIGHT"])
            .arg(self.opts.title_weight.to_string())
            .arg(&["heading", "TEXT"]);
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
            Ok(_) => after_schema_change(&self.con, &ft_name(&self.index)).await?,
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
    pub(super) async fn claim_embedder(&self, id: &EmbedderId) -> Result<()> {
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
            Ok(_) => after_schema_change(&self.con, &ft_name(&self.index)).await?,
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
        wait_scanned(&self.con, &ft_name(&self.index), timeout).await
    }
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
