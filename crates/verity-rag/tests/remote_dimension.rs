//! A remote embedder that has not answered yet reports dimension 0 (it learns
//! it from its first answer): a fresh process must still search densely an
//! index built by the same model and version, and fall back to lexical, with
//! a note, when the answer's dimension is not the index's.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use async_trait::async_trait;
use verity_core::{
    Chunk, Document, Embedder, EmbedderId, Embedding, IndexedDocument, Result, SearchMode,
    SearchQuery, VectorStore,
};
use verity_rag::Retriever;
use verity_store::{SqliteStore, StoreOptions};

/// Answers `dim`-component vectors but, like a remote embedder before its
/// first answer, says dimension 0.
struct NotAnsweredYet {
    id: EmbedderId,
    dim: usize,
}

#[async_trait]
impl Embedder for NotAnsweredYet {
    fn id(&self) -> &EmbedderId {
        &self.id
    }
    fn max_tokens(&self) -> usize {
        512
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.1; self.dim];
                v[0] = if t.contains("zebra") { 1.0 } else { 0.0 };
                v
            })
            .collect())
    }
}

fn doc(uid: &str, text: &str, vector: Vec<f32>) -> IndexedDocument {
    let mut d = Document::new(uid, text);
    d.lang = Some("en".into());
    let chunk = Chunk {
        id: Chunk::make_id(uid, 0),
        doc_uid: uid.into(),
        index: 0,
        text: text.into(),
        start: 0,
        end: text.len(),
        heading_path: vec![],
        token_count: 5,
    };
    IndexedDocument {
        content_hash: d.content_hash(),
        document: d,
        chunks: vec![chunk],
        embeddings: Some(vec![vector]),
        sentence_embeddings: None,
        chunking: None,
        embedder: Some(EmbedderId::new("remote", "1", 3)),
    }
}

async fn retriever(answers: usize) -> Retriever {
    let store = Arc::new(SqliteStore::open_in_memory(StoreOptions::default()).unwrap());
    store
        .upsert(vec![
            doc("striped", "Animals with stripes.", vec![1.0, 0.1, 0.1]),
            doc("plain", "Animals without stripes.", vec![0.0, 0.1, 0.1]),
        ])
        .await
        .unwrap();
    let emb = NotAnsweredYet {
        id: EmbedderId::new("remote", "1", 0),
        dim: answers,
    };
    Retriever::new(store).with_embedder(Some(Arc::new(emb) as Arc<dyn Embedder>))
}

#[tokio::test]
async fn an_embedder_without_a_dimension_yet_searches_its_own_index_densely() {
    let r = retriever(3).await;
    let q = SearchQuery::new("zebra").mode(SearchMode::Dense);
    let res = r.retrieve(&q).await.unwrap();
    assert_eq!(res.mode, SearchMode::Dense, "{:?}", res.notes);
    assert!(
        res.notes.iter().all(|n| !n.contains("lexical")),
        "{:?}",
        res.notes
    );
    assert_eq!(
        res.hits.first().map(|h| h.chunk.doc_uid.as_str()),
        Some("striped")
    );
}

#[tokio::test]
async fn an_answer_of_another_dimension_falls_back_to_lexical_with_a_note() {
    let r = retriever(5).await;
    let q = SearchQuery::new("stripes").mode(SearchMode::Dense);
    let res = r.retrieve(&q).await.unwrap();
    assert_eq!(res.mode, SearchMode::Lexical);
    assert!(
        res.notes
            .iter()
            .any(|n| n.contains("remote@1/5d") && n.contains("ran lexical")),
        "{:?}",
        res.notes
    );
}
