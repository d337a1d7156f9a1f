//! Suffix stripping, in two strengths over one rule shape (drop a plural,
//! then the first fitting suffix of a short list, keep a minimum stem):
//!
//! - [`light_stem`] — English and French, keeps three letters: what the
//!   relevance of a hit and the extractive generator's question ↔ sentence
//!   match use (`énergies` = `energy`, `cities` = `city`);
//! - [`strict_stem`] — English inflections only, keeps four letters and
//!   leaves words of four letters or fewer whole: what claim verification
//!   compares a claim's words with a source's by. Its stems are the keys of
//!   the local judge's word tables (`activat`, `positiv`, `higher`, `rise`),
//!   which [`light_stem`] would cut to `activ`, `posit`, `high`, `ris` and
//!   so no longer find; the SciFact and claim-set figures are measured with
//!   these stems (docs/architecture.md, "Text rules").
//!
//! Words with a digit are never stemmed (`p53`, `2020s`).

/// Suffixes [`light_stem`] removes (one, the first that fits), after a plural.
const LIGHT_SUFFIXES: &[&str] = &[
    "issement", "ation", "ement", "ment", "ingly", "ing", "ite", "ity", "ive", "euse", "eux",
    "ied", "ies", "ie", "ee", "er", "ed", "ly", "es", "e", "y",
];

/// Suffixes [`strict_stem`] removes (one, the first that fits).
const STRICT_SUFFIXES: &[&str] = &[
    "ations", "ation", "ments", "ment", "ingly", "ings", "ing", "edly", "ies", "ied", "ers", "ed",
    "es", "er", "ly", "s",
];

/// A light English and French stem of a folded word: a plural `s`/`x`
/// dropped (not after `ss`, `us`, `is`), then the first fitting suffix of a
/// short list, keeping at least three characters.
///
/// ```
/// use verity_core::text::light_stem;
/// assert_eq!(light_stem("energies"), light_stem("energy"));
/// assert_eq!(light_stem("calcules"), "calcul");
/// assert_eq!(light_stem("p53"), "p53");
/// ```
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
    strip_first(w, LIGHT_SUFFIXES, 3)
}

/// A strict English stem of a lower-case word: words of four letters or
/// fewer kept whole, otherwise the first fitting inflection removed when at
/// least four letters remain.
///
/// ```
/// use verity_core::text::strict_stem;
/// assert_eq!(strict_stem("companies"), "compan");
/// assert_eq!(strict_stem("activation"), "activ");
/// assert_eq!(strict_stem("rises"), "rise");
/// assert_eq!(strict_stem("uses"), "uses");
/// assert_eq!(strict_stem("lower"), "lower");
/// ```
pub fn strict_stem(word: &str) -> String {
    if word.chars().count() <= 4 || word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_string();
    }
    strip_first(word, STRICT_SUFFIXES, 4)
}

/// `w` without the first of `suffixes` that leaves at least `keep` characters.
fn strip_first(w: &str, suffixes: &[&str], keep: usize) -> String {
    for suffix in suffixes {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.chars().count() >= keep {
                return base.to_string();
            }
        }
    }
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_stems_join_english_and_french_inflections() {
        assert_eq!(light_stem("renouvelables"), light_stem("renouvelable"));
        assert_eq!(light_stem("boiling"), "boil");
        assert_eq!(light_stem("cities"), light_stem("city"));
        assert_eq!(light_stem("class"), "class");
        assert_eq!(light_stem("virus"), "virus");
    }

    #[test]
    fn strict_stems_keep_short_words_and_four_letters() {
        assert_eq!(strict_stem("adopting"), "adopt");
        assert_eq!(strict_stem("uses"), "uses");
        assert_eq!(strict_stem("increased"), "increas");
        assert_eq!(strict_stem("positive"), "positive");
        assert_eq!(strict_stem("2020s"), "2020s");
    }
}
