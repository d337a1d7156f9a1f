//! Building RediSearch queries (DIALECT 2) from free user text and
//! [`verity_core::Filters`], with escaping so that no input is a syntax error.

use chrono::{DateTime, Utc};
use serde_json::Value;
use verity_core::Filters;

/// Separator of multi-valued TAG fields (tags, metadata pairs). A value that
/// contains it cannot be matched by a TAG query and falls back to post-filtering.
pub const TAG_SEPARATOR: char = '\u{1f}';

/// Longest TAG value matched in the index; longer values are post-filtered.
pub const MAX_TAG_LEN: usize = 512;

/// Most distinct terms kept from a lexical query (the rest are ignored).
pub const MAX_QUERY_TERMS: usize = 256;

/// Words the RediSearch query lexer reads as keywords even when escaped;
/// they are quoted (verbatim) in lexical queries.
const KEYWORDS: &[&str] = &["ismissing", "isempty"];

/// Escape a word or a TAG value for the RediSearch query parser: every ASCII
/// character that is not a letter or a digit gets a backslash (`_` included:
/// a lone `_` is a syntax error).
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    for c in value.chars() {
        if c.is_ascii() && !c.is_ascii_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The lexical part of a query: the distinct lower-cased words of `text`
/// (Unicode letters and digits), stop words dropped when something else
/// remains, OR-ed. `None` when the text has no word.
pub fn text_clause(text: &str, drop_stopwords: bool) -> Option<String> {
    text_clause_with(text, drop_stopwords, false)
}

/// [`text_clause`] with every term quoted (verbatim: no stemming); the
/// fallback when the parser still rejects a query.
pub fn text_clause_verbatim(text: &str, drop_stopwords: bool) -> Option<String> {
    text_clause_with(text, drop_stopwords, true)
}

fn quote(term: &str) -> String {
    let mut out = String::with_capacity(term.len() + 2);
    out.push('"');
    for c in term.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn text_clause_with(text: &str, drop_stopwords: bool, verbatim: bool) -> Option<String> {
    // The same terms as the embedded store's (`verity_core::text::query_terms`),
    // so both backends rank the same words.
    let mut terms = verity_core::text::query_terms(text, drop_stopwords);
    terms.truncate(MAX_QUERY_TERMS);
    if terms.is_empty() {
        return None;
    }
    let rendered: Vec<String> = terms
        .iter()
        .map(|t| {
            if verbatim || KEYWORDS.contains(&t.as_str()) {
                quote(t)
            } else {
                escape(t)
            }
        })
        .collect();
    Some(format!("({})", rendered.join(" | ")))
}

/// Whether a TAG value can be matched exactly by a TAG query (non-empty, at most
/// [`MAX_TAG_LEN`] bytes, no control character (the separator U+001F and NUL
/// included), no brace, no leading/trailing white space).
pub fn tag_indexable(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= MAX_TAG_LEN
        && !v.chars().any(char::is_control)
        && v.trim() == v
        && !v.contains(['{', '}'])
}

/// The indexed form of a metadata pair (`key=<JSON value>`), for scalar values.
pub fn metadata_pair(key: &str, value: &Value) -> Option<String> {
    if value.is_array() || value.is_object() {
        return None;
    }
    let s = format!("{key}={value}");
    tag_indexable(&s).then_some(s)
}

/// Lower-case a language code as the index stores it (ASCII folding, like the reference filter).
pub fn lang_key(lang: &str) -> String {
    lang.to_ascii_lowercase()
}

/// Milliseconds since the epoch, rounded up (for an inclusive lower bound).
fn ceil_ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis() + i64::from(t.timestamp_subsec_nanos() % 1_000_000 != 0)
}

/// The filter part of a query, and whether some restriction could not be
/// expressed in the index (then results must be post-filtered with
/// [`Filters::matches`], over-fetching).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterClause {
    /// Conjunction of clauses (empty: no restriction in the query).
    pub clause: String,
    /// `true` when part of the filters is left to post-filtering.
    pub post_filter: bool,
}

fn tag_clause(field: &str, values: &[String], parts: &mut Vec<String>, post: &mut bool) {
    if values.is_empty() {
        return;
    }
    if values.iter().all(|v| tag_indexable(v)) {
        parts.push(format!(
            "@{field}:{{{}}}",
            values
                .iter()
                .map(|v| escape(v))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    } else {
        *post = true;
    }
}

/// Translate filters into a RediSearch clause.
pub fn filter_clause(f: &Filters) -> FilterClause {
    let mut parts = Vec::new();
    let mut post = false;
    tag_clause("source", &f.sources, &mut parts, &mut post);
    let langs: Vec<String> = f.langs.iter().map(|l| lang_key(l)).collect();
    tag_clause("lang", &langs, &mut parts, &mut post);
    tag_clause("tags", &f.tags_any, &mut parts, &mut post);
    for t in &f.tags_all {
        tag_clause("tags", std::slice::from_ref(t), &mut parts, &mut post);
    }
    tag_clause("uid", &f.uids, &mut parts, &mut post);
    for m in &f.metadata {
        let pairs: Option<Vec<String>> =
            m.values.iter().map(|v| metadata_pair(&m.key, v)).collect();
        match pairs {
            Some(p) if !p.is_empty() => tag_clause("mkv", &p, &mut parts, &mut post),
            _ => post = true,
        }
    }
    if !f.time.is_unbounded() {
        let lo = f
            .time
            .since
            .map(|t| ceil_ms(t).to_string())
            .unwrap_or_else(|| "-inf".into());
        let hi = f
            .time
            .until
            .map(|t| t.timestamp_millis().to_string())
            .unwrap_or_else(|| "+inf".into());
        parts.push(format!("@ts:[{lo} {hi}]"));
    }
    FilterClause {
        clause: parts.join(" "),
        post_filter: post,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verity_core::MetadataFilter;

    #[test]
    fn text_is_escaped_and_ored() {
        assert_eq!(text_clause("the cat", true).as_deref(), Some("(cat)"));
        assert_eq!(
            text_clause("NEAR(a b) AND -c*", false).as_deref(),
            Some("(near | a | b | and | c)")
        );
        assert_eq!(text_clause("  \"' ()*-  ", true), None);
        assert_eq!(text_clause("Café café", true).as_deref(), Some("(café)"));
        assert_eq!(
            text_clause("ISMISSING(x)", true).as_deref(),
            Some("(\"ismissing\" | x)")
        );
        assert_eq!(
            text_clause_verbatim("a b", false).as_deref(),
            Some("(\"a\" | \"b\")")
        );
    }

    #[test]
    fn tag_values_are_escaped() {
        assert_eq!(escape("a b,c-d"), "a\\ b\\,c\\-d");
        let f = Filters {
            sources: vec!["x.y".into()],
            tags_all: vec!["p".into(), "q".into()],
            ..Default::default()
        };
        let c = filter_clause(&f);
        assert_eq!(c.clause, "@source:{x\\.y} @tags:{p} @tags:{q}");
        assert!(!c.post_filter);
        let f = Filters {
            metadata: vec![MetadataFilter::parse("channel=7|x").unwrap()],
            ..Default::default()
        };
        assert_eq!(
            filter_clause(&f).clause,
            "@mkv:{channel\\=7 | channel\\=\\\"x\\\"}"
        );
        let f = Filters {
            sources: vec![String::new()],
            ..Default::default()
        };
        assert!(filter_clause(&f).post_filter);
    }
}
