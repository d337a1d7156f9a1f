//! Answers that check themselves: each sentence of a generated answer that
//! cites `[n]` is judged against the passage it cites, through the one
//! judging path ([`Assessor`]), before the answer is returned. Sentences
//! their sources do not support (anything but SUPPORTED) are caught: marked
//! in the text (`flag`) or removed (`strip`), and every sentence carries its
//! verdict and the quote that decides it.

use std::sync::OnceLock;

use regex::Regex;
use verity_core::{AnswerVerification, SentenceVerdict, Verdict, VerifyMode};

use crate::assess::{Assessment, Assessor};
use crate::reader::SourceText;
use crate::text::sentence_spans;

/// A passage an answer may cite: its number (`[n]`), its text, its URL.
#[derive(Debug, Clone)]
pub struct CitedPassage {
    /// The `n` of `[n]`.
    pub n: usize,
    /// Its text as a reader sees it.
    pub text: SourceText,
    /// Where it comes from.
    pub url: Option<String>,
}

fn marker_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\s*\[(\s*\d{1,4}\s*(?:[,;]\s*\d{1,4}\s*)*)\]").ok())
        .as_ref()
}

/// Lower is better: the verdict a sentence gets from its best citation.
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Supported => 0,
        Verdict::Partial => 1,
        Verdict::Inconclusive => 2,
        Verdict::NotSupported => 3,
        Verdict::SourceUnavailable => 4,
    }
}

/// Check the sentences of `answer` against `passages` and apply `mode`:
/// the answer's new text and the verification. With [`VerifyMode::Off`]
/// the text is returned unchanged and nothing is judged.
pub async fn verify_answer(
    assessor: &Assessor,
    answer: &str,
    passages: &[CitedPassage],
    mode: VerifyMode,
) -> (String, AnswerVerification) {
    let mut v = AnswerVerification {
        mode,
        judge: assessor.judge().name().to_string(),
        sentences: Vec::new(),
        checked: 0,
        supported: 0,
        flagged: 0,
        removed: 0,
    };
    if mode == VerifyMode::Off {
        return (answer.to_string(), v);
    }
    let Some(re) = marker_re() else {
        return (answer.to_string(), v);
    };
    let mut out = String::with_capacity(answer.len() + 64);
    let mut at = 0;
    for span in sentence_spans(answer) {
        let raw = &answer[span.clone()];
        let citations: Vec<usize> = re
            .captures_iter(raw)
            .flat_map(|c| {
                c.get(1)
                    .map(|m| m.as_str())
                    .unwrap_or("")
                    .split([',', ';'])
                    .filter_map(|n| n.trim().parse::<usize>().ok())
                    .collect::<Vec<_>>()
            })
            .collect();
        let text = re.replace_all(raw, "").trim().to_string();
        let mut best: Option<(usize, Assessment)> = None;
        for n in &citations {
            let Some(p) = passages.iter().find(|p| p.n == *n) else {
                continue;
            };
            let a = assessor.assess(&text, &p.text, p.url.as_deref()).await;
            if best
                .as_ref()
                .is_none_or(|(_, b)| rank(a.verdict) < rank(b.verdict))
            {
                best = Some((*n, a));
            }
        }
        let cited = !citations.is_empty();
        let sv = match best {
            Some((n, a)) => SentenceVerdict {
                text,
                citations,
                flagged: a.verdict != Verdict::Supported,
                verdict: Some(a.verdict),
                confidence: a.confidence,
                explanation: a.explanation,
                quote_citation: a.source_quote.as_ref().map(|_| n),
                source_quote: a.source_quote,
                judge: a.judge,
                removed: false,
            },
            None => SentenceVerdict {
                flagged: cited,
                verdict: cited.then_some(Verdict::SourceUnavailable),
                explanation: if cited {
                    "It cites no passage the answer was given.".into()
                } else {
                    String::new()
                },
                text,
                citations,
                confidence: 0.0,
                source_quote: None,
                quote_citation: None,
                judge: String::new(),
                removed: false,
            },
        };
        let mut sv = sv;
        // Text before this sentence, as it was.
        out.push_str(&answer[at..span.start]);
        at = span.end;
        if cited {
            v.checked += 1;
            if sv.verdict == Some(Verdict::Supported) {
                v.supported += 1;
            }
        }
        if sv.flagged {
            v.flagged += 1;
            match mode {
                VerifyMode::Strip => {
                    sv.removed = true;
                    v.removed += 1;
                    // Drop the white space after a removed sentence too.
                    let rest = &answer[at..];
                    let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
                    at += ws;
                }
                _ => {
                    out.push_str(raw);
                    out.push_str(&format!(
                        " [unsupported: {}]",
                        sv.verdict.unwrap_or(Verdict::Inconclusive)
                    ));
                }
            }
        } else {
            out.push_str(raw);
        }
        v.sentences.push(sv);
    }
    out.push_str(&answer[at..]);
    let text = out.trim_end().to_string();
    (text, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passages() -> Vec<CitedPassage> {
        vec![CitedPassage {
            n: 1,
            text: SourceText::plain(
                "Routing fees are paid by the sender of the payment, never by the receiver. \
                 In 2023, 78% of nodes charged a base fee of 1 sat.",
            ),
            url: None,
        }]
    }

    #[tokio::test]
    async fn unsupported_sentences_are_flagged_or_stripped() {
        let answer = "Routing fees are paid by the sender of the payment [1]. \
                      In 2023, 98% of nodes charged a base fee of 1 sat [1]. \
                      Fees are a topic.";
        let a = Assessor::default();
        let (text, v) = verify_answer(&a, answer, &passages(), VerifyMode::Flag).await;
        assert_eq!((v.checked, v.supported, v.flagged), (2, 1, 1), "{v:#?}");
        assert!(text.contains("[1]. In 2023, 98%"), "{text}");
        assert!(text.contains("[unsupported: NOT_SUPPORTED]"), "{text}");
        assert_eq!(v.sentences[1].verdict, Some(Verdict::NotSupported));
        assert!(v.sentences[1].explanation.contains("78%"), "{v:#?}");
        assert_eq!(
            v.sentences[0].source_quote.as_deref(),
            Some("Routing fees are paid by the sender of the payment, never by the receiver.")
        );
        assert_eq!(v.sentences[2].verdict, None);

        let (text, v) = verify_answer(&a, answer, &passages(), VerifyMode::Strip).await;
        assert_eq!(v.removed, 1);
        assert!(
            !text.contains("98%") && text.contains("Fees are a topic."),
            "{text}"
        );

        let (text, v) = verify_answer(&a, answer, &passages(), VerifyMode::Off).await;
        assert_eq!((text.as_str(), v.checked), (answer, 0));
    }

    #[tokio::test]
    async fn a_citation_to_no_passage_is_caught() {
        let (_, v) = verify_answer(
            &Assessor::default(),
            "Something unsourced [4].",
            &passages(),
            VerifyMode::Flag,
        )
        .await;
        assert_eq!(v.flagged, 1);
        assert_eq!(v.sentences[0].verdict, Some(Verdict::SourceUnavailable));
    }
}
