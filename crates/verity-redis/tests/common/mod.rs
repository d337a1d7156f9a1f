//! Shared helpers of the integration tests (real Redis server).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use verity_core::{
    Chunk, Document, Embedder, EmbedderId, Embedding, IndexedDocument, ProviderError,
    ProviderErrorKind,
};
use verity_redis::server::RedisServer;

/// Start a server or skip loudly.
pub fn server(test: &str) -> Option<RedisServer> {
    RedisServer::start_or_skip(test, &[])
}

/// A document split into the given parts (chunks), content = parts joined by spaces.
pub fn chunked(doc: Document, parts: &[&str]) -> IndexedDocument {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut content = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            content.push(' ');
            start += 1;
        }
        content.push_str(p);
        chunks.push(Chunk {
            id: Chunk::make_id(&doc.uid, i as u32),
            doc_uid: doc.uid.clone(),
            index: i as u32,
            text: p.to_string(),
            start,
            end: start + p.len(),
            heading_path: vec!["Intro".into()],
            token_count: p.split_whitespace().count() as u32,
        });
        start += p.len();
    }
    let document = Document { content, ..doc };
    let content_hash = document.content_hash();
    IndexedDocument {
        document,
        chunks,
        embeddings: None,
        sentence_embeddings: None,
        chunking: None,
        embedder: None,
        content_hash,
    }
}

/// Attach vectors.
pub fn with_vectors(
    mut d: IndexedDocument,
    id: &EmbedderId,
    vecs: Vec<Vec<f32>>,
) -> IndexedDocument {
    d.embeddings = Some(vecs);
    d.embedder = Some(id.clone());
    d
}

/// A deterministic bag-of-words embedder (hashing trick, L2-normalised):
/// texts sharing words are close. Fails with `Unavailable` after
/// `fail_after` calls when set.
pub struct ToyEmbedder {
    pub id: EmbedderId,
    pub calls: AtomicUsize,
    pub fail_after: Option<usize>,
}

impl ToyEmbedder {
    pub fn new(version: &str) -> Self {
        Self {
            id: EmbedderId::new("toy-bow", version, 64),
            calls: AtomicUsize::new(0),
            fail_after: None,
        }
    }
    pub fn failing_after(version: &str, n: usize) -> Self {
        Self {
            fail_after: Some(n),
            ..Self::new(version)
        }
    }
}

pub fn bow(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let w = w.to_lowercase();
        let h = w.bytes().fold(1469598103934665603u64, |h, b| {
            (h ^ b as u64).wrapping_mul(1099511628211)
        });
        v[(h % dim as u64) as usize] += 1.0;
    }
    v[0] += 0.01;
    verity_core::embed::l2_normalize(&mut v);
    v
}

#[async_trait]
impl Embedder for ToyEmbedder {
    fn id(&self) -> &EmbedderId {
        &self.id
    }
    fn max_tokens(&self) -> usize {
        256
    }
    async fn embed(&self, texts: &[String]) -> verity_core::Result<Vec<Embedding>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail_after.is_some_and(|f| n >= f) {
            return Err(ProviderError::new(
                "toy",
                ProviderErrorKind::Unavailable,
                "embedder went away",
            )
            .into());
        }
        Ok(texts.iter().map(|t| bow(t, self.id.dim)).collect())
    }
}
