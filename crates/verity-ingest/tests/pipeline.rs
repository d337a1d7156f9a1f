//! Ingest pipeline tests against an in-memory store and a fake embedder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers outside #[test] fns

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use verity_core::{
    Document, Embedder, EmbedderId, Embedding, Fingerprint, IndexedDocument, ProviderError,
    ProviderErrorKind, Result, ScoredChunk, SearchQuery, StoreStats, UpsertReport, VectorStore,
};
use verity_ingest::{Chunker, ChunkerConfig, IngestPhase, IngestProgress, Ingestor};

/// Minimal in-memory store: keeps indexed documents by uid.
#[derive(Default)]
struct MemStore {
    docs: Mutex<HashMap<String, IndexedDocument>>,
    upserts: AtomicUsize,
    /// Fail the n-th upsert call (1-based) once, to simulate a crash.
    fail_on: Mutex<Option<usize>>,
    /// Whether the store says it indexes sentence vectors.
    sentences: bool,
    /// The next upsert waits (at most 5 s) until this embedder has been
    /// called this many times, and records in `overlapped` whether it was.
    wait_for_calls: Mutex<Option<(Arc<FakeEmbedder>, usize)>>,
    overlapped: AtomicBool,
}

#[async_trait]
impl VectorStore for MemStore {
    fn backend(&self) -> &'static str {
        "memory"
    }
    fn supports_sentence_vectors(&self) -> bool {
        self.sentences
    }
    async fn embedder(&self) -> Result<Option<EmbedderId>> {
        Ok(self
            .docs
            .lock()
            .unwrap()
            .values()
            .find_map(|d| d.embedder.clone()))
    }
    async fn fingerprints(&self, uids: &[String]) -> Result<HashMap<String, Fingerprint>> {
        let docs = self.docs.lock().unwrap();
        Ok(uids
            .iter()
            .filter_map(|u| {
                docs.get(u).map(|d| {
                    let fp = Fingerprint {
                        content_hash: d.content_hash.clone(),
                        embed_version: d.embedder.as_ref().map(|e| e.version.clone()),
                        chunking: d.chunking.clone(),
                    };
                    (u.clone(), fp)
                })
            })
            .collect())
    }
    async fn upsert(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        let gate = self.wait_for_calls.lock().unwrap().take();
        if let Some((emb, calls)) = gate {
            let deadline = Instant::now() + Duration::from_secs(5);
            while emb.calls.load(Ordering::SeqCst) < calls && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            self.overlapped
                .store(emb.calls.load(Ordering::SeqCst) >= calls, Ordering::SeqCst);
        }
        let call = self.upserts.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fail = self.fail_on.lock().unwrap();
        if *fail == Some(call) {
            *fail = None;
            return Err(verity_core::StoreError::Unavailable("simulated crash".into()).into());
        }
        let mut map = self.docs.lock().unwrap();
        let mut r = UpsertReport::default();
        for d in docs {
            assert_eq!(d.content_hash, d.document.content_hash());
            if let Some(e) = &d.embeddings {
                assert_eq!(e.len(), d.chunks.len());
            }
            r.chunks += d.chunks.len();
            if map.insert(d.document.uid.clone(), d).is_some() {
                r.replaced += 1;
            } else {
                r.inserted += 1;
            }
        }
        Ok(r)
    }
    async fn delete(&self, uids: &[String]) -> Result<usize> {
        let mut map = self.docs.lock().unwrap();
        Ok(uids.iter().filter(|u| map.remove(*u).is_some()).count())
    }
    async fn get(&self, uid: &str) -> Result<Option<Document>> {
        Ok(self
            .docs
            .lock()
            .unwrap()
            .get(uid)
            .map(|d| d.document.clone()))
    }
    async fn search(&self, _query: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        Ok(Vec::new())
    }
    async fn stats(&self) -> Result<StoreStats> {
        let docs = self.docs.lock().unwrap();
        Ok(StoreStats {
            backend: "memory".into(),
            documents: docs.len(),
            chunks: docs.values().map(|d| d.chunks.len()).sum(),
            ..StoreStats::default()
        })
    }
}

/// Deterministic embedder: a 4-d vector from the text's bytes; counts calls and texts.
struct FakeEmbedder {
    id: EmbedderId,
    max_tokens: usize,
    calls: AtomicUsize,
    texts: AtomicUsize,
    fail: bool,
}

impl FakeEmbedder {
    fn new(version: &str, max_tokens: usize) -> Self {
        Self {
            id: EmbedderId::new("fake", version, 4),
            max_tokens,
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
            fail: false,
        }
    }
}

#[async_trait]
impl Embedder for FakeEmbedder {
    fn id(&self) -> &EmbedderId {
        &self.id
    }
    fn max_tokens(&self) -> usize {
        self.max_tokens
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        if self.fail {
            return Err(ProviderError::new("fake", ProviderErrorKind::Unavailable, "down").into());
        }
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![
                    1.0,
                    t.len() as f32,
                    t.bytes().map(f32::from).sum::<f32>(),
                    0.5,
                ];
                verity_core::embed::l2_normalize(&mut v);
                v
            })
            .collect())
    }
}

fn docs(n: usize, words: usize) -> Vec<Document> {
    (0..n)
        .map(|i| {
            let body = (0..words)
                .map(|w| format!("word{} item{}", w % 37, i))
                .collect::<Vec<_>>()
                .join(" ");
            let mut d = Document::new(format!("doc-{i}"), format!("# Doc {i}\n\n{body}."));
            d.lang = Some("en".into());
            d
        })
        .collect()
}

fn no_progress(_: &IngestProgress) {}

#[tokio::test]
async fn lexical_only_ingest_then_skip_unchanged() {
    let store = Arc::new(MemStore::default());
    let ing = Ingestor::builder(store.clone())
        .batch_size(4)
        .build()
        .unwrap();
    let r = ing.ingest(docs(10, 50), &no_progress).await.unwrap();
    assert!(r.lexical_only);
    assert_eq!(r.upsert.inserted, 10);
    assert_eq!(r.upsert.unchanged, 0);
    assert!(r.errors.is_empty());
    assert_eq!(store.upserts.load(Ordering::SeqCst), 3);
    assert!(r.bytes > 0);
    let stored = store.docs.lock().unwrap().get("doc-3").cloned().unwrap();
    assert!(stored.embeddings.is_none() && stored.embedder.is_none());
    assert_eq!(stored.chunks[0].heading_path, vec!["Doc 3".to_string()]);

    // Second run: everything unchanged, nothing written.
    let r = ing.ingest(docs(10, 50), &no_progress).await.unwrap();
    assert_eq!(r.upsert.unchanged, 10);
    assert_eq!(r.upsert.inserted + r.upsert.replaced, 0);
    assert_eq!(store.upserts.load(Ordering::SeqCst), 3);

    // A changed document is replaced, the others skipped.
    let mut changed = docs(10, 50);
    changed[7].content.push_str(" More text.");
    let r = ing.ingest(changed, &no_progress).await.unwrap();
    assert_eq!((r.upsert.replaced, r.upsert.unchanged), (1, 9));
}

#[tokio::test]
async fn embeds_in_sub_batches_with_budget_capped_for_the_embedder() {
    let store = Arc::new(MemStore::default());
    let emb = Arc::new(FakeEmbedder::new("v1", 64));
    let ing = Ingestor::builder(store.clone())
        .embedder(Some(emb.clone() as Arc<dyn Embedder>))
        .batch_size(3)
        .embed_batch_size(5)
        .build()
        .unwrap();
    assert_eq!(ing.chunker().config().max_tokens, 62);
    let seen = Mutex::new(Vec::new());
    let progress = |p: &IngestProgress| seen.lock().unwrap().push(p.clone());
    let r = ing.ingest(docs(7, 120), &progress).await.unwrap();
    assert!(!r.lexical_only);
    assert_eq!(r.upsert.inserted, 7);
    {
        let map = store.docs.lock().unwrap();
        let total_chunks: usize = map.values().map(|d| d.chunks.len()).sum();
        assert_eq!(r.upsert.chunks, total_chunks);
        assert_eq!(emb.texts.load(Ordering::SeqCst), total_chunks);
        for d in map.values() {
            assert!(
                d.chunks.len() > 1,
                "long documents are split for a 64-token embedder"
            );
            assert!(d.chunks.iter().all(|c| c.token_count <= 62));
            assert_eq!(d.embeddings.as_ref().unwrap().len(), d.chunks.len());
            assert_eq!(d.embedder.as_ref().unwrap().version, "v1");
        }
        let seen = seen.lock().unwrap();
        assert_eq!(seen.first().unwrap().docs_total, Some(7));
        assert_eq!(seen.last().unwrap().phase, IngestPhase::Done);
        assert_eq!(seen.last().unwrap().docs_done, 7);
        assert!(seen.iter().any(|p| p.phase == IngestPhase::Embedding));
        assert!(seen.windows(2).all(|w| w[0].docs_done <= w[1].docs_done));
    }

    // A new embedding version re-embeds everything even though content is unchanged.
    let emb2 = Arc::new(FakeEmbedder::new("v2", 64));
    let ing2 = Ingestor::builder(store.clone())
        .embedder(Some(emb2.clone() as Arc<dyn Embedder>))
        .build()
        .unwrap();
    let r = ing2.ingest(docs(7, 120), &no_progress).await.unwrap();
    assert_eq!((r.upsert.replaced, r.upsert.unchanged), (7, 0));
    // Same version again: all skipped, no embedding call.
    let before = emb2.calls.load(Ordering::SeqCst);
    let r = ing2.ingest(docs(7, 120), &no_progress).await.unwrap();
    assert_eq!(r.upsert.unchanged, 7);
    assert_eq!(emb2.calls.load(Ordering::SeqCst), before);
}

#[tokio::test]
async fn resumes_after_a_crash() {
    let store = Arc::new(MemStore::default());
    *store.fail_on.lock().unwrap() = Some(2);
    let emb = Arc::new(FakeEmbedder::new("v1", 512));
    let ing = Ingestor::builder(store.clone())
        .embedder(Some(emb.clone() as Arc<dyn Embedder>))
        .batch_size(2)
        .build()
        .unwrap();
    let err = ing.ingest(docs(6, 20), &no_progress).await.unwrap_err();
    assert!(err.is_transient());
    assert_eq!(
        store.docs.lock().unwrap().len(),
        2,
        "the first batch was committed"
    );
    let r = ing.ingest(docs(6, 20), &no_progress).await.unwrap();
    assert_eq!((r.upsert.inserted, r.upsert.unchanged), (4, 2));
    assert_eq!(store.docs.lock().unwrap().len(), 6);
}

#[tokio::test]
async fn the_next_batch_is_embedded_while_the_previous_one_is_written() {
    let store = Arc::new(MemStore::default());
    let emb = Arc::new(FakeEmbedder::new("v1", 512));
    // One embedder call per batch of two short documents: the first write
    // waits for the second batch's call.
    *store.wait_for_calls.lock().unwrap() = Some((emb.clone(), 2));
    let ing = Ingestor::builder(store.clone())
        .embedder(Some(emb.clone() as Arc<dyn Embedder>))
        .batch_size(2)
        .build()
        .unwrap();
    let done = Mutex::new(Vec::new());
    let r = ing
        .ingest(docs(6, 20), &|p: &IngestProgress| {
            done.lock().unwrap().push((p.docs_done, p.phase))
        })
        .await
        .unwrap();
    assert!(
        store.overlapped.load(Ordering::SeqCst),
        "batch 2 was embedded while batch 1 was being written"
    );
    assert_eq!(emb.calls.load(Ordering::SeqCst), 3);
    assert_eq!(store.upserts.load(Ordering::SeqCst), 3);
    assert_eq!((r.upsert.inserted, r.upsert.chunks), (6, 6));
    assert_eq!(store.docs.lock().unwrap().len(), 6);
    let done = done.into_inner().unwrap();
    assert!(
        done.windows(2).all(|w| w[0].0 <= w[1].0),
        "written count never goes back: {done:?}"
    );
    assert_eq!(done.last(), Some(&(6, IngestPhase::Done)));
}

#[tokio::test]
async fn a_document_repeated_in_a_later_batch_keeps_its_later_version() {
    let store = Arc::new(MemStore::default());
    let emb = Arc::new(FakeEmbedder::new("v1", 512));
    let ing = Ingestor::builder(store.clone())
        .embedder(Some(emb as Arc<dyn Embedder>))
        .batch_size(2)
        .build()
        .unwrap();
    // doc-0 in batch 1, then again (changed) in batch 2, staged while batch 1
    // is written; and doc-1 repeated unchanged in batch 3.
    let mut input = docs(2, 10);
    let mut newer = Document::new("doc-0", "The newer version of document zero.");
    newer.lang = Some("en".into());
    input.push(newer);
    input.extend(docs(3, 10).into_iter().skip(2));
    input.push(docs(2, 10).remove(1));
    let r = ing.ingest(input, &no_progress).await.unwrap();
    let stored = store.docs.lock().unwrap();
    assert_eq!(
        stored["doc-0"].document.content,
        "The newer version of document zero."
    );
    assert_eq!(stored.len(), 3);
    assert_eq!(
        (r.upsert.inserted, r.upsert.replaced, r.upsert.unchanged),
        (3, 1, 1),
        "doc-0 replaced, doc-1 skipped as unchanged: {r:?}"
    );
}

#[tokio::test]
async fn refuses_bad_documents_and_duplicates_and_fails_on_embedder_errors() {
    let store = Arc::new(MemStore::default());
    let ing = Ingestor::builder(store.clone()).build().unwrap();
    let mut input = docs(3, 5);
    input.push(Document::new("empty", "   \n"));
    input.push(Document::new("", "has content"));
    let mut dup = Document::new("doc-0", "newer version of doc 0");
    dup.lang = Some("en".into());
    input.push(dup);
    let r = ing.ingest(input, &no_progress).await.unwrap();
    assert_eq!(r.upsert.inserted, 3);
    assert_eq!(r.errors.len(), 3, "{:?}", r.errors);
    assert!(r.errors.iter().any(|e| e.contains("duplicate")));
    assert_eq!(
        store.docs.lock().unwrap()["doc-0"].document.content,
        "newer version of doc 0"
    );

    let mut bad = FakeEmbedder::new("v1", 256);
    bad.fail = true;
    let ing = Ingestor::builder(Arc::new(MemStore::default()))
        .embedder(Some(Arc::new(bad) as Arc<dyn Embedder>))
        .build()
        .unwrap();
    let err = ing.ingest(docs(2, 5), &no_progress).await.unwrap_err();
    assert_eq!(err.code(), "unavailable");
}

#[tokio::test]
async fn detects_missing_language_before_hashing() {
    let store = Arc::new(MemStore::default());
    let ing = Ingestor::builder(store.clone())
        .chunker(
            Chunker::new(ChunkerConfig {
                max_tokens: 50,
                min_tokens: 30,
                overlap_tokens: 5,
            })
            .unwrap(),
        )
        .build()
        .unwrap();
    let d = Document::new("fr", "Les frais de routage du réseau Lightning ont fortement augmenté depuis le début de l'année.");
    ing.ingest(vec![d.clone()], &no_progress).await.unwrap();
    assert_eq!(
        store.docs.lock().unwrap()["fr"].document.lang.as_deref(),
        Some("fr")
    );
    let r = ing.ingest(vec![d], &no_progress).await.unwrap();
    assert_eq!(
        r.upsert.unchanged, 1,
        "detection is deterministic, so the document is skipped"
    );
}

#[test]
fn ingest_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let store = Arc::new(MemStore::default());
    let ing = Ingestor::builder(store).build().unwrap();
    let fut = ing.ingest(docs(1, 1), &no_progress);
    assert_send(&fut);
}

#[tokio::test]
async fn sentence_vectors_follow_the_store_and_cover_every_sentence() {
    let store = Arc::new(MemStore {
        sentences: true,
        ..MemStore::default()
    });
    let emb = Arc::new(FakeEmbedder::new("v1", 64));
    let ing = Ingestor::builder(store.clone())
        .embedder(Some(emb.clone() as Arc<dyn Embedder>))
        .build()
        .unwrap();
    assert!(
        ing.sentence_vectors(),
        "on by default when the store supports it"
    );
    assert_eq!(
        ing.chunker().config().max_tokens,
        ChunkerConfig::default().max_tokens,
        "chunks keep their own budget: sentences cover what the embedder window cuts"
    );
    let mut doc = Document::new(
        "s1",
        "Aspirin lowers the risk of stroke. It was tested in 400 patients. Side effects were rare.",
    );
    doc.title = Some("Aspirin trial".into());
    doc.lang = Some("en".into());
    let mut single = Document::new("s2", "Only one sentence lives in this document.");
    single.lang = Some("en".into());
    let r = ing.ingest(vec![doc, single], &no_progress).await.unwrap();
    assert_eq!(r.upsert.inserted, 2);
    let (s1, s2) = {
        let map = store.docs.lock().unwrap();
        (map["s1"].clone(), map["s2"].clone())
    };
    assert_eq!(s1.chunks.len(), 1);
    let sentences = &s1.sentence_embeddings.as_ref().unwrap()[0];
    assert_eq!(sentences.len(), 3);
    // Each sentence vector is the embedding of "title\n\nsentence".
    let expected = emb
        .embed(&[
            "Aspirin trial\n\nAspirin lowers the risk of stroke.".to_string(),
            "Aspirin trial\n\nIt was tested in 400 patients.".to_string(),
            "Aspirin trial\n\nSide effects were rare.".to_string(),
        ])
        .await
        .unwrap();
    assert_eq!(sentences, &expected);
    // A one-sentence chunk gets no extra vector.
    assert_eq!(
        s2.sentence_embeddings.unwrap(),
        vec![Vec::<Vec<f32>>::new()]
    );
    // 2 chunk texts + 3 sentence texts (+ the 3 re-embedded above for the check).
    assert_eq!(emb.texts.load(Ordering::SeqCst), 2 + 3 + 3);

    // Off on request: no sentence vectors, chunker capped for the embedder again.
    let off = Ingestor::builder(store.clone())
        .embedder(Some(emb.clone() as Arc<dyn Embedder>))
        .sentence_vectors(false)
        .build()
        .unwrap();
    assert!(!off.sentence_vectors());
    assert_eq!(off.chunker().config().max_tokens, 62);

    // A store without support: off by default, refused when asked for.
    let plain: Arc<dyn VectorStore> = Arc::new(MemStore::default());
    let auto = Ingestor::builder(plain.clone())
        .embedder(Some(emb.clone() as Arc<dyn Embedder>))
        .build()
        .unwrap();
    assert!(!auto.sentence_vectors());
    let err = Ingestor::builder(plain)
        .embedder(Some(emb as Arc<dyn Embedder>))
        .sentence_vectors(true)
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("does not index sentence vectors"),
        "{err}"
    );
}

#[tokio::test]
async fn a_chunking_change_reprocesses_unchanged_documents_once() {
    let store = Arc::new(MemStore::default());
    let small = Chunker::new(ChunkerConfig {
        max_tokens: 40,
        min_tokens: 30,
        overlap_tokens: 5,
    })
    .unwrap();
    let first = Ingestor::builder(store.clone())
        .chunker(small.clone())
        .build()
        .unwrap();
    let r = first.ingest(docs(3, 60), &no_progress).await.unwrap();
    assert_eq!((r.upsert.inserted, r.reprocessed), (3, 0));
    let stored = store.docs.lock().unwrap().get("doc-1").cloned().unwrap();
    assert_eq!(stored.chunking.as_deref(), Some(first.chunking()));
    assert!(stored.chunks.len() > 1, "{}", stored.chunks.len());
    assert!(first.chunking().contains("max=40"), "{}", first.chunking());

    // Same chunking: nothing to do.
    let r = first.ingest(docs(3, 60), &no_progress).await.unwrap();
    assert_eq!((r.upsert.unchanged, r.reprocessed), (3, 0));

    // Default sizes: same content, other chunking -> re-chunked, said so.
    let second = Ingestor::builder(store.clone()).build().unwrap();
    assert_ne!(first.chunking(), second.chunking());
    let r = second.ingest(docs(3, 60), &no_progress).await.unwrap();
    assert_eq!(
        (r.upsert.replaced, r.upsert.unchanged, r.reprocessed),
        (3, 0, 3)
    );
    let stored = store.docs.lock().unwrap().get("doc-1").cloned().unwrap();
    assert_eq!(stored.chunks.len(), 1);
    assert_eq!(stored.chunking.as_deref(), Some(second.chunking()));
    let r = second.ingest(docs(3, 60), &no_progress).await.unwrap();
    assert_eq!((r.upsert.unchanged, r.reprocessed), (3, 0));

    // The embedded-text settings count too: context off changes the vectors.
    let embedder: Arc<dyn Embedder> = Arc::new(FakeEmbedder::new("v1", 512));
    let with_context = Ingestor::builder(store.clone())
        .embedder(Some(embedder.clone()))
        .build()
        .unwrap();
    let without = Ingestor::builder(store.clone())
        .embedder(Some(embedder))
        .embed_context(false)
        .build()
        .unwrap();
    assert_ne!(with_context.chunking(), without.chunking());

    // A document written without a fingerprint (older store rows) is re-chunked.
    store
        .docs
        .lock()
        .unwrap()
        .get_mut("doc-2")
        .unwrap()
        .chunking = None;
    let r = second.ingest(docs(3, 60), &no_progress).await.unwrap();
    assert_eq!((r.upsert.unchanged, r.reprocessed), (2, 1));
}

#[tokio::test]
async fn is_current_hashes_like_the_ingest() {
    let store = Arc::new(MemStore::default());
    let ing = Ingestor::builder(store.clone()).build().unwrap();
    // No language: the ingest detects it before hashing, and so must the check.
    let doc = Document::new(
        "u",
        "The channel stays open while the splice confirms on chain.",
    );
    assert!(doc.lang.is_none());
    ing.ingest(vec![doc.clone()], &no_progress).await.unwrap();
    let fp = store.fingerprints(&["u".into()]).await.unwrap()["u"].clone();
    assert_ne!(
        fp.content_hash,
        doc.content_hash(),
        "stored with its detected language"
    );
    assert!(ing.is_current(&doc, &fp));
    let mut edited = doc.clone();
    edited.content.push_str(" Edited.");
    assert!(!ing.is_current(&edited, &fp));
    let other = Ingestor::builder(store.clone())
        .chunker(
            Chunker::new(ChunkerConfig {
                max_tokens: 40,
                min_tokens: 30,
                overlap_tokens: 5,
            })
            .unwrap(),
        )
        .build()
        .unwrap();
    assert!(!other.is_current(&doc, &fp), "other chunking");
}
