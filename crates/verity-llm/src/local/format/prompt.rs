//! The short prompt of a constrained grounded answer.
//!
//! Why: a local answer's time is almost all prompt processing. The pipeline's
//! strict prompt over three passages (system rules, titles, sources, the
//! whole chunks) is 400–560 tokens of SmolLM2's tokenizer on `examples/data`;
//! on two loaded cores llama.cpp processes 60–150 prompt tokens/s, so that
//! prompt alone costs 3–9 s. The format already enforces what the strict
//! prompt asks for in words (a citation on every sentence, only the passages
//! given), so the local model gets one line of instruction and the passages
//! in the retriever's order, cut at a sentence boundary once
//! [`PASSAGE_TOKENS`] are used: the best-ranked passages first, and a
//! passage left out of the prompt cannot be cited either.

use verity_core::text::sentence_spans;
use verity_core::{ChatMessage, ContextBlock, Grounding};

use crate::LocalAnswerFormat;

/// Tokens of passage text in the prompt at most (the best-ranked passages
/// first, cut at a sentence boundary; the first sentence is always kept).
pub const PASSAGE_TOKENS: usize = 256;

/// The instruction of each format: one line, the format does the rest.
fn instruction(format: LocalAnswerFormat) -> &'static str {
    match format {
        LocalAnswerFormat::Quoted => {
            "Answer the question by copying the sentences of the passages that answer it, \
             each followed by its passage number, like [1]."
        }
        _ => {
            "Answer the question from the passages in one to three short sentences. \
             End each sentence with the number of its passage, like [1]."
        }
    }
}

/// The passages of `grounding` that fit in `budget` tokens (`count_tokens`
/// counts a text's tokens): whole blocks in their order, then the first
/// sentences of the block that no longer fits; the blocks after it are left
/// out. Numbers (`ContextBlock::index`) are kept, so `[n]` still cites the
/// pipeline's n-th passage. The first block keeps at least one sentence.
pub(crate) fn fitting_passages(
    grounding: &Grounding,
    budget: usize,
    count_tokens: impl Fn(&str) -> usize,
) -> Grounding {
    let mut left = budget;
    let mut blocks: Vec<ContextBlock> = Vec::new();
    for b in &grounding.blocks {
        let text = b.text.trim();
        let whole = count_tokens(text);
        if whole <= left {
            left -= whole;
            blocks.push(ContextBlock {
                text: text.to_string(),
                ..b.clone()
            });
            continue;
        }
        let mut end = 0;
        for span in sentence_spans(text) {
            let n = count_tokens(&text[end..span.end]);
            if n > left && !(blocks.is_empty() && end == 0) {
                break;
            }
            left = left.saturating_sub(n);
            end = span.end;
        }
        let cut = text[..end].trim();
        if !cut.is_empty() {
            blocks.push(ContextBlock {
                text: cut.to_string(),
                ..b.clone()
            });
        }
        break;
    }
    Grounding {
        question: grounding.question.clone(),
        blocks,
        lang: grounding.lang.clone(),
    }
}

/// The chat of a constrained grounded answer: the format's instruction,
/// then the numbered passages (already fitted) and the question.
pub(crate) fn messages(
    format: LocalAnswerFormat,
    question: &str,
    passages: &[ContextBlock],
) -> Vec<ChatMessage> {
    let mut user = String::new();
    for b in passages {
        user.push_str(&format!("[{}] {}\n\n", b.index, b.text));
    }
    user.push_str("Question: ");
    user.push_str(question.trim());
    vec![
        ChatMessage::system(instruction(format)),
        ChatMessage::user(user),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grounding(texts: &[&str]) -> Grounding {
        Grounding {
            question: "How is the fee computed?".into(),
            blocks: texts
                .iter()
                .enumerate()
                .map(|(i, t)| ContextBlock {
                    index: i + 1,
                    chunk_id: format!("c{i}"),
                    doc_uid: format!("d{i}"),
                    text: (*t).into(),
                })
                .collect(),
            lang: Some("en".into()),
        }
    }

    /// Words as tokens.
    fn words(t: &str) -> usize {
        t.split_whitespace().count()
    }

    #[test]
    fn passages_are_kept_in_order_and_cut_at_a_sentence() {
        let g = grounding(&[
            "One two three four. Five six.",
            "Alpha beta gamma. Delta epsilon zeta. Eta theta iota.",
            "Never reached at all.",
        ]);
        let f = fitting_passages(&g, 12, words);
        let texts: Vec<(usize, &str)> = f.blocks.iter().map(|b| (b.index, &*b.text)).collect();
        assert_eq!(
            texts,
            [
                (1, "One two three four. Five six."),
                (2, "Alpha beta gamma. Delta epsilon zeta.")
            ]
        );
        // Everything fits: nothing is cut.
        assert_eq!(fitting_passages(&g, 100, words).blocks.len(), 3);
    }

    #[test]
    fn the_best_passage_always_keeps_a_sentence() {
        let g = grounding(&[
            "A long first sentence of many words here. Then more.",
            "x y z.",
        ]);
        let f = fitting_passages(&g, 2, words);
        assert_eq!(f.blocks.len(), 1);
        assert_eq!(
            f.blocks[0].text,
            "A long first sentence of many words here."
        );
        let m = messages(LocalAnswerFormat::Cited, &f.question, &f.blocks);
        assert_eq!(m.len(), 2);
        assert!(m[1].content.starts_with("[1] A long first sentence"));
        assert!(m[1].content.ends_with("Question: How is the fee computed?"));
    }
}
