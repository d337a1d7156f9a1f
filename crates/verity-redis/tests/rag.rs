//! The RAG pipeline unchanged on top of Redis: RedisStore for retrieval, RedisCache for the
//! retrieval and answer caches, the extractive generator for answers (real server).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::sync::Arc;

use verity_core::{Cache, Document, VectorStore};
use verity_ingest::Ingestor;
use verity_llm::ExtractiveGenerator;
use verity_rag::{RagPipeline, RagQuestion, Retriever};
use verity_redis::{ConnectOptions, RedisCache, RedisStore};

fn doc(uid: &str, title: &str, content: &str) -> Document {
    let mut d = Document::new(uid, content);
    d.title = Some(title.into());
    d.source = "internal".into();
    d.lang = Some("en".into());
    d
}

#[tokio::test]
async fn ask_on_redis_cites_and_caches() {
    let Some(srv) = common::server("ask_on_redis_cites_and_caches") else {
        return;
    };
    let store = Arc::new(
        RedisStore::connect(&srv.url(), "rag", Default::default())
            .await
            .unwrap(),
    );
    let cache: Arc<dyn Cache> = Arc::new(
        RedisCache::connect(&srv.url(), &ConnectOptions::default())
            .await
            .unwrap(),
    );
    let ingestor = Ingestor::builder(store.clone()).build().unwrap();
    let docs = vec![
        doc(
            "fees",
            "Routing fees",
            "The fee of a forward is the base fee plus the amount times the fee rate in parts per million.",
        ),
        doc("htlc", "HTLC limits", "A channel holds at most 483 pending HTLCs in each direction."),
    ];
    // Unrelated documents, so that BM25's document frequencies mean something.
    let filler = [
        "Splicing resizes a channel without closing it.",
        "Watchtowers monitor the chain for revoked commitment transactions.",
        "Onion routing hides the payment path from intermediate nodes.",
        "Anchor outputs let either party bump the commitment transaction fee later.",
        "Gossip messages announce channels and node addresses to the network.",
        "Invoices encode the payment hash, amount and expiry in bech32.",
        "Keysend payments carry the preimage inside the onion payload.",
        "Dual-funded channels let both peers contribute to the funding output.",
    ];
    let docs: Vec<Document> = docs
        .into_iter()
        .chain(
            filler
                .iter()
                .enumerate()
                .map(|(i, t)| doc(&format!("f{i}"), "Note", t)),
        )
        .collect();
    ingestor.ingest(docs, &|_| {}).await.unwrap();

    let store_dyn: Arc<dyn VectorStore> = store.clone();
    let retriever = Retriever::new(store_dyn).with_cache(Some(cache.clone()));
    let rag = RagPipeline::builder(retriever, Arc::new(ExtractiveGenerator::new()))
        .cache(Some(cache.clone()))
        .build();
    let req = RagQuestion::new(
        "How is the fee of a forward computed from the base fee and the fee rate?",
    );
    let a = rag.ask(&req).await.unwrap();
    assert!(!a.citations.is_empty(), "no citation: {}", a.text);
    assert!(
        a.citations.iter().all(|c| c.doc_uid == "fees"),
        "{:?}",
        a.citations
    );
    assert!(a.text.contains("base fee"), "{}", a.text);

    // The same question again is served from the Redis answer cache.
    let (hits_before, _) = rag.counters().answer_cache.get();
    let again = rag.ask(&req).await.unwrap();
    assert_eq!(again.text, a.text);
    let (hits_after, _) = rag.counters().answer_cache.get();
    assert_eq!(hits_after, hits_before + 1);
}
