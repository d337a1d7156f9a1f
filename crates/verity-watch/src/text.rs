//! Text folding shared by scoring and near-duplicate detection: Unicode
//! compatibility decomposition, combining marks dropped, lower case, and
//! every run of whitespace, `-` or `_` folded to one space.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Fold `s` for matching: `"Éco-Système  LLM"` → `"eco systeme llm"`.
/// Ligatures and full-width forms are decomposed (`ﬁ` → `fi`), `ß` → `ss`.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.nfkd() {
        if is_combining_mark(c) {
            continue;
        }
        if c.is_whitespace() || c == '-' || c == '_' {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if c == 'ß' {
            out.push_str("ss");
            continue;
        }
        for l in c.to_lowercase() {
            out.push(l);
        }
    }
    out
}

/// Whether `c` counts as part of a word for boundary checks.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// Words of a folded text (alphanumeric runs), in order.
pub fn words(folded: &str) -> impl Iterator<Item = &str> {
    folded
        .split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_and_separators() {
        assert_eq!(fold("Éco-Système  LLM"), "eco systeme llm");
        assert_eq!(fold("  On-Device\tAI_model "), "on device ai model");
        assert_eq!(fold("Straße ﬁnal ＡＩ"), "strasse final ai");
        assert_eq!(fold("Ça ÇA ça"), "ca ca ca");
        assert_eq!(
            words("llama.cpp, c'est fou!").collect::<Vec<_>>(),
            ["llama", "cpp", "c", "est", "fou"]
        );
    }
}
