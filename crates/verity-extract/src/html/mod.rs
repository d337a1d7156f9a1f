//! HTML main-content extraction to Markdown, with page metadata.
//!
//! The page is parsed by the forgiving tree builder of [`crate::dom`]; then:
//! 1. obvious boilerplate is dropped (scripts, navigation, headers/footers,
//!    hidden elements, and elements whose class/id/role says comments, share
//!    widgets, cookie banners, related articles, ads, …);
//! 2. paragraphs are scored readability-style (text length, commas, link
//!    density, class/id hints) and their scores propagated to ancestors; the best
//!    container and its qualifying siblings are kept;
//! 3. inside it, link-dense or form-like blocks are cleaned conditionally;
//! 4. the result is rendered as Markdown (headings, lists, GFM tables, fenced
//!    code with language, blockquotes); link targets and images are kept out
//!    of the text (an embedder or a judge reads the anchor text only) and go
//!    to the document's metadata: `links` = `[{text, url}]` (absolute URLs),
//!    `images` = `[{alt, url}]`.
//!
//! Module map: `meta` (head tags, JSON-LD), `classify` (blocks,
//! boilerplate, hidden elements, text statistics), `score` (paragraph scores,
//! main-content selection, conditional cleaning), `render` (Markdown, and
//! Markdown back to plain text).

mod classify;
mod meta;
mod render;
mod score;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use serde_json::Value;
use url::Url;
use verity_core::{ParsedDocument, Result, SourceFormat};

use crate::boilerplate;
use crate::dom::{Dom, NodeData, NodeId};
use crate::lang::detect_lang;

use classify::*;
use meta::*;
use render::*;
use score::*;

pub use meta::extract_meta;
pub use render::markdown_to_plain;
pub use score::extract_main;

/// Largest HTML input processed (bytes); longer input is cut at a character boundary.
pub const MAX_HTML_BYTES: usize = 64 << 20;

/// Metadata found in the page head and JSON-LD.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageMeta {
    /// Title (og:title, else the first `h1`, else `<title>`).
    pub title: Option<String>,
    /// Author (meta author, JSON-LD author, `rel=author`).
    pub author: Option<String>,
    /// Publication time (article:published_time, JSON-LD datePublished, `<time>`).
    pub published: Option<DateTime<Utc>>,
    /// Language (`<html lang>`, `og:locale`, `content-language`), ISO 639-1.
    pub lang: Option<String>,
    /// Canonical URL (`link rel=canonical`, `og:url`), absolute.
    pub canonical: Option<String>,
    /// Description (meta description / og:description).
    pub description: Option<String>,
    /// Site name (og:site_name).
    pub site_name: Option<String>,
}

/// Parse an HTML page: main content as Markdown plus metadata.
///
/// `url` is where the page was found: relative links are resolved against it
/// (or against `<base href>`); the document URL is the canonical URL when the
/// page declares one, else `url`. Never panics; pathological input (deep
/// nesting, huge pages) is bounded.
pub fn parse_html(html: &str, url: Option<&Url>) -> Result<ParsedDocument> {
    let html = truncate(html, MAX_HTML_BYTES);
    let dom = Dom::parse(html);
    let meta = extract_meta(&dom, url);
    let base = base_url(&dom, url, meta.canonical.as_deref());
    let main = extract_main_parts(&dom, base.as_ref(), meta.title.as_deref());
    let mut content = main.markdown;
    if content.trim().is_empty() {
        content = String::new();
    }
    let mut doc = crate::new_document(content);
    doc.title = meta.title.clone();
    doc.url = meta
        .canonical
        .clone()
        .or_else(|| url.map(|u| u.to_string()));
    doc.ts = meta.published;
    doc.lang = meta.lang.clone().or_else(|| detect_lang(&doc.content));
    doc.source = url
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    if let Some(a) = &meta.author {
        doc.metadata
            .insert("author".into(), Value::String(a.clone()));
    }
    if let Some(d) = &meta.description {
        doc.metadata
            .insert("description".into(), Value::String(d.clone()));
    }
    if let Some(s) = &meta.site_name {
        doc.metadata
            .insert("site_name".into(), Value::String(s.clone()));
    }
    if let Some(links) = pairs_json(main.links, "text") {
        doc.metadata.insert("links".into(), links);
    }
    if let Some(images) = pairs_json(main.images, "alt") {
        doc.metadata.insert("images".into(), images);
    }
    Ok(ParsedDocument {
        document: doc,
        format: SourceFormat::Html,
        pages: Vec::new(),
    })
}

/// Most links (or images) kept in a document's metadata.
const MAX_LINKS: usize = 500;

/// `[{label_key: text, "url": url}]`, first occurrence of each URL, capped;
/// `None` when empty.
pub(crate) fn pairs_json(pairs: Vec<(String, String)>, label_key: &str) -> Option<Value> {
    let mut seen = std::collections::HashSet::new();
    let items: Vec<Value> = pairs
        .into_iter()
        .filter(|(_, url)| seen.insert(url.clone()))
        .take(MAX_LINKS)
        .map(|(text, url)| {
            let mut m = serde_json::Map::new();
            m.insert(label_key.to_string(), Value::String(text));
            m.insert("url".into(), Value::String(url));
            Value::Object(m)
        })
        .collect();
    (!items.is_empty()).then_some(Value::Array(items))
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// Debugging aid: the ancestors of the first text node containing `needle`,
/// each with its tag, class/id and whether extraction dropped it (and why).
#[doc(hidden)]
pub fn debug_trace(html: &str, needle: &str) -> String {
    let dom = Dom::parse(html);
    let removed = mark_removed(&dom);
    let raw = compute_stats(&dom, &vec![false; dom.nodes.len()]);
    let st = compute_stats(&dom, &removed);
    let roots = select(&dom, &st, &removed);
    let mut out = format!(
        "selected roots: {:?}\n",
        roots
            .iter()
            .map(|&r| (r, dom.tag(r), class_id(&dom, r)))
            .collect::<Vec<_>>()
    );
    let Some(hit) = (0..dom.nodes.len())
        .rev()
        .find(|&i| dom.text(i).is_some_and(|t| t.contains(needle)))
    else {
        return out + "needle not found";
    };
    let mut chain = vec![hit];
    let mut n = hit;
    while let Some(p) = dom.parent(n) {
        chain.push(p);
        n = p;
    }
    for id in chain.into_iter().rev() {
        out.push_str(&format!(
            "{id} {} [{}] removed={} cond={} text={} link={} raw_ptext={}\n",
            dom.tag(id),
            class_id(&dom, id),
            removed.get(id).copied().unwrap_or(false),
            clean_conditionally(&dom, &st, id),
            st.text.get(id).copied().unwrap_or(0),
            st.link.get(id).copied().unwrap_or(0),
            raw.ptext.get(id).copied().unwrap_or(0),
        ));
    }
    out
}
