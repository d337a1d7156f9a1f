//! Text helpers of verification: content terms with strict stems,
//! verbatim search, line numbers. Sentences, words, stop words and stems
//! are the workspace's ([`verity_core::text`]), re-exported here.

use std::ops::Range;

use verity_core::text::{is_english_stopword, is_french_stopword};
pub use verity_core::text::{is_stopword, sentence_spans, strict_stem as stem, words};

/// Strictly stemmed ([`stem`]) content words of `text`: English stop
/// words dropped, French ones too when the text reads as French
/// ([`crate::lexicon::is_french`]; `son`, `sera`, `des` are English words),
/// one-letter words dropped, numbers kept.
pub fn content_terms(text: &str) -> Vec<String> {
    let french = crate::lexicon::is_french(text);
    words(text)
        .into_iter()
        .filter(|w| {
            !is_function_word(w, french)
                && (w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit()))
        })
        .map(|w| stem(&w))
        .collect()
}

/// Whether `word` (lower case) is a function word of a text that reads as
/// French (`french`) or not: English stop words always, French ones only
/// in French text.
pub fn is_function_word(word: &str, french: bool) -> bool {
    is_english_stopword(word) || (french && is_french_stopword(&verity_core::text::fold(word)))
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
