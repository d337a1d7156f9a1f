//! Text rules shared by the sentence splitters (ingest's sentence vectors,
//! citation verification's passages, the extractive generator's sentences),
//! so that they cut a text the same way; and the content terms the
//! relevance of a hit is measured with ([`content_terms`], used by
//! [`crate::rank::relevance`]).

use unicode_normalization::UnicodeNormalization;

/// English and French function words, accents folded: what a question or a
/// claim says besides its content.
pub const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or",
    "but", "not", "no", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did",
    "have", "has", "had", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "this", "that", "these", "those", "it", "its", "as", "into", "than", "then", "there", "their",
    "they", "them", "i", "you", "he", "she", "we", "our", "your", "my", "me", "can", "could",
    "should", "would", "may", "might", "will", "shall", "if", "so", "about", "over", "under",
    "between", "after", "before", "during", "more", "most", "less", "much", "many", "some", "any",
    "all", "each", "other", "such", "only", "own", "same", "very", "just", "also", "too", "le",
    "la", "les", "un", "une", "des", "du", "de", "d", "l", "au", "aux", "et", "ou", "mais", "ne",
    "pas", "est", "sont", "ete", "etre", "fait", "faire", "quel", "quelle", "quels", "quelles",
    "qui", "que", "quoi", "dont", "comment", "pourquoi", "quand", "combien", "ce", "cet", "cette",
    "ces", "il", "elle", "ils", "elles", "on", "nous", "vous", "je", "tu", "se", "sa", "son",
    "ses", "leur", "leurs", "mon", "ma", "mes", "ton", "ta", "tes", "par", "pour", "avec", "sans",
    "sur", "sous", "dans", "en", "y", "qu", "c", "s", "n", "t", "m", "j",
];

/// Suffixes [`light_stem`] removes (one, the first that fits), after a plural.
const SUFFIXES: &[&str] = &[
    "issement", "ation", "ement", "ment", "ingly", "ing", "ite", "ity", "ive", "euse", "eux",
    "ied", "ies", "ie", "ee", "er", "ed", "ly", "es", "e", "y",
];

/// Lower case with accents removed (NFKD, combining marks dropped):
/// `Calculés` → `calcules`.
pub fn fold(text: &str) -> String {
    text.to_lowercase()
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect()
}

/// A light English and French stem: a plural `s`/`x` dropped (not after
/// `ss`, `us`, `is`), then the first fitting suffix of a short list, keeping
/// at least three characters; words with digits are kept whole.
pub fn light_stem(word: &str) -> String {
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_string();
    }
    let mut w = word;
    if w.chars().count() > 3 && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w = w
            .strip_suffix('s')
            .or_else(|| w.strip_suffix('x'))
            .unwrap_or(w);
    }
    for suffix in SUFFIXES {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
                return base.to_string();
            }
        }
    }
    w.to_string()
}

/// The content terms of a text: folded words ([`fold`]) without
/// [`STOPWORDS`] and one-letter words (numbers kept), each [`light_stem`]med.
pub fn content_terms(text: &str) -> Vec<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(w))
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
    use super::{content_terms, is_lowercase_symbol};

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
}
