//! `verify_fact`: web search (or the given pages) → fetch and extract each
//! page → the one judging path of `verity check` ([`verity_verify::Assessor`]:
//! the page's sentences that match the claim, the configured judge, the
//! deterministic checks) → one answer with excerpts that are the pages' own
//! characters.

use futures::future::join_all;
use verity_core::{Error, Verdict};
use verity_verify::{Assessment, SourceText};

use crate::api::*;
use crate::web::MAX_WEB_RESULTS;
use crate::{required, Watch};

/// Longest `claim` accepted (bytes).
pub const MAX_CLAIM_BYTES: usize = 2_000;

/// What one page gave.
// A few per call, consumed at once: boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Outcome {
    Judged(FactSource, Assessment),
    Unread(UnreadSource),
}

impl Watch {
    /// `verify_fact`: check `claim` against `urls`, or against the top
    /// results of a web search for the claim and its context. A source
    /// counts only through a sentence of its extracted text that the judge
    /// read; `verified` is true only when a source supports the claim and
    /// none contradicts it. Pages that cannot be read are listed in
    /// `unavailable`; a failing web search is an error (transient when
    /// SearXNG is down).
    pub async fn verify_fact(
        &self,
        req: &VerifyFactRequest,
    ) -> verity_core::Result<VerifyFactResponse> {
        let claim = required("claim", &req.claim)?;
        if claim.len() > MAX_CLAIM_BYTES {
            return Err(Error::invalid_input(format!(
                "`claim` is {} bytes; at most {MAX_CLAIM_BYTES}",
                claim.len()
            )));
        }
        if req.urls.len() > MAX_WEB_RESULTS {
            return Err(Error::invalid_input(format!(
                "`urls`: at most {MAX_WEB_RESULTS} pages, got {}",
                req.urls.len()
            )));
        }
        let (urls, searched) = if req.urls.is_empty() {
            let query = match req.context.as_deref().map(str::trim) {
                Some(c) if !c.is_empty() => format!("{claim} {c}"),
                _ => claim.clone(),
            };
            let found = self
                .web_search(&WebSearchRequest {
                    query: query.clone(),
                    num_results: self.max_fact_sources,
                    time_range: None,
                })
                .await?;
            (
                found.results.into_iter().map(|r| r.url).collect::<Vec<_>>(),
                Some(query),
            )
        } else {
            (req.urls.clone(), None)
        };
        let outcomes = join_all(urls.iter().map(|u| self.judge_page(&claim, u))).await;
        let mut judged = Vec::new();
        let mut unavailable = Vec::new();
        for o in outcomes {
            match o? {
                Outcome::Judged(s, j) => judged.push((s, j)),
                Outcome::Unread(u) => unavailable.push(u),
            }
        }
        let judged: Vec<(FactSource, String)> = judged
            .into_iter()
            .map(|(s, a)| {
                let why = a.explanation;
                (s, why)
            })
            .collect();
        Ok(conclude(
            claim,
            judged,
            unavailable,
            searched,
            self.assessor.judge().name(),
        ))
    }

    /// Fetch one page and judge the claim on its best sentences. Fetch
    /// failures are reported, judge failures are errors.
    async fn judge_page(&self, claim: &str, url: &str) -> verity_core::Result<Outcome> {
        let page = match self
            .crawl_url(&CrawlRequest {
                url: url.to_string(),
            })
            .await
        {
            Ok(p) => p,
            Err(e) => {
                return Ok(Outcome::Unread(UnreadSource {
                    url: url.to_string(),
                    code: e.code().to_string(),
                    error: e.to_string(),
                }))
            }
        };
        let source = SourceText::from_markdown(&page.content).titled(Some(&page.title));
        let a = self.assessor.assess(claim, &source, Some(&page.url)).await;
        // The excerpt is the quote: the page's characters, empty when the
        // page does not discuss the claim.
        let excerpt = a.source_quote.clone().unwrap_or_default();
        Ok(Outcome::Judged(
            FactSource {
                url: page.url,
                excerpt,
                title: page.title,
                verdict: a.verdict,
                confidence: a.confidence,
                judge: a.judge.clone(),
                notes: a.notes.clone(),
            },
            a,
        ))
    }
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Supported => 0,
        Verdict::NotSupported => 1,
        Verdict::Partial => 2,
        Verdict::Inconclusive => 3,
        Verdict::SourceUnavailable => 4,
    }
}

/// Combine per-page judgements into one answer.
fn conclude(
    claim: String,
    mut judged: Vec<(FactSource, String)>,
    unavailable: Vec<UnreadSource>,
    searched: Option<String>,
    judge: &str,
) -> VerifyFactResponse {
    judged.sort_by(|a, b| {
        rank(a.0.verdict)
            .cmp(&rank(b.0.verdict))
            .then(b.0.confidence.total_cmp(&a.0.confidence))
    });
    let count = |v: Verdict| judged.iter().filter(|(s, _)| s.verdict == v).count();
    let best = |v: Verdict| {
        judged
            .iter()
            .find(|(s, _)| s.verdict == v)
            .map(|(s, why)| (s.confidence, why.clone(), s.url.clone()))
    };
    let (sup, con, part) = (
        count(Verdict::Supported),
        count(Verdict::NotSupported),
        count(Verdict::Partial),
    );
    let read = judged.len();
    let tried = read + unavailable.len();
    let (verdict, confidence, summary) = if let Some((c, why, url)) = best(Verdict::Supported) {
        if con > 0 {
            let (_, against, curl) = best(Verdict::NotSupported).unwrap_or_default();
            (
                Verdict::Partial,
                0.5,
                format!(
                    "Sources disagree: {sup} of {read} support the claim ({url}: {why}) and {con} contradict it ({curl}: {against})."
                ),
            )
        } else {
            (
                Verdict::Supported,
                c,
                format!("Supported by {sup} of {read} source(s) read. {url}: {why}"),
            )
        }
    } else if let Some((c, why, url)) = best(Verdict::NotSupported) {
        (
            Verdict::NotSupported,
            c,
            format!("Contradicted by {con} of {read} source(s) read. {url}: {why}"),
        )
    } else if let Some((c, why, url)) = best(Verdict::Partial) {
        (
            Verdict::Partial,
            c,
            format!("Partly supported ({part} of {read} source(s) read), with differences. {url}: {why}"),
        )
    } else if read > 0 {
        (
            Verdict::Inconclusive,
            0.0,
            format!("None of the {read} source(s) read lets one decide the claim."),
        )
    } else if tried > 0 {
        (
            Verdict::SourceUnavailable,
            0.0,
            format!("None of the {tried} source(s) could be read."),
        )
    } else {
        (
            Verdict::Inconclusive,
            0.0,
            "The web search found no source for this claim.".to_string(),
        )
    };
    let not_enough_evidence = matches!(verdict, Verdict::Inconclusive | Verdict::SourceUnavailable);
    // Who decided: the judge of the page the answer rests on (the local
    // judge when the configured one failed on it).
    let judge = judged
        .first()
        .map_or_else(|| judge.to_string(), |(s, _)| s.judge.clone());
    let sources = judged.into_iter().map(|(s, _)| s).collect();
    VerifyFactResponse {
        claim,
        verified: verdict == Verdict::Supported,
        confidence,
        verdict,
        sources,
        summary,
        not_enough_evidence,
        searched,
        unavailable,
        judge,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(url: &str, v: Verdict, c: f32) -> (FactSource, String) {
        (
            FactSource {
                url: url.into(),
                excerpt: format!("text of {url}"),
                title: String::new(),
                verdict: v,
                confidence: c,
                judge: "t".into(),
                notes: Vec::new(),
            },
            format!("because {url}"),
        )
    }

    #[test]
    fn support_needs_no_contradiction() {
        let r = conclude(
            "c".into(),
            vec![
                src("a", Verdict::Inconclusive, 0.6),
                src("b", Verdict::Supported, 0.8),
            ],
            vec![],
            None,
            "t",
        );
        assert!(r.verified && r.verdict == Verdict::Supported && r.confidence == 0.8);
        assert_eq!(r.sources[0].url, "b");
        let r = conclude(
            "c".into(),
            vec![
                src("a", Verdict::NotSupported, 0.7),
                src("b", Verdict::Supported, 0.8),
            ],
            vec![],
            None,
            "t",
        );
        assert!(!r.verified && r.verdict == Verdict::Partial);
        assert!(r.summary.contains("disagree"), "{}", r.summary);
    }

    #[test]
    fn nothing_read_is_not_enough_evidence() {
        let unread = UnreadSource {
            url: "u".into(),
            code: "fetch_failed".into(),
            error: "down".into(),
        };
        let r = conclude("c".into(), vec![], vec![unread], None, "t");
        assert!(!r.verified && r.not_enough_evidence);
        assert_eq!(r.verdict, Verdict::SourceUnavailable);
        let r = conclude("c".into(), vec![], vec![], Some("q".into()), "t");
        assert_eq!(r.verdict, Verdict::Inconclusive);
    }
}
