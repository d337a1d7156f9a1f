//! Turning free user text into a safe FTS5 `MATCH` expression.

/// Build an FTS5 `MATCH` expression from arbitrary user text: words are
/// extracted (any Unicode letters/digits), each is quoted as an FTS5 string
/// (so `AND`, `NEAR`, `-`, `*`, quotes or parentheses are plain words) and
/// the terms are OR-ed. Returns `None` when the text has no word at all.
pub fn fts_match_expression(text: &str) -> Option<String> {
    match_expression(text, true)
}

/// The distinct lower-cased words of a lexical query, in order (English
/// stop words dropped when asked and something else remains:
/// [`verity_core::text::query_terms`], the Redis backend's terms too): each
/// becomes one OR-ed FTS5 phrase.
pub(crate) fn query_words(text: &str, drop_stopwords: bool) -> Vec<String> {
    verity_core::text::query_terms(text, drop_stopwords)
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
