//! The text rules of the workspace, in one place: sentence spans
//! ([`sentences`]), abbreviations ([`abbrev`]), stop words per language
//! ([`stopwords`]), stems ([`stem`]), word tokens ([`words`]), openings
//! that make a sentence lean on the one before it ([`leaning`]), accent
//! folding ([`fold`]) and the content terms a hit's relevance is measured
//! with ([`content_terms`], used by [`crate::rank::relevance`]). Ingestion,
//! verification, generation and both stores read them from here, so that
//! they cut and compare a text the same way. docs/architecture.md ("Text
//! rules") says how to add a language rule.

use unicode_normalization::UnicodeNormalization;

pub mod abbrev;
pub mod leaning;
pub mod sentences;
pub mod stem;
pub mod stopwords;
pub mod words;

pub use leaning::leans_on_previous;
pub use sentences::{sentence_spans, sentence_spans_with, SentenceOptions};
pub use stem::{light_stem, strict_stem};
pub use stopwords::{is_english_stopword, is_french_stopword, is_stopword};
pub use words::{distinct_words, query_terms, words};

/// Lower case with accents removed (NFKD, combining marks dropped) and
/// the ligatures `œ`, `æ`, `ß` spelled out: `Calculés` → `calcules`,
/// `Cœur` → `coeur`.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text
        .to_lowercase()
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
    {
        match c {
            'œ' => out.push_str("oe"),
            'æ' => out.push_str("ae"),
            'ß' => out.push_str("ss"),
            c => out.push(c),
        }
    }
    out
}

/// The content terms of a text: folded words ([`fold`]) without stop words
/// of either language ([`is_stopword`]) and one-letter words (numbers
/// kept), each [`light_stem`]med.
pub fn content_terms(text: &str) -> Vec<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !is_stopword(w))
        .filter(|w| w.chars().count() >= 2 || w.chars().all(|c| c.is_ascii_digit()))
        .map(light_stem)
        .collect()
}

/// Whether `word` is a symbol written in lower case that can open a
/// sentence — gene, protein and cell names (`rim1`, `iHepSCs`, `mRNA`,
/// `p53`, `miR-21`): a lower-case letter followed, within the word, by a
/// capital or a digit. An ordinary lower-case word never qualifies, so
/// "3.5 mg. daily" is not cut. SciFact's abstracts open 113 of their ~46,000
/// sentences this way; splitting only before capitals merged each of them
/// into the sentence before.
pub fn is_lowercase_symbol(word: &str) -> bool {
    let mut chars = word.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_lowercase()) {
        return false;
    }
    chars
        .take_while(|c| c.is_alphanumeric() || *c == '-')
        .any(|c| c.is_uppercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::{content_terms, fold, is_lowercase_symbol, query_terms, words};
    use proptest::prelude::*;

    #[test]
    fn content_terms_fold_stem_and_drop_function_words() {
        assert_eq!(
            content_terms("Comment sont calculés les frais ?"),
            ["calcul", "frais"]
        );
        assert_eq!(
            content_terms("How is the fee of a forward computed?"),
            ["fee", "forward", "comput"]
        );
        assert_eq!(content_terms("483 HTLCs, ÉTÉ"), ["483", "htlc"]);
        assert!(content_terms("the of 日本").len() == 1);
    }

    #[test]
    fn symbols_not_words() {
        for w in ["rim1", "iHepSCs", "mRNA", "p53", "miR-21", "eIF3f", "cAMP,"] {
            assert!(is_lowercase_symbol(w), "{w}");
        }
        for w in [
            "daily",
            "the",
            "Rim1",
            "RNA",
            "3.5",
            "",
            "x",
            "e.g.",
            "well-known",
        ] {
            assert!(!is_lowercase_symbol(w), "{w}");
        }
    }

    #[test]
    fn fold_spells_out_ligatures() {
        assert_eq!(fold("Cœur Æther Straße Été"), "coeur aether strasse ete");
    }

    proptest! {
        #[test]
        fn word_rules_take_any_text(text in any::<String>()) {
            let _ = (content_terms(&text), words(&text), query_terms(&text, true));
            let folded = fold(&text);
            prop_assert!(!folded.chars().any(unicode_normalization::char::is_combining_mark));
        }
    }
}
