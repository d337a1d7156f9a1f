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
//!    code with language, blockquotes, absolute links, image alt text).

use chrono::{DateTime, Utc};
use serde_json::Value;
use url::Url;
use verity_core::{ParsedDocument, Result, SourceFormat};

use crate::boilerplate;
use crate::dom::{Dom, NodeData, NodeId};

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
    let mut content = extract_main(&dom, base.as_ref(), meta.title.as_deref());
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
    Ok(ParsedDocument {
        document: doc,
        format: SourceFormat::Html,
        pages: Vec::new(),
    })
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

/// Language of a text with whatlang, when reliable.
fn detect_lang(text: &str) -> Option<String> {
    let sample = truncate(text, 4000);
    if sample.split_whitespace().count() < 5 {
        return None;
    }
    let info = whatlang::detect(sample)?;
    if !info.is_reliable() {
        return None;
    }
    iso639_1(info.lang().code()).map(str::to_string)
}

/// ISO 639-3 → 639-1 for the languages whatlang knows.
fn iso639_1(code3: &str) -> Option<&'static str> {
    Some(match code3 {
        "eng" => "en",
        "fra" => "fr",
        "deu" => "de",
        "spa" => "es",
        "por" => "pt",
        "ita" => "it",
        "nld" => "nl",
        "rus" => "ru",
        "ukr" => "uk",
        "pol" => "pl",
        "ces" => "cs",
        "slk" => "sk",
        "swe" => "sv",
        "dan" => "da",
        "nob" => "nb",
        "fin" => "fi",
        "hun" => "hu",
        "ron" => "ro",
        "bul" => "bg",
        "hrv" => "hr",
        "srp" => "sr",
        "slv" => "sl",
        "ell" => "el",
        "tur" => "tr",
        "ara" => "ar",
        "heb" => "he",
        "pes" => "fa",
        "hin" => "hi",
        "ben" => "bn",
        "cmn" => "zh",
        "jpn" => "ja",
        "kor" => "ko",
        "vie" => "vi",
        "tha" => "th",
        "ind" => "id",
        "lit" => "lt",
        "lav" => "lv",
        "est" => "et",
        "cat" => "ca",
        "epo" => "eo",
        "afr" => "af",
        "bel" => "be",
        "kat" => "ka",
        "hye" => "hy",
        "urd" => "ur",
        "tam" => "ta",
        "tel" => "te",
        "mar" => "mr",
        "guj" => "gu",
        "kan" => "kn",
        "mal" => "ml",
        "pan" => "pa",
        "nep" => "ne",
        "sin" => "si",
        "tgl" => "tl",
        "zul" => "zu",
        "aka" => "ak",
        "yid" => "yi",
        "lat" => "la",
        "aze" => "az",
        "uzb" => "uz",
        "khm" => "km",
        "mya" => "my",
        "amh" => "am",
        "jav" => "jv",
        "ori" => "or",
        "sna" => "sn",
        "tuk" => "tk",
        "cym" => "cy",
        _ => return None,
    })
}

// ---------------------------------------------------------------- metadata

fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn nonempty(s: &str) -> Option<String> {
    let c = collapse_ws(s);
    (!c.is_empty()).then_some(c)
}

fn absolutize(href: &str, base: Option<&Url>) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    match Url::parse(href) {
        Ok(u) => Some(u.to_string()),
        Err(_) => base.and_then(|b| b.join(href).ok()).map(|u| u.to_string()),
    }
}

/// Metadata of a parsed page.
pub fn extract_meta(dom: &Dom, url: Option<&Url>) -> PageMeta {
    let mut m = PageMeta::default();
    let mut og_title = None;
    let mut title_tag = None;
    let mut h1 = None;
    let mut meta_author = None;
    let mut rel_author = None;
    let mut published_meta = None;
    let mut time_el = None;
    let mut canonical = None;
    let mut og_url = None;
    let mut ld_date = None;
    let mut ld_author = None;
    let mut ld_headline = None;
    let mut og_locale = None;
    for id in 0..dom.nodes.len() {
        let tag = dom.tag(id);
        match tag {
            "html" if m.lang.is_none() => {
                m.lang = dom
                    .attr(id, "lang")
                    .or_else(|| dom.attr(id, "xml:lang"))
                    .and_then(norm_lang);
            }
            "title" if title_tag.is_none() => title_tag = nonempty(&dom.text_content(id)),
            "h1" if h1.is_none() => h1 = nonempty(&dom.text_content(id)),
            "meta" => {
                let key = dom
                    .attr(id, "property")
                    .or_else(|| dom.attr(id, "name"))
                    .or_else(|| dom.attr(id, "itemprop"))
                    .or_else(|| dom.attr(id, "http-equiv"))
                    .unwrap_or("")
                    .to_ascii_lowercase();
                let Some(content) = dom.attr(id, "content").and_then(nonempty) else {
                    if key == "datepublished" {
                        if let Some(d) = dom.attr(id, "datetime") {
                            published_meta =
                                published_meta.or_else(|| crate::markdown::parse_date(d));
                        }
                    }
                    continue;
                };
                match key.as_str() {
                    "og:title" | "twitter:title" if og_title.is_none() => og_title = Some(content),
                    "author" | "article:author" | "dc.creator" | "sailthru.author"
                    | "parsely-author"
                        if meta_author.is_none() && !content.starts_with("http") =>
                    {
                        meta_author = Some(content)
                    }
                    "article:published_time"
                    | "datepublished"
                    | "pubdate"
                    | "publishdate"
                    | "publish-date"
                    | "dc.date"
                    | "dc.date.issued"
                    | "date"
                    | "og:published_time"
                    | "parsely-pub-date"
                    | "sailthru.date"
                    | "article.published"
                    | "published_time"
                        if published_meta.is_none() =>
                    {
                        published_meta = crate::markdown::parse_date(&content)
                    }
                    "og:url" if og_url.is_none() => og_url = Some(content),
                    "og:locale" if og_locale.is_none() => og_locale = norm_lang(&content),
                    "content-language" | "language" | "dc.language" if m.lang.is_none() => {
                        m.lang = norm_lang(&content)
                    }
                    "description" | "og:description" if m.description.is_none() => {
                        m.description = Some(content)
                    }
                    "og:site_name" if m.site_name.is_none() => m.site_name = Some(content),
                    _ => {}
                }
            }
            "link" => {
                let rel = dom.attr(id, "rel").unwrap_or("").to_ascii_lowercase();
                if rel.split_whitespace().any(|r| r == "canonical") && canonical.is_none() {
                    canonical = dom.attr(id, "href").and_then(|h| absolutize(h, url));
                }
            }
            "a" if rel_author.is_none() => {
                let rel = dom.attr(id, "rel").unwrap_or("");
                if rel
                    .split_whitespace()
                    .any(|r| r.eq_ignore_ascii_case("author"))
                {
                    rel_author = nonempty(&dom.text_content(id)).filter(|t| t.len() < 100);
                }
            }
            "time" if time_el.is_none() => {
                time_el = dom
                    .attr(id, "datetime")
                    .and_then(crate::markdown::parse_date);
            }
            "script"
                if dom
                    .attr(id, "type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json")) =>
            {
                let raw = dom.text_content(id);
                if let Ok(v) = serde_json::from_str::<Value>(raw.trim()) {
                    json_ld(&v, &mut ld_date, &mut ld_author, &mut ld_headline, 0);
                }
            }
            _ => {}
        }
    }
    m.title = og_title.or(ld_headline).or(h1).or(title_tag);
    m.author = meta_author.or(ld_author).or(rel_author);
    m.published = published_meta.or(ld_date).or(time_el);
    m.lang = m.lang.or(og_locale);
    m.canonical = canonical.or_else(|| og_url.and_then(|u| absolutize(&u, url)));
    m
}

fn norm_lang(s: &str) -> Option<String> {
    let code = s
        .trim()
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    (code.len() == 2 || code.len() == 3)
        .then_some(code)
        .filter(|c| c.chars().all(|ch| ch.is_ascii_alphabetic()))
}

fn json_ld(
    v: &Value,
    date: &mut Option<DateTime<Utc>>,
    author: &mut Option<String>,
    headline: &mut Option<String>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Array(items) => {
            for i in items.iter().take(64) {
                json_ld(i, date, author, headline, depth + 1);
            }
        }
        Value::Object(map) => {
            let ty = match map.get("@type") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => String::new(),
            };
            let articleish = ty.contains("Article")
                || ty.contains("Posting")
                || ty.contains("WebPage")
                || ty.contains("Report")
                || ty.contains("CreativeWork");
            if articleish {
                if date.is_none() {
                    *date = map
                        .get("datePublished")
                        .and_then(|d| d.as_str())
                        .and_then(crate::markdown::parse_date);
                }
                if author.is_none() {
                    *author = map.get("author").and_then(ld_name);
                }
                if headline.is_none() && !ty.contains("WebPage") {
                    *headline = map
                        .get("headline")
                        .and_then(|h| h.as_str())
                        .and_then(nonempty);
                }
            }
            if let Some(g) = map.get("@graph") {
                json_ld(g, date, author, headline, depth + 1);
            }
            if let Some(g) = map.get("mainEntity") {
                json_ld(g, date, author, headline, depth + 1);
            }
        }
        _ => {}
    }
}

fn ld_name(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => nonempty(s),
        Value::Object(o) => o.get("name").and_then(|n| n.as_str()).and_then(nonempty),
        Value::Array(a) => {
            let names: Vec<String> = a.iter().take(16).filter_map(ld_name).collect();
            (!names.is_empty()).then(|| names.join(", "))
        }
        _ => None,
    }
}

fn base_url(dom: &Dom, url: Option<&Url>, canonical: Option<&str>) -> Option<Url> {
    let page = url
        .cloned()
        .or_else(|| canonical.and_then(|c| Url::parse(c).ok()));
    for id in dom.find_all("base") {
        if let Some(h) = dom.attr(id, "href") {
            if let Ok(u) = Url::parse(h.trim()) {
                return Some(u);
            }
            if let Some(u) = page.as_ref().and_then(|p| p.join(h.trim()).ok()) {
                return Some(u);
            }
        }
    }
    page
}

// ---------------------------------------------------------------- classification

/// Tags never part of the content.
const DROP_TAGS: &[&str] = &[
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "object",
    "embed",
    "nav",
    "aside",
    "button",
    "select",
    "input",
    "textarea",
    "label",
    "dialog",
    "menu",
    "head",
    "title",
    "meta",
    "link",
    "map",
    "video",
    "audio",
    "picture",
    "source",
    "option",
    "datalist",
    "output",
    "progress",
    "meter",
    "form",
    "figcaption",
];

const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
    "tfoot",
    "caption",
    "body",
    "html",
    "menu",
    "br",
];

fn is_block(tag: &str) -> bool {
    BLOCK_TAGS.contains(&tag)
}

/// Class/id substrings of boilerplate that is removed outright.
const UNLIKELY: &[&str] = &[
    "caption",
    "credit",
    "comment",
    "disqus",
    "cookie",
    "consent",
    "gdpr",
    "breadcrumb",
    "newsletter",
    "outbrain",
    "taboola",
    "sidebar",
    "footer",
    "social",
    "sharing",
    "sharedaddy",
    "share-",
    "-share",
    "related",
    "recommend",
    "subscribe",
    "paywall",
    "popup",
    "skiplink",
    "skip-link",
    "sr-only",
    "screen-reader",
    "visually-hidden",
    "signup",
    "sign-up",
    "masthead",
    "navbar",
    "byline",
    "author-bio",
    "authorbio",
    "about-author",
    "author-box",
    "author-info",
    "more-stories",
    "recirc",
    "trending",
    "promo",
    "sponsor",
    "advert",
    "banner",
    "pagination",
    "toolbar",
    "tagcloud",
    "tag-list",
    "taglist",
    "post-tags",
    "entry-tags",
    "article-tags",
    "post-meta",
    "entry-meta",
    "article-meta",
    "yarpp",
    "relatedposts",
    "addtoany",
    "shoutbox",
    "skyscraper",
    "supplemental",
    "lightbox",
    "modal",
    "carousel",
    "slideshow",
    "donate",
    "breaking-news",
    "ticker",
    "most-popular",
    "mostpopular",
    "read-more",
    "readmore",
    "further-reading",
    "see-also",
    "print-only",
    "jump-link",
    "offscreen",
    "agegate",
    "ai2html",
    "cover-wrap",
];

/// Whole class/id words (split on non-alphanumerics) of boilerplate.
const UNLIKELY_TOKENS: &[&str] = &[
    "ad",
    "ads",
    "adv",
    "advert",
    "advertisement",
    "advertising",
    "dfp",
    "gpt",
    "nav",
    "menu",
    "header",
    "share",
    "shares",
    "tags",
    "tag",
    "pager",
    "meta",
    "caption",
    "credit",
    "credits",
    "print",
    "rss",
    "login",
    "rating",
    "poll",
    "survey",
    "alert",
    "follow",
    "bio",
    "dateline",
    "timestamp",
    "date",
    "extra",
    "legends",
    "remark",
    "replies",
    "community",
    "topbar",
    "utility",
    "gallery",
    "hidden",
    "hide",
    "dnone",
    "noprint",
    "subnav",
    "submenu",
    "breadcrumbs",
    "teaser",
    "teasers",
    "outbrain",
    "prev",
    "next",
    "pullquote",
];

const NEGATIVE: &[&str] = &[
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "foot",
    "footnote",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "tool",
    "widget",
    "byline",
    "author",
    "caption",
    "credit",
    "newsletter",
];

const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "text",
    "blog", "story",
];

fn class_id(dom: &Dom, id: NodeId) -> String {
    let mut s = String::new();
    if let Some(c) = dom.attr(id, "class") {
        s.push_str(&c.to_ascii_lowercase());
    }
    if let Some(i) = dom.attr(id, "id") {
        s.push(' ');
        s.push_str(&i.to_ascii_lowercase());
    }
    s
}

fn class_weight(ci: &str) -> f32 {
    if ci.is_empty() {
        return 0.0;
    }
    let mut w = 0.0;
    if NEGATIVE.iter().any(|p| ci.contains(p)) {
        w -= 25.0;
    }
    if POSITIVE.iter().any(|p| ci.contains(p)) {
        w += 25.0;
    }
    w
}

fn is_hidden(dom: &Dom, id: NodeId) -> bool {
    if dom.attr(id, "hidden").is_some() || dom.attr(id, "aria-hidden").is_some_and(|v| v == "true")
    {
        return true;
    }
    if let Some(style) = dom.attr(id, "style") {
        let s: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if s.contains("display:none") || s.contains("visibility:hidden") {
            return true;
        }
    }
    false
}

/// Per-node statistics over the kept tree.
struct Stats {
    text: Vec<u32>,
    link: Vec<u32>,
    commas: Vec<u32>,
    p: Vec<u32>,
    img: Vec<u32>,
    li: Vec<u32>,
    input: Vec<u32>,
    /// Text inside `p` elements.
    ptext: Vec<u32>,
    block_child: Vec<bool>,
}

fn text_len(t: &str) -> u32 {
    // Characters with runs of whitespace counted once.
    let mut n = 0u32;
    let mut ws = true;
    for c in t.chars() {
        if c.is_whitespace() {
            if !ws {
                n += 1;
            }
            ws = true;
        } else {
            n += 1;
            ws = false;
        }
    }
    n
}

fn compute_stats(dom: &Dom, removed: &[bool]) -> Stats {
    let n = dom.nodes.len();
    let mut s = Stats {
        text: vec![0; n],
        link: vec![0; n],
        commas: vec![0; n],
        p: vec![0; n],
        img: vec![0; n],
        li: vec![0; n],
        input: vec![0; n],
        ptext: vec![0; n],
        block_child: vec![false; n],
    };
    // Children always have larger ids than their parent: one reverse sweep accumulates.
    for id in (1..n).rev() {
        if removed.get(id).copied().unwrap_or(true) {
            continue;
        }
        let Some(node) = dom.nodes.get(id) else {
            continue;
        };
        match &node.data {
            NodeData::Text(t) => {
                if let Some(x) = s.text.get_mut(id) {
                    *x = text_len(t);
                }
                if let Some(x) = s.commas.get_mut(id) {
                    *x = t.matches([',', '，', '、']).count() as u32;
                }
            }
            NodeData::Element { tag, .. } => match tag.as_str() {
                "a" => {
                    let t = s.text.get(id).copied().unwrap_or(0);
                    if let Some(x) = s.link.get_mut(id) {
                        *x = t;
                    }
                }
                "p" => {
                    inc(&mut s.p, id);
                    let t = s.text.get(id).copied().unwrap_or(0);
                    if let Some(x) = s.ptext.get_mut(id) {
                        *x = t;
                    }
                }
                "img" => inc(&mut s.img, id),
                "li" => inc(&mut s.li, id),
                "input" | "select" | "textarea" | "button" => inc(&mut s.input, id),
                _ => {}
            },
            NodeData::Root => {}
        }
        let parent = node.parent;
        let tag_is_block = is_block(dom.tag(id));
        for v in [
            &mut s.text,
            &mut s.link,
            &mut s.commas,
            &mut s.p,
            &mut s.img,
            &mut s.li,
            &mut s.input,
            &mut s.ptext,
        ] {
            let c = v.get(id).copied().unwrap_or(0);
            if let Some(x) = v.get_mut(parent) {
                *x = x.saturating_add(c);
            }
        }
        if tag_is_block {
            if let Some(x) = s.block_child.get_mut(parent) {
                *x = true;
            }
        }
    }
    s
}

fn inc(v: &mut [u32], id: NodeId) {
    if let Some(x) = v.get_mut(id) {
        *x = x.saturating_add(1);
    }
}

fn tokens(ci: &str) -> impl Iterator<Item = &str> {
    ci.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// Mark boilerplate subtrees (and everything under them) as removed.
fn mark_removed(dom: &Dom) -> Vec<bool> {
    let n = dom.nodes.len();
    let mut removed = vec![false; n];
    let raw = compute_stats(dom, &removed);
    let body_text = raw.ptext.first().copied().unwrap_or(0);
    let tag_links = boilerplate::tag_link_counts(dom);
    for id in 1..n {
        let Some(node) = dom.nodes.get(id) else {
            continue;
        };
        if removed.get(node.parent).copied().unwrap_or(false) {
            if let Some(r) = removed.get_mut(id) {
                *r = true;
            }
            continue;
        }
        let NodeData::Element { tag, .. } = &node.data else {
            continue;
        };
        if removed.get(id).copied().unwrap_or(false) {
            // Already dropped as a sibling of a "related" heading.
            continue;
        }
        let tag = tag.as_str();
        // Holding half of the page's paragraph text makes an element a content wrapper.
        let text = raw.ptext.get(id).copied().unwrap_or(0);
        let big = body_text > 0 && text as u64 * 2 >= body_text as u64;
        let drop = match tag {
            "html" | "body" | "main" | "article" => false,
            "form" => !big,
            "header" | "footer" => !big,
            t if DROP_TAGS.contains(&t) => true,
            _ => false,
        } || (!matches!(tag, "html" | "body") && is_hidden(dom, id))
            || unlikely(dom, id, tag, big);
        let tag_list = !big
            && !matches!(tag, "body" | "main" | "article")
            && tag_links.get(id).copied().unwrap_or(0) >= 2
            && raw.link.get(id).copied().unwrap_or(0) * 2 >= raw.text.get(id).copied().unwrap_or(0);
        let date = !big
            && raw.text.get(id).copied().unwrap_or(0) < 100
            && boilerplate::is_date_microdata(dom, id);
        let label = !drop
            && matches!(
                tag,
                "span" | "div" | "p" | "small" | "strong" | "b" | "em" | "i"
            )
            && raw
                .text
                .get(id)
                .is_some_and(|&t| t > 0 && t <= boilerplate::MAX_LABEL_CHARS)
            && boilerplate::is_label(&dom.text_content(id));
        let related = boilerplate::related_heading(dom, id, raw.text.get(id).copied().unwrap_or(0));
        if related != boilerplate::Related::No {
            // A class says it outright; a text match keeps siblings holding the article.
            let guard = if related == boilerplate::Related::ByText {
                body_text
            } else {
                0
            };
            drop_related_block(dom, &raw, &mut removed, id, guard);
        } else if drop || tag_list || date || label {
            if let Some(r) = removed.get_mut(id) {
                *r = true;
            }
        }
    }
    removed
}

/// Remove a "related" heading and the teasers after it in its parent, unless
/// those siblings hold half of `body_text` (0: no guard).
fn drop_related_block(dom: &Dom, raw: &Stats, removed: &mut [bool], id: NodeId, body_text: u32) {
    let sibs = dom.parent(id).map(|p| dom.children(p)).unwrap_or(&[]);
    let after = sibs
        .iter()
        .position(|&c| c == id)
        .map_or(sibs.len(), |i| i + 1);
    let rest = sibs.get(after..).unwrap_or(&[]);
    let text: u64 = rest
        .iter()
        .map(|&c| u64::from(raw.ptext.get(c).copied().unwrap_or(0)))
        .sum();
    if let Some(r) = removed.get_mut(id) {
        *r = true;
    }
    if body_text > 0 && text * 2 >= u64::from(body_text) {
        return;
    }
    for &c in rest {
        if let Some(r) = removed.get_mut(c) {
            *r = true;
        }
    }
}

fn unlikely(dom: &Dom, id: NodeId, tag: &str, big: bool) -> bool {
    if matches!(
        tag,
        "html"
            | "body"
            | "a"
            | "main"
            | "article"
            | "td"
            | "tr"
            | "tbody"
            | "table"
            | "pre"
            | "code"
    ) {
        return false;
    }
    if let Some(role) = dom.attr(id, "role") {
        if matches!(
            role.to_ascii_lowercase().as_str(),
            "navigation"
                | "banner"
                | "contentinfo"
                | "complementary"
                | "menu"
                | "menubar"
                | "dialog"
                | "alertdialog"
                | "search"
                | "toolbar"
                | "tablist"
        ) {
            return !big;
        }
    }
    let ci = class_id(dom, id);
    if ci.is_empty() || big {
        return false;
    }
    UNLIKELY.iter().any(|p| ci.contains(p)) || tokens(&ci).any(|t| UNLIKELY_TOKENS.contains(&t))
}

// ---------------------------------------------------------------- scoring

fn paragraph_like(dom: &Dom, st: &Stats, id: NodeId) -> bool {
    match dom.tag(id) {
        "p" | "pre" | "td" | "blockquote" | "dd" => true,
        "div" | "section" | "span" | "font" | "center" => {
            !st.block_child.get(id).copied().unwrap_or(true)
        }
        _ => false,
    }
}

fn base_score(dom: &Dom, id: NodeId) -> f32 {
    let t = match dom.tag(id) {
        "div" | "article" | "main" | "section" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    };
    t + class_weight(&class_id(dom, id))
}

/// Select the main-content roots (the best container, or it and some siblings).
fn select(dom: &Dom, st: &Stats, removed: &[bool]) -> Vec<NodeId> {
    let n = dom.nodes.len();
    let mut score: Vec<f32> = vec![f32::NAN; n];
    // Loose text (text nodes and inline elements) directly inside block containers
    // counts as an implicit paragraph of that container.
    let mut direct_text = vec![0u32; n];
    let mut direct_commas = vec![0u32; n];
    for id in 1..n {
        if removed.get(id).copied().unwrap_or(true) {
            continue;
        }
        let Some(node) = dom.nodes.get(id) else {
            continue;
        };
        let inline = match &node.data {
            NodeData::Text(_) => true,
            NodeData::Element { tag, .. } => !is_block(tag),
            NodeData::Root => false,
        };
        if inline {
            if let Some(x) = direct_text.get_mut(node.parent) {
                *x += st.text.get(id).copied().unwrap_or(0);
            }
            if let Some(x) = direct_commas.get_mut(node.parent) {
                *x += st.commas.get(id).copied().unwrap_or(0);
            }
        }
    }
    for id in 1..n {
        if removed.get(id).copied().unwrap_or(true) {
            continue;
        }
        let para = paragraph_like(dom, st, id);
        let loose = !para
            && st.block_child.get(id).copied().unwrap_or(false)
            && !matches!(
                dom.tag(id),
                "ul" | "ol" | "table" | "tbody" | "tr" | "dl" | "body" | "html" | ""
            );
        if !para && !loose {
            continue;
        }
        let (len, commas) = if para {
            (
                st.text.get(id).copied().unwrap_or(0),
                st.commas.get(id).copied().unwrap_or(0),
            )
        } else {
            (
                direct_text.get(id).copied().unwrap_or(0),
                direct_commas.get(id).copied().unwrap_or(0),
            )
        };
        if len < 25 {
            continue;
        }
        let s = 1.0 + commas as f32 + (len as f32 / 100.0).min(3.0);
        // A loose-text container is itself the parent of its implicit paragraph.
        let mut anc = id;
        let first_level = if loose { 1 } else { 0 };
        if loose {
            if let Some(slot) = score.get_mut(id) {
                if slot.is_nan() {
                    *slot = base_score(dom, id);
                }
                *slot += s;
            }
        }
        for level in first_level..5 {
            let Some(p) = dom.parent(anc) else { break };
            if p == 0 || matches!(dom.tag(p), "html" | "body") {
                break;
            }
            if let Some(slot) = score.get_mut(p) {
                if slot.is_nan() {
                    *slot = base_score(dom, p);
                }
                let div = match level {
                    0 => 1.0,
                    1 => 2.0,
                    l => l as f32 * 3.0,
                };
                *slot += s / div;
            }
            anc = p;
        }
    }
    let ld = |id: NodeId| -> f32 {
        let t = st.text.get(id).copied().unwrap_or(0);
        if t == 0 {
            return 0.0;
        }
        st.link.get(id).copied().unwrap_or(0) as f32 / t as f32
    };
    let mut cands: Vec<(NodeId, f32)> = score
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_nan())
        .map(|(i, s)| (i, s * (1.0 - ld(i))))
        .collect();
    cands.sort_by(|a, b| b.1.total_cmp(&a.1));
    let Some(&(mut top, mut top_score)) = cands.first() else {
        // No paragraphs: fall back to body (or the root).
        return vec![dom.find_all("body").first().copied().unwrap_or(0)];
    };
    let final_score = |id: NodeId| -> Option<f32> {
        let s = score.get(id).copied()?;
        (!s.is_nan()).then(|| s * (1.0 - ld(id)))
    };
    // Several strong candidates under one ancestor: take the ancestor.
    let strong: Vec<NodeId> = cands
        .iter()
        .skip(1)
        .take(5)
        .filter(|(_, s)| *s >= top_score * 0.75)
        .map(|(i, _)| *i)
        .collect();
    if strong.len() >= 3 {
        let mut anc = dom.parent(top);
        while let Some(a) = anc {
            if a == 0 || matches!(dom.tag(a), "body" | "html") {
                break;
            }
            let contained = strong.iter().filter(|&&c| is_ancestor(dom, a, c)).count();
            if contained >= 3 {
                top = a;
                break;
            }
            anc = dom.parent(a);
        }
    }
    // Walk up while the parent scores better.
    let mut last = final_score(top).unwrap_or(top_score);
    let threshold = last / 3.0;
    let mut parent = dom.parent(top);
    while let Some(p) = parent {
        if p == 0 || matches!(dom.tag(p), "body" | "html") {
            break;
        }
        match final_score(p) {
            None => {}
            Some(ps) if ps < threshold => break,
            Some(ps) if ps > last => {
                top = p;
                break;
            }
            Some(ps) => last = ps,
        }
        parent = dom.parent(p);
    }
    // Only child: use the parent.
    while let Some(p) = dom.parent(top) {
        if p == 0 || matches!(dom.tag(p), "body" | "html") {
            break;
        }
        let kept = dom
            .children(p)
            .iter()
            .filter(|&&c| !removed.get(c).copied().unwrap_or(true) && !dom.tag(c).is_empty())
            .count();
        if kept != 1 {
            break;
        }
        top = p;
    }
    top_score = final_score(top).unwrap_or(top_score);
    // Siblings.
    let Some(parent) = dom.parent(top) else {
        return vec![top];
    };
    let threshold = (top_score * 0.2).max(10.0);
    let top_class = dom.attr(top, "class").unwrap_or("");
    let mut out = Vec::new();
    for &sib in dom.children(parent) {
        if removed.get(sib).copied().unwrap_or(true) {
            continue;
        }
        if sib == top {
            out.push(sib);
            continue;
        }
        let NodeData::Element { .. } = dom
            .nodes
            .get(sib)
            .map(|n| &n.data)
            .unwrap_or(&NodeData::Root)
        else {
            continue;
        };
        let bonus = if !top_class.is_empty() && dom.attr(sib, "class") == Some(top_class) {
            top_score * 0.2
        } else {
            0.0
        };
        let append = match final_score(sib) {
            Some(s) if s + bonus >= threshold => true,
            _ => {
                if dom.tag(sib) == "p" || paragraph_like(dom, st, sib) {
                    let len = st.text.get(sib).copied().unwrap_or(0);
                    let d = ld(sib);
                    if len > 80 {
                        d < 0.25
                    } else {
                        len > 0 && d == 0.0 && dom.text_content(sib).trim_end().ends_with('.')
                    }
                } else {
                    false
                }
            }
        };
        if append {
            out.push(sib);
        }
    }
    out
}

fn is_ancestor(dom: &Dom, anc: NodeId, mut node: NodeId) -> bool {
    let mut steps = 0;
    while let Some(p) = dom.parent(node) {
        if p == anc {
            return true;
        }
        node = p;
        steps += 1;
        if steps > crate::dom::MAX_DEPTH + 2 {
            break;
        }
    }
    false
}

/// Conditional cleaning of a block inside the content (readability's rules).
fn clean_conditionally(dom: &Dom, st: &Stats, id: NodeId) -> bool {
    let tag = dom.tag(id);
    if !matches!(
        tag,
        "div"
            | "section"
            | "ul"
            | "ol"
            | "table"
            | "form"
            | "fieldset"
            | "header"
            | "footer"
            | "dl"
    ) {
        return false;
    }
    let ci = class_id(dom, id);
    let weight = class_weight(&ci);
    if weight < 0.0 {
        return true;
    }
    let g = |v: &Vec<u32>| v.get(id).copied().unwrap_or(0);
    if g(&st.commas) >= 10 {
        return false;
    }
    let is_list = matches!(tag, "ul" | "ol");
    let text = g(&st.text);
    let p = g(&st.p) as f32;
    let img = g(&st.img) as f32;
    let li = g(&st.li) as f32 - 100.0;
    let input = g(&st.input) as f32;
    let ld = if text == 0 {
        0.0
    } else {
        g(&st.link) as f32 / text as f32
    };
    if tag == "table" && is_data_table(dom, id) {
        return ld > 0.5;
    }
    (img > 1.0 && p / img < 0.5)
        || (!is_list && li > p)
        || (input > (p / 3.0).floor())
        || (!is_list && text < 25 && (img == 0.0 || img > 2.0) && ld > 0.0)
        || (!is_list && weight < 25.0 && ld > 0.2)
        || (weight >= 25.0 && ld > 0.5)
        || (is_list && ld > 0.5)
}

fn is_data_table(dom: &Dom, id: NodeId) -> bool {
    let mut rows = 0;
    let mut max_cols = 0;
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        for &c in dom.children(n) {
            match dom.tag(c) {
                "table" => return false,
                "tr" => {
                    rows += 1;
                    let cols = dom
                        .children(c)
                        .iter()
                        .filter(|&&x| matches!(dom.tag(x), "td" | "th"))
                        .count();
                    max_cols = max_cols.max(cols);
                }
                "thead" | "tbody" | "tfoot" => stack.push(c),
                _ => {}
            }
        }
    }
    rows >= 2 && max_cols >= 2
}

/// Main content of a parsed page as Markdown.
pub fn extract_main(dom: &Dom, base: Option<&Url>, title: Option<&str>) -> String {
    let removed = mark_removed(dom);
    let st = compute_stats(dom, &removed);
    let roots = select(dom, &st, &removed);
    let mut r = Renderer {
        dom,
        st: &st,
        removed: &removed,
        base,
        title: title.map(norm_title),
        out: String::new(),
        root_ptext: roots
            .iter()
            .map(|&r| st.ptext.get(r).copied().unwrap_or(0))
            .sum(),
    };
    for root in roots {
        r.block(root, 0);
    }
    finish(r.out)
}

fn norm_title(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn finish(s: String) -> String {
    // Collapse 3+ newlines and trim trailing spaces on lines.
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let l = line.trim_end();
        if l.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(l);
    }
    out
}

// ---------------------------------------------------------------- rendering

struct Renderer<'a> {
    dom: &'a Dom,
    st: &'a Stats,
    removed: &'a [bool],
    base: Option<&'a Url>,
    title: Option<String>,
    out: String,
    /// Paragraph text of the selected roots: elements holding half of it are never cleaned.
    root_ptext: u32,
}

impl Renderer<'_> {
    /// A short paragraph made mostly of several links (tag lists, "read also" lines).
    fn link_paragraph(&self, id: NodeId) -> bool {
        if !paragraph_like(self.dom, self.st, id) && self.dom.tag(id) != "p" {
            return false;
        }
        let text = self.st.text.get(id).copied().unwrap_or(0);
        let link = self.st.link.get(id).copied().unwrap_or(0);
        if text == 0 || text > 600 || link * 10 < text * 6 {
            return false;
        }
        // A whole paragraph that is one link (teaser lists).
        if link * 100 >= text * 80 && text >= 20 {
            return true;
        }
        let mut links = 0;
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            for &c in self.dom.children(n) {
                if self.dom.tag(c) == "a" {
                    links += 1;
                } else {
                    stack.push(c);
                }
            }
        }
        links >= 2
    }

    fn skip(&self, id: NodeId) -> bool {
        self.removed.get(id).copied().unwrap_or(true)
    }

    fn para_break(&mut self) {
        trim_trailing_spaces(&mut self.out);
        if self.out.is_empty() || self.out.ends_with("\n\n") {
            return;
        }
        if self.out.ends_with('\n') {
            self.out.push('\n');
        } else {
            self.out.push_str("\n\n");
        }
    }

    fn line_break(&mut self) {
        trim_trailing_spaces(&mut self.out);
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn push_text(&mut self, t: &str) {
        let starts_ws = t.starts_with(|c: char| c.is_whitespace());
        let mut first = true;
        for w in t.split_whitespace() {
            if (!first || starts_ws) && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
                self.out.push(' ');
            }
            first = false;
            self.out.push_str(w);
        }
        if t.ends_with(|c: char| c.is_whitespace()) && !first && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        if first && starts_ws && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
    }

    /// Render children of `id`.
    fn children(&mut self, id: NodeId, depth: usize) {
        for &c in self.dom.children(id) {
            self.block(c, depth + 1);
        }
    }

    fn sub(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let saved = std::mem::take(&mut self.out);
        f(self);
        std::mem::replace(&mut self.out, saved)
    }

    fn block(&mut self, id: NodeId, depth: usize) {
        if self.skip(id) || depth > crate::dom::MAX_DEPTH + 8 {
            return;
        }
        let Some(node) = self.dom.nodes.get(id) else {
            return;
        };
        let tag = match &node.data {
            NodeData::Text(t) => {
                self.push_text(t);
                return;
            }
            NodeData::Root => {
                self.children(id, depth);
                return;
            }
            NodeData::Element { tag, .. } => tag.as_str(),
        };
        let own_ptext = self.st.ptext.get(id).copied().unwrap_or(0);
        let wrapper = self.root_ptext > 0 && own_ptext * 2 >= self.root_ptext;
        if depth > 0
            && !wrapper
            && (clean_conditionally(self.dom, self.st, id) || self.link_paragraph(id))
        {
            return;
        }
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let text = collapse_ws(&self.inline_text(id, depth));
                if text.is_empty() {
                    return;
                }
                if tag == "h1"
                    && self
                        .title
                        .as_deref()
                        .is_some_and(|t| !t.is_empty() && norm_title(&text) == t)
                {
                    return;
                }
                let level = tag
                    .as_bytes()
                    .get(1)
                    .map(|b| (b - b'0') as usize)
                    .unwrap_or(2);
                self.para_break();
                self.out.push_str(&"#".repeat(level.clamp(1, 6)));
                self.out.push(' ');
                self.out.push_str(&text);
                self.para_break();
            }
            "p" | "div" | "section" | "article" | "main" | "header" | "footer" | "figure"
            | "figcaption" | "address" | "center" | "details" | "summary" | "fieldset" | "dl"
            | "body" | "html" | "hgroup" => {
                self.para_break();
                self.children(id, depth);
                self.para_break();
            }
            "dt" | "dd" | "caption" => {
                self.line_break();
                self.children(id, depth);
                self.line_break();
            }
            "br" => self.line_break(),
            "hr" => {
                self.para_break();
                self.out.push_str("---");
                self.para_break();
            }
            "ul" | "ol" => self.list(id, tag == "ol", depth),
            "li" => {
                // A stray li outside a list.
                self.line_break();
                self.out.push_str("- ");
                self.children(id, depth);
                self.line_break();
            }
            "pre" => self.pre(id),
            "blockquote" => {
                let inner = self.sub(|r| r.children(id, depth));
                let inner = finish(inner);
                if inner.is_empty() {
                    return;
                }
                self.para_break();
                for (i, line) in inner.lines().enumerate() {
                    if i > 0 {
                        self.out.push('\n');
                    }
                    self.out.push('>');
                    if !line.is_empty() {
                        self.out.push(' ');
                        self.out.push_str(line);
                    }
                }
                self.para_break();
            }
            "table" => self.table(id, depth),
            "a" => {
                let inner = collapse_ws(&self.sub(|r| r.children(id, depth)));
                let href = self
                    .dom
                    .attr(id, "href")
                    .and_then(|h| absolutize(h, self.base));
                if inner.is_empty() {
                    return;
                }
                self.space_before(id);
                match href {
                    Some(h)
                        if h.starts_with("http://")
                            || h.starts_with("https://")
                            || h.starts_with("mailto:") =>
                    {
                        self.out.push('[');
                        self.out.push_str(&inner);
                        self.out.push_str("](");
                        self.out
                            .push_str(&h.replace(' ', "%20").replace(')', "%29"));
                        self.out.push(')');
                    }
                    _ => self.out.push_str(&inner),
                }
                self.space_after(id);
            }
            "strong" | "b" | "em" | "i" | "code" | "kbd" | "samp" | "tt" => {
                let inner = collapse_ws(&self.sub(|r| r.children(id, depth)));
                if inner.is_empty() {
                    return;
                }
                // Inline markup only when it stays on one line and holds no link syntax.
                let mark = match tag {
                    "strong" | "b" => "**",
                    "em" | "i" => "*",
                    _ => "`",
                };
                self.space_before(id);
                let plain = inner.contains(['\n', '[', '*', '`']) || self.in_tag(id, "pre");
                if !plain {
                    self.out.push_str(mark);
                }
                self.out.push_str(&inner);
                if !plain {
                    self.out.push_str(mark);
                }
                self.space_after(id);
            }
            "img" => {
                let alt = self
                    .dom
                    .attr(id, "alt")
                    .map(collapse_ws)
                    .unwrap_or_default();
                let src = self
                    .dom
                    .attr(id, "src")
                    .or_else(|| self.dom.attr(id, "data-src"))
                    .and_then(|s| absolutize(s, self.base));
                if alt.split_whitespace().count() >= 2 {
                    if let Some(src) = src.filter(|s| s.starts_with("http")) {
                        self.para_break();
                        self.out.push_str(&format!(
                            "![{}]({})",
                            alt.replace(['[', ']'], ""),
                            src.replace(' ', "%20")
                        ));
                        self.para_break();
                    }
                }
            }
            _ => self.children(id, depth),
        }
    }

    fn in_tag(&self, id: NodeId, tag: &str) -> bool {
        let mut n = id;
        let mut steps = 0;
        while let Some(p) = self.dom.parent(n) {
            if self.dom.tag(p) == tag {
                return true;
            }
            n = p;
            steps += 1;
            if steps > 64 {
                break;
            }
        }
        false
    }

    /// Inline markup needs a separating space when the source had whitespace before it.
    fn space_before(&mut self, id: NodeId) {
        let prev_ws = self
            .prev_sibling_text(id)
            .is_some_and(|t| t.ends_with(|c: char| c.is_whitespace()));
        if prev_ws && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
    }

    fn space_after(&mut self, _id: NodeId) {}

    fn prev_sibling_text(&self, id: NodeId) -> Option<&str> {
        let p = self.dom.parent(id)?;
        let sibs = self.dom.children(p);
        let i = sibs.iter().position(|&c| c == id)?;
        let prev = *sibs.get(i.checked_sub(1)?)?;
        self.dom.text(prev)
    }

    fn inline_text(&mut self, id: NodeId, depth: usize) -> String {
        let s = self.sub(|r| r.children(id, depth));
        s.replace('\n', " ")
    }

    fn list(&mut self, id: NodeId, ordered: bool, depth: usize) {
        let items: Vec<NodeId> = self
            .dom
            .children(id)
            .iter()
            .copied()
            .filter(|&c| !self.skip(c) && self.dom.tag(c) == "li")
            .collect();
        let start: usize = self
            .dom
            .attr(id, "start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        self.para_break();
        let mut k = start;
        for &c in self.dom.children(id) {
            if self.skip(c) {
                continue;
            }
            if self.dom.tag(c) != "li" {
                // Loose content between items.
                if self.dom.text(c).is_some_and(|t| t.trim().is_empty()) {
                    continue;
                }
                let s = finish(self.sub(|r| r.block(c, depth + 1)));
                if !s.is_empty() {
                    self.line_break();
                    self.out.push_str(&s);
                    self.line_break();
                }
                continue;
            }
            let body = finish(self.sub(|r| r.children(c, depth + 1)));
            if body.is_empty() {
                continue;
            }
            let marker = if ordered {
                format!("{k}. ")
            } else {
                "- ".to_string()
            };
            k += 1;
            let indent = " ".repeat(marker.len());
            self.line_break();
            for (i, line) in body.lines().enumerate() {
                if i == 0 {
                    self.out.push_str(&marker);
                } else {
                    self.out.push('\n');
                    if !line.is_empty() {
                        self.out.push_str(&indent);
                    }
                }
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
        let _ = items;
        self.para_break();
    }

    fn pre(&mut self, id: NodeId) {
        let text = self.dom.text_content(id);
        let text = text.trim_matches('\n');
        if text.trim().is_empty() {
            return;
        }
        let lang = self.code_lang(id);
        let fence = if text.contains("```") { "~~~~" } else { "```" };
        self.para_break();
        self.out.push_str(fence);
        self.out.push_str(&lang);
        self.out.push('\n');
        self.out.push_str(text.trim_end());
        self.out.push('\n');
        self.out.push_str(fence);
        self.para_break();
    }

    fn code_lang(&self, id: NodeId) -> String {
        let mut cands = vec![id];
        cands.extend(
            self.dom
                .children(id)
                .iter()
                .copied()
                .filter(|&c| self.dom.tag(c) == "code"),
        );
        if let Some(p) = self.dom.parent(id) {
            cands.push(p);
        }
        for c in cands {
            if let Some(l) = self
                .dom
                .attr(c, "data-lang")
                .or_else(|| self.dom.attr(c, "data-language"))
            {
                let l = l.trim().to_ascii_lowercase();
                if is_lang_token(&l) {
                    return l;
                }
            }
            for cls in self.dom.attr(c, "class").unwrap_or("").split_whitespace() {
                let cls = cls.to_ascii_lowercase();
                for pre in [
                    "language-",
                    "lang-",
                    "highlight-source-",
                    "highlight-",
                    "brush:",
                ] {
                    if let Some(l) = cls.strip_prefix(pre) {
                        if is_lang_token(l) {
                            return l.to_string();
                        }
                    }
                }
            }
        }
        String::new()
    }

    fn table(&mut self, id: NodeId, depth: usize) {
        if !is_data_table(self.dom, id) {
            // Layout table: render cells as blocks.
            self.para_break();
            self.children(id, depth);
            self.para_break();
            return;
        }
        let mut rows: Vec<(Vec<String>, bool)> = Vec::new();
        let mut stack = vec![id];
        let mut order = Vec::new();
        while let Some(n) = stack.pop() {
            for &c in self.dom.children(n).iter().rev() {
                match self.dom.tag(c) {
                    "tr" => order.push(c),
                    "thead" | "tbody" | "tfoot" => stack.push(c),
                    _ => {}
                }
            }
        }
        // `order` was built from reversed pushes per level; sort by id = document order.
        order.sort_unstable();
        for tr in order {
            if self.skip(tr) {
                continue;
            }
            let mut cells = Vec::new();
            let mut header = true;
            for &c in self.dom.children(tr) {
                let t = self.dom.tag(c);
                if !matches!(t, "td" | "th") || self.skip(c) {
                    continue;
                }
                if t == "td" {
                    header = false;
                }
                let s = collapse_ws(&self.sub(|r| r.children(c, depth + 2)).replace('\n', " "));
                cells.push(s.replace('|', "\\|"));
            }
            if !cells.is_empty() {
                rows.push((cells, header));
            }
        }
        if rows.is_empty() {
            return;
        }
        let cols = rows.iter().map(|(r, _)| r.len()).max().unwrap_or(1);
        self.para_break();
        let caption = self
            .dom
            .children(id)
            .iter()
            .copied()
            .find(|&c| self.dom.tag(c) == "caption");
        if let Some(c) = caption {
            let s = collapse_ws(&self.sub(|r| r.children(c, depth + 1)));
            if !s.is_empty() {
                self.out.push_str(&s);
                self.out.push_str("\n\n");
            }
        }
        let first_is_header = rows.first().is_some_and(|(_, h)| *h);
        let write_row = |out: &mut String, cells: &[String]| {
            out.push('|');
            for i in 0..cols {
                out.push(' ');
                out.push_str(cells.get(i).map(String::as_str).unwrap_or(""));
                out.push_str(" |");
            }
            out.push('\n');
        };
        let mut iter = rows.iter();
        if first_is_header {
            if let Some((h, _)) = iter.next() {
                write_row(&mut self.out, h);
            }
        } else {
            write_row(&mut self.out, &vec![String::new(); cols]);
        }
        self.out.push('|');
        for _ in 0..cols {
            self.out.push_str(" --- |");
        }
        self.out.push('\n');
        for (r, _) in iter {
            write_row(&mut self.out, r);
        }
        self.para_break();
    }
}

fn is_lang_token(l: &str) -> bool {
    !l.is_empty()
        && l.len() <= 20
        && l.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '#' | '-' | '_'))
}

fn trim_trailing_spaces(s: &mut String) {
    let t = s.trim_end_matches([' ', '\t']).len();
    s.truncate(t);
}

/// Plain text of Markdown produced by this crate: link targets, image syntax,
/// fence markers, heading/list/quote markers and table pipes removed.
pub fn markdown_to_plain(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut in_fence = false;
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        if in_fence {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let t = t
            .trim_start_matches('#')
            .trim_start_matches('>')
            .trim_start();
        if t.chars().all(|c| matches!(c, '|' | '-' | ' ' | ':')) && t.contains("---") {
            out.push('\n');
            continue;
        }
        strip_inline(t, &mut out);
        out.push('\n');
    }
    out
}

fn strip_inline(s: &str, out: &mut String) {
    let start = out.len();
    let b = s.as_bytes();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        match b.get(i) {
            Some(b'!') if b.get(i + 1) == Some(&b'[') => {
                if let Some(end) = link_end(s, i + 1) {
                    out.push_str(s.get(last..i).unwrap_or(""));
                    i = end;
                    last = i;
                    continue;
                }
            }
            Some(b']') if b.get(i + 1) == Some(&b'(') => {
                if let Some(close) = s.get(i + 2..).and_then(|r| r.find(')')) {
                    out.push_str(s.get(last..i).unwrap_or(""));
                    i = i + 2 + close + 1;
                    last = i;
                    continue;
                }
            }
            Some(b'[') | Some(b'*') | Some(b'`') | Some(b'|') => {
                out.push_str(s.get(last..i).unwrap_or(""));
                out.push(if b.get(i) == Some(&b'|') {
                    ' '
                } else {
                    '\u{0}'
                });
                i += 1;
                last = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(s.get(last..).unwrap_or(""));
    // Markers were replaced by NUL to keep word boundaries as in the source;
    // only this line's part of `out` is scanned (no quadratic rescans).
    if out.get(start..).is_some_and(|l| l.contains('\0')) {
        let line: String = out
            .get(start..)
            .unwrap_or("")
            .chars()
            .filter(|&c| c != '\0')
            .collect();
        out.truncate(start);
        out.push_str(&line);
    }
}

/// End (exclusive) of `[text](target)` starting at `[` position `i`.
fn link_end(s: &str, i: usize) -> Option<usize> {
    let rest = s.get(i..)?;
    let close = rest.find("](")?;
    let after = rest.get(close + 2..)?;
    let paren = after.find(')')?;
    Some(i + close + 2 + paren + 1)
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

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en-GB"><head>
<title>Big news | Example Times</title>
<meta property="og:title" content="Big news">
<meta name="author" content="Jane Roe">
<meta property="article:published_time" content="2024-05-06T07:08:09Z">
<link rel="canonical" href="/news/big">
<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2020-01-01","author":{"name":"LD Author"}}</script>
</head><body>
<header class="site-header"><nav><a href="/">Home</a> <a href="/world">World</a></nav></header>
<div id="cookie-banner">We use cookies. Accept all cookies?</div>
<main><article class="story">
<h1>Big news</h1>
<p>The first paragraph of the story explains, in some detail, what happened today and why it matters to readers.</p>
<p>A second paragraph adds context, quotes, and numbers, so that the article has enough text to be recognised.</p>
<h2>Details</h2>
<ul><li>First point</li><li>Second point with <a href="other.html">a link</a></li></ul>
<pre><code class="language-rust">fn main() {
    println!("hi");
}</code></pre>
<blockquote><p>Quoted words, spoken by someone important, are kept.</p></blockquote>
<table><tr><th>Year</th><th>Value</th></tr><tr><td>2023</td><td>1</td></tr><tr><td>2024</td><td>2</td></tr></table>
<div class="share-buttons"><a href="https://twitter.com/x">Tweet</a><a href="https://facebook.com/x">Share</a></div>
</article>
<section class="comments"><p>First comment: I disagree with everything, strongly, and at length here.</p></section>
<div class="related-articles"><ul><li><a href="/a">Another story</a></li><li><a href="/b">Yet another</a></li></ul></div>
</main>
<footer><p>Copyright Example Times, all rights reserved.</p></footer>
</body></html>"#;

    #[test]
    fn extracts_article_and_metadata() {
        let url = Url::parse("https://example.com/news/big?utm=1").unwrap();
        let p = parse_html(PAGE, Some(&url)).unwrap();
        let d = &p.document;
        let c = &d.content;
        assert!(c.contains("The first paragraph of the story"), "{c}");
        assert!(c.contains("## Details"), "{c}");
        assert!(
            c.contains("- Second point with [a link](https://example.com/news/other.html)"),
            "{c}"
        );
        assert!(
            c.contains("```rust\nfn main() {\n    println!(\"hi\");\n}\n```"),
            "{c}"
        );
        assert!(c.contains("> Quoted words"), "{c}");
        assert!(
            c.contains("| Year | Value |\n| --- | --- |\n| 2023 | 1 |"),
            "{c}"
        );
        for junk in [
            "Home",
            "cookies",
            "Tweet",
            "First comment",
            "Another story",
            "Copyright",
        ] {
            assert!(!c.contains(junk), "{junk} leaked into: {c}");
        }
        assert!(
            !c.contains("# Big news"),
            "title heading is metadata, not content: {c}"
        );
        assert_eq!(d.title.as_deref(), Some("Big news"));
        assert_eq!(
            d.metadata.get("author").and_then(|v| v.as_str()),
            Some("Jane Roe")
        );
        assert_eq!(
            d.ts.map(|t| t.to_rfc3339()),
            Some("2024-05-06T07:08:09+00:00".into())
        );
        assert_eq!(d.lang.as_deref(), Some("en"));
        assert_eq!(d.url.as_deref(), Some("https://example.com/news/big"));
        assert_eq!(p.format, SourceFormat::Html);
    }

    #[test]
    fn json_ld_and_fallbacks() {
        let html = r#"<html><head><title>Only title</title>
<script type="application/ld+json">{"@graph":[{"@type":"BlogPosting","datePublished":"2021-02-03T04:05:06+01:00","author":[{"name":"A"},{"name":"B"}]}]}</script></head>
<body><div><p>Ceci est un texte en français, assez long pour que la détection de la langue fonctionne correctement sans aucun doute.</p></div></body></html>"#;
        let p = parse_html(html, None).unwrap();
        assert_eq!(p.document.title.as_deref(), Some("Only title"));
        assert_eq!(
            p.document.metadata.get("author").and_then(|v| v.as_str()),
            Some("A, B")
        );
        assert_eq!(
            p.document.ts.map(|t| t.to_rfc3339()),
            Some("2021-02-03T03:05:06+00:00".into())
        );
        assert_eq!(p.document.lang.as_deref(), Some("fr"));
        assert_eq!(p.document.url, None);
    }

    #[test]
    fn plain_text_of_markdown() {
        let md = "# Title\n\nSee [the docs](https://x.y/z) and ![an image](https://i/p.png) **bold** `code`.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```rust\nlet x = 1;\n```";
        let t = markdown_to_plain(md);
        assert!(t.contains("See the docs and  bold code."), "{t}");
        assert!(!t.contains("https"), "{t}");
        assert!(!t.contains("rust"), "{t}");
        assert!(t.contains("let x = 1;"));
    }

    #[test]
    fn empty_and_garbage() {
        for input in [
            "",
            "<",
            "<<<>>>",
            "</p></div>",
            "<p",
            "<!--",
            "<a href='",
            "\u{0}\u{1}<b>x",
            "<table><td>x",
        ] {
            let p = parse_html(input, None).unwrap();
            assert!(p.document.content.len() <= input.len() + 16);
        }
    }

    /// Article paragraphs long enough to be selected, around `extra`.
    fn article(extra: &str) -> String {
        let para =
            "<p>The council voted on Tuesday, after a long debate, to expand the bus network, \
                    adding routes, shelters, and later evening service for riders.</p>";
        let page = format!(
            "<html><body><div id=\"primary\"><article><h1>Bus plan</h1>{para}{para}{extra}</article></div></body></html>"
        );
        parse_html(&page, None).unwrap().document.content
    }

    #[test]
    fn related_heading_by_class_drops_following_teasers() {
        // Teasers outweigh the article: a class-marked heading still removes them.
        let teaser = "<article><p>Another story about something else entirely, with commas, \
                      clauses, and enough words to score well as a paragraph …</p></article>";
        let c = article(&format!(
            "</article><article><h3 class=\"relatedpoststitle\">You may like</h3>{}",
            teaser.repeat(6)
        ));
        assert!(c.contains("The council voted"), "{c}");
        assert!(!c.contains("Another story"), "{c}");
        assert!(!c.contains("You may like"), "{c}");
    }

    #[test]
    fn related_heading_by_text_drops_following_list() {
        let c = article(
            "<h2>Related posts</h2><ul><li>Road works on Main Street</li><li>New trams</li></ul>",
        );
        assert!(c.contains("The council voted"), "{c}");
        assert!(
            !c.contains("Related posts") && !c.contains("New trams"),
            "{c}"
        );
        let c =
            article(r#"<div class="heading-h3">More Great Stories</div><ul><li>Trams</li></ul>"#);
        assert!(!c.contains("More Great") && !c.contains("Trams"), "{c}");
        // An ordinary sub-heading and its section stay.
        let c = article("<h2>Routes</h2><p>Route 7 runs to the airport every ten minutes.</p>");
        assert!(c.contains("## Routes\n\nRoute 7 runs"), "{c}");
    }

    #[test]
    fn tag_lists_dates_and_labels_are_dropped() {
        let c = article(
            r#"<span itemprop="datePublished">Monday, 22 January 2018</span>
            <strong>Tags<br><a rel="tag" href="/t/bus">bus</a>, <a rel="tag" href="/t/city">city</a></strong>
            <div><span>Advertisement</span></div><span class="count">Image 1 of 5</span>"#,
        );
        assert!(c.contains("The council voted"), "{c}");
        for junk in ["Monday", "Tags", "city", "Advertisement", "Image 1"] {
            assert!(!c.contains(junk), "{junk} leaked: {c}");
        }
    }
}
