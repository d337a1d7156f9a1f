//! Fast, exact token counting for BERT WordPiece tokenizers.
//!
//! Calling `Tokenizer::encode` on whole documents runs at well under 1 MB/s.
//! BERT tokenisation is *local to whitespace-separated words*: the
//! `BertNormalizer` works character by character, `BertPreTokenizer` splits on
//! whitespace and punctuation, and WordPiece sees one pre-token at a time. So
//! the token count of a text is the sum of the counts of its words, and a word
//! that was seen once never needs to be tokenised again.
//!
//! [`TokenCounter`] exploits that: an ASCII word is lower-cased, split on ASCII
//! punctuation and its pieces looked up in a memo (unseen pieces are run
//! through the tokenizer's own WordPiece model); any other word is handed to
//! the real `encode` once and memoised. Counts are exact (see the
//! `exact_against_tokenizer` tests). Tokenizers that are not BERT-like fall back
//! to `encode` per word, and chunks are re-counted with `encode` as a whole.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

use tokenizers::{Model, ModelWrapper, NormalizerWrapper, PreTokenizerWrapper, Tokenizer};
use verity_core::{ConfigError, Error, Result};

/// The bert-base-uncased WordPiece tokenizer (all-MiniLM-L6-v2's), bundled so
/// chunking works offline.
pub(crate) const BUNDLED_TOKENIZER: &[u8] = include_bytes!("../assets/tokenizer.json");

/// Memo entries kept before the memo is cleared (bounds memory on huge corpora).
const MEMO_LIMIT: usize = 2_000_000;

/// FxHash: a fast non-cryptographic hash for short word keys.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Word → token-count memos.
#[derive(Default)]
pub(crate) struct Memo {
    /// Lower-cased ASCII pre-token → WordPiece count.
    pieces: FxMap<Box<[u8]>, u32>,
    /// Whole raw word (non-ASCII, or any word for generic tokenizers) → count.
    words: FxMap<Box<str>, u32>,
    /// Scratch buffer for the lower-cased piece.
    buf: Vec<u8>,
}

impl Memo {
    fn trim(&mut self) {
        if self.pieces.len() + self.words.len() > MEMO_LIMIT {
            self.pieces.clear();
            self.words.clear();
        }
    }
}

/// How a BERT-like tokenizer is set up, when the fast path applies.
struct FastBert {
    lowercase: bool,
    /// Added tokens matched on raw text (ASCII, no whitespace, not normalised).
    added: Vec<Box<[u8]>>,
    /// First bytes of the added tokens.
    added_first: [bool; 128],
}

/// Counts tokens as a given `tokenizer.json` would, without special tokens.
pub(crate) struct TokenCounter {
    tokenizer: Tokenizer,
    fast: Option<FastBert>,
    memo: Mutex<Memo>,
    /// First 12 hex digits of the SHA-1 of the `tokenizer.json` bytes.
    fingerprint: String,
}

/// Whitespace that separates words for BERT: `char::is_whitespace` minus the
/// control characters that `BertNormalizer`'s cleaning deletes (VT, FF, NEL).
#[inline]
pub(crate) fn is_word_space(c: char) -> bool {
    match c {
        ' ' | '\t' | '\n' | '\r' => true,
        c if c.is_ascii() => false,
        '\u{85}' => false,
        c => c.is_whitespace(),
    }
}

#[inline]
fn is_ascii_word_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Iterates over the words (maximal runs of non-[`is_word_space`] chars) of
/// `text`, yielding byte ranges.
pub(crate) fn for_each_word(text: &str, mut f: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    let mut start: Option<usize> = None;
    while i < n {
        let b = bytes[i];
        let (space, len) = if b < 0x80 {
            (is_ascii_word_space(b), 1)
        } else {
            match text.get(i..).and_then(|s| s.chars().next()) {
                Some(c) => (is_word_space(c), c.len_utf8()),
                None => (false, 1),
            }
        };
        if space {
            if let Some(s) = start.take() {
                f(s, i);
            }
        } else if start.is_none() {
            start = Some(i);
        }
        i += len;
    }
    if let Some(s) = start {
        f(s, n);
    }
}

impl TokenCounter {
    /// Load from `tokenizer.json` bytes; truncation and padding are switched off.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut tokenizer = Tokenizer::from_bytes(bytes).map_err(|e| {
            Error::Config(ConfigError::Invalid {
                key: "tokenizer".into(),
                message: format!("cannot load tokenizer.json: {e}"),
            })
        })?;
        tokenizer.with_truncation(None).map_err(|e| {
            Error::Config(ConfigError::Invalid {
                key: "tokenizer".into(),
                message: format!("cannot disable truncation: {e}"),
            })
        })?;
        tokenizer.with_padding(None);
        let fast = Self::fast_setup(&tokenizer);
        let mut fingerprint = verity_core::hash::sha1_hex(bytes);
        fingerprint.truncate(12);
        Ok(Self {
            tokenizer,
            fast,
            memo: Mutex::new(Memo::default()),
            fingerprint,
        })
    }

    /// Identifies the tokenizer (a hash of its `tokenizer.json`).
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn fast_setup(tokenizer: &Tokenizer) -> Option<FastBert> {
        let lowercase = match tokenizer.get_normalizer() {
            Some(NormalizerWrapper::BertNormalizer(n)) if n.clean_text => n.lowercase,
            _ => return None,
        };
        if !matches!(
            tokenizer.get_pre_tokenizer(),
            Some(PreTokenizerWrapper::BertPreTokenizer(_))
        ) {
            return None;
        }
        if !matches!(tokenizer.get_model(), ModelWrapper::WordPiece(_)) {
            return None;
        }
        let mut added = Vec::new();
        let mut added_first = [false; 128];
        for tok in tokenizer.get_added_tokens_decoder().values() {
            let c = &tok.content;
            let simple = !c.is_empty()
                && c.is_ascii()
                && !c
                    .bytes()
                    .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
                && !tok.normalized
                && !tok.single_word
                && !tok.lstrip
                && !tok.rstrip;
            if !simple {
                return None;
            }
            if let Some(&b) = c.as_bytes().first() {
                added_first[usize::from(b & 0x7f)] = true;
            }
            added.push(c.as_bytes().to_vec().into_boxed_slice());
        }
        // Longest first, so that the longest added token wins at a position.
        added.sort_by_key(|a| std::cmp::Reverse(a.len()));
        Some(FastBert {
            lowercase,
            added,
            added_first,
        })
    }

    /// `true` when counts are computed word by word exactly (BERT WordPiece).
    pub(crate) fn is_exact_per_word(&self) -> bool {
        self.fast.is_some()
    }

    /// Lock the shared memo, or use a private one when another thread holds it.
    pub(crate) fn with_memo<T>(&self, f: impl FnOnce(&mut Memo) -> T) -> T {
        match self.memo.try_lock() {
            Ok(mut guard) => {
                guard.trim();
                f(&mut guard)
            }
            Err(_) => f(&mut Memo::default()),
        }
    }

    /// Tokens of `text` (no special tokens).
    pub(crate) fn count(&self, text: &str) -> usize {
        if self.fast.is_some() {
            self.with_memo(|memo| {
                let mut total = 0usize;
                for_each_word(text, |s, e| {
                    total += self.count_word(memo, text.get(s..e).unwrap_or("")) as usize
                });
                total
            })
        } else {
            self.encode_len(text)
        }
    }

    /// Exact count through the full tokenizer pipeline.
    pub(crate) fn encode_len(&self, text: &str) -> usize {
        match self.tokenizer.encode(text, false) {
            Ok(enc) => enc.len(),
            // Over-estimate rather than under-estimate: one token per char.
            Err(_) => text.chars().count(),
        }
    }

    /// Tokens of one word (a run of non-whitespace characters).
    pub(crate) fn count_word(&self, memo: &mut Memo, word: &str) -> u32 {
        if let Some(fast) = &self.fast {
            if word.is_ascii() {
                return self.count_ascii_word(fast, memo, word.as_bytes());
            }
        }
        if let Some(&c) = memo.words.get(word) {
            return c;
        }
        let c = u32::try_from(self.encode_len(word)).unwrap_or(u32::MAX);
        memo.words.insert(word.into(), c);
        c
    }

    fn count_ascii_word(&self, fast: &FastBert, memo: &mut Memo, b: &[u8]) -> u32 {
        let mut total = 0u32;
        let mut buf = std::mem::take(&mut memo.buf);
        buf.clear();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if fast.added_first[usize::from(c & 0x7f)] {
                if let Some(t) = fast
                    .added
                    .iter()
                    .find(|t| b.get(i..i + t.len()) == Some(&t[..]))
                {
                    total += self.flush_piece(memo, &mut buf);
                    total += 1;
                    i += t.len();
                    continue;
                }
            }
            if c.is_ascii_punctuation() {
                total += self.flush_piece(memo, &mut buf);
                total += 1;
            } else if c.is_ascii_control() {
                // Deleted by BertNormalizer's cleaning; does not split the word.
            } else {
                buf.push(if fast.lowercase {
                    c.to_ascii_lowercase()
                } else {
                    c
                });
            }
            i += 1;
        }
        total += self.flush_piece(memo, &mut buf);
        memo.buf = buf;
        total
    }

    fn flush_piece(&self, memo: &mut Memo, buf: &mut Vec<u8>) -> u32 {
        if buf.is_empty() {
            return 0;
        }
        let c = match memo.pieces.get(buf.as_slice()) {
            Some(&c) => c,
            None => {
                let s = String::from_utf8_lossy(buf);
                let c = match self.tokenizer.get_model().tokenize(&s) {
                    Ok(toks) => toks.len(),
                    Err(_) => buf.len(),
                };
                let c = u32::try_from(c).unwrap_or(u32::MAX);
                memo.pieces.insert(buf.clone().into_boxed_slice(), c);
                c
            }
        };
        buf.clear();
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter() -> TokenCounter {
        TokenCounter::from_bytes(BUNDLED_TOKENIZER).unwrap()
    }

    #[test]
    fn bundled_tokenizer_takes_fast_path() {
        assert!(counter().is_exact_per_word());
    }

    #[test]
    fn exact_against_tokenizer_on_tricky_strings() {
        let c = counter();
        let cases = [
            "Hello, world! This is a test.",
            "Café résumé naïve façade Ångström — «quotes» “curly” ‘single’",
            "日本語のテキストと中文文本，混合 English words 한국어",
            "emoji 😀🎉👍🏽 family 👨‍👩‍👧 flags 🇫🇷",
            "https://example.com/path?query=1&b=two#frag user@mail.org",
            "fn main() { let x: Vec<u8> = vec![1, 2, 3]; println!(\"{x:?}\"); }",
            "[CLS] a[SEP]b [MASK][PAD] [UNK]x [cls]",
            "tab\tsep\u{b}vt\u{c}ff\u{85}nel\u{a0}nbsp\u{200b}zw\u{feff}bom",
            "supercalifragilisticexpialidociousxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "x\u{0}y \u{fffd} \u{1}ctrl İstanbul ǅ ﬁ ligature ½ ²³ Ⅻ",
            "α-synuclein β2-adrenergic 5′-UTR 37°C μg/mL ±0.5 ≥ ≤ × ∼",
            "  leading and trailing   \n\n  ",
            "",
        ];
        for case in cases {
            assert_eq!(c.count(case), c.encode_len(case), "mismatch on {case:?}");
        }
    }

    #[test]
    fn words_split_on_bert_whitespace_only() {
        let mut words = Vec::new();
        let t = "a b\u{b}c\u{a0}d\u{3000}e\n";
        for_each_word(t, |s, e| words.push(&t[s..e]));
        assert_eq!(words, vec!["a", "b\u{b}c", "d", "e"]);
    }
}
