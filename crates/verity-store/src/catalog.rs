//! [`SqliteCatalog`]: the [`IndexCatalog`] of an embedded SQLite database.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use verity_core::{IndexCatalog, Result, VectorStore};

use crate::store::{SqliteStore, StoreOptions};

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
        Ok(self
            .admin
            .list_indexes()?
            .into_iter()
            .map(|i| i.name)
            .collect())
    }
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>> {
        self.admin.resolve_alias(alias)
    }
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        self.admin.set_alias(alias, index)
    }
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>> {
        Ok(Arc::new(SqliteStore::open(
            &self.home,
            self.opts.clone().index(index),
        )?))
    }
    async fn drop_index(&self, index: &str) -> Result<()> {
        self.admin.drop_index(index)
    }
}
