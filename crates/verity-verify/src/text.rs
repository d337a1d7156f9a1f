//! Text helpers: sentence spans, content-word tokens, verbatim search.

use std::ops::Range;

/// Words that carry no content for matching a claim to a passage.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "all",
    "also",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "during",
    "each",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "may",
    "might",
    "more",
    "most",
    "of",
    "on",
    "one",
    "or",
    "other",
    "our",
    "over",
    "per",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "under",
    "up",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "within",
    "would",
    "you",
    "your",
    "according",
    "said",
    "says",
    "say",
    "cent",
    "percent",
    "le",
    "la",
    "les",
    "des",
    "du",
    "de",
    "et",
    "un",
    "une",
    "en",
    "est",
    "sont",
    "pour",
    "par",
    "dans",
    "sur",
    "que",
    "qui",
];

/// Abbreviations whose final period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "al", "etc", "e.g", "i.e", "fig", "figs", "vs", "approx", "dr", "mr", "mrs", "ms", "prof",
    "inc", "ltd", "no", "vol", "pp", "st", "jr", "sr", "u.s", "cf", "eq", "ref", "refs", "ca",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "co",
    "corp", "gen", "gov", "sen", "rep", "est",
];

/// `true` for a stop word (lower-case input).
pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// Byte ranges of the sentences of `text`, trimmed, in order.
///
/// Sentences end at `.`, `!` or `?` (not after a known abbreviation, an
/// initial or inside a number) followed by white space and a capital,
/// digit, quote, bracket or a lower-case symbol (`rim1`, `mRNA`:
/// [`verity_core::text::is_lowercase_symbol`]); citation markers right after
/// the end (`.[3]`, `. [2]`, `.[^1]`) stay with the sentence they follow.
/// Blank lines, headings and list items also end sentences.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for block in blocks(text) {
        split_block(text, block, &mut out);
    }
    out
}

/// Line blocks: paragraphs, headings and list items.
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

fn list_number(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits < 4 && matches!(line.as_bytes().get(digits), Some(b'.' | b')'))
}

fn split_block(text: &str, block: Range<usize>, out: &mut Vec<Range<usize>>) {
    let s = &text[block.clone()];
    let bytes = s.as_bytes();
    let mut start = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        let c = bytes[i];
        if matches!(c, b'.' | b'!' | b'?') && ends_here(s, i) {
            // Closers and citation markers that belong to this sentence.
            let mut end = i + 1;
            loop {
                let rest = &s[end..];
                let closers = rest
                    .find(|ch: char| !"\"')]”’»*_".contains(ch))
                    .unwrap_or(rest.len());
                end += closers;
                let rest = &s[end..];
                let ws = rest.len() - rest.trim_start().len();
                let after = &rest[ws..];
                if let Some(m) = marker_len(after) {
                    let tail = &after[m..];
                    if tail.is_empty() || tail.starts_with(char::is_whitespace) {
                        end += ws + m;
                        continue;
                    }
                }
                break;
            }
            let rest = &s[end..];
            let next = rest.trim_start();
            let has_ws = rest.len() > next.len();
            let starts_new = next.chars().next().is_some_and(|ch| {
                ch.is_uppercase() || ch.is_ascii_digit() || "\"'“‘«([*_".contains(ch)
            }) || verity_core::text::is_lowercase_symbol(next);
            if next.is_empty() || (has_ws && starts_new) {
                push_trimmed(text, block.start + start..block.start + end, out);
                start = end;
                i = end;
                continue;
            }
        }
        i += 1;
    }
    if start < s.len() {
        push_trimmed(text, block.start + start..block.end, out);
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

/// Whether the punctuation at byte `i` of `s` can end a sentence.
fn ends_here(s: &str, i: usize) -> bool {
    let bytes = s.as_bytes();
    if bytes[i] != b'.' {
        return true;
    }
    // 3.5, 1.000, v1.2: a digit on both sides.
    if i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    // Ellipsis / URL dots / domain names: no white space after, nothing to split here.
    // The delimiter may be wider than one byte (NBSP, em space): skip all of it.
    let word_start = s[..i]
        .char_indices()
        .rev()
        .find(|&(_, c)| c.is_whitespace() || c == '(' || c == '"')
        .map_or(0, |(p, c)| p + c.len_utf8());
    let word = s[word_start..i].trim_start_matches(['(', '"', '\'']);
    let lower = word.to_lowercase();
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return false;
    }
    // Initials ("J. Smith") and single letters.
    let n = word.chars().count();
    !(n == 1 && word.chars().all(char::is_uppercase))
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

/// Lower-case word tokens (letters and digits), in order.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let keep = c.is_alphanumeric()
            || (c == '.'
                && cur.chars().last().is_some_and(|p| p.is_ascii_digit())
                && chars.peek().is_some_and(char::is_ascii_digit));
        if keep {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A crude stem: common English inflections removed.
pub fn stem(w: &str) -> String {
    if w.chars().count() <= 4 || w.chars().any(|c| c.is_ascii_digit()) {
        return w.to_string();
    }
    for suf in [
        "ations", "ation", "ments", "ment", "ingly", "ings", "ing", "edly", "ies", "ied", "ers",
        "ed", "es", "er", "ly", "s",
    ] {
        if let Some(base) = w.strip_suffix(suf) {
            if base.chars().count() >= 4 {
                return base.to_string();
            }
        }
    }
    w.to_string()
}

/// Stemmed content words of `text` (stop words dropped).
pub fn content_terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| {
            !is_stopword(w) && (w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit()))
        })
        .map(|w| stem(&w))
        .collect()
}

/// Byte range of `needle` in `hay`, exactly or with white space normalised
/// (runs of white space match any run of white space). `None` if absent.
pub fn find_verbatim(hay: &str, needle: &str) -> Option<Range<usize>> {
    let needle = needle.trim();
    if needle.is_empty() {
        return None;
    }
    if let Some(p) = hay.find(needle) {
        return Some(p..p + needle.len());
    }
    let parts: Vec<&str> = needle.split_whitespace().collect();
    let first = parts.first()?;
    let mut from = 0usize;
    while let Some(rel) = hay.get(from..).and_then(|h| h.find(first)) {
        let start = from + rel;
        let mut pos = start + first.len();
        let mut ok = true;
        for part in &parts[1..] {
            let rest = &hay[pos..];
            let ws = rest.len() - rest.trim_start().len();
            if ws == 0 || !rest[ws..].starts_with(part) {
                ok = false;
                break;
            }
            pos += ws + part.len();
        }
        if ok {
            return Some(start..pos);
        }
        from = start + first.len();
    }
    None
}

/// 1-based line number of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map_or(1, |s| s.bytes().filter(|&b| b == b'\n').count() + 1)
}

/// Cut `s` to at most `max` bytes on a char boundary, with an ellipsis when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sents(t: &str) -> Vec<&str> {
        sentence_spans(t).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn splits_sentences_keeping_markers() {
        let t = "AI is used by 85% of firms [1]. Smith et al. found 3.5 times more.[2] Next one. [3] Last?";
        assert_eq!(
            sents(t),
            vec![
                "AI is used by 85% of firms [1].",
                "Smith et al. found 3.5 times more.[2]",
                "Next one. [3]",
                "Last?"
            ]
        );
    }

    #[test]
    fn blocks_split_lists_and_headings() {
        let t = "# Title\nFirst para\ncontinues here.\n- item one\n- item two\n\nEnd.";
        assert_eq!(
            sents(t),
            vec![
                "# Title",
                "First para\ncontinues here.",
                "- item one",
                "- item two",
                "End."
            ]
        );
    }

    #[test]
    fn lower_case_symbols_open_sentences() {
        let t = "They are induced hepatic stem cells (iHepSCs). iHepSCs can be expanded. \
                 RIM1 regulates meiosis. rim1 mutations reduce IME1. See e.g. mRNA levels, \
                 3.5 mg. daily.";
        assert_eq!(
            sents(t),
            vec![
                "They are induced hepatic stem cells (iHepSCs).",
                "iHepSCs can be expanded.",
                "RIM1 regulates meiosis.",
                "rim1 mutations reduce IME1.",
                "See e.g. mRNA levels, 3.5 mg. daily."
            ]
        );
    }

    #[test]
    fn verbatim_with_whitespace_runs() {
        let hay = "The rate was 78 %\nof companies.";
        let r = find_verbatim(hay, "rate was 78 % of companies.").unwrap_or(0..0);
        assert_eq!(&hay[r], "rate was 78 %\nof companies.");
        assert!(find_verbatim(hay, "85 % of companies").is_none());
    }

    #[test]
    fn terms_are_stemmed_content_words() {
        assert_eq!(
            content_terms("The companies are adopting AI"),
            vec!["compan", "adopt", "ai"]
        );
        assert_eq!(
            words("grew 3.5% in 2020."),
            vec!["grew", "3.5", "in", "2020"]
        );
    }
}
