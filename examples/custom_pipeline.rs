//! Assemble the pipeline from its parts instead of the `Verity` handle:
//! an in-memory SQLite store, the ingest pipeline without an embedder
//! (BM25 only), a retriever with a stricter guardrail, and the extractive
//! generator with an answer cache.
//!
//! ```text
//! cargo run -p verity-examples --example custom_pipeline
//! ```

use std::sync::Arc;

use verity::core::{Cache, Document, VectorStore};
use verity::ingest::Ingestor;
use verity::llm::ExtractiveGenerator;
use verity::rag::{RagPipeline, RagQuestion, Retriever, RetrieverConfig};
use verity::store::{SqliteStore, StoreOptions};

#[tokio::main]
async fn main() -> verity::Result<()> {
    let store = Arc::new(SqliteStore::open_in_memory(StoreOptions::default())?);
    let cache: Arc<dyn Cache> = Arc::new(store.cache());
    let dyn_store: Arc<dyn VectorStore> = store.clone();

    let mut doc = Document::new("splice-1", "Splicing resizes a channel without closing it: funds are added or removed on chain while the channel stays usable.");
    doc.title = Some("Splicing".into());
    let ingestor = Ingestor::builder(dyn_store.clone()).build()?;
    let report = ingestor.ingest(vec![doc], &|_| {}).await?;
    println!(
        "indexed {} chunk(s), lexical only: {}",
        report.upsert.chunks, report.lexical_only
    );

    let retriever = Retriever::new(dyn_store).with_config(RetrieverConfig {
        min_relevance: 0.2,
        ..RetrieverConfig::default()
    });
    let rag = RagPipeline::builder(retriever, Arc::new(ExtractiveGenerator::new()))
        .cache(Some(cache))
        .build();

    let answer = rag
        .ask(&RagQuestion::new("What does splicing do to a channel?"))
        .await?;
    println!(
        "{}\n(confidence {:.2}, cited {:?})",
        answer.text,
        answer.confidence,
        answer
            .citations
            .iter()
            .map(|c| &c.doc_uid)
            .collect::<Vec<_>>()
    );
    let again = rag
        .ask(&RagQuestion::new("What does splicing do to a channel?"))
        .await?;
    println!("second time served from cache: {}", again.cached);
    Ok(())
}
