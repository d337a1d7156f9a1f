//! Sentence spans inside a chunk, for sentence vectors ("small-to-big"
//! retrieval: sentences are embedded, their chunk is returned): the
//! workspace's splitter ([`verity_core::text::sentences`]) with fragments of
//! fewer than [`MIN_WORDS`] words merged into a neighbour, so that no vector
//! stands for a lone heading number or citation marker.

use std::ops::Range;

use verity_core::text::{sentence_spans_with, SentenceOptions};

/// Fragments shorter than this (in words) are merged into a neighbour.
pub const MIN_WORDS: usize = 4;

/// Byte ranges of the sentences of `text`, in order, trimmed of surrounding
/// whitespace. Empty for blank text.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    sentence_spans_with(text, SentenceOptions::default().min_words(MIN_WORDS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<&str> {
        sentence_spans(text).into_iter().map(|r| &text[r]).collect()
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
}
