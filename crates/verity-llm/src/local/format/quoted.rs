//! [`QuotedFormat`]: sentences copied from the passages, each followed by the
//! citation of the passage it comes from (`… sentence. [2]`), then the end of
//! the turn ([`LocalAnswerFormat::Quoted`](crate::LocalAnswerFormat::Quoted)).
//!
//! The sentences that may be quoted are given (the grounded answer quotes
//! those the extractive generator finds relevant to the question: see
//! [`super::Constraint::new`]), written as the extractive generator writes
//! them. The model chooses the first sentence by its first token, then the bytes that
//! follow narrow the sentences it can be copying down to one; the citation
//! is part of what is copied, so it is always the passage the sentence comes
//! from. A sentence is quoted once at most, and a new one starts only when
//! its tokens and the end of turn fit in the tokens left, so the answer ends
//! by itself within its allowance.

use super::AnswerShape;
use crate::extractive::Quotable;

/// Sentences that may be quoted, at most (the first ones of the passages):
/// their set is a 64-bit mask.
const MAX_CANDIDATES: usize = 64;

/// The quoted format over the sentences of some passages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuotedFormat {
    /// Each sentence as quoted, citation included.
    targets: Vec<Vec<u8>>,
    /// The tokens each takes, as the tokenizer writes it.
    tokens: Vec<usize>,
    /// The sentences that start with each byte.
    by_first: Vec<u64>,
    max_sentences: usize,
}

/// The automaton's state between two tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuoteState {
    /// Before sentence `done + 1`; `used`: the sentences quoted already.
    Start { done: usize, used: u64 },
    /// `off` bytes into a sentence; `set`: the sentences it can still be.
    In {
        done: usize,
        used: u64,
        set: u64,
        off: usize,
    },
    /// After `done` complete sentences: a space and another, or the end.
    Between { done: usize, used: u64 },
}

fn bit(i: usize) -> u64 {
    1u64 << i
}

/// Indexes of the bits set in `set`.
fn members(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let i = set.trailing_zeros() as usize;
        set &= set - 1;
        Some(i)
    })
}

impl QuotedFormat {
    /// Quotes of `sentences`, at most `max_sentences` of them;
    /// `count_tokens` gives the tokens of a text. `None` when there is no
    /// sentence to quote.
    pub(crate) fn new(
        sentences: &[Quotable],
        max_sentences: usize,
        count_tokens: impl Fn(&str) -> usize,
    ) -> Option<Self> {
        let mut targets: Vec<Vec<u8>> = Vec::new();
        let mut tokens = Vec::new();
        for q in sentences {
            let quoted = q.quoted();
            if targets.iter().any(|t| t.as_slice() == quoted.as_bytes()) {
                continue;
            }
            tokens.push(count_tokens(&quoted));
            targets.push(quoted.into_bytes());
            if targets.len() == MAX_CANDIDATES {
                break;
            }
        }
        if targets.is_empty() || max_sentences == 0 {
            return None;
        }
        let mut by_first = vec![0u64; 256];
        for (i, t) in targets.iter().enumerate() {
            if let Some(slot) = t.first().and_then(|b| by_first.get_mut(usize::from(*b))) {
                *slot |= bit(i);
            }
        }
        Some(Self {
            targets,
            tokens,
            by_first,
            max_sentences,
        })
    }

    /// The sentences not quoted yet whose tokens, and then the end of the
    /// turn, fit in `remaining` tokens.
    fn fitting(&self, used: u64, remaining: usize) -> u64 {
        self.tokens
            .iter()
            .enumerate()
            .filter(|&(i, &n)| used & bit(i) == 0 && n < remaining)
            .fold(0, |set, (i, _)| set | bit(i))
    }

    fn step(&self, state: QuoteState, b: u8, remaining: usize) -> Option<QuoteState> {
        match state {
            QuoteState::Start { done, used } => {
                let first = self.by_first.get(usize::from(b)).copied().unwrap_or(0);
                let set = first & self.fitting(used, remaining);
                self.settle(done, used, set, 1)
            }
            QuoteState::In {
                done,
                used,
                set,
                off,
            } => {
                let set = members(set)
                    .filter(|&i| self.targets.get(i).and_then(|t| t.get(off)) == Some(&b))
                    .fold(0, |s, i| s | bit(i));
                self.settle(done, used, set, off + 1)
            }
            QuoteState::Between { done, used } => (b == b' '
                && done < self.max_sentences
                && self.fitting(used, remaining.saturating_sub(1)) != 0)
                .then_some(QuoteState::Start { done, used }),
        }
    }

    /// The state once `off` bytes of the sentences in `set` are written.
    fn settle(&self, done: usize, used: u64, set: u64, off: usize) -> Option<QuoteState> {
        if set == 0 {
            return None;
        }
        // Quotes are distinct and none is the start of another (each ends
        // with its citation): a complete one is the only one left.
        match members(set).find(|&i| self.targets.get(i).is_some_and(|t| t.len() == off)) {
            Some(i) => Some(QuoteState::Between {
                done: done + 1,
                used: used | bit(i),
            }),
            None => Some(QuoteState::In {
                done,
                used,
                set,
                off,
            }),
        }
    }
}

impl QuotedFormat {
    /// The bytes that must follow in `state`, when only one sentence can be
    /// being copied: the rest of it, citation included (nothing to choose,
    /// so the generator feeds them to the model in one batch).
    pub(crate) fn forced(&self, state: QuoteState) -> Option<&[u8]> {
        let QuoteState::In { set, off, .. } = state else {
            return None;
        };
        if set.count_ones() != 1 {
            return None;
        }
        self.targets
            .get(set.trailing_zeros() as usize)
            .and_then(|t| t.get(off..))
            .filter(|rest| !rest.is_empty())
    }
}

impl AnswerShape for QuotedFormat {
    type State = QuoteState;

    fn start(&self) -> QuoteState {
        QuoteState::Start { done: 0, used: 0 }
    }

    fn advance(&self, state: QuoteState, bytes: &[u8], remaining: usize) -> Option<QuoteState> {
        bytes
            .iter()
            .try_fold(state, |s, &b| self.step(s, b, remaining))
    }

    fn can_end(&self, state: QuoteState) -> bool {
        matches!(state, QuoteState::Between { done, .. } if done > 0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use verity_core::ContextBlock;

    use super::super::{accepts, assert_every_path_ends};
    use super::*;
    use crate::extractive::quotable_sentences;

    fn block(index: usize, text: &str) -> ContextBlock {
        ContextBlock {
            index,
            chunk_id: format!("c{index}"),
            doc_uid: format!("d{index}"),
            text: text.into(),
        }
    }

    fn sentences() -> Vec<Quotable> {
        quotable_sentences(&[
            block(
                1,
                "# Fees\n\nEach channel advertises a fee policy. The fee of one forward is \
                 base_fee_msat + amount_msat * fee_rate_ppm / 1,000,000.",
            ),
            block(
                2,
                "Answers are cached for 6 hours.\nRetrievals are cached\nfor 24 hours.",
            ),
        ])
    }

    /// One token per word (tests only need a count).
    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    #[test]
    fn the_rest_of_the_one_sentence_left_is_forced() {
        let f = QuotedFormat::new(&sentences(), 3, words).unwrap();
        // "Answers" and "Retrievals" are two sentences of passage 2: nothing
        // is forced at the start, nor after a byte both could start with.
        assert_eq!(f.forced(f.start()), None);
        let s = f.advance(f.start(), b"Re", usize::MAX).unwrap();
        assert_eq!(
            f.forced(s),
            Some(&b"trievals are cached for 24 hours. [2]"[..])
        );
        let s = f
            .advance(s, b"trievals are cached for 24 hours. [2]", usize::MAX)
            .unwrap();
        assert!(f.can_end(s));
        assert_eq!(f.forced(s), None, "between sentences the model chooses");
    }

    #[test]
    fn quotes_whole_sentences_with_their_own_citation() {
        let f = QuotedFormat::new(&sentences(), 3, words).unwrap();
        assert!(accepts(&f, "Each channel advertises a fee policy. [1]"));
        assert!(accepts(
            &f,
            "Retrievals are cached for 24 hours. [2] Answers are cached for 6 hours. [2]"
        ));
        assert!(accepts(
            &f,
            "The fee of one forward is base_fee_msat + amount_msat * fee_rate_ppm / 1,000,000. [1]"
        ));
        for bad in [
            "",
            // The wrong passage, a paraphrase, a part, a heading, no citation.
            "Each channel advertises a fee policy. [2]",
            "Each channel publishes a fee policy. [1]",
            "Each channel advertises a fee. [1]",
            "# Fees [1]",
            "Each channel advertises a fee policy.",
            // A sentence twice, or more sentences than allowed.
            "Answers are cached for 6 hours. [2] Answers are cached for 6 hours. [2]",
            // Line breaks of the passage are spaces in a quote.
            "Retrievals are cached\nfor 24 hours. [2]",
        ] {
            assert!(!accepts(&f, bad), "{bad:?} must not be accepted");
        }
        let one = QuotedFormat::new(&sentences(), 1, words).unwrap();
        assert!(!accepts(
            &one,
            "Retrievals are cached for 24 hours. [2] Answers are cached for 6 hours. [2]"
        ));
        let heading = quotable_sentences(&[block(1, "# Only a heading")]);
        assert!(QuotedFormat::new(&heading, 3, words).is_none());
        assert!(QuotedFormat::new(&sentences(), 0, words).is_none());
    }

    #[test]
    fn a_sentence_starts_only_when_it_fits() {
        let f = QuotedFormat::new(&sentences(), 3, words).unwrap();
        // "Answers are cached for 6 hours. [2]": 7 tokens, then the end.
        let s = f.start();
        assert!(f.advance(s, b"Answers", 8).is_some());
        assert!(f.advance(s, b"Answers", 7).is_none());
        let s = f
            .advance(s, b"Answers are cached for 6 hours. [2]", 8)
            .unwrap();
        assert!(f.can_end(s));
        // Another sentence needs its space too (7 tokens, the end, the space).
        assert!(f.advance(s, b" Each", 8).is_none());
        assert!(f.advance(s, b" Each", 9).is_some());
    }

    /// Whatever the model prefers among the open tokens, the answer ends
    /// within its allowance, in the format.
    #[test]
    fn every_path_ends_within_the_allowance() {
        assert_every_path_ends(
            &QuotedFormat::new(&sentences(), 3, |s| s.len()).unwrap(),
            &[(1, 40), (7, 90), (42, 128), (9, 400)],
        );
    }
}
