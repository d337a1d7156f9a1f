//! Abbreviations whose final period does not end a sentence, English and
//! French, in one list: the sentence splitter ([`super::sentences`]) and the
//! chunker's sentence-end test read it.

/// Abbreviations (lower case, without the final period) after which a
/// period never ends a sentence: titles, references, Latin, months.
const ALWAYS: &[&str] = &[
    // English
    "al", "etc", "e.g", "i.e", "fig", "figs", "vs", "approx", "dr", "mr", "mrs", "ms", "prof",
    "inc", "ltd", "no", "vol", "pp", "st", "jr", "sr", "u.s", "cf", "eq", "ref", "refs", "ca",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "co",
    "corp", "gen", "gov", "sen", "rep", // French
    "mme", "mmes", "mlle", "mlles", "nº", "env", "av", "cf", "chap", "éd", "ed", "op", "cit",
];

/// Abbreviations that are also ordinary words (`art`, `sect`): they do not
/// end a sentence only when a number follows (`art. 5`, `sect. 2`), so
/// "modern art. The" still splits.
const BEFORE_NUMBER: &[&str] = &["art", "sect", "p", "ch", "n", "est"];

/// Whether a period after `word` (as written, without the period; leading
/// brackets and quotes are ignored) is an abbreviation's, not a sentence
/// end. `next` is the text after the period and its white space: a few
/// abbreviations that are also words count only before a number
/// (French `est`, "is", ends many sentences; `est. 1990` does not).
///
/// ```
/// use verity_core::text::abbrev::is_abbreviation;
/// assert!(is_abbreviation("e.g", "the"));
/// assert!(is_abbreviation("(Fig", "2"));
/// assert!(is_abbreviation("Mme", "Curie"));
/// assert!(is_abbreviation("art", "5 du code"));
/// assert!(!is_abbreviation("art", "The end"));
/// assert!(!is_abbreviation("mice", "The"));
/// ```
pub fn is_abbreviation(word: &str, next: &str) -> bool {
    let word = word.trim_start_matches(['(', '[', '"', '\'', '“', '‘', '«']);
    let lower = word.to_lowercase();
    if ALWAYS.contains(&lower.as_str()) {
        return true;
    }
    BEFORE_NUMBER.contains(&lower.as_str()) && next.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether `word` (without its period) is an initial: one capital letter
/// (`J. Smith`).
pub fn is_initial(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_and_french_abbreviations() {
        for w in ["al", "Dr", "e.g", "I.E", "vol", "Mlle", "mme", "cf", "Jan"] {
            assert!(is_abbreviation(w, "X"), "{w}");
        }
        for w in ["cells", "mg", "Paris", ""] {
            assert!(!is_abbreviation(w, "X"), "{w}");
        }
        assert!(is_initial("J"));
        assert!(!is_initial("j"));
        assert!(!is_initial("JS"));
        assert!(!is_initial(""));
    }
}
