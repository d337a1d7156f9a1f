//! The [`EventStore`] contract suite: one scenario every backend must pass,
//! checked against the reference semantics ([`EventFilter::matches`], exact
//! L2 between unit vectors), and the observations it made, so two backends
//! can be compared ([`compare`]: same ids, same order, distances within a
//! tolerance, same totals, same errors).
//!
//! ```no_run
//! # async fn demo(store: std::sync::Arc<dyn verity_core::EventStore>) {
//! let observed = verity_store_contract::events::run(store).await;
//! assert!(observed.is_ok(), "{observed:?}");
//! # }
//! ```
//! The store handed to [`run`] must be empty.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{json, Map, Value};
use uuid::Uuid;
use verity_core::events::l2_from_cosine;
use verity_core::{
    Embedder, EmbedderId, Embedding, Error, Event, EventFilter, EventQuery, EventRecord,
    EventSearch, EventSearchMode, EventStore, NewEvent, TimeOrder, VectorQuery,
};

use verity_memory::Memory;

/// Dimension of the toy vectors.
pub const DIM: usize = 32;
/// Number of events of the scenario.
pub const EVENTS: usize = 48;

/// A deterministic bag-of-words embedder (hashed words, unit vectors), so the
/// suite needs no model.
#[derive(Debug, Clone)]
pub struct ToyEmbedder {
    id: EmbedderId,
}

impl Default for ToyEmbedder {
    fn default() -> Self {
        Self {
            id: EmbedderId::new("toy-bow", "1", DIM),
        }
    }
}

/// The toy vector of a text.
pub fn toy_vector(text: &str) -> Vec<f32> {
    let mut v = [0.0f32; DIM];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in w.to_lowercase().bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        let i = (h % DIM as u64) as usize;
        let sign = if (h >> 32) & 1 == 0 { 1.0 } else { -1.0 };
        if let Some(x) = v.get_mut(i) {
            *x += sign;
        }
    }
    if v.iter().all(|x| *x == 0.0) {
        if let Some(x) = v.first_mut() {
            *x = 1.0;
        }
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

#[async_trait]
impl Embedder for ToyEmbedder {
    fn id(&self) -> &EmbedderId {
        &self.id
    }
    fn max_tokens(&self) -> usize {
        512
    }
    async fn embed(&self, texts: &[String]) -> verity_core::Result<Vec<Embedding>> {
        Ok(texts.iter().map(|t| toy_vector(t)).collect())
    }
}

/// What one step of the scenario saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Step name.
    pub label: String,
    /// Result ids.
    pub ids: Vec<Uuid>,
    /// Their L2 distances (vector searches).
    pub distances: Vec<Option<f32>>,
    /// `total_hits`.
    pub total: Option<u64>,
    /// Whether the order is part of the contract (lexical ranks are not:
    /// backends tokenise and weigh BM25 differently).
    pub ordered: bool,
    /// Error code and field, for error steps.
    pub error: Option<String>,
}

const WORDS: &[&str] = &[
    "kestrel", "granite", "harbor", "lantern", "meadow", "quartz", "saffron", "tundra", "violet",
    "walnut", "zephyr", "cobalt", "ember", "falcon", "glacier", "juniper", "lagoon", "marble",
    "nectar", "orchid", "pepper", "raven", "summit", "thistle",
];
const TYPES: &[&str] = &["decision", "observation", "prompt"];

fn id(i: usize) -> Uuid {
    Uuid::from_u128(0x5eed_0000_0000_0000_0000_0000_0000_0000 + i as u128)
}

fn base_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

/// The scenario's reference "now" (expiries are relative to it).
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

fn text_of(i: usize) -> Option<String> {
    if i >= EVENTS - 4 {
        return None;
    }
    let w = |k: usize| WORDS[k % WORDS.len()];
    Some(format!(
        "{} {} {} {}",
        w(i * 7),
        w(i * 11 + 3),
        w(i * 5 + 1),
        w(i + 13)
    ))
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The scenario's events.
pub fn dataset() -> Vec<EventRecord> {
    (0..EVENTS)
        .map(|i| {
            let text = text_of(i);
            let content = match &text {
                Some(t) => obj(json!({"role": "agent", "text": t})),
                None => obj(json!({"type": "ping", "n": i})),
            };
            let expires_at = match i {
                30 | 31 => Some(now() - Duration::days(1)),
                32 | 33 => Some(now() + Duration::days(3650)),
                _ => None,
            };
            EventRecord {
                event: Event {
                    id: id(i),
                    timestamp: base_time() + Duration::hours(7 * i as i64),
                    content,
                    metadata: obj(json!({
                        "event_type": TYPES[i % 3],
                        "session_id": format!("s{}", i % 4),
                        "tags": [format!("t{}", i % 2), format!("u{}", i % 5)],
                        "rule": {"id": format!("R{}", i % 3), "level": i % 2},
                        "score": (i % 4) as f64 / 2.0,
                    })),
                    embedding: text.as_deref().map(toy_vector),
                    similarity_score: None,
                    rank_score: None,
                    expires_at,
                },
                text,
            }
        })
        .collect()
}

fn filters() -> Vec<(&'static str, EventFilter)> {
    let f = |m: Value| Some(obj(m));
    let t = |h: i64| Some(base_time() + Duration::hours(h));
    vec![
        ("none", EventFilter::default()),
        (
            "type",
            EventFilter {
                metadata: f(json!({"event_type": "decision"})),
                ..Default::default()
            },
        ),
        (
            "array",
            EventFilter {
                metadata: f(json!({"tags": ["t1"]})),
                ..Default::default()
            },
        ),
        (
            "array2",
            EventFilter {
                metadata: f(json!({"tags": ["u2", "t0"]})),
                ..Default::default()
            },
        ),
        (
            "nested",
            EventFilter {
                metadata: f(json!({"rule": {"id": "R1"}})),
                ..Default::default()
            },
        ),
        (
            "number",
            EventFilter {
                metadata: f(json!({"score": 1})),
                ..Default::default()
            },
        ),
        (
            "empty-obj",
            EventFilter {
                metadata: f(json!({"rule": {}})),
                ..Default::default()
            },
        ),
        (
            "no-match",
            EventFilter {
                metadata: f(json!({"event_type": "nope"})),
                ..Default::default()
            },
        ),
        (
            "scalar-vs-array",
            EventFilter {
                metadata: f(json!({"tags": "t1"})),
                ..Default::default()
            },
        ),
        (
            "time",
            EventFilter {
                ts_start: t(35),
                ts_end: t(140),
                ..Default::default()
            },
        ),
        (
            "all",
            EventFilter {
                metadata: f(json!({"session_id": "s1", "rule": {"level": 1}})),
                ts_start: t(0),
                ts_end: t(250),
            },
        ),
    ]
}

fn live(e: &Event, at: DateTime<Utc>) -> bool {
    e.expires_at.is_none_or(|x| x > at)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = dot(v, v).sqrt();
    v.iter().map(|x| x / n).collect()
}

fn check(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}

fn err_tag(e: &Error) -> String {
    match e {
        Error::Input(i) => format!("{}:{}", e.code(), i.field_name().unwrap_or("")),
        other => other.code().to_string(),
    }
}

fn same_ranking(a: &[(Uuid, f32)], b: &[(Uuid, Option<f32>)], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((ia, da), (ib, db))| {
            db.is_some_and(|db| (da - db).abs() <= tol)
                && (ia == ib || a.iter().any(|(x, d)| x == ib && (d - da).abs() <= tol))
        })
}

/// Run the scenario on an empty store; `Err` says which step broke the contract.
pub async fn run(store: Arc<dyn EventStore>) -> Result<Vec<Observation>, String> {
    let mut obs = Vec::new();
    let data = dataset();
    let at = now();
    store
        .write(data.clone())
        .await
        .map_err(|e| format!("write: {e}"))?;
    check(store.dimension().await.ok().flatten() == Some(DIM), || {
        "dimension".into()
    })?;

    // get: round trip; expired events are invisible.
    for r in &data {
        let got = store
            .get(r.event.id, at)
            .await
            .map_err(|e| format!("get: {e}"))?;
        match got {
            None => check(!live(&r.event, at), || {
                format!("get {} missing", r.event.id)
            })?,
            Some(g) => {
                check(live(&r.event, at), || {
                    format!("expired {} returned", r.event.id)
                })?;
                check(
                    g.content == r.event.content
                        && g.metadata == r.event.metadata
                        && g.timestamp == r.event.timestamp
                        && g.expires_at == r.event.expires_at,
                    || format!("get {} differs: {g:?}", r.event.id),
                )?;
                let same_vec = match (&g.embedding, &r.event.embedding) {
                    (Some(a), Some(b)) => {
                        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
                    }
                    (None, None) => true,
                    _ => false,
                };
                check(same_vec, || format!("get {} embedding differs", r.event.id))?;
            }
        }
    }
    check(
        store.get(id(9999), at).await.ok().flatten().is_none(),
        || "unknown id found".into(),
    )?;

    // Vector search with every filter and threshold, against the exact reference.
    let queries = ["kestrel harbor", "quartz meadow violet", "ember"];
    for q in queries {
        let qv = toy_vector(q);
        for (fname, filter) in filters() {
            for thr in [None, Some(1.0f32), Some(0.9)] {
                let mut want: Vec<(Uuid, f32)> = data
                    .iter()
                    .filter(|r| {
                        live(&r.event, at) && filter.matches(r.event.timestamp, &r.event.metadata)
                    })
                    .filter_map(|r| {
                        let v = unit(r.event.embedding.as_deref()?);
                        Some((r.event.id, l2_from_cosine(dot(&qv, &v))))
                    })
                    .filter(|(_, d)| thr.is_none_or(|t| *d <= t))
                    .collect();
                want.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
                let label = format!("vector[{q}|{fname}|{thr:?}]");
                let search = EventSearch {
                    mode: EventSearchMode::Vector,
                    vector: Some(qv.clone()),
                    text: None,
                    filter: filter.clone(),
                    max_distance: thr,
                    limit: 100,
                    offset: 0,
                    now: at,
                };
                let page = store
                    .search(&search)
                    .await
                    .map_err(|e| format!("{label}: {e}"))?;
                let got: Vec<(Uuid, Option<f32>)> = page
                    .data
                    .iter()
                    .map(|e| (e.id, e.similarity_score))
                    .collect();
                check(same_ranking(&want, &got, 1e-3), || {
                    format!("{label}: want {want:?}, got {got:?}")
                })?;
                check(
                    page.total_hits.is_none_or(|t| t == want.len() as u64),
                    || format!("{label}: total {:?} != {}", page.total_hits, want.len()),
                )?;
                // A page further on is the same slice of the ranking.
                let paged = store
                    .search(&EventSearch {
                        limit: 3,
                        offset: 2,
                        ..search.clone()
                    })
                    .await
                    .map_err(|e| format!("{label} paged: {e}"))?;
                let want_page: Vec<(Uuid, f32)> = want.iter().skip(2).take(3).copied().collect();
                let got_page: Vec<(Uuid, Option<f32>)> = paged
                    .data
                    .iter()
                    .map(|e| (e.id, e.similarity_score))
                    .collect();
                // Ties may be paged in any order: same distances, ids from the tie group.
                let page_ok = want_page.len() == got_page.len()
                    && want_page.iter().zip(&got_page).all(|((_, dw), (ig, dg))| {
                        dg.is_some_and(|dg| (dg - dw).abs() <= 1e-3)
                            && want.iter().any(|(i, d)| i == ig && (d - dw).abs() <= 1e-3)
                    });
                check(page_ok, || {
                    format!("{label} paged: want {want_page:?}, got {got_page:?}")
                })?;
                obs.push(Observation {
                    label,
                    ids: got.iter().map(|g| g.0).collect(),
                    distances: got.iter().map(|g| g.1).collect(),
                    total: Some(want.len() as u64),
                    ordered: true,
                    error: None,
                });
            }
        }
    }

    // Metadata/time listing, both orders, with totals.
    for (fname, filter) in filters() {
        for order in [TimeOrder::NewestFirst, TimeOrder::OldestFirst] {
            let mut want: Vec<&Event> = data
                .iter()
                .map(|r| &r.event)
                .filter(|e| live(e, at) && filter.matches(e.timestamp, &e.metadata))
                .collect();
            want.sort_by_key(|e| e.timestamp);
            if order == TimeOrder::NewestFirst {
                want.reverse();
            }
            let label = format!("list[{fname}|{order:?}]");
            let page = store
                .list(&filter, order, 5, 1, at)
                .await
                .map_err(|e| format!("{label}: {e}"))?;
            let want_ids: Vec<Uuid> = want.iter().skip(1).take(5).map(|e| e.id).collect();
            let got: Vec<Uuid> = page.data.iter().map(|e| e.id).collect();
            check(
                got == want_ids && page.total_hits == Some(want.len() as u64),
                || {
                    format!(
                        "{label}: want {want_ids:?} of {}, got {got:?} of {:?}",
                        want.len(),
                        page.total_hits
                    )
                },
            )?;
            obs.push(Observation {
                label,
                ids: got,
                distances: vec![],
                total: page.total_hits,
                ordered: true,
                error: None,
            });
        }
    }
    let meta_search = EventSearch {
        mode: EventSearchMode::MetadataOnly,
        vector: None,
        text: None,
        filter: filters().swap_remove(1).1,
        max_distance: None,
        limit: 4,
        offset: 0,
        now: at,
    };
    let page = store
        .search(&meta_search)
        .await
        .map_err(|e| format!("metadata-only: {e}"))?;
    let listed = store
        .list(&meta_search.filter, TimeOrder::NewestFirst, 4, 0, at)
        .await
        .map_err(|e| e.to_string())?;
    check(
        page.data.iter().map(|e| e.id).collect::<Vec<_>>()
            == listed.data.iter().map(|e| e.id).collect::<Vec<_>>(),
        || "metadata-only search is not the newest-first listing".into(),
    )?;

    // Lexical: the events whose text has the word, filters applied.
    for (word, fname, filter) in [
        ("kestrel", "none", EventFilter::default()),
        ("granite", "none", EventFilter::default()),
        ("harbor", "type", filters().swap_remove(1).1),
        ("zzzunknown", "none", EventFilter::default()),
    ] {
        let want: BTreeSet<Uuid> = data
            .iter()
            .filter(|r| live(&r.event, at) && filter.matches(r.event.timestamp, &r.event.metadata))
            .filter(|r| {
                r.text
                    .as_deref()
                    .is_some_and(|t| t.split(' ').any(|w| w == word))
            })
            .map(|r| r.event.id)
            .collect();
        let label = format!("lexical[{word}|{fname}]");
        let page = store
            .search(&EventSearch {
                mode: EventSearchMode::Lexical,
                vector: None,
                text: Some(word.to_string()),
                filter,
                max_distance: None,
                limit: 100,
                offset: 0,
                now: at,
            })
            .await
            .map_err(|e| format!("{label}: {e}"))?;
        let got: BTreeSet<Uuid> = page.data.iter().map(|e| e.id).collect();
        check(
            got == want && page.total_hits == Some(want.len() as u64),
            || {
                format!(
                    "{label}: want {want:?}, got {got:?} (total {:?})",
                    page.total_hits
                )
            },
        )?;
        check(
            page.data
                .iter()
                .all(|e| e.rank_score.is_some_and(|s| s > 0.0)),
            || format!("{label}: scores"),
        )?;
        obs.push(Observation {
            label,
            ids: got.into_iter().collect(),
            distances: vec![],
            total: page.total_hits,
            ordered: false,
            error: None,
        });
    }

    // Hybrid: every lexical match and the best vector hits are in the fused list.
    let hq = "kestrel lantern";
    let page = store
        .search(&EventSearch {
            mode: EventSearchMode::Hybrid,
            vector: Some(toy_vector(hq)),
            text: Some(hq.into()),
            filter: EventFilter::default(),
            max_distance: None,
            limit: 100,
            offset: 0,
            now: at,
        })
        .await
        .map_err(|e| format!("hybrid: {e}"))?;
    let got: HashSet<Uuid> = page.data.iter().map(|e| e.id).collect();
    let lex: Vec<Uuid> = data
        .iter()
        .filter(|r| live(&r.event, at))
        .filter(|r| {
            r.text
                .as_deref()
                .is_some_and(|t| t.split(' ').any(|w| w == "kestrel" || w == "lantern"))
        })
        .map(|r| r.event.id)
        .collect();
    check(lex.iter().all(|i| got.contains(i)), || {
        "hybrid lost a lexical match".into()
    })?;
    check(
        page.data
            .iter()
            .all(|e| e.rank_score.is_some() && e.similarity_score.is_some()),
        || "hybrid hits need a rank score and a distance".into(),
    )?;
    check(
        page.data
            .windows(2)
            .all(|w| w[0].rank_score >= w[1].rank_score),
        || "hybrid order".into(),
    )?;

    // Metadata merge.
    let target = id(4);
    let merged = store
        .merge_metadata(
            target,
            &obj(json!({"reviewed": true, "event_type": "corrected"})),
            at,
        )
        .await
        .map_err(|e| format!("merge: {e}"))?
        .ok_or("merge: event not found")?;
    check(
        merged.metadata.get("reviewed") == Some(&json!(true))
            && merged.metadata.get("event_type") == Some(&json!("corrected"))
            && merged.metadata.get("session_id") == Some(&json!("s0")),
        || format!("merge result {:?}", merged.metadata),
    )?;
    let found = store
        .list(
            &EventFilter {
                metadata: Some(obj(json!({"reviewed": true}))),
                ..Default::default()
            },
            TimeOrder::NewestFirst,
            10,
            0,
            at,
        )
        .await
        .map_err(|e| e.to_string())?;
    check(
        found.data.iter().map(|e| e.id).collect::<Vec<_>>() == vec![target],
        || "merged key not searchable".into(),
    )?;
    let old = store
        .search(&EventSearch {
            mode: EventSearchMode::Vector,
            vector: Some(toy_vector("anything")),
            text: None,
            filter: EventFilter {
                metadata: Some(obj(json!({"event_type": "observation"}))),
                ..Default::default()
            },
            max_distance: None,
            limit: 100,
            offset: 0,
            now: at,
        })
        .await
        .map_err(|e| e.to_string())?;
    check(!old.data.iter().any(|e| e.id == target), || {
        "replaced metadata value still matches".into()
    })?;
    check(
        store
            .merge_metadata(id(9999), &obj(json!({"a": 1})), at)
            .await
            .ok()
            .flatten()
            .is_none(),
        || "merge on an unknown id".into(),
    )?;

    // Delete.
    check(
        store.delete(&[id(5), id(9999)]).await.ok() == Some(1),
        || "delete count".into(),
    )?;
    check(store.delete(&[id(5)]).await.ok() == Some(0), || {
        "delete twice".into()
    })?;
    check(store.get(id(5), at).await.ok().flatten().is_none(), || {
        "deleted event still there".into()
    })?;

    // Expiry: purge removes exactly the expired events.
    let purged = store
        .purge_expired(at)
        .await
        .map_err(|e| format!("purge: {e}"))?;
    check(purged == 2, || format!("purged {purged}, want 2"))?;
    check(store.get(id(32), at).await.ok().flatten().is_some(), || {
        "unexpired event purged".into()
    })?;
    let later = at + Duration::days(4000);
    check(
        store.get(id(32), later).await.ok().flatten().is_none(),
        || "event visible after expiry".into(),
    )?;
    let all_later = store
        .list(
            &EventFilter::default(),
            TimeOrder::NewestFirst,
            100,
            0,
            later,
        )
        .await
        .map_err(|e| e.to_string())?;
    check(
        !all_later
            .data
            .iter()
            .any(|e| e.id == id(32) || e.id == id(33)),
        || "expired event listed".into(),
    )?;

    // Errors: a batch with one bad vector writes nothing.
    let mut bad = dataset().swap_remove(0);
    bad.event.id = id(500);
    let mut bad2 = bad.clone();
    bad2.event.id = id(501);
    bad2.event.embedding = Some(vec![0.5; DIM + 1]);
    let e = store.write(vec![bad, bad2]).await.err();
    check(
        e.as_ref().map(err_tag).as_deref() == Some("invalid_input:embedding"),
        || format!("wrong-dim write: {e:?}"),
    )?;
    check(
        store.get(id(500), at).await.ok().flatten().is_none(),
        || "half a batch written".into(),
    )?;
    obs.push(Observation {
        label: "error[write-dim]".into(),
        ids: vec![],
        distances: vec![],
        total: None,
        ordered: true,
        error: e.as_ref().map(err_tag),
    });
    let e = store
        .search(&EventSearch {
            mode: EventSearchMode::Vector,
            vector: Some(vec![0.5; DIM - 1]),
            text: None,
            filter: EventFilter::default(),
            max_distance: None,
            limit: 10,
            offset: 0,
            now: at,
        })
        .await
        .err();
    check(
        e.as_ref().map(err_tag).as_deref() == Some("invalid_input:vector_query"),
        || format!("wrong-dim query: {e:?}"),
    )?;
    obs.push(Observation {
        label: "error[query-dim]".into(),
        ids: vec![],
        distances: vec![],
        total: None,
        ordered: true,
        error: e.as_ref().map(err_tag),
    });

    obs.extend(memory_steps(store).await?);
    Ok(obs)
}

/// Steps through [`Memory`] (validation, auto-embedding, fallback, tools).
async fn memory_steps(store: Arc<dyn EventStore>) -> Result<Vec<Observation>, String> {
    let mut obs = Vec::new();
    let memory = Memory::builder(store)
        .embedder(Arc::new(ToyEmbedder::default()))
        .max_content_bytes(4096)
        .build()
        .map_err(|e| e.to_string())?;
    fn record(obs: &mut Vec<Observation>, label: &str, e: Option<Error>) -> Option<String> {
        let tag = e.as_ref().map(err_tag);
        obs.push(Observation {
            label: label.into(),
            ids: vec![],
            distances: vec![],
            total: None,
            ordered: true,
            error: tag.clone(),
        });
        tag
    }
    let nan = NewEvent {
        content: obj(json!({"text": "x"})),
        embedding: Some(vec![f32::NAN; DIM]),
        ..Default::default()
    };
    let t = record(&mut obs, "error[nan]", memory.add(nan).await.err());
    check(t.as_deref() == Some("invalid_input:embedding"), || {
        format!("NaN embedding: {t:?}")
    })?;
    let huge = NewEvent {
        content: obj(json!({"text": "y".repeat(5000)})),
        ..Default::default()
    };
    let t = record(&mut obs, "error[huge]", memory.add(huge).await.err());
    check(t.as_deref() == Some("invalid_input:content"), || {
        format!("huge content: {t:?}")
    })?;
    let t = record(
        &mut obs,
        "error[limit]",
        memory
            .search(&EventQuery {
                limit: 0,
                ..EventQuery::text("x")
            })
            .await
            .err(),
    );
    check(t.as_deref() == Some("invalid_input:limit"), || {
        format!("limit 0: {t:?}")
    })?;
    let t = record(&mut obs, "error[unknown]", memory.get(id(9999)).await.err());
    check(t.as_deref() == Some("not_found"), || {
        format!("unknown id: {t:?}")
    })?;

    // Content without text: stored, said so, found by metadata.
    let added = memory
        .add(NewEvent {
            content: obj(json!({"kind": "heartbeat"})),
            metadata: obj(json!({"probe": "no-text"})),
            ..Default::default()
        })
        .await
        .map_err(|e| format!("no-text add: {e}"))?;
    check(
        added.note.is_some() && added.event.embedding.is_none(),
        || "no-text event: note/embedding".into(),
    )?;
    let page = memory
        .search(&EventQuery {
            filter_metadata: Some(obj(json!({"probe": "no-text"}))),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    check(
        page.data.iter().map(|e| e.id).collect::<Vec<_>>() == vec![added.event.id],
        || "no-text event not found by metadata".into(),
    )?;

    // Auto-embedding from the text field by priority.
    let added = memory
        .add(NewEvent {
            content: obj(json!({"title": "walnut", "body": "saffron tundra"})),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    check(
        added.event.embedding.as_deref() == Some(toy_vector("saffron tundra").as_slice()),
        || "body outranks title".into(),
    )?;

    // Threshold fallback on a pure vector search, not on a filtered one.
    let far = EventQuery {
        distance_threshold: Some(0.01),
        ..EventQuery::text("xylophone quokka")
    };
    let page = memory.search(&far).await.map_err(|e| e.to_string())?;
    check(page.threshold_fallback && page.data.len() == 10, || {
        format!("fallback: {page:?}")
    })?;
    let filtered = EventQuery {
        filter_metadata: Some(obj(json!({"event_type": "decision"}))),
        ..far.clone()
    };
    let page = memory.search(&filtered).await.map_err(|e| e.to_string())?;
    check(!page.threshold_fallback && page.data.is_empty(), || {
        "fallback on a filtered search".into()
    })?;
    let vq = EventQuery {
        vector_query: Some(VectorQuery::Vector(toy_vector("kestrel harbor"))),
        filter_metadata: Some(obj(json!({"role": "agent"}))),
        ..EventQuery::default()
    };
    let page = memory.search(&vq).await.map_err(|e| e.to_string())?;
    obs.push(Observation {
        label: "memory[vector]".into(),
        ids: page.data.iter().map(|e| e.id).collect(),
        distances: page.data.iter().map(|e| e.similarity_score).collect(),
        total: page.total_hits,
        ordered: true,
        error: None,
    });

    // remember / recall / forget.
    let r = memory
        .remember(
            "ember falcon glacier",
            json!({"session_id": "agent-7"}),
            Some(std::time::Duration::from_secs(3600)),
        )
        .await
        .map_err(|e| e.to_string())?;
    check(r.event.expires_at.is_some(), || "remember ttl".into())?;
    let page = memory
        .recall(&verity_memory::RecallRequest {
            query: Some("ember falcon".into()),
            filter_metadata: json!({"session_id": "agent-7"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    check(page.data.first().map(|e| e.id) == Some(r.event.id), || {
        format!("recall: {page:?}")
    })?;
    let t = record(
        &mut obs,
        "error[forget-all]",
        memory
            .forget(verity_memory::Forget::Filter(EventFilter::default()))
            .await
            .err(),
    );
    check(t.as_deref() == Some("invalid_input:filter"), || {
        "forget everything refused".into()
    })?;
    let n = memory
        .forget(verity_memory::Forget::Filter(EventFilter {
            metadata: Some(obj(json!({"session_id": "agent-7"}))),
            ..Default::default()
        }))
        .await
        .map_err(|e| e.to_string())?;
    check(n == 1, || format!("forget by filter removed {n}"))?;
    Ok(obs)
}

/// Compare two backends' observations: same steps, same ids (order where it
/// matters; ties within `tol` may swap), distances within `tol`, same totals and errors.
pub fn compare(a: &[Observation], b: &[Observation], tol: f32) -> Result<(), String> {
    check(a.len() == b.len(), || {
        format!("{} vs {} observations", a.len(), b.len())
    })?;
    for (x, y) in a.iter().zip(b) {
        check(x.label == y.label, || {
            format!("step {} vs {}", x.label, y.label)
        })?;
        check(x.total == y.total && x.error == y.error, || {
            format!("{}: {x:?} vs {y:?}", x.label)
        })?;
        if x.ordered && !x.distances.is_empty() {
            let xa: Vec<(Uuid, f32)> = x
                .ids
                .iter()
                .zip(&x.distances)
                .map(|(i, d)| (*i, d.unwrap_or(f32::NAN)))
                .collect();
            let yb: Vec<(Uuid, Option<f32>)> = y
                .ids
                .iter()
                .copied()
                .zip(y.distances.iter().copied())
                .collect();
            check(same_ranking(&xa, &yb, tol), || {
                format!("{}: {x:?} vs {y:?}", x.label)
            })?;
        } else if x.ordered {
            check(x.ids == y.ids, || {
                format!("{}: {:?} vs {:?}", x.label, x.ids, y.ids)
            })?;
        } else {
            let xs: BTreeSet<_> = x.ids.iter().collect();
            let ys: BTreeSet<_> = y.ids.iter().collect();
            check(xs == ys, || {
                format!("{}: {:?} vs {:?}", x.label, x.ids, y.ids)
            })?;
        }
    }
    Ok(())
}
