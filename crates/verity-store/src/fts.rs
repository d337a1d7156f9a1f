//! Turning free user text into a safe FTS5 `MATCH` expression.

use std::collections::HashSet;

/// A short English stop-word list dropped from lexical queries (when
/// something else remains): they add noise and cost to OR-ed BM25 queries.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is",
    "it", "its", "of", "on", "or", "that", "the", "to", "was", "were", "will", "with", "this",
    "these", "those", "which", "what", "who", "how", "not", "no", "do", "does", "did", "than",
    "then", "there", "their", "they", "but", "if", "into", "can", "been", "being", "such",
];

/// Build an FTS5 `MATCH` expression from arbitrary user text: words are
/// extracted (any Unicode letters/digits), each is quoted as an FTS5 string
/// (so `AND`, `NEAR`, `-`, `*`, quotes or parentheses are plain words) and
/// the terms are OR-ed. Returns `None` when the text has no word at all.
pub fn fts_match_expression(text: &str) -> Option<String> {
    match_expression(text, true)
}

/// The distinct lower-cased words of a lexical query, in order (stop words
/// dropped when asked and something else remains): each becomes one OR-ed
/// FTS5 phrase.
pub(crate) fn query_words(text: &str, drop_stopwords: bool) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut terms: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let w = word.to_lowercase();
        if seen.insert(w.clone()) {
            terms.push(w);
        }
    }
    if drop_stopwords && terms.iter().any(|t| !STOPWORDS.contains(&t.as_str())) {
        terms.retain(|t| !STOPWORDS.contains(&t.as_str()));
    }
    terms
}

pub(crate) fn match_expression(text: &str, drop_stopwords: bool) -> Option<String> {
    words_expression(&query_words(text, drop_stopwords))
}

/// The FTS5 `MATCH` expression OR-ing `words` as quoted strings.
pub(crate) fn words_expression(terms: &[String]) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    // Inside an FTS5 string only `"` is special (escaped by doubling); words
    // never contain one after the split above, but stay defensive.
    Some(
        terms
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_become_words() {
        assert_eq!(
            match_expression("NEAR(a b) AND -c*", false).as_deref(),
            Some("\"near\" OR \"a\" OR \"b\" OR \"and\" OR \"c\"")
        );
        assert_eq!(fts_match_expression("  \"' ()*-  "), None);
        assert_eq!(
            fts_match_expression("the of").as_deref(),
            Some("\"the\" OR \"of\"")
        );
        assert_eq!(fts_match_expression("the cat").as_deref(), Some("\"cat\""));
        assert_eq!(
            fts_match_expression("Café café").as_deref(),
            Some("\"café\"")
        );
    }
}
