//! Deterministic checks run after any judge: the quote must be verbatim in
//! the fetched source, and every figure of the claim must be in the quote.

use verity_core::{Judgement, Passage, Verdict};

use crate::numbers::{self, NumberCheck};
use crate::text::{content_terms, find_verbatim};
use crate::types::QuoteContext;

/// What the checks changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckOutcome {
    /// The quote was not in the source and was replaced by a real sentence.
    pub quote_replaced: bool,
    /// The verdict was lowered (quote missing or lacking the claim's figures).
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

/// Run the checks on `j` for `claim`, against the source `content` and the
/// passages the judge saw. Returns what changed; `j` is updated in place.
pub fn run(claim: &str, j: &mut Judgement, content: &str, passages: &[Passage]) -> CheckOutcome {
    let mut out = CheckOutcome::default();
    // 1. The quote is verbatim in the source.
    let located = j
        .source_quote
        .as_deref()
        .and_then(|q| find_verbatim(content, q));
    let range = match (located, j.source_quote.clone()) {
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
                    if j.verdict == Verdict::Supported || j.verdict == Verdict::Partial {
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
        (None, None) => {
            if j.verdict == Verdict::Supported {
                out.downgraded = true;
                out.notes
                    .push("no quote given for a SUPPORTED verdict".into());
                j.verdict = Verdict::Inconclusive;
                j.confidence = j.confidence.min(0.5);
                j.explanation = format!(
                    "{} (No quote backs it, so the verdict was lowered.)",
                    j.explanation
                );
            }
            None
        }
    };
    // 2. Every figure of the claim is in the quote.
    if let (Some(q), Verdict::Supported) = (j.source_quote.clone(), j.verdict) {
        let quote_q = numbers::quantities(&q);
        for c in numbers::quantities(claim) {
            match numbers::check(&c, &quote_q) {
                NumberCheck::Matches(_) => {}
                NumberCheck::Differs { source, .. } => {
                    out.downgraded = true;
                    out.notes.push(format!("figure {} not in the quote", c.raw));
                    j.verdict = Verdict::Partial;
                    j.confidence = j.confidence.min(0.7);
                    j.explanation =
                        format!("The claim says {}, the source says {}.", c.raw, source.raw);
                    break;
                }
                NumberCheck::Absent => {
                    out.downgraded = true;
                    out.notes.push(format!("figure {} not in the quote", c.raw));
                    j.verdict = Verdict::Partial;
                    j.confidence = j.confidence.min(0.6);
                    j.explanation = format!("The quote does not state {}.", c.raw);
                    break;
                }
            }
        }
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
    fn claim_figures_must_be_in_the_quote() {
        let ps = vec![Passage::new("In 2023, 78 % of companies had adopted AI.")];
        let mut j = Judgement::new(Verdict::Supported, 0.9, "ok", "t")
            .with_quote("In 2023, 78 % of companies had adopted AI.", Some(0));
        let o = run("85 % of companies adopted AI", &mut j, SRC, &ps);
        assert!(o.downgraded);
        assert_eq!(j.verdict, Verdict::Partial);
        assert!(j.explanation.contains("the source says 78 %"));
    }
}
