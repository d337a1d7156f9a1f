//! Constrained decoding of grounded answers: the local generator writes the
//! answer to a request that carries a [`Grounding`] in one of the
//! [`LocalAnswerFormat`]s, and before each token is sampled every token
//! whose bytes would leave the format gets no probability ([`mask`]). So a
//! small model cannot ramble on, cannot write an uncited sentence and cannot
//! cite a passage it was not given; and because each format knows how many
//! new tokens are left, the generation always ends by itself (end of turn)
//! within its allowance.
//!
//! Why: SmolLM2-135M, asked for a cited answer over three passages, ran to
//! its 512-token budget in 8 of 10 asks on `examples/data` and the
//! extractive fallback answered every one; asked again with only the length
//! bounded, it cited its sentences in order (`[1]`, `[2]`, `[3]`) whatever
//! they said, and wrote few that its passages support
//! (docs/benchmarks.d/generate.md). Each format is a regular language over
//! bytes checked by a small automaton rather than a grammar engine: both
//! engines (llama.cpp and candle) share the generator's own sampler, so one
//! Rust check serves both, deterministically.

mod cited;
mod prompt;
mod quoted;

use std::collections::HashSet;

use verity_core::{ChatMessage, ContextBlock, Grounding};

use crate::extractive::quotable_sentences;
use crate::{ExtractiveGenerator, LocalAnswerFormat};
pub(crate) use cited::CitedFormat;
pub use prompt::PASSAGE_TOKENS;
pub(crate) use quoted::QuotedFormat;

/// Sentences of a constrained answer at most (default).
pub const MAX_SENTENCES: usize = 3;

/// New tokens of a constrained grounded answer at most: room for three
/// sentences of about 40 tokens. Within it the answer always ends by itself.
pub const ANSWER_TOKENS: u32 = 128;

/// A format as an automaton over the bytes of the answer.
pub(crate) trait AnswerShape {
    /// Where decoding is in the format.
    type State: Copy;
    /// The state before the first byte.
    fn start(&self) -> Self::State;
    /// The state after the bytes of one token, `remaining` new tokens being
    /// left (this one included); `None` when they leave the format.
    fn advance(&self, state: Self::State, bytes: &[u8], remaining: usize) -> Option<Self::State>;
    /// Whether the answer may end in `state`.
    fn can_end(&self, state: Self::State) -> bool;
}

/// Give every token that would leave `shape` in `state` a logit of −∞
/// (`vocab[id]`: its bytes; `stop_ids`: the tokens that end the turn).
/// Returns how many tokens remain possible.
pub(crate) fn mask<S: AnswerShape>(
    shape: &S,
    state: S::State,
    remaining: usize,
    vocab: &[Vec<u8>],
    stop_ids: &HashSet<u32>,
    logits: &mut [f32],
) -> usize {
    let can_end = shape.can_end(state);
    let mut open = 0;
    for (id, logit) in logits.iter_mut().enumerate() {
        let is_stop = u32::try_from(id).is_ok_and(|id| stop_ids.contains(&id));
        let ok = if is_stop {
            can_end
        } else {
            vocab.get(id).is_some_and(|bytes| {
                !bytes.is_empty() && shape.advance(state, bytes, remaining).is_some()
            })
        };
        if ok {
            open += 1;
        } else {
            *logit = f32::NEG_INFINITY;
        }
    }
    open
}

/// The format of one grounded answer and where decoding is in it.
pub(crate) enum Constraint {
    Cited(CitedFormat, <CitedFormat as AnswerShape>::State),
    Quoted(QuotedFormat, <QuotedFormat as AnswerShape>::State),
}

impl Constraint {
    /// The constraint and the short prompt of an answer to `grounding` in
    /// `format`, with at most `sentences` sentences, over the passages that
    /// fit in `passage_tokens` ([`prompt::fitting_passages`]); `count_tokens`
    /// counts the tokens of a text. A quoted answer's prompt shows only the
    /// sentences it may quote. `None` for [`LocalAnswerFormat::Free`], or
    /// when nothing could be written in the format (no passage, no sentence
    /// to quote).
    pub(crate) fn grounded(
        format: LocalAnswerFormat,
        sentences: usize,
        grounding: &Grounding,
        passage_tokens: usize,
        count_tokens: impl Fn(&str) -> usize + Copy,
    ) -> Option<(Self, Vec<ChatMessage>)> {
        if format == LocalAnswerFormat::Free {
            return None;
        }
        let fitted = prompt::fitting_passages(grounding, passage_tokens, count_tokens);
        match format {
            LocalAnswerFormat::Free => None,
            LocalAnswerFormat::Cited => {
                let f = CitedFormat::new(fitted.blocks.iter().map(|b| b.index), sentences)?;
                let s = f.start();
                let messages = prompt::messages(format, &fitted.question, &fitted.blocks);
                Some((Self::Cited(f, s), messages))
            }
            LocalAnswerFormat::Quoted => {
                // The model chooses among the sentences relevant to the
                // question (the extractive generator's choice, uncapped);
                // among all of them when none is.
                let mut quotable = ExtractiveGenerator::new().relevant_sentences(&fitted);
                if quotable.is_empty() {
                    quotable = quotable_sentences(&fitted.blocks);
                }
                let f = QuotedFormat::new(&quotable, sentences, count_tokens)?;
                let s = f.start();
                // Each passage shows the sentences that may be quoted from
                // it, in the passage's order.
                quotable.sort_by_key(|q| (q.block_rank, q.position));
                let mut shown: Vec<ContextBlock> = Vec::new();
                for q in &quotable {
                    match shown.last_mut() {
                        Some(b) if b.index == q.citation => {
                            b.text.push(' ');
                            b.text.push_str(&q.text);
                        }
                        _ => shown.push(ContextBlock {
                            index: q.citation,
                            chunk_id: String::new(),
                            doc_uid: String::new(),
                            text: q.text.clone(),
                        }),
                    }
                }
                let messages = prompt::messages(format, &fitted.question, &shown);
                Some((Self::Quoted(f, s), messages))
            }
        }
    }

    /// [`mask`] in the current state.
    pub(crate) fn mask(
        &self,
        remaining: usize,
        vocab: &[Vec<u8>],
        stop_ids: &HashSet<u32>,
        logits: &mut [f32],
    ) -> usize {
        match self {
            Self::Cited(f, s) => mask(f, *s, remaining, vocab, stop_ids, logits),
            Self::Quoted(f, s) => mask(f, *s, remaining, vocab, stop_ids, logits),
        }
    }

    /// Move on by the bytes of a sampled token; `false` when they leave the
    /// format (the mask makes that impossible).
    pub(crate) fn advance(&mut self, bytes: &[u8], remaining: usize) -> bool {
        match self {
            Self::Cited(f, s) => f.advance(*s, bytes, remaining).map(|n| *s = n).is_some(),
            Self::Quoted(f, s) => f.advance(*s, bytes, remaining).map(|n| *s = n).is_some(),
        }
    }

    /// The text that must follow now, when the format leaves no choice
    /// (the rest of the one sentence a quote can be copying), as long as it
    /// is whole characters; `None` otherwise.
    pub(crate) fn forced(&self) -> Option<&str> {
        match self {
            Self::Cited(..) => None,
            Self::Quoted(f, s) => f.forced(*s).and_then(|b| std::str::from_utf8(b).ok()),
        }
    }

    /// Whether the answer written so far is complete.
    pub(crate) fn is_complete(&self) -> bool {
        match self {
            Self::Cited(f, s) => f.can_end(*s),
            Self::Quoted(f, s) => f.can_end(*s),
        }
    }
}

/// Whether `text` is a complete answer in `shape` (tests).
#[cfg(test)]
pub(crate) fn accepts<S: AnswerShape>(shape: &S, text: &str) -> bool {
    shape
        .advance(shape.start(), text.as_bytes(), usize::MAX)
        .is_some_and(|s| shape.can_end(s))
}

/// Decode `shape` with single-byte tokens only (the worst case) and a
/// pseudo-random choice among the open tokens, once per `(seed, allowance)`,
/// and assert that every path ends within its token allowance with an
/// answer `shape` accepts (tests).
#[cfg(test)]
#[allow(clippy::panic)]
pub(crate) fn assert_every_path_ends<S: AnswerShape>(shape: &S, runs: &[(u64, usize)]) {
    let vocab: Vec<Vec<u8>> = (0u8..=255).map(|b| vec![b]).collect();
    let stop: HashSet<u32> = [256].into_iter().collect();
    for &(seed, allowance) in runs {
        let mut rng = seed;
        let mut state = shape.start();
        let mut text = Vec::new();
        let mut ended = false;
        for used in 0..allowance {
            let mut logits = vec![0.0f32; 257];
            let open = mask(shape, state, allowance - used, &vocab, &stop, &mut logits);
            assert!(
                open > 0,
                "no way on after {:?}",
                String::from_utf8_lossy(&text)
            );
            let choices: Vec<usize> = (0..257).filter(|&i| logits[i].is_finite()).collect();
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = choices[(rng >> 33) as usize % choices.len()];
            if pick == 256 {
                ended = true;
                break;
            }
            state = shape
                .advance(state, &vocab[pick], allowance - used)
                .unwrap_or_else(|| panic!("an open token left the format"));
            text.push(vocab[pick][0]);
        }
        let text = String::from_utf8_lossy(&text).into_owned();
        assert!(ended, "allowance {allowance}: {text:?}");
        assert!(accepts(shape, &text), "{text:?}");
    }
}
