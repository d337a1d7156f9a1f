//! Sentence spans: the one splitter of the workspace (sentence vectors at
//! ingestion, claim extraction and evidence passages in verification, the
//! extractive generator's sentences, the citation ratio of an answer).
//!
//! Rules, in order:
//! 1. **Blocks.** A blank line, a heading (`#`), a list item (`- `, `* `,
//!    `+ `, `• `, `1.`, `2)`), a table row (`|`) or a quote (`>`) starts a
//!    block; a heading or a table row is a block of its own. A single line
//!    break inside a paragraph does not end a sentence (wrapped text).
//! 2. **Ends.** Inside a block a sentence ends at `.`, `!`, `?`, `…`, `。`,
//!    `！` or `？`, with the closing quotes, brackets and emphasis marks that
//!    follow it (`.”`, `.)`, `. »`) and the citation markers right after it
//!    (`.[3]`, `. [2]`, `.[^1]`), when white space and then an opener
//!    follow: a capital, a digit, an opening quote or bracket, `*`, `_`, or
//!    a lower-case symbol (`rim1`, `iHepSCs`:
//!    [`is_lowercase_symbol`](super::is_lowercase_symbol)).
//! 3. **Not ends.** A period between digits (`3.5`), inside a word (URLs,
//!    `e.g`, domain names: no white space follows), after an abbreviation
//!    ([`super::abbrev`], English and French) or after an initial (`J.`).
//! 4. **Short fragments** ([`SentenceOptions::min_words`], off by default)
//!    are merged into the next sentence (the last into the previous).
//!
//! Spans are byte ranges of the input, trimmed of white space, in order,
//! never empty and always on char boundaries; any `&str` is accepted.

use std::ops::Range;

use super::abbrev::{is_abbreviation, is_initial};
use super::is_lowercase_symbol;

/// How [`sentence_spans_with`] cuts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SentenceOptions {
    /// Sentences of fewer white-space separated words are merged into the
    /// next one (the last into the one before), so that no sentence is a
    /// lone heading number or citation marker. 0 or 1: no merging.
    pub min_words: usize,
}

impl SentenceOptions {
    /// Merge sentences of fewer than `n` words into a neighbour.
    pub fn min_words(mut self, n: usize) -> Self {
        self.min_words = n;
        self
    }
}

/// Byte ranges of the sentences of `text`, trimmed, in order (default
/// [`SentenceOptions`]).
///
/// ```
/// use verity_core::text::sentence_spans;
/// let t = "Smith et al. found 3.5 times more.[2] iHepSCs grew. See https://x.org/a.";
/// let s: Vec<&str> = sentence_spans(t).into_iter().map(|r| &t[r]).collect();
/// assert_eq!(s, ["Smith et al. found 3.5 times more.[2]", "iHepSCs grew.", "See https://x.org/a."]);
/// ```
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    sentence_spans_with(text, SentenceOptions::default())
}

/// Byte ranges of the sentences of `text` cut with `options`.
pub fn sentence_spans_with(text: &str, options: SentenceOptions) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for block in blocks(text) {
        split_block(text, block, &mut out);
    }
    if options.min_words > 1 {
        merge_short(text, out, options.min_words)
    } else {
        out
    }
}

/// Characters that may end a sentence.
fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？')
}

/// Closing quotes, brackets and emphasis marks kept with the sentence they end.
const CLOSERS: &str = "\"')]”’»*_";

/// Characters that open a sentence besides capitals and digits.
const OPENERS: &str = "\"'“‘«([*_";

/// Line blocks: paragraphs, headings, list items, table rows and quotes.
fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let ls = pos;
        pos += line.len();
        let trimmed = line.trim();
        let starts_block = trimmed.is_empty()
            || trimmed.starts_with('#')
            || trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with("+ ")
            || trimmed.starts_with('•')
            || trimmed.starts_with('|')
            || trimmed.starts_with('>')
            || list_number(trimmed);
        if starts_block {
            if let Some(s) = start.take() {
                out.push(s..ls);
            }
        }
        if trimmed.is_empty() {
            continue;
        }
        if start.is_none() {
            start = Some(ls);
        }
        if trimmed.starts_with('#') || trimmed.starts_with('|') {
            if let Some(s) = start.take() {
                out.push(s..pos);
            }
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// `1.` or `12)` opening a line (at most three digits: not a year).
fn list_number(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits < 4 && matches!(line.as_bytes().get(digits), Some(b'.' | b')'))
}

fn split_block(text: &str, block: Range<usize>, out: &mut Vec<Range<usize>>) {
    let s = &text[block.clone()];
    let mut start = 0usize;
    let mut i = 0usize;
    while let Some(c) = s.get(i..).and_then(|r| r.chars().next()) {
        if is_terminator(c) && ends_here(s, i) {
            let end = sentence_end(s, i + c.len_utf8());
            let rest = &s[end..];
            let next = rest.trim_start();
            let has_ws = rest.len() > next.len();
            let starts_new =
                next.chars().next().is_some_and(|ch| {
                    ch.is_uppercase() || ch.is_ascii_digit() || OPENERS.contains(ch)
                }) || is_lowercase_symbol(next);
            if next.is_empty() || (has_ws && starts_new) {
                push_trimmed(text, block.start + start..block.start + end, out);
                start = end;
                i = end;
                continue;
            }
        }
        i += c.len_utf8();
    }
    if start < s.len() {
        push_trimmed(text, block.start + start..block.end, out);
    }
}

/// Where a sentence whose terminator ends at `end` ends: after the closers,
/// a French spaced closing quote and the citation markers that follow.
fn sentence_end(s: &str, mut end: usize) -> usize {
    loop {
        let rest = &s[end..];
        end += rest
            .find(|ch: char| !CLOSERS.contains(ch))
            .unwrap_or(rest.len());
        let rest = &s[end..];
        let ws = rest.len() - rest.trim_start().len();
        let after = &rest[ws..];
        // `bonjour. » Puis`: the guillemet closes the quoted sentence.
        if ws > 0 && !rest[..ws].contains('\n') && after.starts_with(['»', '”']) {
            end += ws + after.chars().next().map_or(0, char::len_utf8);
            continue;
        }
        if let Some(m) = marker_len(after) {
            let tail = &after[m..];
            if tail.is_empty() || tail.starts_with(char::is_whitespace) {
                end += ws + m;
                continue;
            }
        }
        return end;
    }
}

/// Length of a citation marker (`[3]`, `[1, 4]`, `[2–5]`, `[^n]`) at the start of `s`.
fn marker_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('[')?;
    let close = rest.find(']')?;
    let inner = &rest[..close];
    let ok = if let Some(f) = inner.strip_prefix('^') {
        !f.is_empty() && f.len() < 40 && !f.contains(char::is_whitespace)
    } else {
        !inner.is_empty()
            && inner.len() < 40
            && inner.chars().any(|c| c.is_ascii_digit())
            && inner
                .chars()
                .all(|c| c.is_ascii_digit() || ",;-–— ".contains(c))
    };
    ok.then_some(close + 2)
}

/// Whether the terminator at byte `i` of `s` can end a sentence.
fn ends_here(s: &str, i: usize) -> bool {
    let bytes = s.as_bytes();
    if bytes.get(i) != Some(&b'.') {
        return true;
    }
    // 3.5, 1.000, v1.2: a digit on both sides.
    if i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    // The word before the period, from the last white space (of any width:
    // NBSP, em space), bracket or quote.
    let word_start = s[..i]
        .char_indices()
        .rev()
        .find(|&(_, c)| c.is_whitespace() || c == '(' || c == '"')
        .map_or(0, |(p, c)| p + c.len_utf8());
    let word = s[word_start..i].trim_start_matches(['(', '"', '\'']);
    let next = s[i + 1..].trim_start();
    !is_abbreviation(word, next) && !is_initial(word)
}

fn push_trimmed(text: &str, r: Range<usize>, out: &mut Vec<Range<usize>>) {
    let piece = &text[r.clone()];
    let lead = piece.len() - piece.trim_start().len();
    let trail = piece.len() - piece.trim_end().len();
    let r = r.start + lead..r.end - trail;
    if r.start < r.end {
        out.push(r);
    }
}

/// Sentences of fewer than `min_words` words joined to the next one (the
/// last to the previous).
fn merge_short(text: &str, spans: Vec<Range<usize>>, min_words: usize) -> Vec<Range<usize>> {
    let count = |r: &Range<usize>| text[r.clone()].split_whitespace().count();
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    let mut pending: Option<usize> = None; // start of a short fragment waiting for the next span
    for r in spans {
        let r = pending.take().map_or(r.clone(), |s| s..r.end);
        if count(&r) < min_words {
            pending = Some(r.start);
            continue;
        }
        out.push(r);
    }
    if let Some(s) = pending {
        let end = text.trim_end().len();
        match out.last_mut() {
            Some(last) => last.end = end.max(last.end),
            None => out.push(s..end),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sents(t: &str) -> Vec<&str> {
        sentence_spans(t).into_iter().map(|r| &t[r]).collect()
    }

    fn merged(t: &str) -> Vec<&str> {
        sentence_spans_with(t, SentenceOptions::default().min_words(4))
            .into_iter()
            .map(|r| &t[r])
            .collect()
    }

    #[test]
    fn splits_at_ends_keeping_citation_markers() {
        let t = "AI is used by 85% of firms [1]. Smith et al. found 3.5 times more.[2] Next one. [3] Last?";
        assert_eq!(
            sents(t),
            [
                "AI is used by 85% of firms [1].",
                "Smith et al. found 3.5 times more.[2]",
                "Next one. [3]",
                "Last?"
            ]
        );
        assert_eq!(
            sents("Cells were grown in culture. Levels rose by half! 12 mice were treated too."),
            [
                "Cells were grown in culture.",
                "Levels rose by half!",
                "12 mice were treated too."
            ]
        );
    }

    #[test]
    fn blocks_split_lists_and_headings_not_wrapped_lines() {
        let t = "# Title\nFirst para\ncontinues here.\n- item one\n• item two\n\nEnd.";
        assert_eq!(
            sents(t),
            [
                "# Title",
                "First para\ncontinues here.",
                "- item one",
                "• item two",
                "End."
            ]
        );
    }

    #[test]
    fn lower_case_symbols_open_sentences_lower_case_words_do_not() {
        let t = "They are induced hepatic stem cells (iHepSCs). iHepSCs can be expanded. \
                 RIM1 regulates meiosis. rim1 mutations reduce IME1. See e.g. mRNA levels, \
                 3.5 mg. daily.";
        assert_eq!(
            sents(t),
            [
                "They are induced hepatic stem cells (iHepSCs).",
                "iHepSCs can be expanded.",
                "RIM1 regulates meiosis.",
                "rim1 mutations reduce IME1.",
                "See e.g. mRNA levels, 3.5 mg. daily."
            ]
        );
    }

    #[test]
    fn abbreviations_initials_decimals_and_urls_do_not_split() {
        assert_eq!(
            sents("Dr. Smith arrived at 3 p.m. today. It rained! Did it? Yes."),
            [
                "Dr. Smith arrived at 3 p.m. today.",
                "It rained!",
                "Did it?",
                "Yes."
            ]
        );
        assert_eq!(
            sents("J. R. Tolkien wrote it. Version 2.5 is out. See https://example.org/a.b?x=1. Done."),
            [
                "J. R. Tolkien wrote it.",
                "Version 2.5 is out.",
                "See https://example.org/a.b?x=1.",
                "Done."
            ]
        );
        assert_eq!(
            sents("As shown by Smith et al. in mice, Fig. 2 shows it. the end."),
            ["As shown by Smith et al. in mice, Fig. 2 shows it. the end."]
        );
    }

    #[test]
    fn french_abbreviations_quotes_and_est() {
        assert_eq!(
            sents("« Il a dit : bonjour. » Puis il est parti."),
            ["« Il a dit : bonjour. »", "Puis il est parti."]
        );
        assert_eq!(
            sents("Mme. Curie l'a vu, cf. art. 5 du code. Voilà ce qu'il est. Il part."),
            [
                "Mme. Curie l'a vu, cf. art. 5 du code.",
                "Voilà ce qu'il est.",
                "Il part."
            ]
        );
        // An abbreviation that is also a word ends a sentence before a word.
        assert_eq!(
            sents("It is modern art. The end."),
            ["It is modern art.", "The end."]
        );
    }

    #[test]
    fn ellipsis_and_cjk_terminators() {
        assert_eq!(sents("Wait… Then it came."), ["Wait…", "Then it came."]);
        assert_eq!(sents("Wait... Then it came."), ["Wait...", "Then it came."]);
        assert_eq!(sents("東京。 Osaka is next."), ["東京。", "Osaka is next."]);
    }

    #[test]
    fn short_fragments_merge_when_asked() {
        let t = "## Methods\n\nMice were fed for ten weeks.\n\nAs planned. All of them gained weight quickly.";
        assert_eq!(
            merged(t),
            [
                "## Methods\n\nMice were fed for ten weeks.",
                "As planned. All of them gained weight quickly."
            ]
        );
        assert_eq!(
            merged("Prof. Lee wrote the long one. Yes."),
            ["Prof. Lee wrote the long one. Yes."]
        );
        assert!(merged(" \u{a0}\n ").is_empty());
        assert_eq!(merged("Short one."), ["Short one."]);
        assert_eq!(sents("Prof. Lee wrote the long one. Yes.").len(), 2);
    }

    /// Pieces that make awkward text: every kind of white space, combining
    /// marks, emoji sequences, right-to-left scripts and marks, CJK, and the
    /// punctuation the rules look at.
    const PIECES: &[&str] = &[
        "a",
        "Word",
        "rim1",
        "iHepSCs",
        "3",
        "3.5",
        ".",
        ". ",
        "? ",
        "! ",
        "…",
        "。",
        "！",
        " ",
        "\u{a0}",
        "\u{2009}",
        "\u{202f}",
        "\u{3000}",
        "\n",
        "\n\n",
        "\r\n",
        "\t",
        "e\u{301}",
        "\u{301}",
        "😀",
        "👩\u{200d}🔬",
        "🇫🇷",
        "שלום",
        "مرحبا",
        "\u{200f}",
        "\u{202e}",
        "日本",
        "[1]",
        "[^2]",
        "[",
        "]",
        "«",
        "»",
        "“",
        "”",
        "(",
        ")",
        "\"",
        "'",
        "Dr.",
        "e.g.",
        "J.",
        "art. ",
        "https://x.org/a.b",
        "# ",
        "- ",
        "1. ",
        "| ",
        "> ",
        "• ",
        "*",
        "_",
    ];

    fn awkward() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..40).prop_map(|v| v.concat())
    }

    /// Spans are in order, disjoint, non-empty, trimmed, on char boundaries,
    /// and everything outside them is white space.
    fn check(text: &str, spans: &[Range<usize>]) -> std::result::Result<(), TestCaseError> {
        let mut covered_to = 0usize;
        for r in spans {
            prop_assert!(r.start < r.end && r.end <= text.len());
            prop_assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
            prop_assert!(r.start >= covered_to, "spans overlap or are out of order");
            prop_assert!(text[covered_to..r.start].trim().is_empty(), "text left out");
            let s = &text[r.clone()];
            prop_assert_eq!(s.trim(), s);
            covered_to = r.end;
        }
        prop_assert!(text[covered_to..].trim().is_empty(), "tail left out");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn spans_cover_awkward_unicode(text in awkward()) {
            check(&text, &sentence_spans(&text))?;
            check(&text, &sentence_spans_with(&text, SentenceOptions::default().min_words(4)))?;
        }

        #[test]
        fn spans_cover_any_string(text in any::<String>()) {
            check(&text, &sentence_spans(&text))?;
            check(&text, &sentence_spans_with(&text, SentenceOptions::default().min_words(3)))?;
        }
    }
}
