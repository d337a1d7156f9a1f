//! Is a quote the source's characters? The check every test that checks a
//! claim runs on every quote it gets (and the claim set counts): a quote and
//! each line of its context must occur in the text a reader of the source
//! sees — an HTML page's visible text (script and style left out, entities
//! decoded), or a text source as it is — white space ignored. Markdown
//! markers, escapes or words added by us fail it.

use crate::assess::Assessment;
use crate::report::Report;
use crate::types::QuoteContext;

/// The text a reader of `body` sees, white space removed: for HTML, the
/// text of every node outside `script`, `style`, `noscript` and `template`;
/// otherwise the body itself.
pub fn page_text(body: &str) -> String {
    let looks_html = body.trim_start().starts_with('<')
        || body.contains("</p>")
        || body.contains("</div>")
        || body.contains("<html");
    if !looks_html {
        return body.chars().filter(|c| !c.is_whitespace()).collect();
    }
    use verity_extract::dom::Dom;
    let dom = Dom::parse(body);
    let mut out = String::with_capacity(body.len() / 3);
    let mut stack = vec![0usize];
    while let Some(n) = stack.pop() {
        if matches!(dom.tag(n), "script" | "style" | "noscript" | "template") {
            continue;
        }
        if let Some(t) = dom.text(n) {
            out.extend(t.chars().filter(|c| !c.is_whitespace()));
        }
        for &c in dom.children(n).iter().rev() {
            stack.push(c);
        }
    }
    out
}

/// Whether `quote` (white space ignored) is in `page` ([`page_text`]).
pub fn is_page_text(page: &str, quote: &str) -> bool {
    let q: String = quote.chars().filter(|c| !c.is_whitespace()).collect();
    q.is_empty() || page.contains(&q)
}

/// The pieces of a quote and its context to check: the quote, and each
/// line of the text before and after it.
pub fn pieces<'a>(quote: Option<&'a str>, context: Option<&'a QuoteContext>) -> Vec<&'a str> {
    let mut out: Vec<&str> = quote.into_iter().collect();
    if let Some(c) = context {
        out.push(&c.quote);
        out.extend(c.before.lines());
        out.extend(c.after.lines());
    }
    out.retain(|p| !p.trim().is_empty());
    out
}

/// What [`audit_report`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuoteAudit {
    /// Pieces (quotes and context lines) checked against their source.
    pub checked: usize,
    /// The pieces that are not the source's characters, with their claim.
    pub foreign: Vec<String>,
}

/// Check every quote of `report` against its source; `body_of(url)` gives
/// the body served at a source URL (`None`: unknown, not checked).
pub fn audit_report(report: &Report, body_of: impl Fn(&str) -> Option<String>) -> QuoteAudit {
    let mut out = QuoteAudit::default();
    for r in &report.results {
        let Some(body) = r.source_url.as_deref().and_then(&body_of) else {
            continue;
        };
        let page = page_text(&body);
        for p in pieces(r.source_quote.as_deref(), r.quote_context.as_ref()) {
            out.checked += 1;
            if !is_page_text(&page, p) {
                out.foreign.push(format!("{}: {p:?}", r.claim));
            }
        }
    }
    out
}

/// The quotes of `a` that are not the characters of `body`.
pub fn foreign_in(a: &Assessment, body: &str) -> Vec<String> {
    let page = page_text(body);
    pieces(a.source_quote.as_deref(), a.quote_context.as_ref())
        .into_iter()
        .filter(|p| !is_page_text(&page, p))
        .map(|p| format!("{p:?}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_we_add_is_not_the_pages() {
        let v = page_text("<p>A <em>quoted</em> line</p><script>var x = 1;</script>");
        assert!(is_page_text(&v, "A quoted\nline"));
        assert!(!is_page_text(&v, "A *quoted* line"));
        assert!(!is_page_text(&v, "var x"));
        let t = page_text("Plain text, as served.");
        assert!(is_page_text(&t, "Plain  text,"));
    }
}
