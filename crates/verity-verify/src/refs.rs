//! The References / Bibliography section and footnote definitions of a
//! document, and what each entry points to (URL, DOI, arXiv).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use verity_fetch::{resolve_reference_with, ResolverConfig};

/// One bibliography entry or footnote definition.
#[derive(Debug, Clone, PartialEq)]
pub struct RefEntry {
    /// Number (`3`) or footnote label (`note-2`); empty for unnumbered entries.
    pub key: String,
    /// Entry text as written (one line, white space collapsed).
    pub text: String,
    /// URL to fetch, or why there is none.
    pub target: Result<String, String>,
}

/// The references of a document.
#[derive(Debug, Clone, Default)]
pub struct Bibliography {
    /// Numbered entries by number.
    pub numbered: HashMap<u32, RefEntry>,
    /// Footnote definitions by label.
    pub footnotes: HashMap<String, RefEntry>,
    /// Every entry in order (numbered or not), for author–year matching.
    pub entries: Vec<RefEntry>,
    /// Byte ranges that hold references, not claims.
    pub excluded: Vec<Range<usize>>,
}

#[allow(clippy::expect_used)] // literal patterns, covered by tests
fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("valid literal regex"))
}

fn heading_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:\d+\.?\s*)?(references|reference list|bibliography|sources|works cited|citations|notes|footnotes|literature|références|bibliographie|notes et références)\s*(?:\*\*|__)?\s*:?\s*$",
    )
}

fn numbered_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^\s*(?:[-*+]\s+)?(?:\[(\d{1,4})\]|(\d{1,4})[.)])\s*(.+)$",
    )
}

fn footnote_def_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*\[\^([^\]\s]+)\]:\s*(.*)$")
}

/// `http(s)` URLs.
pub fn url_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r#"https?://[^\s<>\]\)"'`]+"#)
}

/// DOIs, optionally prefixed with `doi:`.
pub fn doi_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r#"(?i)\b(?:doi:\s*)?10\.\d{4,9}/[^\s"<>\]\)]+"#)
}

/// arXiv identifiers prefixed with `arXiv:`.
pub fn arxiv_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?i)\barxiv:\s*(?:\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)",
    )
}

/// Trim punctuation that ends a sentence, not a URL or an identifier.
pub fn trim_trailing(s: &str) -> &str {
    s.trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '_'])
}

/// What an entry (or any citation text) points to: a URL to fetch, or why there is none.
pub fn target_of(text: &str, resolver: &ResolverConfig) -> Result<String, String> {
    if let Some(m) = doi_re().find(text) {
        if let Some(r) = resolve_reference_with(trim_trailing(m.as_str()), resolver) {
            return Ok(r.landing_url.to_string());
        }
    }
    if let Some(m) = arxiv_re().find(text) {
        if let Some(r) = resolve_reference_with(trim_trailing(m.as_str()), resolver) {
            return Ok(r.landing_url.to_string());
        }
    }
    if let Some(m) = url_re().find(text) {
        let u = trim_trailing(m.as_str());
        if let Some(r) = resolve_reference_with(u, resolver) {
            return Ok(r.landing_url.to_string());
        }
        return match url::Url::parse(u) {
            Ok(url) => Ok(url.to_string()),
            Err(e) => Err(format!("malformed URL `{u}`: {e}")),
        };
    }
    Err("the reference has no URL, DOI or arXiv id, and no title resolver is configured".into())
}

/// Read the references of `text`.
pub fn parse(text: &str, resolver: &ResolverConfig) -> Bibliography {
    let mut bib = Bibliography::default();
    let mut in_section: Option<usize> = None; // start of the section
    let mut current: Option<(String, String, usize)> = None; // key, text, start
    let mut pos = 0usize;
    let flush = |bib: &mut Bibliography, cur: Option<(String, String, usize)>, footnote: bool| {
        if let Some((key, body, _)) = cur {
            let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
            if body.is_empty() {
                return;
            }
            let entry = RefEntry {
                target: target_of(&body, resolver),
                key: key.clone(),
                text: body,
            };
            if footnote {
                bib.footnotes.insert(key, entry.clone());
            } else if let Ok(n) = key.parse::<u32>() {
                bib.numbered.entry(n).or_insert_with(|| entry.clone());
            }
            bib.entries.push(entry);
        }
    };
    let mut current_is_footnote = false;
    // The document's first line is its title ("# Notes" on a page of
    // notes), never the start of its references.
    let first_line = text
        .split_inclusive('\n')
        .scan(0usize, |at, l| {
            let s = *at;
            *at += l.len();
            Some((s, l))
        })
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(s, _)| s);
    for line in text.split_inclusive('\n') {
        let ls = pos;
        pos += line.len();
        let trimmed = line.trim();
        if Some(ls) == first_line && trimmed.starts_with('#') {
            continue;
        }
        if let Some(c) = footnote_def_re().captures(trimmed) {
            flush(&mut bib, current.take(), current_is_footnote);
            let label = c.get(1).map_or("", |m| m.as_str()).to_string();
            let body = c.get(2).map_or("", |m| m.as_str()).to_string();
            current = Some((label, body, ls));
            current_is_footnote = true;
            bib.excluded.push(ls..pos);
            continue;
        }
        if heading_re().is_match(trimmed) {
            flush(&mut bib, current.take(), current_is_footnote);
            if let Some(s) = in_section.take() {
                bib.excluded.push(s..ls);
            }
            in_section = Some(ls);
            continue;
        }
        if in_section.is_some() && trimmed.starts_with('#') {
            flush(&mut bib, current.take(), current_is_footnote);
            if let Some(s) = in_section.take() {
                bib.excluded.push(s..ls);
            }
            continue;
        }
        if current_is_footnote && current.is_some() {
            // Footnote continuation: an indented line.
            if line.starts_with("    ") || line.starts_with('\t') {
                if let Some((_, body, _)) = current.as_mut() {
                    body.push(' ');
                    body.push_str(trimmed);
                }
                bib.excluded.push(ls..pos);
                continue;
            }
            flush(&mut bib, current.take(), true);
            current_is_footnote = false;
        }
        if in_section.is_none() {
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut bib, current.take(), false);
            continue;
        }
        if let Some(c) = numbered_re().captures(trimmed) {
            flush(&mut bib, current.take(), false);
            let key = c.get(1).or(c.get(2)).map_or("", |m| m.as_str()).to_string();
            let body = c.get(3).map_or("", |m| m.as_str()).to_string();
            current = Some((key, body, ls));
        } else if let Some(item) = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
            .or_else(|| trimmed.strip_prefix("+ "))
        {
            flush(&mut bib, current.take(), false);
            current = Some((String::new(), item.to_string(), ls));
        } else if let Some((_, body, _)) = current.as_mut() {
            body.push(' ');
            body.push_str(trimmed);
        } else {
            current = Some((String::new(), trimmed.to_string(), ls));
        }
    }
    flush(&mut bib, current.take(), current_is_footnote);
    if let Some(s) = in_section {
        bib.excluded.push(s..text.len());
    }
    bib
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_titled_notes_is_not_its_references() {
        let doc = "# Notes\n\nAI adoption reached 78 % in 2023 [1].\n\nMost firms use it daily [2].\n\n## References\n\n1. https://example.org/a\n2. https://example.org/b\n";
        let bib = parse(doc, &ResolverConfig::default());
        assert_eq!(bib.numbered.len(), 2);
        let excluded: usize = bib.excluded.iter().map(|r| r.len()).sum();
        assert!(excluded < doc.len() / 2, "{:?}", bib.excluded);
        let claims = crate::claims::extract(doc, &ResolverConfig::default());
        assert_eq!(claims.claims.len(), 2, "{:?}", claims.claims);
    }

    #[test]
    fn numbered_section_and_footnotes() {
        let text = "Body [1].\n\n## References\n\n1. Smith, J. (2020). A study. https://example.org/a.\n[2] Doe 2021, doi:10.1000/xyz123.\n3) A book with no link\n   continued here\n\n[^n]: See https://example.org/n\n";
        let bib = parse(text, &ResolverConfig::default());
        assert_eq!(bib.numbered[&1].target, Ok("https://example.org/a".into()));
        assert_eq!(
            bib.numbered[&2].target,
            Ok("https://doi.org/10.1000/xyz123".into())
        );
        assert!(bib.numbered[&3].target.is_err());
        assert_eq!(bib.numbered[&3].text, "A book with no link continued here");
        assert_eq!(
            bib.footnotes["n"].target,
            Ok("https://example.org/n".into())
        );
        assert!(bib
            .excluded
            .iter()
            .any(|r| r.start > 0 && r.contains(&text.find("Smith").unwrap_or(0))));
    }
}
