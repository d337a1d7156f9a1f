//! Deterministic checks run after any judge (local or LLM), so that seed
//! 002's semantics hold whoever judged:
//!
//! 1. the quote is the source's characters (replaced by the source sentence
//!    it paraphrases, or the verdict lowered);
//! 2. a source that mentions none of the claim's names cannot contradict it
//!    (NOT_SUPPORTED or PARTIAL become INCONCLUSIVE, [`crate::relevance`]);
//! 3. the claim's figures against the quote's ([`numbers::compare`]):
//!    another figure is NOT_SUPPORTED, a small overstatement PARTIAL, a
//!    figure the source states nowhere keeps a claim from SUPPORTED;
//! 4. no decisive verdict (SUPPORTED, NOT_SUPPORTED, PARTIAL) without a quote.

use verity_core::{Judgement, Passage, Verdict};

use crate::explain::Explain;
use crate::numbers::{self, Figure};
use crate::relevance;
use crate::terms::{claim_terms, coverage, source_words};
use crate::text::{content_terms, find_verbatim};
use crate::types::QuoteContext;

/// What the checks changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckOutcome {
    /// The quote was not in the source and was replaced by a real sentence.
    pub quote_replaced: bool,
    /// The verdict was changed (quote missing, figures, relevance).
    pub downgraded: bool,
    /// Notes for the report.
    pub notes: Vec<String>,
    /// The quote in its context, when located.
    pub context: Option<QuoteContext>,
}

/// Share of the words of `a` found in `b`.
fn overlap(a: &str, b: &str) -> f32 {
    let ta = content_terms(a);
    if ta.is_empty() {
        return 0.0;
    }
    let tb = content_terms(b);
    ta.iter().filter(|t| tb.contains(t)).count() as f32 / ta.len() as f32
}

fn decisive(v: Verdict) -> bool {
    matches!(
        v,
        Verdict::Supported | Verdict::NotSupported | Verdict::Partial
    )
}

/// Run the checks on `j` for `claim`, against the source's text `content`
/// (as a reader sees it) and the passages the judge saw. Returns what
/// changed; `j` is updated in place.
pub fn run(claim: &str, j: &mut Judgement, content: &str, passages: &[Passage]) -> CheckOutcome {
    let mut out = CheckOutcome::default();
    let ex = Explain::for_claim(claim);
    // 1. The quote is verbatim in the source.
    let located = j
        .source_quote
        .as_deref()
        .and_then(|q| find_verbatim(content, q));
    let mut range = match (located, j.source_quote.clone()) {
        (Some(r), _) => Some(r),
        (None, Some(q)) => {
            // The closest real passage, if it is clearly the one meant.
            let best = passages
                .iter()
                .enumerate()
                .map(|(i, p)| (i, overlap(&q, &p.text)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match best {
                Some((i, score)) if score >= 0.6 => {
                    out.quote_replaced = true;
                    out.notes.push(format!(
                        "quote not found verbatim in the source; replaced by the source sentence it paraphrases (passage {})",
                        i + 1
                    ));
                    j.source_quote = Some(passages[i].text.clone());
                    j.passage = Some(i);
                    find_verbatim(content, &passages[i].text)
                }
                _ => {
                    out.notes.push("quote not found in the source".into());
                    if decisive(j.verdict) {
                        out.downgraded = true;
                        j.explanation = format!(
                            "{} (The judge's quote does not occur in the source, so the verdict was lowered.)",
                            j.explanation
                        );
                        j.verdict = Verdict::Inconclusive;
                        j.confidence = j.confidence.min(0.5);
                    }
                    j.source_quote = passages.first().map(|p| p.text.clone());
                    j.passage = passages.first().map(|_| 0);
                    j.source_quote
                        .as_deref()
                        .and_then(|q| find_verbatim(content, q))
                }
            }
        }
        (None, None) => None,
    };
    let terms = claim_terms(claim);
    // 2. Relevance before contradiction.
    if matches!(j.verdict, Verdict::NotSupported | Verdict::Partial) {
        let words: Vec<String> = {
            let mut w: Vec<String> = source_words(content).into_iter().map(|(s, _)| s).collect();
            w.sort();
            w.dedup();
            w
        };
        let subject = relevance::subject(&terms, &words);
        if !subject.discussed() {
            out.downgraded = true;
            out.notes.push(format!(
                "the source does not mention {}: the judge's {} was not kept",
                subject.names_text(),
                j.verdict
            ));
            j.verdict = Verdict::Inconclusive;
            j.confidence = j.confidence.min(0.8);
            j.explanation = ex.not_discussed(&subject.names_text());
            j.source_quote = None;
            j.passage = None;
            range = None;
        }
    }
    // 3. The claim's figures against the quote's.
    if let (Some(q), true) = (j.source_quote.clone(), decisive(j.verdict)) {
        let quote_words: Vec<String> = source_words(&q).into_iter().map(|(s, _)| s).collect();
        let about = coverage(&terms, &quote_words).0 >= 0.5;
        let quote_q = numbers::quantities(&q);
        let mut whole: Option<Vec<numbers::Quantity>> = None;
        let mut stated_elsewhere = |c: &numbers::Quantity| {
            let qs = whole.get_or_insert_with(|| numbers::quantities(content));
            matches!(numbers::compare(c, qs), Figure::Same(_))
        };
        let mut differs = None;
        let mut overstates = None;
        let mut absent = None;
        for c in numbers::quantities(claim) {
            match numbers::compare(&c, &quote_q) {
                Figure::Same(_) => {}
                Figure::Differs(s) if about => {
                    differs.get_or_insert((c, s));
                }
                Figure::Overstates(s) if about => {
                    overstates.get_or_insert((c, s));
                }
                _ => {
                    absent.get_or_insert(c);
                }
            }
        }
        let supported = j.verdict == Verdict::Supported;
        if let Some((c, s)) = differs {
            if j.verdict != Verdict::NotSupported && !(supported && stated_elsewhere(&c)) {
                out.downgraded = true;
                out.notes.push(format!(
                    "figure {} differs from the quote's {}",
                    c.raw, s.raw
                ));
                j.verdict = Verdict::NotSupported;
                j.confidence = j.confidence.max(0.8);
                j.explanation = ex.differs(&c.raw, &s.raw);
            }
        } else if let Some((c, s)) = overstates {
            if supported && !stated_elsewhere(&c) {
                out.downgraded = true;
                out.notes
                    .push(format!("figure {} overstates the quote's {}", c.raw, s.raw));
                j.verdict = Verdict::Partial;
                j.confidence = j.confidence.min(0.8);
                j.explanation = ex.overstates(&c.raw, &s.raw);
            }
        } else if let Some(c) = absent {
            if supported && !stated_elsewhere(&c) {
                out.downgraded = true;
                out.notes.push(format!("figure {} not in the quote", c.raw));
                j.verdict = Verdict::Partial;
                j.confidence = j.confidence.min(0.6);
                j.explanation = ex.unstated(&c.raw);
            }
        }
    }
    // 4. No decisive verdict without a quote from the source.
    if decisive(j.verdict) && range.is_none() {
        out.downgraded = true;
        out.notes.push(format!(
            "no quote from the source backs the judge's {}",
            j.verdict
        ));
        j.explanation = format!(
            "{} (No sentence of the source backs it, so the verdict was lowered.)",
            j.explanation
        );
        j.verdict = Verdict::Inconclusive;
        j.confidence = j.confidence.min(0.5);
    }
    out.context = range.map(|r| context(content, r));
    out
}

/// The quote at `r` of `content` with up to ~240 bytes either side.
pub fn context(content: &str, r: std::ops::Range<usize>) -> QuoteContext {
    let mut a = r.start.saturating_sub(240);
    while !content.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (r.end + 240).min(content.len());
    while !content.is_char_boundary(b) {
        b += 1;
    }
    QuoteContext {
        before: content[a..r.start].to_string(),
        quote: content[r.clone()].to_string(),
        after: content[r.end..b].to_string(),
        start: r.start,
        end: r.end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "Intro. In 2023, 78 % of companies had adopted AI. Other news.";

    #[test]
    fn fabricated_quote_is_replaced_or_downgraded() {
        let ps = vec![Passage::new("In 2023, 78 % of companies had adopted AI.")];
        let mut j = Judgement::new(Verdict::Supported, 0.9, "ok", "t")
            .with_quote("In 2023, 78 % of all companies had adopted AI", None);
        let o = run("78 % of companies adopted AI", &mut j, SRC, &ps);
        assert!(o.quote_replaced);
        assert_eq!(j.verdict, Verdict::Supported);
        assert_eq!(
            o.context.map(|c| c.quote),
            Some("In 2023, 78 % of companies had adopted AI.".into())
        );

        let mut j = Judgement::new(Verdict::Supported, 0.9, "ok", "t")
            .with_quote("Totally invented sentence.", None);
        let o = run("78 % of companies adopted AI", &mut j, SRC, &ps);
        assert!(o.downgraded);
        assert_eq!(j.verdict, Verdict::Inconclusive);
    }

    #[test]
    fn claim_figures_follow_seed_002_whoever_judged() {
        let ps = vec![Passage::new("In 2023, 78 % of companies had adopted AI.")];
        // A small overstatement is an exaggeration …
        let mut j = Judgement::new(Verdict::Supported, 0.9, "ok", "t")
            .with_quote("In 2023, 78 % of companies had adopted AI.", Some(0));
        let o = run("85 % of companies adopted AI", &mut j, SRC, &ps);
        assert!(o.downgraded);
        assert_eq!(j.verdict, Verdict::Partial);
        assert!(
            j.explanation.contains("the source says 78 %"),
            "{}",
            j.explanation
        );
        // … another figure is not supported, even when a judge said PARTIAL.
        let mut j = Judgement::new(Verdict::Partial, 0.9, "close", "t")
            .with_quote("In 2023, 78 % of companies had adopted AI.", Some(0));
        run("95 % of companies adopted AI", &mut j, SRC, &ps);
        assert_eq!(j.verdict, Verdict::NotSupported, "{}", j.explanation);
    }

    #[test]
    fn an_unrelated_source_cannot_contradict_and_verdicts_need_quotes() {
        let src = "Rust 1.0 was released on May 15, 2015.";
        let ps = vec![Passage::new(src)];
        let mut j = Judgement::new(Verdict::NotSupported, 0.85, "3.12 vs 1.0", "llm:x")
            .with_quote(src, Some(0));
        run("Python 3.12 was released in 2023", &mut j, src, &ps);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(j.explanation.contains("Python"), "{}", j.explanation);
        let mut j = Judgement::new(Verdict::Supported, 0.9, "yes", "llm:x");
        run("Rust 1.0 was released in 2015", &mut j, src, &ps);
        assert_eq!(j.verdict, Verdict::Inconclusive);
    }
}
