//! Quality and speed of citation verification (`verity eval verify`).
//!
//! * [`scifact`]: SciFact claims with their cited abstracts as sources.
//!   Verdict accuracy and macro-F1 over SUPPORT → SUPPORTED, CONTRADICT →
//!   NOT_SUPPORTED, no evidence → INCONCLUSIVE (PARTIAL and the other
//!   verdicts count as INCONCLUSIVE); quote quality: is the returned quote
//!   a gold rationale sentence (top-1), is one within the top 3 passages.
//!   With word pieces, the shipped ranking forest was fitted on these very
//!   claims' rationale sentences, so each claim is ranked instead by a
//!   forest fitted without its fold ([`HELD_OUT_FOLDS`] folds by claim id):
//!   the figures are held out, not in sample.
//! * [`distortion`]: sentences with a figure from real article pages,
//!   verbatim and with one number changed; a distortion is caught when the
//!   verdict is not SUPPORTED, a faithful sentence not SUPPORTED is a false
//!   alarm.
//! * [`speed`]: a document citing pages served on a loopback port, checked
//!   end to end (fetch, passages, judge, checks).
//! * [`claims`]: the frozen claim set of `data/claims.jsonl` over real pages
//!   served on loopback, each claim checked end to end as a one-citation
//!   document; per-verdict precision and recall on the part looked at while
//!   building the judge and on the held-out part.
//!
//! The data layout is `shared/data`: `scifact/{corpus,claims_train}.jsonl`
//! and `article-extraction/{ground-truth.json,html/*.html.gz}`.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use verity_core::{Error, InputError, Result, Verdict};

use crate::forest::{Forest, ForestParams};
use crate::numbers::{change_first_number, quantities, Kind, NumberCheck};
use crate::rank::{forest_rows, FeatureSet};
use crate::reader::SourceText;
use crate::text::{find_verbatim, sentence_spans};
use crate::Verifier;

pub mod claims;
mod serve;

pub use claims::{ClaimsEval, PartScore, VerdictScore};

/// One evaluation set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalSet {
    /// SciFact labelled claims ([`scifact`]).
    Scifact,
    /// Numeric distortions of real page sentences ([`distortion`]).
    Distortion,
    /// Time per citation with sources on loopback ([`speed`]).
    Speed,
    /// The frozen claim set over real pages ([`claims::run`]): per-verdict
    /// precision and recall on a part looked at and a held-out part.
    Claims,
}

impl EvalSet {
    /// Every set, in run order.
    pub const ALL: [EvalSet; 4] = [
        EvalSet::Scifact,
        EvalSet::Distortion,
        EvalSet::Speed,
        EvalSet::Claims,
    ];
}

impl FromStr for EvalSet {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scifact" => Ok(EvalSet::Scifact),
            "distortion" => Ok(EvalSet::Distortion),
            "speed" => Ok(EvalSet::Speed),
            "claims" => Ok(EvalSet::Claims),
            other => Err(InputError::field(
                "sets",
                format!("unknown evaluation set `{other}` (scifact, distortion, speed, claims)"),
            )
            .into()),
        }
    }
}

/// One row of the SciFact confusion matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfusionRow {
    /// Gold label (mapped to a verdict).
    pub gold: Verdict,
    /// Claims predicted SUPPORTED.
    pub supported: usize,
    /// Claims predicted NOT_SUPPORTED.
    pub not_supported: usize,
    /// Claims predicted INCONCLUSIVE (or PARTIAL, …).
    pub inconclusive: usize,
}

/// SciFact figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SciFactEval {
    /// Claims evaluated.
    pub claims: usize,
    /// Claim–abstract pairs judged.
    pub pairs: usize,
    /// Gold → predicted.
    pub confusion: Vec<ConfusionRow>,
    /// Share of claims with the gold verdict.
    pub accuracy: f64,
    /// Mean F1 over the three labels.
    pub macro_f1: f64,
    /// Claim–abstract pairs with gold rationale sentences.
    pub pairs_with_evidence: usize,
    /// Share of those whose quote is a gold rationale sentence.
    pub quote_top1: f64,
    /// Share of those with a gold rationale sentence in the top 3 passages.
    pub quote_top3: f64,
    /// Mean time per pair (passages, judge, checks; with word pieces, also
    /// the fold forests' features and fits), milliseconds.
    pub ms_per_pair: f64,
    /// Judge tokens per claim (0 for the local judge).
    pub tokens_per_claim: f64,
    /// Folds of claims whose passages were ranked by a forest fitted
    /// without them (0: the ranking was not fitted here — no word pieces —
    /// and the shipped one ranked).
    #[serde(default)]
    pub held_out_folds: u64,
}

/// Numeric-distortion figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DistortionEval {
    /// Pages the sentences come from.
    pub pages: usize,
    /// Sentence pairs (faithful, distorted).
    pub sentences: usize,
    /// Distortions not judged SUPPORTED.
    pub caught: usize,
    /// Faithful sentences not judged SUPPORTED.
    pub false_alarms: usize,
    /// `caught / sentences`.
    pub caught_rate: f64,
    /// `false_alarms / sentences`.
    pub false_alarm_rate: f64,
    /// SUPPORTED verdicts whose quote lacks one of the claim's figures.
    pub supported_without_figures: usize,
    /// Mean time per judgement, milliseconds.
    pub ms_per_judgement: f64,
    /// A few misses and false alarms, for reading.
    pub examples: Vec<String>,
}

/// End-to-end speed figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeedEval {
    /// Citations in the document.
    pub citations: usize,
    /// Distinct loopback sources.
    pub sources: usize,
    /// Time per citation after fetching, milliseconds.
    pub ms_per_citation: f64,
    /// Time per citation including fetching, milliseconds.
    pub total_ms_per_citation: f64,
    /// Fetch stage, milliseconds.
    pub fetch_ms: f64,
    /// Whole run, milliseconds.
    pub elapsed_ms: f64,
    /// Claims judged SUPPORTED (all sentences are verbatim in their source).
    pub supported: usize,
}

/// Everything one `verity eval verify` run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyEval {
    /// The judge (`local` or the LLM judge's model).
    pub judge: String,
    /// Whether passages used sentence vectors as well as BM25.
    pub dense: bool,
    /// SciFact, when run.
    pub scifact: Option<SciFactEval>,
    /// Numeric distortions, when run.
    pub distortion: Option<DistortionEval>,
    /// Speed, when run.
    pub speed: Option<SpeedEval>,
    /// The frozen claim set, when run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<ClaimsEval>,
}

fn unreadable(path: &Path, e: impl std::fmt::Display) -> Error {
    InputError::Unreadable {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
    .into()
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| unreadable(path, e))
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether a quote and a gold sentence are the same sentence (modulo
/// whitespace, case, and a quote cut to ≥ 60 % of the sentence).
pub fn same_sentence(q: &str, g: &str) -> bool {
    let (q, g) = (norm(q), norm(g));
    if q.is_empty() || g.is_empty() {
        return false;
    }
    if q == g {
        return true;
    }
    let (short, long) = if q.len() < g.len() {
        (&q, &g)
    } else {
        (&g, &q)
    };
    long.contains(short.as_str()) && short.len() * 10 >= long.len() * 6
}

const LABELS: [Verdict; 3] = [
    Verdict::Supported,
    Verdict::NotSupported,
    Verdict::Inconclusive,
];

fn three_way(v: Verdict) -> Verdict {
    match v {
        Verdict::Supported | Verdict::NotSupported => v,
        _ => Verdict::Inconclusive,
    }
}

/// SciFact abstracts (`corpus.jsonl` in `dir`) as their sentence lists, by
/// document id; unparsable lines are skipped.
pub fn scifact_corpus(dir: &Path) -> Result<HashMap<String, Vec<String>>> {
    let mut corpus = HashMap::new();
    for line in read(&dir.join("corpus.jsonl"))?.lines() {
        let Ok(d) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let id = match &d["_id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let sents = d["sentences"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        corpus.insert(id, sents);
    }
    Ok(corpus)
}

/// Folds of claims for held-out ranking forests in [`scifact`].
pub const HELD_OUT_FOLDS: u64 = 5;

/// The gold rationale sentences of a claim's evidence for one abstract.
fn gold_sentences<'a>(ev: &Value, sents: &'a [String]) -> Vec<&'a str> {
    ev.as_array()
        .into_iter()
        .flatten()
        .flat_map(|e| e["sentences"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| i.as_u64().and_then(|i| sents.get(i as usize)))
        .map(String::as_str)
        .collect()
}

/// One ranking forest per fold of `claims` (by id), each fitted on the
/// other folds' rationale sentences as the shipped one is
/// (`examples/scifact_rank_fit.rs`); `None` when the verifier's passages
/// have no word pieces (the forest does not rank them).
async fn fold_forests(
    v: &Verifier,
    claims: &[Value],
    corpus: &HashMap<String, Vec<String>>,
) -> Result<Option<Vec<Arc<Forest>>>> {
    // Per claim–abstract pair: fold, forest rows, gold flags.
    let mut pairs: Vec<(u64, Vec<Vec<f64>>, Vec<bool>)> = Vec::new();
    for c in claims {
        let fold = c["id"].as_u64().unwrap_or(0) % HELD_OUT_FOLDS;
        let claim = c["claim"].as_str().unwrap_or("");
        for (doc, ev) in c["evidence"].as_object().into_iter().flatten() {
            let Some(sents) = corpus.get(doc) else {
                continue;
            };
            let gold = gold_sentences(ev, sents);
            if gold.is_empty() {
                continue;
            }
            let content = sents.join(" ");
            let (idx, fs) = v.features(claim, &content).await?;
            if fs.first().is_some_and(|f| f.alignment.is_none()) {
                return Ok(None);
            }
            let flags = fs
                .iter()
                .map(|f| {
                    let s = idx.sentence(f.index).unwrap_or_default();
                    gold.iter().any(|g| same_sentence(s, g))
                })
                .collect();
            pairs.push((fold, forest_rows(&fs, FeatureSet::Tokens), flags));
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let forests = (0..HELD_OUT_FOLDS)
        .map(|fold| {
            let train = pairs
                .iter()
                .filter(|p| p.0 != fold)
                .map(|(_, rows, flags)| (rows.as_slice(), flags.as_slice()));
            Arc::new(Forest::fit_ranking(train, &ForestParams::default()))
        })
        .collect();
    Ok(Some(forests))
}

/// SciFact claims (`claims_train.jsonl`, the first `limit`) against their
/// cited abstracts (`corpus.jsonl`, sentences joined). Per claim, the
/// prediction is the most confident decisive verdict over its abstracts.
/// With word pieces, each claim's passages are ranked by a forest fitted
/// without its fold ([`HELD_OUT_FOLDS`]).
pub async fn scifact(v: &Verifier, dir: &Path, limit: Option<usize>) -> Result<SciFactEval> {
    let corpus = scifact_corpus(dir)?;
    let claims: Vec<Value> = read(&dir.join("claims_train.jsonl"))?
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    if claims.is_empty() {
        return Err(unreadable(&dir.join("claims_train.jsonl"), "no claims"));
    }
    let t0 = Instant::now();
    let forests = fold_forests(v, &claims, &corpus).await?;
    let mut confusion: HashMap<(Verdict, Verdict), usize> = HashMap::new();
    let (mut pairs, mut with_ev, mut top1, mut top3, mut tokens) = (0usize, 0, 0, 0, 0u64);
    for c in &claims {
        let held_out = forests.as_ref().map(|fs| {
            let fold = c["id"].as_u64().unwrap_or(0) % HELD_OUT_FOLDS;
            v.with_ranking(fs[fold as usize].clone())
        });
        let v = held_out.as_ref().unwrap_or(v);
        let claim = c["claim"].as_str().unwrap_or("");
        let evidence = c["evidence"].as_object().cloned().unwrap_or_default();
        let gold = match evidence
            .values()
            .next()
            .and_then(|e| e[0]["label"].as_str())
        {
            Some("SUPPORT") => Verdict::Supported,
            Some("CONTRADICT") => Verdict::NotSupported,
            _ => Verdict::Inconclusive,
        };
        let mut best: Option<(Verdict, f32)> = None;
        for d in c["cited_doc_ids"].as_array().into_iter().flatten() {
            let id = match d {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let Some(sents) = corpus.get(&id) else {
                continue;
            };
            let content = SourceText::plain(sents.join(" "));
            let j = v.assess(claim, &content, None).await;
            let passages = &j.passages;
            pairs += 1;
            tokens += j.tokens;
            let p = three_way(j.verdict);
            let replace = match best {
                None => true,
                Some((bv, bc)) => {
                    p != Verdict::Inconclusive && (bv == Verdict::Inconclusive || j.confidence > bc)
                }
            };
            if replace {
                best = Some((p, j.confidence));
            }
            let Some(ev) = evidence.get(&id) else {
                continue;
            };
            let gold_sents = gold_sentences(ev, sents);
            if gold_sents.is_empty() {
                continue;
            }
            with_ev += 1;
            let q = j
                .source_quote
                .as_deref()
                .or(passages.first().map(|p| p.text.as_str()))
                .unwrap_or("");
            if gold_sents.iter().any(|g| same_sentence(q, g)) {
                top1 += 1;
            }
            if passages
                .iter()
                .take(3)
                .any(|p| gold_sents.iter().any(|g| same_sentence(&p.text, g)))
            {
                top3 += 1;
            }
        }
        let pred = best.map_or(Verdict::Inconclusive, |b| b.0);
        *confusion.entry((gold, pred)).or_default() += 1;
    }
    let n = claims.len();
    let cell = |g: Verdict, p: Verdict| confusion.get(&(g, p)).copied().unwrap_or(0);
    let correct: usize = LABELS.iter().map(|l| cell(*l, *l)).sum();
    let mut f1s = 0.0;
    let mut rows = Vec::new();
    for g in LABELS {
        let tp = cell(g, g) as f64;
        let predicted: usize = LABELS.iter().map(|x| cell(*x, g)).sum();
        let golds: usize = LABELS.iter().map(|x| cell(g, *x)).sum();
        let p = if predicted > 0 {
            tp / predicted as f64
        } else {
            0.0
        };
        let r = if golds > 0 { tp / golds as f64 } else { 0.0 };
        f1s += if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        rows.push(ConfusionRow {
            gold: g,
            supported: cell(g, Verdict::Supported),
            not_supported: cell(g, Verdict::NotSupported),
            inconclusive: cell(g, Verdict::Inconclusive),
        });
    }
    let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
    Ok(SciFactEval {
        claims: n,
        pairs,
        confusion: rows,
        accuracy: ratio(correct, n),
        macro_f1: f1s / 3.0,
        pairs_with_evidence: with_ev,
        quote_top1: ratio(top1, with_ev),
        quote_top3: ratio(top3, with_ev),
        ms_per_pair: t0.elapsed().as_secs_f64() * 1e3 / pairs.max(1) as f64,
        tokens_per_claim: tokens as f64 / n.max(1) as f64,
        held_out_folds: if forests.is_some() { HELD_OUT_FOLDS } else { 0 },
    })
}

/// Pages of the article-extraction set as (parsed content, sentences of the
/// gold body with a figure that occur verbatim in the content).
pub fn article_sentences(dir: &Path, limit: Option<usize>) -> Result<Vec<(String, Vec<String>)>> {
    let pages = verity_extract::eval::load_pages(dir)?;
    let mut out = Vec::new();
    for (_, html, body, url) in pages {
        if limit.is_some_and(|l| out.len() >= l) {
            break;
        }
        let html = String::from_utf8_lossy(&html);
        let Ok(parsed) = verity_extract::parse_html(&html, url.as_ref()) else {
            continue;
        };
        let content = crate::reader::reader_text(&parsed.document.content);
        let sents: Vec<String> = sentence_spans(&body)
            .into_iter()
            .filter_map(|r| body.get(r))
            .filter(|s| {
                let words = s.split_whitespace().count();
                let qs = quantities(s);
                (8..=60).contains(&words)
                    && qs.iter().any(|q| q.kind != Kind::Year || qs.len() == 1)
                    && find_verbatim(&content, s).is_some()
            })
            .map(str::to_string)
            .collect();
        if !sents.is_empty() {
            out.push((content, sents));
        }
    }
    Ok(out)
}

/// Numeric distortions: each sentence judged verbatim and with its first
/// number changed, against its own page (`limit`: pages).
pub async fn distortion(v: &Verifier, dir: &Path, limit: Option<usize>) -> Result<DistortionEval> {
    let pages = {
        let dir = dir.to_path_buf();
        tokio::task::spawn_blocking(move || article_sentences(&dir, limit))
            .await
            .map_err(|e| Error::invalid_input(format!("page loader task failed: {e}")))??
    };
    let (mut n, mut caught, mut alarms, mut bad) = (0usize, 0usize, 0usize, 0usize);
    let mut examples = Vec::new();
    let t0 = Instant::now();
    for (content, sents) in &pages {
        let content = SourceText::plain(content.clone());
        for s in sents {
            let Some((distorted, old, new)) = change_first_number(s) else {
                continue;
            };
            n += 1;
            let jf = v.assess(s, &content, None).await;
            if jf.verdict != Verdict::Supported {
                alarms += 1;
                if examples.len() < 8 {
                    examples.push(format!(
                        "false alarm {}: {s} — {}",
                        jf.verdict.as_str(),
                        jf.explanation
                    ));
                }
            }
            let jd = v.assess(&distorted, &content, None).await;
            if jd.verdict != Verdict::Supported {
                caught += 1;
            } else if examples.len() < 8 {
                examples.push(format!(
                    "missed {old} → {new}: {distorted} — quote: {}",
                    jd.source_quote.as_deref().unwrap_or("")
                ));
            }
            for (claim, j) in [(s.as_str(), &jf), (distorted.as_str(), &jd)] {
                if j.verdict != Verdict::Supported {
                    continue;
                }
                let qq = quantities(j.source_quote.as_deref().unwrap_or(""));
                if quantities(claim)
                    .iter()
                    .any(|c| !matches!(crate::numbers::check(c, &qq), NumberCheck::Matches(_)))
                {
                    bad += 1;
                }
            }
        }
    }
    let ratio = |a: usize| a as f64 / n.max(1) as f64;
    Ok(DistortionEval {
        pages: pages.len(),
        sentences: n,
        caught,
        false_alarms: alarms,
        caught_rate: ratio(caught),
        false_alarm_rate: ratio(alarms),
        supported_without_figures: bad,
        ms_per_judgement: t0.elapsed().as_secs_f64() * 1e3 / (2 * n).max(1) as f64,
        examples,
    })
}

/// A document of up to `citations` numbered citations to 20 article pages
/// served on loopback, checked end to end by `v` (whose fetcher must allow
/// loopback addresses).
pub async fn speed(v: &Verifier, dir: &Path, citations: usize) -> Result<SpeedEval> {
    let pages = {
        let dir = dir.to_path_buf();
        tokio::task::spawn_blocking(move || article_sentences(&dir, Some(20)))
            .await
            .map_err(|e| Error::invalid_input(format!("page loader task failed: {e}")))??
    };
    let routes: serve::Routes = pages
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("/p/{i}"), serve::MARKDOWN, p.0.clone().into_bytes()))
        .collect();
    let (base, server) = serve::serve(routes).await?;
    let mut doc = String::from("# Speed test\n\n");
    let mut count = 0;
    'outer: for round in 0..citations {
        let mut any = false;
        for (i, (_, sents)) in pages.iter().enumerate() {
            if let Some(s) = sents.get(round) {
                doc.push_str(&format!("{s} [{}]\n\n", i + 1));
                count += 1;
                any = true;
                if count == citations {
                    break 'outer;
                }
            }
        }
        if !any {
            break;
        }
    }
    doc.push_str("## References\n\n");
    for i in 0..pages.len() {
        doc.push_str(&format!("{}. {base}/p/{i}\n", i + 1));
    }
    let r = v.check_text(&doc).await;
    server.abort();
    let r = r?;
    let st = &r.statistics;
    Ok(SpeedEval {
        citations: st.claims,
        sources: st.distinct_sources,
        ms_per_citation: st.ms_per_citation,
        total_ms_per_citation: st.total_ms_per_citation,
        fetch_ms: st.fetch_ms,
        elapsed_ms: st.elapsed_ms,
        supported: r.summary.supported,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_parse_and_unknown_names_the_field() {
        assert_eq!("SciFact".parse::<EvalSet>().ok(), Some(EvalSet::Scifact));
        assert_eq!(" speed".parse::<EvalSet>().ok(), Some(EvalSet::Speed));
        match "fever".parse::<EvalSet>() {
            Err(Error::Input(e)) => assert_eq!(e.field_name(), Some("sets")),
            other => unreachable!("{other:?}"),
        }
    }

    #[test]
    fn same_sentence_tolerates_case_space_and_cut_quotes() {
        let g = "Mortality fell by 12% in the treated group over five years.";
        assert!(same_sentence(
            "mortality fell by 12%  in the treated group over five years.",
            g
        ));
        assert!(same_sentence(
            "Mortality fell by 12% in the treated group",
            g
        ));
        assert!(!same_sentence("Mortality fell", g));
        assert!(!same_sentence("", g));
    }
}
