//! Sentence spans inside a chunk, for sentence vectors ("small-to-big"
//! retrieval: sentences are embedded, their chunk is returned).
//!
//! A span ends at a blank line or after a word that ends a sentence
//! ([`ends_sentence`](crate::chunk) rules: `e.g.`, `al.`, initials are not
//! ends) when the next word starts with an upper-case letter, a digit, an
//! opening bracket or quote, or is a lower-case symbol (`rim1`, `mRNA`:
//! [`verity_core::text::is_lowercase_symbol`]). Fragments of fewer than
//! [`MIN_WORDS`] words are merged into a neighbour so that no vector stands
//! for a lone heading number or citation marker.

use std::ops::Range;

use crate::chunk::ends_sentence;

/// Fragments shorter than this (in words) are merged into a neighbour.
pub const MIN_WORDS: usize = 4;

/// Byte ranges of the sentences of `text`, in order, trimmed of surrounding
/// whitespace. Empty for blank text.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let mut raw: Vec<Range<usize>> = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_word_ends = false;
    let mut last_end = 0usize;
    for (pos, word) in words(text) {
        let blank_line = text[last_end..pos].matches('\n').count() >= 2;
        if let Some(s) = start {
            if blank_line || (prev_word_ends && opens_sentence(word)) {
                raw.push(s..last_end);
                start = None;
            }
        }
        start.get_or_insert(pos);
        prev_word_ends = ends_sentence(word);
        last_end = pos + word.len();
    }
    if let Some(s) = start {
        raw.push(s..last_end);
    }
    merge_short(text, raw)
}

/// Whether `word`, after a sentence end, starts a new sentence.
fn opens_sentence(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || "([\"'“‘«#-*".contains(c))
        || verity_core::text::is_lowercase_symbol(word)
}

/// Whitespace-separated words with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_whitespace().map(move |w| {
        // `split_whitespace` yields subslices of `text`: offset by pointer difference.
        (w.as_ptr() as usize - text.as_ptr() as usize, w)
    })
}

fn merge_short(text: &str, spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let count = |r: &Range<usize>| text[r.clone()].split_whitespace().count();
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    let mut pending: Option<usize> = None; // start of a short fragment waiting for the next span
    for r in spans {
        let r = pending.take().map_or(r.clone(), |s| s..r.end);
        if count(&r) < MIN_WORDS {
            pending = Some(r.start);
            continue;
        }
        out.push(r);
    }
    if let Some(s) = pending {
        match out.last_mut() {
            Some(last) => last.end = text.trim_end().len().max(last.end),
            None => out.push(s..text.trim_end().len()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<&str> {
        sentence_spans(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn splits_at_sentence_ends_before_capitals_and_digits() {
        assert_eq!(
            spans("Cells were grown in culture. Levels rose by half! 12 mice were treated too."),
            vec![
                "Cells were grown in culture.",
                "Levels rose by half!",
                "12 mice were treated too."
            ]
        );
    }

    #[test]
    fn abbreviations_and_lower_case_continuations_do_not_split() {
        assert_eq!(
            spans("As shown by Smith et al. in mice, e.g. Fig. 2 shows it. the end is lower case here."),
            vec!["As shown by Smith et al. in mice, e.g. Fig. 2 shows it. the end is lower case here."]
        );
    }

    #[test]
    fn lower_case_symbols_open_sentences() {
        assert_eq!(
            spans("Cells were reprogrammed into stem cells (iHepSCs). iHepSCs can be expanded in vitro. rim1 mutations reduce IME1 expression."),
            vec![
                "Cells were reprogrammed into stem cells (iHepSCs).",
                "iHepSCs can be expanded in vitro.",
                "rim1 mutations reduce IME1 expression."
            ]
        );
    }

    #[test]
    fn blank_lines_split_and_short_fragments_merge() {
        let text = "# Results\n\nThe treatment reduced mortality strongly.\n\nSee below. It worked in all cohorts we tested.";
        assert_eq!(
            spans(text),
            vec![
                "# Results\n\nThe treatment reduced mortality strongly.",
                "See below. It worked in all cohorts we tested."
            ]
        );
        // A trailing short fragment joins the previous span.
        assert_eq!(
            spans("The first sentence is long enough. Done."),
            vec!["The first sentence is long enough. Done."]
        );
        assert!(sentence_spans("   \n ").is_empty());
        assert_eq!(spans("Too short."), vec!["Too short."]);
    }

    #[test]
    fn spans_are_char_boundaries_for_any_text() {
        for t in [
            "Ünïcode façade. Ça marche très bien ici.",
            "a.b.c. D",
            "!!! ??? ...",
            "日本語。テスト。",
        ] {
            for r in sentence_spans(t) {
                assert!(t.is_char_boundary(r.start) && t.is_char_boundary(r.end));
                assert!(r.start < r.end);
            }
        }
    }
}
