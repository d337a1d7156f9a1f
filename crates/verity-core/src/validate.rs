//! The one set of checks every [`VectorStore`](crate::VectorStore) applies
//! before writing or searching, so that bad input gets the same typed error
//! whatever the backend.

use crate::document::IndexedDocument;
use crate::embed::EmbedderId;
use crate::error::{Error, InputError, Result, StoreError};
use crate::search::{SearchMode, SearchQuery};

/// Most vectors one chunk may own: its own vector plus its sentences'.
pub const MAX_VECTORS_PER_CHUNK: usize = 4096;

/// Candidates fetched per list (lexical, dense) in hybrid mode, at least.
///
/// Score fusion (z-score, min-max) normalises over the lists, so they must
/// be deep enough to reach low scores: 100 was as good as 200 on SciFact
/// (docs/benchmarks.d/quality.md) and keeps recall@100.
pub const HYBRID_CANDIDATES: usize = 100;

/// Candidates fetched per list for a hybrid search returning `k` chunks:
/// `max(4 k, HYBRID_CANDIDATES)`.
pub fn candidate_depth(k: usize) -> usize {
    k.saturating_mul(4).max(HYBRID_CANDIDATES)
}

fn invalid(uid: &str, reason: impl Into<String>) -> Error {
    InputError::InvalidDocument {
        uid: uid.to_string(),
        reason: reason.into(),
    }
    .into()
}

/// Check that an index holding vectors of `current` accepts vectors of `offered`:
/// another model or dimension is [`StoreError::EmbedderMismatch`], another
/// `embed_version` of the same model is [`StoreError::ReindexRequired`].
pub fn check_embedder(index: &str, current: &EmbedderId, offered: &EmbedderId) -> Result<()> {
    if current.model != offered.model || current.dim != offered.dim {
        return Err(StoreError::EmbedderMismatch {
            expected: current.to_string(),
            found: offered.to_string(),
        }
        .into());
    }
    if current.version != offered.version {
        return Err(StoreError::ReindexRequired {
            reason: format!(
                "index `{index}` holds vectors with embed_version `{}`, got `{}` (re-index into a new index)",
                current.version, offered.version
            ),
        }
        .into());
    }
    Ok(())
}

/// Validate a batch before any of it is written and return the embedder the
/// index holds afterwards (`current`, or the batch's when the index has none).
///
/// Checks, per document: a non-empty uid; chunks owned by the document and
/// numbered `0..n` in order; vectors only with an embedder id, one per chunk,
/// of the embedder's dimension, finite and non-zero; sentence vectors only
/// with chunk vectors, one list per chunk, fewer than
/// [`MAX_VECTORS_PER_CHUNK`] per chunk, and only when
/// `sentence_vectors` (the store's
/// [`supports_sentence_vectors`](crate::VectorStore::supports_sentence_vectors));
/// every embedder of the batch compatible with `current` ([`check_embedder`]).
pub fn validate_batch(
    docs: &[IndexedDocument],
    current: Option<&EmbedderId>,
    index: &str,
    sentence_vectors: bool,
) -> Result<Option<EmbedderId>> {
    let mut emb = current.cloned();
    for d in docs {
        let uid = d.document.uid.as_str();
        if uid.is_empty() {
            return Err(invalid(uid, "document uid must not be empty"));
        }
        for (i, c) in d.chunks.iter().enumerate() {
            if c.doc_uid != uid {
                return Err(invalid(
                    uid,
                    format!("chunk `{}` belongs to `{}`", c.id, c.doc_uid),
                ));
            }
            if c.index as usize != i {
                return Err(invalid(
                    uid,
                    format!(
                        "chunk {i} has index {} (chunks must be numbered 0..n in order)",
                        c.index
                    ),
                ));
            }
        }
        let has_sentences = d
            .sentence_embeddings
            .as_ref()
            .is_some_and(|s| s.iter().any(|v| !v.is_empty()));
        if has_sentences && !sentence_vectors {
            return Err(invalid(
                uid,
                "carries sentence vectors, which this store does not index \
                 (supports_sentence_vectors() is false); ingest without them",
            ));
        }
        let Some(vectors) = &d.embeddings else {
            if d.sentence_embeddings.is_some() {
                return Err(invalid(uid, "has sentence vectors but no chunk vectors"));
            }
            continue;
        };
        let Some(id) = &d.embedder else {
            return Err(invalid(uid, "has vectors but no embedder id"));
        };
        if vectors.len() != d.chunks.len() {
            return Err(invalid(
                uid,
                format!("{} vectors for {} chunks", vectors.len(), d.chunks.len()),
            ));
        }
        let sentences = match &d.sentence_embeddings {
            Some(s) if s.len() != d.chunks.len() => {
                return Err(invalid(
                    uid,
                    format!(
                        "sentence vectors for {} chunks, it has {}",
                        s.len(),
                        d.chunks.len()
                    ),
                ));
            }
            Some(s) => s.as_slice(),
            None => &[],
        };
        for (i, s) in sentences.iter().enumerate() {
            if s.len() >= MAX_VECTORS_PER_CHUNK {
                return Err(invalid(
                    uid,
                    format!(
                        "chunk {i} has {} sentence vectors, at most {} are indexed",
                        s.len(),
                        MAX_VECTORS_PER_CHUNK - 1
                    ),
                ));
            }
        }
        for (i, v) in vectors.iter().chain(sentences.iter().flatten()).enumerate() {
            if v.len() != id.dim {
                return Err(StoreError::EmbedderMismatch {
                    expected: id.to_string(),
                    found: format!("vector {i} of document `{uid}` with dimension {}", v.len()),
                }
                .into());
            }
            if v.iter().any(|x| !x.is_finite()) || v.iter().all(|x| *x == 0.0) {
                return Err(invalid(
                    uid,
                    format!("vector {i} is not finite or is the zero vector"),
                ));
            }
        }
        match &emb {
            None => emb = Some(id.clone()),
            Some(e) => check_embedder(index, e, id)?,
        }
    }
    Ok(emb)
}

/// Validate a search against the index's embedder: a dense search needs a
/// query vector; a query vector used by a dense or hybrid search must be
/// finite and have the index's dimension ([`StoreError::EmbedderMismatch`]).
/// `k = 0` is valid and returns no hit on every store.
pub fn validate_query(q: &SearchQuery, embedder: Option<&EmbedderId>) -> Result<()> {
    if q.mode == SearchMode::Dense && q.vector.is_none() {
        return Err(Error::invalid_input(
            "dense search needs a query vector (embed the query first)",
        ));
    }
    if q.mode == SearchMode::Lexical {
        return Ok(());
    }
    let Some(v) = &q.vector else { return Ok(()) };
    if v.iter().any(|x| !x.is_finite()) {
        return Err(Error::invalid_input("the query vector is not finite"));
    }
    if let Some(emb) = embedder {
        if v.len() != emb.dim {
            return Err(StoreError::EmbedderMismatch {
                expected: emb.to_string(),
                found: format!("a query vector of dimension {}", v.len()),
            }
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Chunk, Document};

    fn doc(uid: &str, chunks: usize) -> IndexedDocument {
        let document = Document::new(uid, "x".repeat(chunks.max(1)));
        let chunks = (0..chunks)
            .map(|i| Chunk {
                id: Chunk::make_id(uid, i as u32),
                doc_uid: uid.to_string(),
                index: i as u32,
                text: "x".into(),
                start: i,
                end: i + 1,
                heading_path: Vec::new(),
                token_count: 1,
            })
            .collect();
        IndexedDocument {
            content_hash: document.content_hash(),
            document,
            chunks,
            embeddings: None,
            sentence_embeddings: None,
            embedder: None,
            chunking: None,
        }
    }

    fn kind(e: Error) -> &'static str {
        match e {
            Error::Input(InputError::InvalidDocument { .. }) => "invalid_document",
            Error::Store(StoreError::EmbedderMismatch { .. }) => "embedder_mismatch",
            Error::Store(StoreError::ReindexRequired { .. }) => "reindex_required",
            _ => "other",
        }
    }

    #[test]
    fn batch_rules() {
        let id = EmbedderId::new("m", "1", 2);
        assert_eq!(
            validate_batch(&[doc("a", 2)], None, "i", false).ok(),
            Some(None)
        );
        assert_eq!(
            kind(validate_batch(&[doc("", 1)], None, "i", false).unwrap_err()),
            "invalid_document"
        );
        let mut d = doc("a", 2);
        d.chunks[1].index = 5;
        assert_eq!(
            kind(validate_batch(&[d], None, "i", false).unwrap_err()),
            "invalid_document"
        );
        let mut d = doc("a", 1);
        d.embeddings = Some(vec![vec![1.0, 0.0]]);
        assert_eq!(
            kind(validate_batch(&[d.clone()], None, "i", false).unwrap_err()),
            "invalid_document"
        );
        d.embedder = Some(id.clone());
        assert_eq!(
            validate_batch(&[d.clone()], None, "i", false).unwrap(),
            Some(id.clone())
        );
        let mut nan = d.clone();
        nan.embeddings = Some(vec![vec![f32::NAN, 1.0]]);
        assert_eq!(
            kind(validate_batch(&[nan], None, "i", false).unwrap_err()),
            "invalid_document"
        );
        let mut dims = d.clone();
        dims.embeddings = Some(vec![vec![1.0, 0.0, 0.0]]);
        assert_eq!(
            kind(validate_batch(&[dims], None, "i", false).unwrap_err()),
            "embedder_mismatch"
        );
        let other = EmbedderId::new("m", "2", 2);
        assert_eq!(
            kind(validate_batch(&[d.clone()], Some(&other), "i", false).unwrap_err()),
            "reindex_required"
        );
        let mut s = d.clone();
        s.sentence_embeddings = Some(vec![vec![vec![0.0, 1.0]]]);
        assert_eq!(
            kind(validate_batch(&[s.clone()], None, "i", false).unwrap_err()),
            "invalid_document"
        );
        assert!(validate_batch(&[s], None, "i", true).is_ok());
    }

    #[test]
    fn query_rules() {
        let id = EmbedderId::new("m", "1", 2);
        let q = SearchQuery::new("x").mode(SearchMode::Dense);
        assert!(validate_query(&q, Some(&id)).is_err());
        assert!(validate_query(&q.clone().vector(vec![1.0, 0.0]), Some(&id)).is_ok());
        assert!(validate_query(&q.clone().vector(vec![1.0]), Some(&id)).is_err());
        assert!(validate_query(&q.vector(vec![f32::NAN, 0.0]), None).is_err());
        let lexical = SearchQuery::new("x")
            .mode(SearchMode::Lexical)
            .vector(vec![1.0]);
        assert!(validate_query(&lexical, Some(&id)).is_ok());
        assert_eq!(candidate_depth(8), 100);
        assert_eq!(candidate_depth(50), 200);
    }
}
