//! The frozen claim set (`data/claims.jsonl`): claims written by hand over
//! real pages of the article-extraction set, in English and French, each
//! with its expected verdict and the sentence of the page that decides it —
//! faithful paraphrases, changed figures, dates and names, negations,
//! exaggerations, partial coverage, claims citing an unrelated page, dead
//! links.
//!
//! The set was written and committed before the judge it measures was
//! changed. It is split by a hash of the cited page (of the claim id for
//! dead links, [`part_of`]): the *look* part is the one read while working
//! on the judge, the *held-out* part is only scored. Each claim is checked
//! end to end as a one-citation document whose reference is the page served
//! on a loopback port ([`run`]), so the figures are those of `verity check`.
//!
//! The pages are read from `DATA_DIR/article-extraction/html/<id>.html.gz`
//! at run time; they are never copied into the repository.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use verity_core::{Error, Result, Verdict};

use super::serve;
use crate::audit::{is_page_text, page_text, pieces};
use crate::Verifier;

/// The claim set, as committed.
pub const CLAIMS_JSONL: &str = include_str!("../../data/claims.jsonl");

/// One claim of the set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Stable id (`c001`, …).
    pub id: String,
    /// What it tests: `paraphrase`, `figure`, `date`, `name`, `negation`,
    /// `exaggeration`, `partial`, `unrelated`, `dead_link`.
    pub kind: String,
    /// Language of the claim (`en`, `fr`); the pages are English.
    pub lang: String,
    /// The claim as a writer would put it before a citation marker.
    pub claim: String,
    /// The verdict a careful reader gives.
    pub expected: Verdict,
    /// The cited page (an article-extraction id); `None` for dead links.
    #[serde(default)]
    pub page: Option<String>,
    /// For dead links: `refused` (nothing listens) or `not_found` (HTTP 404).
    #[serde(default)]
    pub link: Option<String>,
    /// The sentence of the page that decides the claim.
    #[serde(default)]
    pub source_sentence: Option<String>,
    /// For claims citing an unrelated page: the page the fact comes from.
    #[serde(default)]
    pub about: Option<String>,
}

/// Which part of the set a claim is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Read while working on the judge.
    Look,
    /// Only scored.
    HeldOut,
}

/// The part of `c`: held out when the SHA-1 of its cited page id (of its
/// claim id for a dead link) starts with a hex digit 0–5 (≈ 3/8 of pages).
pub fn part_of(c: &Claim) -> Part {
    let key = c.page.as_deref().unwrap_or(&c.id);
    let h = verity_core::hash::sha1_hex(key.as_bytes());
    if h.starts_with(['0', '1', '2', '3', '4', '5']) {
        Part::HeldOut
    } else {
        Part::Look
    }
}

/// Parse a claim set (JSON lines).
pub fn load(jsonl: &str) -> Result<Vec<Claim>> {
    jsonl
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Claim>(l)
                .map_err(|e| Error::invalid_input(format!("claims line {}: {e}", i + 1)))
        })
        .collect()
}

/// Precision and recall of one verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictScore {
    /// The verdict.
    pub verdict: Verdict,
    /// Claims expected to get it.
    pub expected: usize,
    /// Claims that got it.
    pub predicted: usize,
    /// Claims expected and given it.
    pub correct: usize,
    /// `correct / predicted` (1 when none was predicted).
    pub precision: f64,
    /// `correct / expected` (1 when none was expected).
    pub recall: f64,
}

/// Figures of one part of the set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartScore {
    /// Claims scored.
    pub claims: usize,
    /// Claims given their expected verdict.
    pub correct: usize,
    /// `correct / claims`.
    pub accuracy: f64,
    /// Per verdict, in report order.
    pub verdicts: Vec<VerdictScore>,
    /// Expected → predicted counts (non-zero cells).
    pub confusion: Vec<(Verdict, Verdict, usize)>,
}

impl PartScore {
    fn of(pairs: &[(Verdict, Verdict)]) -> Self {
        let mut cells: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let pos = |v: Verdict| Verdict::ALL.iter().position(|x| *x == v).unwrap_or(0);
        for (e, p) in pairs {
            *cells.entry((pos(*e), pos(*p))).or_default() += 1;
        }
        let verdicts = Verdict::ALL
            .iter()
            .map(|&v| {
                let expected = pairs.iter().filter(|(e, _)| *e == v).count();
                let predicted = pairs.iter().filter(|(_, p)| *p == v).count();
                let correct = pairs.iter().filter(|(e, p)| *e == v && *p == v).count();
                let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
                VerdictScore {
                    verdict: v,
                    expected,
                    predicted,
                    correct,
                    precision: ratio(correct, predicted),
                    recall: ratio(correct, expected),
                }
            })
            .collect();
        let correct = pairs.iter().filter(|(e, p)| e == p).count();
        Self {
            claims: pairs.len(),
            correct,
            accuracy: correct as f64 / pairs.len().max(1) as f64,
            verdicts,
            confusion: cells
                .into_iter()
                .map(|((e, p), n)| (Verdict::ALL[e], Verdict::ALL[p], n))
                .collect(),
        }
    }
}

/// What one claim got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimOutcome {
    /// Claim id.
    pub id: String,
    /// Its part.
    pub part: Part,
    /// Expected verdict.
    pub expected: Verdict,
    /// Verdict given.
    pub verdict: Verdict,
    /// The explanation given.
    pub explanation: String,
    /// The quote given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// Which judge decided.
    pub judge: String,
}

/// Everything the claim set measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimsEval {
    /// Claims in the set.
    pub claims: usize,
    /// Distinct pages cited.
    pub pages: usize,
    /// The part read while working on the judge.
    pub look: PartScore,
    /// The held-out part.
    pub held_out: PartScore,
    /// Both parts.
    pub all: PartScore,
    /// Quotes and quote contexts checked against the page's visible text.
    pub quotes_checked: usize,
    /// Of which are not the page's characters (Markdown or escaping added, invented).
    pub quotes_not_in_source: usize,
    /// Claims citing an unrelated page that got NOT_SUPPORTED.
    pub unrelated_not_supported: usize,
    /// Expected source sentences not found in the page's visible text (a data check: 0).
    pub source_sentences_missing: usize,
    /// Time per citation after fetching (passages, judge, checks), ms.
    pub ms_per_citation: f64,
    /// Claims decided per judge.
    pub judges: BTreeMap<String, usize>,
    /// Every claim's outcome, in set order.
    pub outcomes: Vec<ClaimOutcome>,
}

/// Run the claim set `claims` (default: [`CLAIMS_JSONL`]) with `v`, whose
/// fetcher must allow loopback addresses; pages come from
/// `dir/article-extraction/html`.
pub async fn run(v: &Verifier, dir: &Path, claims: Option<&str>) -> Result<ClaimsEval> {
    let set = load(claims.unwrap_or(CLAIMS_JSONL))?;
    let html_dir = dir.join("article-extraction").join("html");
    let wanted: HashSet<&str> = set.iter().filter_map(|c| c.page.as_deref()).collect();
    let pages: HashMap<String, String> = {
        let html_dir = html_dir.clone();
        let wanted: Vec<String> = wanted.iter().map(|s| s.to_string()).collect();
        tokio::task::spawn_blocking(move || read_pages(&html_dir, &wanted))
            .await
            .map_err(|e| Error::invalid_input(format!("page loader task failed: {e}")))??
    };
    let routes: serve::Routes = pages
        .iter()
        .map(|(id, html)| {
            (
                format!("/page/{id}"),
                serve::HTML,
                html.clone().into_bytes(),
            )
        })
        .collect();
    let (base, server) = serve::serve(routes).await?;
    let dead = serve::refused_url().await?;
    let visible: HashMap<&str, String> = pages
        .iter()
        .map(|(id, html)| (id.as_str(), page_text(html)))
        .collect();

    let mut pairs: Vec<(Part, Verdict, Verdict)> = Vec::new();
    let mut out = ClaimsEval {
        claims: set.len(),
        pages: wanted.len(),
        look: PartScore::of(&[]),
        held_out: PartScore::of(&[]),
        all: PartScore::of(&[]),
        quotes_checked: 0,
        quotes_not_in_source: 0,
        unrelated_not_supported: 0,
        source_sentences_missing: 0,
        ms_per_citation: 0.0,
        judges: BTreeMap::new(),
        outcomes: Vec::new(),
    };
    let mut judged_ms = 0.0;
    let t0 = Instant::now();
    for c in &set {
        let url = match (&c.page, c.link.as_deref()) {
            (Some(p), _) => format!("{base}/page/{p}"),
            (None, Some("refused")) => format!("{dead}/{}", c.id),
            (None, _) => format!("{base}/missing/{}", c.id),
        };
        if let (Some(p), Some(s)) = (&c.page, &c.source_sentence) {
            if c.about.is_none() && !visible.get(p.as_str()).is_some_and(|t| is_page_text(t, s)) {
                out.source_sentences_missing += 1;
            }
        }
        let doc = format!("{} [1]\n\n## References\n\n1. {url}\n", c.claim);
        let report = v.check_text(&doc).await;
        let (verdict, explanation, quote, judge) = match report {
            Ok(r) => {
                judged_ms += r.statistics.ms_per_citation * r.results.len() as f64;
                match r.results.into_iter().next() {
                    Some(res) => {
                        if let Some(t) = c.page.as_deref().and_then(|p| visible.get(p)) {
                            for piece in
                                pieces(res.source_quote.as_deref(), res.quote_context.as_ref())
                            {
                                out.quotes_checked += 1;
                                if !is_page_text(t, piece) {
                                    out.quotes_not_in_source += 1;
                                }
                            }
                        }
                        (res.verdict, res.explanation, res.source_quote, res.judge)
                    }
                    None => (
                        Verdict::Inconclusive,
                        "no claim was read from the document".to_string(),
                        None,
                        "none".to_string(),
                    ),
                }
            }
            Err(e) => (
                Verdict::Inconclusive,
                format!("the check failed: {e}"),
                None,
                "error".to_string(),
            ),
        };
        if c.kind == "unrelated" && verdict == Verdict::NotSupported {
            out.unrelated_not_supported += 1;
        }
        *out.judges.entry(judge.clone()).or_default() += 1;
        let part = part_of(c);
        pairs.push((part, c.expected, verdict));
        out.outcomes.push(ClaimOutcome {
            id: c.id.clone(),
            part,
            expected: c.expected,
            verdict,
            explanation,
            quote,
            judge,
        });
    }
    server.abort();
    let of = |want: Option<Part>| {
        let ps: Vec<(Verdict, Verdict)> = pairs
            .iter()
            .filter(|(p, _, _)| want.is_none_or(|w| *p == w))
            .map(|(_, e, v)| (*e, *v))
            .collect();
        PartScore::of(&ps)
    };
    out.look = of(Some(Part::Look));
    out.held_out = of(Some(Part::HeldOut));
    out.all = of(None);
    out.ms_per_citation = judged_ms / set.len().max(1) as f64;
    tracing::debug!(
        elapsed_ms = t0.elapsed().as_secs_f64() * 1e3,
        "claim set checked"
    );
    Ok(out)
}

/// The HTML of `ids` from `dir` (`<id>.html.gz`), decoded.
fn read_pages(dir: &Path, ids: &[String]) -> Result<HashMap<String, String>> {
    let mut out = HashMap::with_capacity(ids.len());
    for id in ids {
        let path = dir.join(format!("{id}.html.gz"));
        let unreadable = |e: std::io::Error| {
            Error::from(verity_core::InputError::Unreadable {
                path: path.clone(),
                message: format!(
                    "{e} (the claim set reads the pages of the article-extraction data set)"
                ),
            })
        };
        let file = std::fs::File::open(&path).map_err(unreadable)?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(file), &mut bytes)
            .map_err(unreadable)?;
        let (html, _) = verity_extract::encoding::decode_html(&bytes, None);
        out.insert(id.clone(), html);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_set_parses_and_both_parts_are_populated() {
        let set = load(CLAIMS_JSONL).unwrap_or_default();
        assert!(set.len() >= 80, "{}", set.len());
        let ids: HashSet<&str> = set.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), set.len(), "ids are unique");
        let pages: HashSet<&str> = set.iter().filter_map(|c| c.page.as_deref()).collect();
        assert!(pages.len() >= 20);
        for part in [Part::Look, Part::HeldOut] {
            let n = set.iter().filter(|c| part_of(c) == part).count();
            assert!(n >= 30, "{part:?}: {n}");
        }
        for c in &set {
            assert!(c.lang == "en" || c.lang == "fr", "{}", c.id);
            match c.kind.as_str() {
                "dead_link" => assert!(c.page.is_none() && c.link.is_some(), "{}", c.id),
                "unrelated" => assert_eq!(c.expected, Verdict::Inconclusive, "{}", c.id),
                _ => assert!(c.source_sentence.is_some() && c.page.is_some(), "{}", c.id),
            }
        }
        assert!(set.iter().any(|c| c.lang == "fr"));
    }

    #[test]
    fn scores_count_precision_and_recall_per_verdict() {
        use Verdict::*;
        let s = PartScore::of(&[
            (Supported, Supported),
            (Supported, Partial),
            (NotSupported, NotSupported),
            (Partial, Partial),
        ]);
        assert_eq!((s.claims, s.correct), (4, 3));
        let p = &s.verdicts[1];
        assert_eq!(p.verdict, Partial);
        assert_eq!((p.expected, p.predicted, p.correct), (1, 2, 1));
        assert_eq!((p.precision, p.recall), (0.5, 1.0));
    }
}
