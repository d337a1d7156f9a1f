//! Caches cannot go stale: seeded random sequences of ingest, replace,
//! re-ingest, metadata-only changes, delete, delete + re-insert and
//! re-index (shadow, gate, alias cutover, cutover back to an older index),
//! interleaved with searches and questions; every cached result must equal
//! the one computed without the cache, on the embedded store and on a real
//! Redis. The seed is printed on failure (`VERITY_CACHE_SEEDS=1,2,3` replays).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use verity::api::{AskRequest, ConfigOverrides, DeleteRequest, IngestRequest, ReindexRequest};
use verity::core::{Document, SearchMode, SearchQuery, SearchResults};
use verity::rag::Retriever;
use verity::Verity;

/// splitmix64: a small deterministic generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const SENTENCES: &[&str] = &[
    "The fee of a forward is the base fee plus the amount times the fee rate in parts per million.",
    "Since the 2025 protocol change, a channel holds at most 966 pending HTLCs per direction.",
    "A channel holds at most 483 pending HTLCs in each direction.",
    "Circular rebalancing moves liquidity between channels and costs routing fees.",
    "Watchtowers monitor the chain for revoked commitment transactions.",
    "Onion routing hides the payment path from intermediate nodes.",
    "Anchor outputs let either party bump the commitment transaction fee later.",
    "Gossip messages announce channels, fee policies and node addresses.",
    "Les frais d'un relais valent les frais de base plus le montant fois le taux.",
    "Le rééquilibrage circulaire déplace la liquidité entre les canaux.",
];

const QUERIES: &[&str] = &[
    "maximum number of pending HTLCs",
    "How is the fee of a forward computed?",
    "circular rebalancing liquidity",
    "watchtowers revoked commitment",
    "Comment sont calculés les frais ?",
    "anchor outputs fee bump",
    "gossip node addresses",
    "onion routing path privacy",
];

fn random_doc(rng: &mut Rng, uid: &str) -> Document {
    let n = 1 + rng.below(3);
    let content: Vec<&str> = (0..n).map(|_| *rng.pick(SENTENCES)).collect();
    let mut d = Document::new(uid, content.join(" "));
    d.title = Some(format!("Note {uid}"));
    d.lang = Some(
        if content[0].starts_with("Le") {
            "fr"
        } else {
            "en"
        }
        .into(),
    );
    d.tags = vec![rng.pick(&["fees", "htlc", "liquidity"]).to_string()];
    d.metadata
        .insert("channel_id".into(), format!("{}x1x0", rng.below(3)).into());
    d
}

/// What must be equal between a cached and an uncached retrieval.
fn view(r: &SearchResults) -> Vec<(String, String, i64, i64)> {
    r.hits
        .iter()
        .map(|h| {
            (
                h.doc.uid.clone(),
                h.chunk.text.clone(),
                (h.score * 1e4).round() as i64,
                (h.relevance * 1e4).round() as i64,
            )
        })
        .collect()
}

fn random_query(rng: &mut Rng) -> SearchQuery {
    let mode = *rng.pick(&[SearchMode::Lexical, SearchMode::Hybrid, SearchMode::Dense]);
    let mut q = SearchQuery::new(*rng.pick(QUERIES))
        .k(1 + rng.below(8))
        .mode(mode);
    match rng.below(4) {
        0 => q.filters.tags_any = vec![rng.pick(&["fees", "htlc", "liquidity"]).to_string()],
        1 => q.filters.langs = vec![rng.pick(&["en", "fr"]).to_string()],
        _ => {}
    }
    q
}

#[derive(Default)]
struct Tally {
    searches: usize,
    search_hits: usize,
    asks: usize,
    ask_hits: usize,
}

async fn check_reads(v: &Verity, rng: &mut Rng, tally: &mut Tally, step: &str) {
    let uncached = Retriever::new(v.store().clone())
        .with_index(v.index_name())
        .with_embedder(v.embedder().cloned())
        .with_config(v.config().retriever.clone());
    for _ in 0..3 {
        if rng.below(3) > 0 {
            let q = random_query(rng);
            let truth = uncached.retrieve(&q).await.unwrap();
            for _ in 0..2 {
                let got = v.search_query(&q).await.unwrap();
                tally.searches += 1;
                if got.notes.iter().any(|n| n.contains("retrieval cache")) {
                    tally.search_hits += 1;
                }
                assert_eq!(view(&got), view(&truth), "{step}: search {q:?}");
                assert_eq!(got.not_enough_evidence, truth.not_enough_evidence, "{step}");
                assert_eq!(got.mode, truth.mode, "{step}");
            }
        } else {
            let mut req = AskRequest::new(*rng.pick(QUERIES));
            if rng.below(2) == 0 {
                req.lang = Some(rng.pick(&["en", "fr"]).to_string());
            }
            let truth = v
                .ask(&AskRequest {
                    no_cache: true,
                    ..req.clone()
                })
                .await
                .unwrap();
            for _ in 0..2 {
                let got = v.ask(&req).await.unwrap();
                tally.asks += 1;
                tally.ask_hits += usize::from(got.cached);
                assert_eq!(got.text, truth.text, "{step}: ask {:?}", req.question);
                let uids = |a: &verity::Answer| {
                    a.citations
                        .iter()
                        .map(|c| (c.doc_uid.clone(), c.chunk_id.clone()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(uids(&got), uids(&truth), "{step}: ask {:?}", req.question);
                assert_eq!(got.not_enough_evidence, truth.not_enough_evidence, "{step}");
            }
        }
    }
}

fn write_jsonl(path: &Path, docs: &[Document]) {
    let text: Vec<String> = docs
        .iter()
        .map(|d| serde_json::to_string(d).unwrap())
        .collect();
    std::fs::write(path, text.join("\n")).unwrap();
}

async fn run(seed: u64, overrides: &ConfigOverrides, files: &Path) -> Tally {
    let mut rng = Rng(seed);
    let mut v = Verity::open_with(overrides).await.unwrap();
    let uids: Vec<String> = (0..10).map(|i| format!("d{i:02}")).collect();
    let mut live: std::collections::BTreeMap<String, Document> = Default::default();
    let mut tally = Tally::default();
    for step in 0..40 {
        let op = rng.below(100);
        let uid = rng.pick(&uids).clone();
        let label = format!("seed {seed} step {step} op {op} uid {uid}");
        match op {
            // Insert or replace.
            0..=34 => {
                let d = random_doc(&mut rng, &uid);
                v.ingest(IngestRequest::documents(vec![d.clone()]), &|_| {})
                    .await
                    .unwrap();
                live.insert(uid, d);
            }
            // Re-ingest unchanged.
            35..=44 => {
                if let Some(d) = live.get(&uid) {
                    let o = v
                        .ingest(IngestRequest::documents(vec![d.clone()]), &|_| {})
                        .await
                        .unwrap();
                    assert_eq!(o.unchanged, 1, "{label}");
                }
            }
            // Metadata-only change (tags filter the results).
            45..=54 => {
                if let Some(mut d) = live.get(&uid).cloned() {
                    d.tags = vec![rng.pick(&["fees", "htlc", "liquidity"]).to_string()];
                    v.ingest(IngestRequest::documents(vec![d.clone()]), &|_| {})
                        .await
                        .unwrap();
                    live.insert(uid, d);
                }
            }
            // Delete.
            55..=69 => {
                v.delete(&DeleteRequest {
                    uids: vec![uid.clone()],
                })
                .await
                .unwrap();
                live.remove(&uid);
            }
            // Delete, read, re-insert the same uid.
            70..=84 => {
                v.delete(&DeleteRequest {
                    uids: vec![uid.clone()],
                })
                .await
                .unwrap();
                check_reads(&v, &mut rng, &mut tally, &label).await;
                let d = random_doc(&mut rng, &uid);
                v.ingest(IngestRequest::documents(vec![d.clone()]), &|_| {})
                    .await
                    .unwrap();
                live.insert(uid, d);
            }
            // Re-index what is live into `default:v1` or `default:v2` (which
            // may hold an older state) and cut over; the handle is reopened,
            // as every later command would be.
            _ => {
                let version = rng.pick(&["1", "2"]).to_string();
                let file = files.join(format!("live-{step}.jsonl"));
                let docs: Vec<Document> = live.values().cloned().collect();
                if docs.is_empty() {
                    continue;
                }
                write_jsonl(&file, &docs);
                let r = v
                    .reindex(
                        &ReindexRequest {
                            paths: vec![file],
                            version,
                            name: None,
                            gate: None,
                            eval: None,
                            eval_beir: None,
                            dry_run: false,
                            mode: None,
                        },
                        &|_| {},
                    )
                    .await
                    .unwrap();
                assert!(r.cut_over, "{label}: {r:?}");
                drop(v);
                v = Verity::open_with(overrides).await.unwrap();
            }
        }
        check_reads(&v, &mut rng, &mut tally, &label).await;
    }
    tally
}

fn seeds() -> Vec<u64> {
    std::env::var("VERITY_CACHE_SEEDS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![7, 2025])
}

fn assert_exercised(t: &Tally) {
    // The comparison is only worth something if the caches served results.
    assert!(
        t.search_hits * 4 >= t.searches,
        "too few retrieval cache hits: {} of {}",
        t.search_hits,
        t.searches
    );
    assert!(
        t.ask_hits > 0,
        "no answer served from the cache ({} asks)",
        t.asks
    );
}

fn overrides(home: String) -> ConfigOverrides {
    ConfigOverrides {
        home: Some(home),
        // The local model when installed (dense and hybrid then run), else
        // lexical search with the same caches.
        embedder: Some("auto".into()),
        generator: Some("extractive".into()),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cached_equals_uncached_on_sqlite() {
    for seed in seeds() {
        let tmp = tempfile::tempdir().unwrap();
        let o = overrides(tmp.path().join("home").display().to_string());
        let t = run(seed, &o, tmp.path()).await;
        assert_exercised(&t);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cached_equals_uncached_on_redis() {
    for seed in seeds() {
        // A fresh server per seed: every run starts from an empty key space.
        let Some(server) = verity_redis::server::RedisServer::start_or_skip(
            "cached_equals_uncached_on_redis",
            &[],
        ) else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let t = run(seed, &overrides(server.url()), tmp.path()).await;
        assert_exercised(&t);
    }
}
