//! Stop words: one list per language, folded (lower case, accents
//! removed: [`super::fold`]) and sorted, so that look-ups are a binary
//! search. Everything that drops function words (content terms, lexical
//! store queries on both backends, the extractive generator, the claim
//! checker) reads these two lists.
//!
//! What is *not* a stop word, on purpose: words that carry a claim's
//! meaning — negation aside, direction and scope (`only`, `less`, `few`,
//! `down`, `against`, `plus`, `moins`): a claim that says "fewer" must not
//! match a source that says "more" by dropping both.

/// English function words (folded, sorted).
pub const ENGLISH: &[&str] = &[
    "a", "about", "above", "according", "after", "again", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "between", "both", "but", "by",
    "can", "cent", "could", "d", "describe", "did", "do", "does", "doing", "done", "during",
    "each", "explain", "for", "from", "further", "had", "has", "have", "having", "he", "her",
    "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "just", "ll", "m", "many", "may", "me", "might", "more", "most", "much", "my", "no", "nor",
    "not", "now", "of", "off", "on", "once", "one", "or", "other", "our", "ours", "out", "over",
    "own", "per", "percent", "please", "re", "s", "said", "same", "say", "says", "shall", "she",
    "should", "so", "some", "such", "t", "tell", "than", "that", "the", "their", "theirs", "them",
    "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
    "up", "ve", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "whose", "why", "will", "with", "within", "would", "you", "your", "yours",
];

/// French function words (folded: `été` → `ete`; sorted).
pub const FRENCH: &[&str] = &[
    "a", "afin", "ainsi", "alors", "apres", "au", "aucun", "aucune", "aupres", "aussi", "autre",
    "autres", "aux", "avant", "avec", "avoir", "c", "ce", "ceci", "cela", "celle", "celles",
    "celui", "ces", "cet", "cette", "chaque", "chez", "combien", "comme", "comment", "d", "dans",
    "de", "depuis", "des", "devrait", "doit", "doivent", "donc", "dont", "du", "elle", "elles",
    "en", "encore", "entre", "est", "et", "etaient", "etait", "etat", "ete", "etre", "eu", "eux",
    "faire", "fait", "ici", "il", "ils", "j", "je", "l", "la", "laquelle", "le", "lequel", "les",
    "lesquelles", "lesquels", "leur", "leurs", "lors", "lui", "m", "ma", "mais", "me", "meme",
    "mes", "moi", "mon", "n", "ne", "ni", "nos", "notre", "nous", "on", "ont", "ou", "par",
    "parce", "pas", "pendant", "peu", "peut", "peuvent", "pour", "pourquoi", "pourrait", "pres",
    "qu", "quand", "que", "quel", "quelle", "quelles", "quels", "qui", "quoi", "s", "sa", "sans",
    "se", "selon", "sera", "seront", "ses", "si", "soit", "son", "sont", "sous", "sur", "t", "ta",
    "te", "tes", "toi", "ton", "tous", "tout", "toute", "toutes", "tres", "tu", "un", "une",
    "unes", "uns", "va", "vers", "via", "vont", "vos", "votre", "vous", "y",
];

/// Whether `word` (folded, lower case) is an English function word.
pub fn is_english_stopword(word: &str) -> bool {
    ENGLISH.binary_search(&word).is_ok()
}

/// Whether `word` (folded, lower case) is a French function word.
pub fn is_french_stopword(word: &str) -> bool {
    FRENCH.binary_search(&word).is_ok()
}

/// Whether `word` (folded, lower case) is a function word of either
/// language: what mixed or unknown-language text is filtered with.
///
/// ```
/// use verity_core::text::is_stopword;
/// assert!(is_stopword("the") && is_stopword("les") && is_stopword("ete"));
/// assert!(!is_stopword("fees") && !is_stopword("only"));
/// ```
pub fn is_stopword(word: &str) -> bool {
    is_english_stopword(word) || is_french_stopword(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_folded_and_distinct() {
        for list in [ENGLISH, FRENCH] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
            for w in list {
                assert_eq!(super::super::fold(w), *w, "folded: {w}");
            }
        }
    }

    #[test]
    fn meaning_words_are_kept() {
        for w in ["only", "less", "few", "down", "against", "plus", "moins", "fees"] {
            assert!(!is_stopword(w), "{w}");
        }
        assert!(is_english_stopword("the") && !is_english_stopword("les"));
        assert!(is_french_stopword("les") && !is_french_stopword("the"));
    }
}
