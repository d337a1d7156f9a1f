//! Index management of the embedded database: named indexes, aliases,
//! generations; and [`SqliteCatalog`], its [`IndexCatalog`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use verity_core::{
    EmbedderId, Error, IndexCatalog, Result, StoreError, VectorStore, WriteGeneration,
};

use super::{
    blocking, ms_to_dt, now_ms, read_embedder, to_i64, to_usize, IndexInfo, Inner, SqliteStore,
    StoreOptions,
};
use crate::db::db_err;
use crate::lexical::DeletedRows;

impl Inner {
    /// Create an empty index (optionally pre-recording its embedder).
    pub(super) fn create_index(
        &self,
        name: &str,
        embedder: Option<&EmbedderId>,
    ) -> Result<IndexInfo> {
        if name.trim().is_empty() {
            return Err(Error::invalid_input("index name must not be empty"));
        }
        self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            if index_row(&tx, name)?.is_some() || resolve_alias_tx(&tx, name)?.is_some() {
                return Err(Error::invalid_input(format!("index or alias `{name}` already exists")));
            }
            tx.execute(
                "INSERT INTO indexes(name, embedder_model, embed_version, dim, created) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    name,
                    embedder.map(|e| e.model.clone()),
                    embedder.map(|e| e.version.clone()),
                    embedder.map(|e| to_i64(e.dim)),
                    now_ms()
                ],
            )
            .map_err(db_err)?;
            let info = list_indexes_tx(&tx, Some(name))?.into_iter().next();
            tx.commit().map_err(db_err)?;
            info.ok_or_else(|| StoreError::NotFound { what: "index", id: name.to_string() }.into())
        })
    }

    /// Point `alias` at `index` (created or switched atomically, in one transaction).
    pub(super) fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        if alias.trim().is_empty() {
            return Err(Error::invalid_input("alias must not be empty"));
        }
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            if index_row(&tx, alias)?.is_some() {
                return Err(Error::invalid_input(format!(
                    "`{alias}` is an index name, it cannot be an alias"
                )));
            }
            let id: Option<i64> = tx
                .query_row("SELECT id FROM indexes WHERE name = ?1", [index], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(db_err)?;
            let id = id.ok_or_else(|| StoreError::NotFound {
                what: "index",
                id: index.to_string(),
            })?;
            tx.execute(
                "INSERT OR REPLACE INTO aliases(alias, index_id) VALUES (?1, ?2)",
                params![alias, id],
            )
            .map_err(db_err)?;
            tx.commit().map_err(db_err)
        })
    }

    /// The index an alias points at (`None` when `name` is not an alias).
    pub(super) fn resolve_alias(&self, name: &str) -> Result<Option<String>> {
        self.db.read(|c| resolve_alias_tx(c, name))
    }

    /// Drop an index, its documents, chunks, vectors and aliases. The index
    /// this store is bound to cannot be dropped.
    pub(super) fn drop_index(&self, name: &str) -> Result<()> {
        if name == self.index_name {
            return Err(Error::invalid_input(format!(
                "index `{name}` is in use by this store"
            )));
        }
        self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let id: Option<i64> = tx
                .query_row("SELECT id FROM indexes WHERE name = ?1", [name], |r| r.get(0))
                .optional()
                .map_err(db_err)?;
            let id = id.ok_or_else(|| StoreError::NotFound { what: "index", id: name.to_string() })?;
            let mut deleted = DeletedRows::default();
            deleted.record_where(&tx, "c.doc_id IN (SELECT id FROM documents WHERE index_id = ?1)", id)?;
            tx.execute(
                "DELETE FROM chunks_fts WHERE rowid IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1)",
                [id],
            )
            .map_err(db_err)?;
            tx.execute("DELETE FROM chunks WHERE doc_id IN (SELECT id FROM documents WHERE index_id = ?1)", [id])
                .map_err(db_err)?;
            tx.execute("DELETE FROM documents WHERE index_id = ?1", [id]).map_err(db_err)?;
            tx.execute("DELETE FROM aliases WHERE index_id = ?1", [id]).map_err(db_err)?;
            tx.execute("DELETE FROM indexes WHERE id = ?1", [id]).map_err(db_err)?;
            deleted.settle(&tx)?;
            tx.commit().map_err(db_err)
        })?;
        if let Some(home) = &self.home {
            remove_dumps(&home.join("index"), name);
        }
        Ok(())
    }

    /// Every index of the database, by name.
    pub(super) fn list_indexes(&self) -> Result<Vec<IndexInfo>> {
        self.db.read(|c| list_indexes_tx(c, None))
    }

    /// Current write generation of the bound index.
    pub(super) fn generation(&self) -> Result<u64> {
        self.db.read(|c| {
            c.query_row(
                "SELECT generation FROM indexes WHERE id = ?1",
                [self.index_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|g| g as u64)
            .map_err(db_err)
        })
    }

    /// The bound index's [`WriteGeneration`]: its write counter, and as
    /// epoch its row id and creation time (an index dropped and created again
    /// under the same name gets another).
    pub(super) fn write_generation(&self) -> Result<WriteGeneration> {
        self.db.read(|c| {
            c.query_row(
                "SELECT generation, created FROM indexes WHERE id = ?1",
                [self.index_id],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .optional()
            .map_err(db_err)?
            .map(|(g, created)| WriteGeneration {
                index: self.index_name.clone(),
                epoch: format!("{}.{created}", self.index_id),
                counter: g as u64,
            })
            .ok_or_else(|| {
                StoreError::NotFound {
                    what: "index",
                    id: self.index_name.clone(),
                }
                .into()
            })
        })
    }
}

fn remove_dumps(dir: &Path, name: &str) {
    let prefix = format!("{}.hnsw.", super::dense::dump_basename(name));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

pub(super) fn resolve_alias_tx(c: &Connection, name: &str) -> Result<Option<String>> {
    c.query_row(
        "SELECT i.name FROM aliases a JOIN indexes i ON i.id = a.index_id WHERE a.alias = ?1",
        [name],
        |r| r.get(0),
    )
    .optional()
    .map_err(db_err)
}

pub(super) fn index_row(c: &Connection, name: &str) -> Result<Option<(i64, Option<EmbedderId>)>> {
    c.query_row(
        "SELECT id, embedder_model, embed_version, dim FROM indexes WHERE name = ?1",
        [name],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                read_embedder(r.get(1)?, r.get(2)?, r.get(3)?),
            ))
        },
    )
    .optional()
    .map_err(db_err)
}

pub(super) fn index_embedder(tx: &Transaction<'_>, id: i64) -> Result<Option<EmbedderId>> {
    tx.query_row(
        "SELECT embedder_model, embed_version, dim FROM indexes WHERE id = ?1",
        [id],
        |r| Ok(read_embedder(r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .map_err(db_err)
}

fn list_indexes_tx(c: &Connection, only: Option<&str>) -> Result<Vec<IndexInfo>> {
    let mut st = c
        .prepare(
            "SELECT i.id, i.name, i.embedder_model, i.embed_version, i.dim, i.created, i.generation, \
             (SELECT count(*) FROM documents d WHERE d.index_id = i.id) FROM indexes i \
             WHERE ?1 IS NULL OR i.name = ?1 ORDER BY i.name",
        )
        .map_err(db_err)?;
    let rows = st
        .query_map([only], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                IndexInfo {
                    name: r.get(1)?,
                    embedder: read_embedder(r.get(2)?, r.get(3)?, r.get(4)?),
                    created: ms_to_dt(r.get(5)?).unwrap_or_default(),
                    generation: r.get::<_, i64>(6)? as u64,
                    documents: to_usize(r.get(7)?),
                    aliases: Vec::new(),
                },
            ))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_err)?;
    let mut st = c
        .prepare("SELECT alias FROM aliases WHERE index_id = ?1 ORDER BY alias")
        .map_err(db_err)?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, mut info) in rows {
        info.aliases = st
            .query_map([id], |r| r.get(0))
            .map_err(db_err)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(db_err)?;
        out.push(info);
    }
    Ok(out)
}

/// [`IndexCatalog`] over the embedded SQLite database of a home directory.
#[derive(Debug)]
pub struct SqliteCatalog {
    home: PathBuf,
    opts: StoreOptions,
    admin: SqliteStore,
}

impl SqliteCatalog {
    /// Open the database of `home`; `opts.index` is the index the catalog's
    /// own handle binds to (it cannot be dropped through this catalog).
    pub fn open(home: &Path, opts: StoreOptions) -> Result<Self> {
        let admin = SqliteStore::open(home, opts.clone())?;
        Ok(Self {
            home: home.to_path_buf(),
            opts,
            admin,
        })
    }
}

#[async_trait]
impl IndexCatalog for SqliteCatalog {
    fn backend(&self) -> &'static str {
        "sqlite"
    }
    fn supports_sentence_vectors(&self) -> bool {
        true
    }
    async fn index_names(&self) -> Result<Vec<String>> {
        let admin = self.admin.clone();
        let list = blocking(move || admin.list_indexes()).await?;
        Ok(list.into_iter().map(|i| i.name).collect())
    }
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>> {
        let (admin, alias) = (self.admin.clone(), alias.to_string());
        blocking(move || admin.resolve_alias(&alias)).await
    }
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        let (admin, alias, index) = (self.admin.clone(), alias.to_string(), index.to_string());
        blocking(move || admin.set_alias(&alias, &index)).await
    }
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>> {
        let (home, opts) = (self.home.clone(), self.opts.clone().index(index));
        let store = blocking(move || SqliteStore::open(&home, opts)).await?;
        Ok(Arc::new(store))
    }
    async fn drop_index(&self, index: &str) -> Result<()> {
        let (admin, index) = (self.admin.clone(), index.to_string());
        blocking(move || admin.drop_index(&index)).await
    }
}
