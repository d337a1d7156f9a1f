//! Page metadata: `<head>` tags, JSON-LD, `<base href>`.

use super::*;

pub(super) fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

pub(super) fn nonempty(s: &str) -> Option<String> {
    let c = collapse_ws(s);
    (!c.is_empty()).then_some(c)
}

pub(super) fn absolutize(href: &str, base: Option<&Url>) -> Option<String> {
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

pub(super) fn norm_lang(s: &str) -> Option<String> {
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

pub(super) fn json_ld(
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

pub(super) fn ld_name(v: &Value) -> Option<String> {
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

pub(super) fn base_url(dom: &Dom, url: Option<&Url>, canonical: Option<&str>) -> Option<Url> {
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
