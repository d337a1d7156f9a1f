//! Which store a [`crate::Verity`] runs on: the embedded SQLite store
//! (default) or Redis (`redis://…`). Everything else in the facade goes
//! through `Arc<dyn VectorStore>` and `Arc<dyn Cache>`; only opening,
//! flushing and where the store lives differ.

use std::path::Path;
use std::sync::Arc;

use verity_core::{Cache, Result, StoreError, VectorStore};
use verity_store::{SqliteStore, StoreOptions};

use crate::config::VerityConfig;

/// The backend-specific part of an open store.
pub(crate) enum Backend {
    /// Embedded SQLite + HNSW in a directory.
    Sqlite(Arc<SqliteStore>),
    /// Redis (RediSearch) at a URL.
    #[cfg(feature = "redis")]
    Redis {
        /// The URL, as configured.
        url: String,
    },
}

/// An opened store: its backend, the store and cache behind their traits,
/// and the name of the index it serves.
pub(crate) struct Opened {
    pub backend: Backend,
    pub store: Arc<dyn VectorStore>,
    pub cache: Arc<dyn Cache>,
    pub index: String,
}

impl Backend {
    /// Open the store `config` describes, following the `<index>:current`
    /// alias once a re-index created it.
    pub async fn open(config: &VerityConfig) -> Result<Opened> {
        match &config.redis_url {
            Some(url) => open_redis(url, &config.index, config.cache_limits).await,
            None => {
                let home = config.home.clone();
                let mut options = StoreOptions::default().index(config.index.clone());
                if let Some(n) = config.graph_min_vectors {
                    options.hnsw.min_graph_points = n;
                }
                let store = tokio::task::spawn_blocking(move || open_sqlite(&home, options))
                    .await
                    .map_err(|e| StoreError::Backend(format!("store open task failed: {e}")))??;
                let store = Arc::new(store);
                Ok(Opened {
                    index: store.index_name().to_string(),
                    cache: Arc::new(store.cache().with_limits(config.cache_limits)),
                    store: store.clone(),
                    backend: Backend::Sqlite(store),
                })
            }
        }
    }

    /// Persist what the backend keeps in memory (the SQLite HNSW dump); a no-op on Redis.
    pub async fn flush(&self) -> Result<()> {
        match self {
            Backend::Sqlite(s) => {
                let s = s.clone();
                tokio::task::spawn_blocking(move || s.flush())
                    .await
                    .map_err(|e| StoreError::Backend(format!("flush task failed: {e}")))?
            }
            #[cfg(feature = "redis")]
            Backend::Redis { .. } => Ok(()),
        }
    }

    /// The Redis URL with any password masked, when on Redis.
    pub fn redis_display(&self) -> Option<String> {
        match self {
            Backend::Sqlite(_) => None,
            #[cfg(feature = "redis")]
            Backend::Redis { url } => Some(without_password(url)),
        }
    }
}

/// Open `index` in `home`, or the index its alias `<index>:current` points at once a
/// re-index has switched it (as `RedisStore::connect_current` does on Redis).
fn open_sqlite(home: &Path, options: StoreOptions) -> Result<SqliteStore> {
    let alias = format!("{}:current", options.index);
    let store = SqliteStore::open(home, options.clone())?;
    match store.resolve_alias(&alias)? {
        Some(target) if target != store.index_name() => {
            drop(store);
            SqliteStore::open(home, options.index(target))
        }
        _ => Ok(store),
    }
}

#[cfg(feature = "redis")]
async fn open_redis(
    url: &str,
    index: &str,
    limits: verity_core::cache::CacheLimits,
) -> Result<Opened> {
    let store = verity_redis::RedisStore::connect_current(url, index, Default::default()).await?;
    let cache = verity_redis::RedisCache::with_connection(store.connection()).with_limits(limits);
    Ok(Opened {
        index: store.index_name().to_string(),
        store: Arc::new(store),
        cache: Arc::new(cache),
        backend: Backend::Redis {
            url: url.to_string(),
        },
    })
}

#[cfg(not(feature = "redis"))]
async fn open_redis(
    url: &str,
    _index: &str,
    _limits: verity_core::cache::CacheLimits,
) -> Result<Opened> {
    Err(verity_core::ConfigError::Invalid {
        key: "redis_url".into(),
        message: format!(
            "`{}`: Redis needs the `redis` feature of the verity crate",
            without_password(url)
        ),
    }
    .into())
}

/// `url` with any password masked, for display.
pub(crate) fn without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}
