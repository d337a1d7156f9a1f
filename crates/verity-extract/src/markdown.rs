//! Markdown documents with optional YAML (`---`) or TOML (`+++`) front matter.

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;
use verity_core::{ParsedDocument, Result, SourceFormat};

/// Parse Markdown. Front-matter keys `title`, `date`, `tags` (or `keywords`),
/// `lang` (or `language`) and `author` fill the document; other scalar keys go
/// to `metadata`. The title falls back to the first `#` (or setext) heading.
/// The content is the Markdown body without the front matter, with link
/// targets kept out of it ([`crate::links::unlink`]): links read as their
/// anchor text and go to `metadata.links` = `[{text, url}]`, images to
/// `metadata.images` = `[{alt, url}]`, as for HTML.
pub fn parse_markdown(text: &str) -> Result<ParsedDocument> {
    parse_markdown_at(text, None)
}

/// [`parse_markdown`] of a document found at `url` (relative link targets
/// are resolved against it).
pub fn parse_markdown_at(text: &str, url: Option<&url::Url>) -> Result<ParsedDocument> {
    let text = crate::text::normalize(text);
    let (front, body) = split_front_matter(&text);
    let unlinked = crate::links::unlink(body.trim_start_matches('\n'), url);
    let mut doc = crate::new_document(unlinked.text);
    if let Some(links) = crate::html::pairs_json(unlinked.links, "text") {
        doc.metadata.insert("links".into(), links);
    }
    if let Some(images) = crate::html::pairs_json(unlinked.images, "alt") {
        doc.metadata.insert("images".into(), images);
    }
    if let Some(fm) = front {
        for (key, value) in fm {
            match key.to_ascii_lowercase().as_str() {
                "title" => doc.title = value.first().cloned().filter(|s| !s.is_empty()),
                "date" | "published" | "pubdate" | "published_at" => {
                    doc.ts = value.first().and_then(|v| parse_date(v));
                }
                "tags" | "keywords" | "categories" => {
                    for t in value {
                        if !t.is_empty() && !doc.tags.contains(&t) {
                            doc.tags.push(t);
                        }
                    }
                }
                "lang" | "language" => doc.lang = value.first().map(|l| l.to_ascii_lowercase()),
                "author" | "authors" => {
                    doc.metadata
                        .insert("author".into(), Value::String(value.join(", ")));
                }
                other => {
                    if let Some(v) = value.first() {
                        doc.metadata
                            .insert(other.to_string(), Value::String(v.clone()));
                    }
                }
            }
        }
    }
    if doc.title.is_none() {
        doc.title = first_heading(&doc.content);
    }
    Ok(ParsedDocument {
        document: doc,
        format: SourceFormat::Markdown,
        pages: Vec::new(),
    })
}

type FrontMatter = Vec<(String, Vec<String>)>;

/// Split `---\n…\n---` (YAML) or `+++\n…\n+++` (TOML) front matter from the body.
fn split_front_matter(text: &str) -> (Option<FrontMatter>, &str) {
    for fence in ["---", "+++"] {
        let Some(rest) = text.strip_prefix(fence).and_then(|r| r.strip_prefix('\n')) else {
            continue;
        };
        let mut offset = 0;
        for line in rest.split_inclusive('\n') {
            let l = line.trim_end();
            if l == fence || (fence == "---" && l == "...") {
                let fm = rest.get(..offset).unwrap_or("");
                let body = rest.get(offset + line.len()..).unwrap_or("");
                return (Some(parse_front_matter(fm, fence == "+++")), body);
            }
            offset += line.len();
        }
    }
    (None, text)
}

/// A forgiving reader for the flat subset of YAML/TOML used in front matter:
/// `key: value`, `key = "value"`, inline lists `[a, b]`, block lists `- a`.
fn parse_front_matter(fm: &str, toml: bool) -> FrontMatter {
    let mut out: FrontMatter = Vec::new();
    for line in fm.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(item) = trimmed.strip_prefix("- ") {
            if line.starts_with([' ', '\t', '-']) {
                if let Some((_, values)) = out.last_mut() {
                    values.push(unquote(item));
                }
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            continue; // nested mapping: ignored
        }
        let sep = if toml { '=' } else { ':' };
        let Some((k, v)) = line.split_once(sep) else {
            continue;
        };
        let key = k.trim().to_string();
        let v = v.trim();
        let values = if let Some(inner) = v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            inner
                .split(',')
                .map(unquote)
                .filter(|s| !s.is_empty())
                .collect()
        } else if v.is_empty() {
            Vec::new()
        } else if key.eq_ignore_ascii_case("tags") || key.eq_ignore_ascii_case("keywords") {
            unquote(v)
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        } else {
            vec![unquote(v)]
        };
        out.push((key, values));
    }
    out
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s);
    let s = s
        .strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))
        .unwrap_or(s);
    s.trim().to_string()
}

/// Lenient date parsing: RFC 3339, `YYYY-MM-DD HH:MM[:SS]`, `YYYY-MM-DD`, RFC 2822.
pub(crate) fn parse_date(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.with_timezone(&Utc));
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S %z",
    ] {
        if let Ok(d) = DateTime::parse_from_str(s, f) {
            return Some(d.with_timezone(&Utc));
        }
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(d) = chrono::NaiveDateTime::parse_from_str(s, f) {
            return Some(d.and_utc());
        }
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d.with_timezone(&Utc));
    }
    let date_part = s.get(..10).unwrap_or(s);
    for f in ["%Y-%m-%d", "%Y/%m/%d"] {
        if let Ok(d) = NaiveDate::parse_from_str(date_part, f) {
            return d.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
        }
    }
    None
}

/// First ATX (`# Title`) or setext (`Title\n===`) heading of level 1 (else any level).
fn first_heading(md: &str) -> Option<String> {
    let mut in_fence = false;
    let mut prev: Option<&str> = None;
    let mut any: Option<String> = None;
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            prev = None;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(h) = t.strip_prefix("# ") {
            return Some(h.trim().trim_end_matches('#').trim().to_string());
        }
        if t.starts_with('#') && any.is_none() {
            let h = t
                .trim_start_matches('#')
                .trim()
                .trim_end_matches('#')
                .trim();
            if !h.is_empty() && t.len() - t.trim_start_matches('#').len() <= 6 {
                any = Some(h.to_string());
            }
        }
        if let Some(p) = prev {
            if !t.is_empty() && t.chars().all(|c| c == '=') && !p.trim().is_empty() {
                return Some(p.trim().to_string());
            }
        }
        prev = Some(line);
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_front_matter() {
        let md = "---\ntitle: \"Hello, world\"\ndate: 2024-03-05\ntags: [rust, rag]\nlang: FR\nauthor: Ada\nslug: hi\n---\n\n# Heading\n\nBody.";
        let p = parse_markdown(md).unwrap();
        let d = &p.document;
        assert_eq!(d.title.as_deref(), Some("Hello, world"));
        assert_eq!(
            d.ts.map(|t| t.to_rfc3339()),
            Some("2024-03-05T00:00:00+00:00".into())
        );
        assert_eq!(d.tags, vec!["rust", "rag"]);
        assert_eq!(d.lang.as_deref(), Some("fr"));
        assert_eq!(
            d.metadata.get("author").and_then(|v| v.as_str()),
            Some("Ada")
        );
        assert_eq!(d.metadata.get("slug").and_then(|v| v.as_str()), Some("hi"));
        assert_eq!(d.content, "# Heading\n\nBody.");
    }

    #[test]
    fn block_lists_toml_and_heading_fallback() {
        let p = parse_markdown("---\ntags:\n  - a\n  - b\ndate: 2024-01-02T03:04:05Z\n---\nIntro\n\n```\n# not a title\n```\n\nReal Title\n==========\n").unwrap();
        assert_eq!(p.document.tags, vec!["a", "b"]);
        assert_eq!(p.document.title.as_deref(), Some("Real Title"));
        assert!(p.document.ts.is_some());
        let p = parse_markdown("+++\ntitle = \"Toml\"\ntags = [\"x\"]\n+++\ntext").unwrap();
        assert_eq!(p.document.title.as_deref(), Some("Toml"));
        assert_eq!(p.document.tags, vec!["x"]);
        let p = parse_markdown("no heading at all\n\n## Sub\n").unwrap();
        assert_eq!(p.document.title.as_deref(), Some("Sub"));
        // An unterminated fence is body text.
        let p = parse_markdown("---\nnot: closed\n").unwrap();
        assert!(p.document.content.contains("not: closed"));
    }

    #[test]
    fn dates() {
        assert!(parse_date("2019-11-18T12:30:00+0000").is_some());
        assert!(parse_date("2019-11-18 12:30").is_some());
        assert!(parse_date("Mon, 18 Nov 2019 12:30:00 GMT").is_some());
        assert!(parse_date("2019/11/18").is_some());
        assert!(parse_date("yesterday").is_none());
    }
}
