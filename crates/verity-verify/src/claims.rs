//! Claims that cite: sentences (or clauses) carrying a citation, each
//! paired with what it cites.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use verity_fetch::{resolve_reference_with, ResolverConfig};

use crate::refs::{self, arxiv_re, doi_re, trim_trailing, url_re, Bibliography};
use crate::text::{content_terms, line_of, sentence_spans};
use crate::types::{CitationType, ClaimCitation, Location};

/// What [`extract`] found.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// The claims, in document order.
    pub claims: Vec<ClaimCitation>,
    /// Sentences read (outside the references).
    pub sentences: usize,
    /// Citations whose reference could not be found (`[7]` with no entry 7).
    pub missing_entries: usize,
}

#[allow(clippy::expect_used)] // literal patterns, covered by tests
fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("valid literal regex"))
}

fn md_link_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r#"(!?)\[([^\]]*)\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)"#)
}

fn numbered_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"\[(\d{1,4}(?:\s*[-–—]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?)*)\]",
    )
}

fn footnote_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"\[\^([^\]\s]+)\]")
}

fn paren_year_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"\(([^()]{2,200}?\b(?:1[89]|20)\d{2}[a-z]?)\)")
}

fn author_year_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^(?:see\s+|e\.g\.,?\s+|cf\.\s+)?(\p{Lu}[\p{L}'’\-]+)(?:\s+(?:et\s+al\.?|and\s+\p{Lu}[\p{L}'’\-]+|&\s+\p{Lu}[\p{L}'’\-]+))?,?\s+((?:1[89]|20)\d{2})[a-z]?$",
    )
}

fn narrative_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(\p{Lu}[\p{L}'’\-]+)(?:\s+(?:et\s+al\.?|and\s+\p{Lu}[\p{L}'’\-]+|&\s+\p{Lu}[\p{L}'’\-]+))?\s+\(((?:1[89]|20)\d{2})[a-z]?\)",
    )
}

/// A citation marker inside a sentence.
#[derive(Debug, Clone)]
struct Marker {
    span: Range<usize>,
    /// Replacement text in the claim (a link's text; empty for markers).
    keep: String,
    kind: CitationType,
    written: String,
    citation_ref: String,
    target: Result<String, String>,
}

/// Find every claim that cites in `text` (Markdown or plain text).
pub fn extract(text: &str, resolver: &ResolverConfig) -> Extraction {
    let bib = refs::parse(text, resolver);
    let mut out = Extraction::default();
    for span in sentence_spans(text) {
        if bib.excluded.iter().any(|r| r.contains(&span.start)) {
            continue;
        }
        out.sentences += 1;
        let sentence = &text[span.clone()];
        let markers = markers(sentence, &bib, resolver);
        if markers.is_empty() {
            continue;
        }
        for (clause, ms) in clauses(sentence, &markers) {
            let claim_text = claim_text(sentence, clause.clone(), &markers);
            if content_terms(&claim_text).is_empty() {
                continue;
            }
            let start = span.start + clause.start;
            let end = span.start + clause.end;
            for m in ms {
                if m.target.is_err() && m.kind != CitationType::Url {
                    out.missing_entries += 1;
                }
                let c = ClaimCitation {
                    claim_text: claim_text.clone(),
                    citation_ref: m.citation_ref.clone(),
                    location: Location {
                        line: line_of(text, start),
                        start,
                        end,
                    },
                    citation_type: m.kind,
                    marker: m.written.clone(),
                    target: m.target.clone().ok(),
                    unresolved: m.target.clone().err(),
                };
                let dup = out.claims.iter().any(|o| {
                    o.claim_text == c.claim_text && o.target == c.target && o.marker == c.marker
                });
                if !dup {
                    out.claims.push(c);
                }
            }
        }
    }
    out
}

fn overlaps(spans: &[Range<usize>], r: &Range<usize>) -> bool {
    spans.iter().any(|s| s.start < r.end && r.start < s.end)
}

fn markers(s: &str, bib: &Bibliography, resolver: &ResolverConfig) -> Vec<Marker> {
    let mut out: Vec<Marker> = Vec::new();
    let mut taken: Vec<Range<usize>> = Vec::new();
    // Inline links.
    for c in md_link_re().captures_iter(s) {
        let (Some(all), Some(label), Some(href)) = (c.get(0), c.get(2), c.get(3)) else {
            continue;
        };
        taken.push(all.range());
        if c.get(1).is_some_and(|m| !m.as_str().is_empty()) {
            continue; // image
        }
        let href = href.as_str();
        if !(href.starts_with("http://") || href.starts_with("https://")) {
            continue;
        }
        let (kind, target) = typed_target(href, resolver);
        out.push(Marker {
            span: all.range(),
            keep: label.as_str().to_string(),
            kind,
            written: href.to_string(),
            citation_ref: href.to_string(),
            target,
        });
    }
    // Bare URLs, DOIs, arXiv ids.
    for (rx, default_kind) in [
        (url_re(), CitationType::Url),
        (doi_re(), CitationType::Doi),
        (arxiv_re(), CitationType::Arxiv),
    ] {
        for m in rx.find_iter(s) {
            let r = m.start()..m.start() + trim_trailing(m.as_str()).len();
            if overlaps(&taken, &r) {
                continue;
            }
            taken.push(r.clone());
            let written = &s[r.clone()];
            let (kind, target) = if default_kind == CitationType::Url {
                typed_target(written, resolver)
            } else {
                let t = resolve_reference_with(written, resolver)
                    .map(|x| x.landing_url.to_string())
                    .ok_or_else(|| format!("`{written}` is not a valid identifier"));
                (default_kind, t)
            };
            // Keep the bracket/paren around a bare URL out of the claim.
            out.push(Marker {
                span: r,
                keep: String::new(),
                kind,
                written: written.to_string(),
                citation_ref: written.to_string(),
                target,
            });
        }
    }
    // Footnotes.
    for c in footnote_re().captures_iter(s) {
        let (Some(all), Some(label)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if overlaps(&taken, &all.range()) || s[all.end()..].starts_with(':') {
            continue;
        }
        taken.push(all.range());
        let label = label.as_str();
        let (citation_ref, target) = match bib.footnotes.get(label) {
            Some(e) => (e.text.clone(), e.target.clone()),
            None => (
                all.as_str().to_string(),
                Err(format!("no footnote definition for [^{label}]")),
            ),
        };
        out.push(Marker {
            span: all.range(),
            keep: String::new(),
            kind: CitationType::Footnote,
            written: all.as_str().to_string(),
            citation_ref,
            target,
        });
    }
    // Numbered references.
    for c in numbered_re().captures_iter(s) {
        let (Some(all), Some(inner)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if overlaps(&taken, &all.range()) || s[all.end()..].starts_with('(') {
            continue;
        }
        taken.push(all.range());
        for n in expand_numbers(inner.as_str()) {
            let (citation_ref, target) = match bib.numbered.get(&n) {
                Some(e) => (e.text.clone(), e.target.clone()),
                None => (
                    format!("[{n}]"),
                    Err(format!("no entry [{n}] in the references")),
                ),
            };
            out.push(Marker {
                span: all.range(),
                keep: String::new(),
                kind: CitationType::Bibliography,
                written: format!("[{n}]"),
                citation_ref,
                target,
            });
        }
    }
    // Author–year: parenthetical, then narrative.
    for c in paren_year_re().captures_iter(s) {
        let (Some(all), Some(inner)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if overlaps(&taken, &all.range()) {
            continue;
        }
        let mut any = false;
        for part in inner.as_str().split(';') {
            if let Some(a) = author_year_re().captures(part.trim()) {
                let (author, year) = (
                    a.get(1).map_or("", |m| m.as_str()),
                    a.get(2).map_or("", |m| m.as_str()),
                );
                out.push(author_year_marker(
                    all.range(),
                    part.trim(),
                    author,
                    year,
                    bib,
                ));
                any = true;
            }
        }
        if any {
            taken.push(all.range());
        }
    }
    for c in narrative_re().captures_iter(s) {
        let (Some(all), Some(author), Some(year)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        if overlaps(&taken, &all.range()) {
            continue;
        }
        taken.push(all.range());
        let mut m = author_year_marker(
            all.range(),
            all.as_str(),
            author.as_str(),
            year.as_str(),
            bib,
        );
        m.keep = all.as_str().to_string(); // the author names are part of the sentence
        out.push(m);
    }
    out.sort_by_key(|m| m.span.start);
    out
}

fn author_year_marker(
    span: Range<usize>,
    written: &str,
    author: &str,
    year: &str,
    bib: &Bibliography,
) -> Marker {
    let entry = bib.entries.iter().find(|e| {
        e.text.contains(year)
            && e.text
                .split(|c: char| !c.is_alphabetic() && c != '\'' && c != '-')
                .any(|w| w == author)
    });
    let (citation_ref, target) = match entry {
        Some(e) => (e.text.clone(), e.target.clone()),
        None => (
            written.to_string(),
            Err(format!("no bibliography entry for {author} {year}")),
        ),
    };
    Marker {
        span,
        keep: String::new(),
        kind: CitationType::AuthorYear,
        written: written.to_string(),
        citation_ref,
        target,
    }
}

/// DOI and arXiv links are typed as such; other links are URLs.
fn typed_target(href: &str, resolver: &ResolverConfig) -> (CitationType, Result<String, String>) {
    if let Some(r) = resolve_reference_with(href, resolver) {
        let kind = match r.kind {
            verity_fetch::ReferenceKind::Doi => CitationType::Doi,
            verity_fetch::ReferenceKind::Arxiv => CitationType::Arxiv,
        };
        return (kind, Ok(r.landing_url.to_string()));
    }
    match url::Url::parse(href) {
        Ok(u) => (CitationType::Url, Ok(u.to_string())),
        Err(e) => (
            CitationType::Url,
            Err(format!("malformed URL `{href}`: {e}")),
        ),
    }
}

/// `1, 4` → [1, 4]; `2–5` → [2, 3, 4, 5] (ranges capped at 50 numbers).
fn expand_numbers(inner: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in inner.split([',', ';']) {
        let bounds: Vec<u32> = part
            .split(['-', '–', '—'])
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        match bounds.as_slice() {
            [a] => out.push(*a),
            [a, b] if a <= b && b - a < 50 => out.extend(*a..=*b),
            [a, b] => out.extend([*a, *b]),
            _ => {}
        }
    }
    out.dedup();
    out
}

/// Split a sentence into clauses when distinct citation groups each follow
/// their own clause ("A rose [1], while B fell [2]."); otherwise the whole
/// sentence is the claim of every marker.
fn clauses<'m>(s: &str, markers: &'m [Marker]) -> Vec<(Range<usize>, Vec<&'m Marker>)> {
    // Group markers separated only by spaces/punctuation.
    let mut groups: Vec<(Range<usize>, Vec<&Marker>)> = Vec::new();
    for m in markers {
        if let Some((r, ms)) = groups.last_mut() {
            let gap = s.get(r.end..m.span.start).unwrap_or("x");
            if m.span.start <= r.end || gap.chars().all(|c| c.is_whitespace() || ",;".contains(c)) {
                r.end = r.end.max(m.span.end);
                ms.push(m);
                continue;
            }
        }
        groups.push((m.span.clone(), vec![m]));
    }
    let whole = || vec![(0..s.len(), markers.iter().collect())];
    let has_inline = markers.iter().any(|m| !m.keep.is_empty());
    if groups.len() < 2 || has_inline {
        return whole();
    }
    let mut out = Vec::new();
    let mut prev = 0usize;
    for (i, (r, ms)) in groups.iter().enumerate() {
        let end = if i + 1 == groups.len() {
            s.len()
        } else {
            r.end
        };
        let seg = s.get(prev..r.start).unwrap_or("");
        if content_terms(seg).len() < 3 {
            return whole();
        }
        out.push((prev..end, ms.clone()));
        prev = r.end;
    }
    out
}

/// The claim as a reader would quote it: links replaced by their text,
/// markers removed, white space collapsed, list/heading syntax dropped.
fn claim_text(s: &str, clause: Range<usize>, markers: &[Marker]) -> String {
    let mut text = String::new();
    let mut pos = clause.start;
    let mut inside: Vec<&Marker> = markers
        .iter()
        .filter(|m| m.span.start >= clause.start && m.span.end <= clause.end)
        .collect();
    inside.dedup_by_key(|m| m.span.start);
    for m in inside {
        if m.span.start < pos {
            continue;
        }
        text.push_str(&s[pos..m.span.start]);
        text.push_str(&m.keep);
        pos = m.span.end;
    }
    text.push_str(s.get(pos..clause.end).unwrap_or(""));
    let mut t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        (" .", "."),
        (" ,", ","),
        (" ;", ";"),
        (" :", ":"),
        ("()", ""),
        ("( )", ""),
        ("[]", ""),
    ] {
        t = t.replace(from, to);
    }
    let t = t
        .trim_start_matches(['#', '-', '*', '+', '>', ' ', ',', ';', ':'])
        .trim_end_matches([',', ';', ' '])
        .trim();
    let t = t.strip_prefix(|c: char| c.is_ascii_digit()).map_or(t, |r| {
        r.trim_start_matches(|c: char| c.is_ascii_digit())
            .strip_prefix(['.', ')'])
            .map_or(t, str::trim_start)
    });
    t.replace("  ", " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(t: &str) -> Extraction {
        extract(t, &ResolverConfig::default())
    }

    #[test]
    fn numbered_ranges_and_lists() {
        let t = "AI is used by 85% of firms [1]. Growth was fast [2–4]. Plain sentence.\n\nBoth hold [1, 4].\n\n## References\n1. https://a.example/one\n2. https://a.example/two\n3. https://a.example/three\n4. doi:10.1000/xyz\n";
        let e = ex(t);
        let refs: Vec<(&str, Option<&str>)> = e
            .claims
            .iter()
            .map(|c| (c.claim_text.as_str(), c.target.as_deref()))
            .collect();
        assert_eq!(
            refs,
            vec![
                ("AI is used by 85% of firms.", Some("https://a.example/one")),
                ("Growth was fast.", Some("https://a.example/two")),
                ("Growth was fast.", Some("https://a.example/three")),
                ("Growth was fast.", Some("https://doi.org/10.1000/xyz")),
                ("Both hold.", Some("https://a.example/one")),
                ("Both hold.", Some("https://doi.org/10.1000/xyz")),
            ]
        );
        let first = &e.claims[0];
        assert_eq!(first.location.line, 1);
        assert_eq!(
            &t[first.location.start..first.location.end],
            "AI is used by 85% of firms [1]."
        );
        assert_eq!(first.citation_type, CitationType::Bibliography);
    }

    #[test]
    fn links_urls_dois_arxiv_footnotes_author_year() {
        let t = "The [survey](https://x.example/s) found 62% prefer Python. See https://y.example/p for 3 cases. A DOI 10.1038/nature12373 shows it. Transformers work (arXiv:1706.03762). Footnoted fact.[^a] Smith et al. (2020) measured 4 km. Known result (Doe, 2019).\n\n[^a]: https://z.example/f\n\n## Bibliography\n- Smith, A., Jones, B. (2020). Distances. https://w.example/smith\n- Doe, J. 2019. A book.\n";
        let e = ex(t);
        let kinds: Vec<CitationType> = e.claims.iter().map(|c| c.citation_type).collect();
        assert_eq!(
            kinds,
            vec![
                CitationType::Url,
                CitationType::Url,
                CitationType::Doi,
                CitationType::Arxiv,
                CitationType::Footnote,
                CitationType::AuthorYear,
                CitationType::AuthorYear
            ]
        );
        assert_eq!(
            e.claims[0].claim_text,
            "The survey found 62% prefer Python."
        );
        assert_eq!(e.claims[4].target.as_deref(), Some("https://z.example/f"));
        assert_eq!(
            e.claims[5].target.as_deref(),
            Some("https://w.example/smith")
        );
        assert!(e.claims[5]
            .claim_text
            .starts_with("Smith et al. (2020) measured"));
        assert!(e.claims[6].target.is_none());
        assert!(e.claims[6]
            .unresolved
            .as_deref()
            .unwrap_or("")
            .contains("no URL"));
    }

    #[test]
    fn missing_entry_and_no_citations() {
        let e = ex("Claim with a missing ref [7].\n\n# References\n[1] https://a.example\n");
        assert_eq!(e.claims.len(), 1);
        assert_eq!(e.missing_entries, 1);
        assert_eq!(
            e.claims[0].unresolved.as_deref(),
            Some("no entry [7] in the references")
        );
        assert!(ex("No citations here. None at all.").claims.is_empty());
        assert!(ex("").claims.is_empty());
    }

    #[test]
    fn clauses_split_between_distinct_citations() {
        let t = "Revenue rose by 12 percent last year [1], while costs of the division fell sharply [2].\n\n# References\n1. https://a.example\n2. https://b.example\n";
        let e = ex(t);
        assert_eq!(e.claims.len(), 2);
        assert_eq!(
            e.claims[0].claim_text,
            "Revenue rose by 12 percent last year"
        );
        assert_eq!(
            e.claims[1].claim_text,
            "while costs of the division fell sharply."
        );
    }
}
