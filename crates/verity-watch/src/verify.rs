//! `verify_fact`: web search (or the given pages) → fetch and extract each
//! page → its best sentences for the claim → the configured
//! [`Judge`](verity_core::Judge) → one answer with verbatim excerpts.

use futures::future::join_all;
use verity_core::{Error, Judgement, Passage, Verdict};
use verity_verify::evidence::SourceIndex;

use crate::api::*;
use crate::web::MAX_WEB_RESULTS;
use crate::{required, Watch};

/// Sentences of each page handed to the judge.
const PASSAGES_PER_SOURCE: usize = 5;
/// Longest `claim` accepted (bytes).
pub const MAX_CLAIM_BYTES: usize = 2_000;

/// What one page gave.
enum Outcome {
    Judged(FactSource, Judgement),
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
        Ok(conclude(
            claim,
            judged,
            unavailable,
            searched,
            self.judge.name(),
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
        let index = SourceIndex::lexical(&page.content);
        let mut passages: Vec<Passage> = index.passages(claim, None, PASSAGES_PER_SOURCE);
        for p in &mut passages {
            p.source_url = Some(page.url.clone());
        }
        let judgement = self.judge.judge(claim, &passages).await?;
        let excerpt = excerpt_of(&page.content, &judgement, &passages);
        Ok(Outcome::Judged(
            FactSource {
                url: page.url,
                excerpt,
                title: page.title,
                verdict: judgement.verdict,
                confidence: judgement.confidence,
            },
            judgement,
        ))
    }
}

/// The judge's quote when it is verbatim in the page, else the passage it
/// points at (or the best one); empty when the page had no passage.
fn excerpt_of(content: &str, j: &Judgement, passages: &[Passage]) -> String {
    if let Some(q) = j.source_quote.as_deref().map(str::trim) {
        if !q.is_empty() && content.contains(q) {
            return q.to_string();
        }
    }
    j.passage
        .and_then(|i| passages.get(i))
        .or_else(|| passages.first())
        .map(|p| p.text.trim().to_string())
        .unwrap_or_default()
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
    mut judged: Vec<(FactSource, Judgement)>,
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
            .map(|(s, j)| (s.confidence, j.explanation.clone(), s.url.clone()))
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
    let sources = judged
        .into_iter()
        .map(|(s, _)| s)
        .filter(|s| !s.excerpt.is_empty())
        .collect();
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
        judge: judge.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(url: &str, v: Verdict, c: f32) -> (FactSource, Judgement) {
        (
            FactSource {
                url: url.into(),
                excerpt: format!("text of {url}"),
                title: String::new(),
                verdict: v,
                confidence: c,
            },
            Judgement::new(v, c, format!("because {url}"), "t"),
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

    #[test]
    fn excerpts_are_verbatim() {
        let content = "Alpha is 3. Beta is 4.";
        let passages = vec![Passage::new("Beta is 4.")];
        let j =
            Judgement::new(Verdict::Supported, 0.9, "x", "t").with_quote("beta is FOUR", Some(0));
        assert_eq!(excerpt_of(content, &j, &passages), "Beta is 4.");
        let j = Judgement::new(Verdict::Supported, 0.9, "x", "t").with_quote("Alpha is 3.", None);
        assert_eq!(excerpt_of(content, &j, &passages), "Alpha is 3.");
    }
}
