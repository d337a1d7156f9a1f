//! Word tokenisation.

/// Lower-case word tokens (letters and digits; a decimal point between
/// digits stays inside the token: `3.5`), in order.
///
/// ```
/// use verity_core::text::words;
/// assert_eq!(words("Grew 3.5% in 2020."), ["grew", "3.5", "in", "2020"]);
/// ```
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let keep = c.is_alphanumeric()
            || (c == '.'
                && cur.chars().last().is_some_and(|p| p.is_ascii_digit())
                && chars.peek().is_some_and(char::is_ascii_digit));
        if keep {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The distinct lower-cased words of `text` (runs of letters and digits),
/// in order of first appearance: the terms of a lexical store query.
///
/// ```
/// use verity_core::text::distinct_words;
/// assert_eq!(distinct_words("Café, café AND tea"), ["café", "and", "tea"]);
/// ```
pub fn distinct_words(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// The terms of a lexical (BM25) store query: [`distinct_words`], with
/// English function words ([`super::is_english_stopword`]) dropped when
/// `drop_stopwords` is set and something else remains. Both store backends
/// build their queries from this, so they rank the same terms. French
/// function words stay: a store does not know a query's language, and
/// `son`, `sera`, `des` are English content words.
///
/// ```
/// use verity_core::text::query_terms;
/// assert_eq!(query_terms("the cat", true), ["cat"]);
/// assert_eq!(query_terms("the of", true), ["the", "of"]);
/// assert_eq!(query_terms("Son of the sera", true), ["son", "sera"]);
/// ```
pub fn query_terms(text: &str, drop_stopwords: bool) -> Vec<String> {
    let mut terms = distinct_words(text);
    if drop_stopwords {
        let content = |t: &String| !super::is_english_stopword(t);
        if terms.iter().any(content) {
            terms.retain(content);
        }
    }
    terms
}
