//! CachedEmbedder with an in-memory Cache double and a counting inner embedder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use verity_core::cache::{embedding_key, vector_from_bytes};
use verity_core::{
    Cache, Embedder, EmbedderId, Embedding, Error, ProviderError, ProviderErrorKind, Result,
    StoreError,
};
use verity_embed::CachedEmbedder;

type Entry = (Vec<u8>, Option<Duration>);

#[derive(Default)]
struct MemCache {
    map: Mutex<HashMap<String, Entry>>,
    broken: AtomicBool,
}

#[async_trait]
impl Cache for MemCache {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        if self.broken.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("down".into()).into());
        }
        Ok(self.map.lock().unwrap().get(key).map(|(v, _)| v.clone()))
    }
    async fn put(
        &self,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
        _tags: &[String],
    ) -> Result<()> {
        if self.broken.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("down".into()).into());
        }
        self.map
            .lock()
            .unwrap()
            .insert(key.to_string(), (value.to_vec(), ttl));
        Ok(())
    }
    async fn invalidate_prefix(&self, prefix: &str) -> Result<usize> {
        let mut m = self.map.lock().unwrap();
        let before = m.len();
        m.retain(|k, _| !k.starts_with(prefix));
        Ok(before - m.len())
    }
    async fn invalidate_tag(&self, _tag: &str) -> Result<usize> {
        Ok(0)
    }
}

/// Embeds a text as `[len, 1]` normalised; records every call; queries get `[len, -1]`.
struct Counting {
    id: EmbedderId,
    calls: Mutex<Vec<Vec<String>>>,
    fail: AtomicBool,
}

impl Counting {
    fn new(version: &str) -> Self {
        Self {
            id: EmbedderId::new("fake", version, 2),
            calls: Mutex::default(),
            fail: AtomicBool::new(false),
        }
    }
    fn calls(&self) -> Vec<Vec<String>> {
        self.calls.lock().unwrap().clone()
    }
}

fn vec_for(text: &str, sign: f32) -> Embedding {
    let mut v = vec![text.len() as f32, sign];
    verity_core::embed::l2_normalize(&mut v);
    v
}

#[async_trait]
impl Embedder for Counting {
    fn id(&self) -> &EmbedderId {
        &self.id
    }
    fn max_tokens(&self) -> usize {
        128
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(ProviderError::new("fake", ProviderErrorKind::Unavailable, "down").into());
        }
        self.calls.lock().unwrap().push(texts.to_vec());
        Ok(texts.iter().map(|t| vec_for(t, 1.0)).collect())
    }
    async fn embed_query(&self, text: &str) -> Result<Embedding> {
        self.calls
            .lock()
            .unwrap()
            .push(vec![format!("query:{text}")]);
        Ok(vec_for(text, -1.0))
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[tokio::test]
async fn only_misses_reach_the_inner_embedder() {
    let inner = Arc::new(Counting::new("v1"));
    let cache = Arc::new(MemCache::default());
    let cached = CachedEmbedder::new(inner.clone(), cache.clone());
    assert_eq!(cached.id(), inner.id());
    assert_eq!(cached.max_tokens(), 128);

    let first = cached.embed(&s(&["a", "bb", "ccc"])).await.unwrap();
    assert_eq!(
        first,
        vec![vec_for("a", 1.0), vec_for("bb", 1.0), vec_for("ccc", 1.0)]
    );
    assert_eq!((cached.hits(), cached.misses()), (0, 3));

    let second = cached
        .embed(&s(&["bb", "dddd", "a", "eeeee", "dddd"]))
        .await
        .unwrap();
    assert_eq!(
        second,
        vec![
            vec_for("bb", 1.0),
            vec_for("dddd", 1.0),
            vec_for("a", 1.0),
            vec_for("eeeee", 1.0),
            vec_for("dddd", 1.0)
        ]
    );
    assert_eq!(
        inner.calls(),
        vec![s(&["a", "bb", "ccc"]), s(&["dddd", "eeeee"])],
        "misses only, once each, in one batch"
    );
    assert_eq!(cached.stats().misses, 5);
    assert_eq!(cached.stats().hits, 3, "bb, a and the repeated dddd");

    // Stored as f32 LE bytes under the shared key, with no TTL.
    let key = embedding_key("ccc", inner.id());
    let (bytes, ttl) = cache.map.lock().unwrap().get(&key).cloned().unwrap();
    assert_eq!(vector_from_bytes(&bytes).unwrap(), vec_for("ccc", 1.0));
    assert_eq!(ttl, None);

    // All hits: the inner embedder is not called at all.
    cached.embed(&s(&["a", "bb"])).await.unwrap();
    assert_eq!(inner.calls().len(), 2);
    assert!(cached.embed(&[]).await.unwrap().is_empty());
    assert_eq!(inner.calls().len(), 2);
}

#[tokio::test]
async fn another_embed_version_does_not_share_entries() {
    let cache = Arc::new(MemCache::default());
    let v1 = Arc::new(Counting::new("v1"));
    let v2 = Arc::new(Counting::new("v2"));
    CachedEmbedder::new(v1.clone(), cache.clone())
        .embed(&s(&["t"]))
        .await
        .unwrap();
    let c2 = CachedEmbedder::new(v2.clone(), cache.clone());
    c2.embed(&s(&["t"])).await.unwrap();
    assert_eq!(v2.calls().len(), 1, "v2 must not read v1's vectors");
    assert_eq!(c2.misses(), 1);
}

#[tokio::test]
async fn queries_are_cached_apart_from_passages() {
    let inner = Arc::new(Counting::new("v1"));
    let cached = CachedEmbedder::new(inner.clone(), Arc::new(MemCache::default()));
    cached.embed(&s(&["same"])).await.unwrap();
    let q1 = cached.embed_query("same").await.unwrap();
    assert_eq!(
        q1,
        vec_for("same", -1.0),
        "query vector, not the passage vector"
    );
    let q2 = cached.embed_query("same").await.unwrap();
    assert_eq!(q1, q2);
    assert_eq!(inner.calls(), vec![s(&["same"]), s(&["query:same"])]);
    assert_eq!((cached.hits(), cached.misses()), (1, 2));
}

#[tokio::test]
async fn broken_cache_is_bypassed_and_inner_errors_propagate() {
    let inner = Arc::new(Counting::new("v1"));
    let cache = Arc::new(MemCache::default());
    let cached = CachedEmbedder::new(inner.clone(), cache.clone());
    cache.broken.store(true, Ordering::SeqCst);
    assert_eq!(
        cached.embed(&s(&["x"])).await.unwrap(),
        vec![vec_for("x", 1.0)]
    );
    cache.broken.store(false, Ordering::SeqCst);

    // A malformed entry is ignored and replaced.
    let key = embedding_key("y", inner.id());
    cache.put(&key, &[1, 2, 3], None, &[]).await.unwrap();
    assert_eq!(
        cached.embed(&s(&["y"])).await.unwrap(),
        vec![vec_for("y", 1.0)]
    );
    assert_eq!(
        vector_from_bytes(&cache.get(&key).await.unwrap().unwrap()).unwrap(),
        vec_for("y", 1.0)
    );

    inner.fail.store(true, Ordering::SeqCst);
    let err = cached.embed(&s(&["z"])).await.unwrap_err();
    assert!(matches!(err, Error::Provider(ref p) if p.kind == ProviderErrorKind::Unavailable));
    assert!(
        cached.embed(&s(&["y"])).await.is_ok(),
        "hits still served while the inner embedder is down"
    );
}
