//! [`CitedFormat`]: sentences in the model's own words, each ending with the
//! citation of a passage it was given (`… text [2].`), then the end of the
//! turn ([`LocalAnswerFormat::Cited`](crate::LocalAnswerFormat::Cited)).
//!
//! A sentence's text has no line breaks, brackets, `!`, `?` or markdown
//! emphasis; it ends with ` [n].` or `. [n]`, `n` one of the passage
//! numbers, and a full stop followed by a space can only be followed by the
//! citation (so no sentence is left uncited; `3.5` and `e.g.,` remain
//! writable). Close to the end of the token allowance only the shortest way
//! to close the current sentence and end is open, so a generation always
//! ends by itself within its allowance, every sentence cited.

use super::AnswerShape;

/// Bytes of one sentence's text before its citation, at most: past it the
/// sentence must close.
const MAX_SENTENCE_BYTES: usize = 240;
/// Bytes of one sentence's text before a citation may close it, at least.
const MIN_SENTENCE_BYTES: usize = 12;
/// New tokens a new sentence needs at least to start: with fewer left, the
/// answer ends after the sentence before.
const MIN_SENTENCE_TOKENS: usize = 24;

/// The answer format: which passage numbers may be cited and how many
/// sentences may be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CitedFormat {
    passages: Vec<usize>,
    max_sentences: usize,
    max_sentence_bytes: usize,
    min_sentence_bytes: usize,
}

/// Where the last byte of a sentence's text left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Last {
    /// A letter, a digit or another byte after which anything may follow.
    Text,
    /// A space: a citation may start.
    Space,
    /// A full stop: text may follow (`3.5`, `e.g.,`), or a space and the
    /// citation (`… here. [2]`).
    Stop,
    /// A full stop and a space: only the citation may follow.
    StopSpace,
}

/// The automaton's state between two bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FormatState {
    /// At the start of sentence `done + 1` (`done` sentences written).
    Start { done: usize },
    /// In a sentence's text: `len` bytes so far; `utf8` continuation bytes
    /// still expected.
    Text {
        done: usize,
        len: usize,
        last: Last,
        utf8: Utf8,
    },
    /// After `[` and the digits of `num` (0: none yet); `after_stop`: the
    /// sentence's full stop came before the citation.
    Cite {
        done: usize,
        num: usize,
        after_stop: bool,
    },
    /// After `]`: the full stop comes.
    Closed { done: usize },
    /// After a complete sentence (`done` written): a space and another
    /// sentence, or the end.
    Between { done: usize },
}

/// Bytes never allowed in a sentence's text.
fn forbidden(b: u8) -> bool {
    matches!(b, b'[' | b']' | b'!' | b'?' | b'*' | b'#' | b'|' | b'\\') || b < 0x20 || b == 0x7f
}

impl CitedFormat {
    /// Answers citing any of `passages` (the numbers of the `[n]` markers),
    /// in at most `max_sentences` sentences. `None` when no passage is given.
    pub(crate) fn new(
        passages: impl IntoIterator<Item = usize>,
        max_sentences: usize,
    ) -> Option<Self> {
        let mut passages: Vec<usize> = passages.into_iter().filter(|n| *n > 0).collect();
        passages.sort_unstable();
        passages.dedup();
        if passages.is_empty() || max_sentences == 0 {
            return None;
        }
        Some(Self {
            passages,
            max_sentences,
            max_sentence_bytes: MAX_SENTENCE_BYTES,
            min_sentence_bytes: MIN_SENTENCE_BYTES,
        })
    }

    /// New tokens that can always close the current sentence and end: up to
    /// three bytes of a character, a byte after a full stop, ` [`, the
    /// digits, `].` and the end of the turn, one token each at worst.
    fn close_tokens(&self) -> usize {
        let digits = self.passages.last().map_or(1, |n| n.to_string().len());
        3 + 1 + 2 + digits + 2 + 1
    }

    /// Whether a cited number may still be reached from the digits of `num`
    /// followed by `digit`.
    fn number_prefix(&self, num: usize, digit: u8) -> Option<usize> {
        let next = num
            .checked_mul(10)?
            .checked_add(usize::from(digit - b'0'))?;
        if next == 0 {
            return None;
        }
        let prefix = next.to_string();
        self.passages
            .iter()
            .any(|n| n.to_string().starts_with(&prefix))
            .then_some(next)
    }

    /// The state after byte `b`, or `None` when `b` leaves the format.
    /// `closing`: few tokens are left, only the shortest way to the end is open.
    fn step(&self, state: FormatState, b: u8, closing: bool) -> Option<FormatState> {
        use FormatState::*;
        match state {
            Start { done } => {
                if b == b' ' || b == b'.' || b == b',' || forbidden(b) {
                    return None;
                }
                Some(Text {
                    done,
                    len: 1,
                    last: Last::Text,
                    utf8: Utf8::lead(b)?,
                })
            }
            Text {
                done,
                len,
                last,
                utf8,
            } => {
                if utf8.left > 0 {
                    return utf8.next(b).map(|utf8| Text {
                        done,
                        len: len + 1,
                        last: Last::Text,
                        utf8,
                    });
                }
                let full =
                    closing && len >= self.min_sentence_bytes || len >= self.max_sentence_bytes;
                let long_enough = len >= self.min_sentence_bytes;
                match (b, last) {
                    (b'[', Last::Space) if long_enough => Some(Cite {
                        done,
                        num: 0,
                        after_stop: false,
                    }),
                    (b'[', Last::StopSpace) => Some(Cite {
                        done,
                        num: 0,
                        after_stop: true,
                    }),
                    (_, Last::Space | Last::StopSpace) if full => None,
                    (_, Last::StopSpace) => None,
                    (b' ', Last::Text) => Some(Text {
                        done,
                        len: len + 1,
                        last: Last::Space,
                        utf8: Utf8::NONE,
                    }),
                    (b' ', Last::Stop) if long_enough => Some(Text {
                        done,
                        len: len + 1,
                        last: Last::StopSpace,
                        utf8: Utf8::NONE,
                    }),
                    (b' ', _) => None,
                    (_, Last::Stop) if full => None,
                    (_, Last::Text) if full => None,
                    (b'.', Last::Text) => Some(Text {
                        done,
                        len: len + 1,
                        last: Last::Stop,
                        utf8: Utf8::NONE,
                    }),
                    (b'.', _) => None,
                    _ if forbidden(b) => None,
                    _ => Some(Text {
                        done,
                        len: len + 1,
                        last: Last::Text,
                        utf8: Utf8::lead(b)?,
                    }),
                }
            }
            Cite {
                done,
                num,
                after_stop,
            } => match b {
                b'0'..=b'9' => self.number_prefix(num, b).map(|num| Cite {
                    done,
                    num,
                    after_stop,
                }),
                b']' if self.passages.binary_search(&num).is_ok() => Some(if after_stop {
                    Between { done: done + 1 }
                } else {
                    Closed { done }
                }),
                _ => None,
            },
            Closed { done } => (b == b'.').then_some(Between { done: done + 1 }),
            Between { done } => {
                (b == b' ' && !closing && done < self.max_sentences).then_some(Start { done })
            }
        }
    }

    /// Whether the tokens left (`remaining`) call for closing now.
    fn closing(&self, state: FormatState, remaining: usize) -> bool {
        match state {
            FormatState::Between { .. } => remaining < MIN_SENTENCE_TOKENS,
            _ => remaining <= self.close_tokens(),
        }
    }
}

impl AnswerShape for CitedFormat {
    type State = FormatState;

    fn start(&self) -> FormatState {
        FormatState::Start { done: 0 }
    }

    fn advance(&self, state: FormatState, bytes: &[u8], remaining: usize) -> Option<FormatState> {
        let closing = self.closing(state, remaining);
        bytes
            .iter()
            .try_fold(state, |s, &b| self.step(s, b, closing))
    }

    fn can_end(&self, state: FormatState) -> bool {
        matches!(state, FormatState::Between { done } if done > 0)
    }
}

/// The continuation bytes of a UTF-8 character still to come: `left` of
/// them, the next one in `lo..=hi` (only well-formed UTF-8 is written: no
/// overlong forms, surrogates or code points past U+10FFFF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Utf8 {
    left: u8,
    lo: u8,
    hi: u8,
}

impl Utf8 {
    /// Nothing pending.
    const NONE: Self = Self::expect(0, 0x80, 0xbf);

    const fn expect(left: u8, lo: u8, hi: u8) -> Self {
        Self { left, lo, hi }
    }

    /// What the first byte of a character announces; `None` for a byte no
    /// character starts with.
    fn lead(b: u8) -> Option<Self> {
        Some(match b {
            0x00..=0x7f => Self::NONE,
            0xc2..=0xdf => Self::expect(1, 0x80, 0xbf),
            0xe0 => Self::expect(2, 0xa0, 0xbf),
            0xed => Self::expect(2, 0x80, 0x9f),
            0xe1..=0xef => Self::expect(2, 0x80, 0xbf),
            0xf0 => Self::expect(3, 0x90, 0xbf),
            0xf4 => Self::expect(3, 0x80, 0x8f),
            0xf1..=0xf3 => Self::expect(3, 0x80, 0xbf),
            _ => return None,
        })
    }

    /// After continuation byte `b`, or `None` when `b` is not the one due.
    fn next(self, b: u8) -> Option<Self> {
        (self.left > 0 && (self.lo..=self.hi).contains(&b)).then_some(Self::expect(
            self.left - 1,
            0x80,
            0xbf,
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::{accepts, assert_every_path_ends, MAX_SENTENCES};
    use super::*;

    fn three() -> CitedFormat {
        CitedFormat::new([1, 2, 3], MAX_SENTENCES).unwrap()
    }

    #[test]
    fn accepts_cited_sentences_and_only_those() {
        let f = three();
        assert!(accepts(
            &f,
            "The fee is base_fee_msat plus a proportional part [1]."
        ));
        assert!(accepts(
            &f,
            "Answers are cached for 6 hours [2]. Retrievals are cached for 24 hours [2]."
        ));
        assert!(accepts(
            &f,
            "Fees rose 3.5 percent, e.g., on busy channels [3]."
        ));
        assert!(accepts(
            &f,
            "L'été dernier, les frais ont baissé de moitié [1]."
        ));
        assert!(accepts(&f, "The fee is computed per channel. [1]"));
        assert!(accepts(
            &f,
            "The fee is computed per channel. [1] It is set by each node [2]."
        ));
        for bad in [
            "",
            "The fee is computed per channel.",
            "The fee is computed per channel [1]",
            "The fee is computed per channel. It is set by the node [1].",
            "The fee is computed per channel [4].",
            "The fee is computed per channel [0].",
            "The fee is computed per channel [1, 2].",
            "The fee is computed per channel [1]. ",
            "The fee is computed per channel. [1].",
            "The fee is computed per channel.[1]",
            "Short [1].",
            "The fee is computed per channel![1].",
            "The fee is computed\nper channel [1].",
            " The fee is computed per channel [1].",
            "The fee is  computed per channel [1].",
            "**The fee** is computed per channel [1].",
            "One fact stated here [1]. Two facts stated here [2]. Three facts stated here [3]. Four facts stated [1].",
        ] {
            assert!(!accepts(&f, bad), "{bad:?} must not be accepted");
        }
    }

    #[test]
    fn numbers_are_limited_to_the_passages_given() {
        let f = CitedFormat::new([2, 12], 1).unwrap();
        assert!(accepts(&f, "Something true about it [12]."));
        assert!(accepts(&f, "Something true about it [2]."));
        assert!(!accepts(&f, "Something true about it [1]."));
        assert!(!accepts(&f, "Something true about it [3]."));
        assert!(!accepts(&f, "Something true about it [21]."));
        assert!(CitedFormat::new(Vec::<usize>::new(), 3).is_none());
        assert!(CitedFormat::new([1], 0).is_none());
    }

    #[test]
    fn long_sentences_must_close() {
        let f = three();
        let long = "a".repeat(MAX_SENTENCE_BYTES);
        let s = f.advance(f.start(), long.as_bytes(), usize::MAX).unwrap();
        // At the limit only the way to the citation is open.
        assert!(f.advance(s, b"s", usize::MAX).is_none());
        let s = f.advance(s, b" ", usize::MAX).unwrap();
        assert!(f.advance(s, b"x", usize::MAX).is_none());
        let s = f.advance(s, b"[1].", usize::MAX).unwrap();
        assert!(f.can_end(s));
    }

    #[test]
    fn invalid_utf8_is_never_written() {
        let f = three();
        let s = f.advance(f.start(), b"Caf\xc3", usize::MAX).unwrap();
        assert!(
            f.advance(s, b" ", usize::MAX).is_none(),
            "a character cut in two"
        );
        assert!(f.advance(s, b"\xa9 is open", usize::MAX).is_some());
        assert!(f.advance(f.start(), b"\xa9", usize::MAX).is_none());
        assert!(f.advance(f.start(), b"\xff", usize::MAX).is_none());
        // Overlong forms and surrogates are not characters.
        assert!(f.advance(f.start(), b"Caf\xf0\x82", usize::MAX).is_none());
        assert!(f.advance(f.start(), b"Caf\xed\xa0", usize::MAX).is_none());
        assert!(f
            .advance(f.start(), b"Caf\xf0\x9f\x98\x80", usize::MAX)
            .is_some());
    }

    /// With single-byte tokens only (the worst case) and any choice among
    /// the open tokens, every path ends within the token allowance.
    #[test]
    fn every_path_ends_within_the_allowance() {
        assert_every_path_ends(&three(), &[(1, 40), (7, 64), (42, 120), (9, 200)]);
    }
}
