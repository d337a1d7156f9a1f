//! Link targets out of Markdown text.
//!
//! What an embedder or a judge reads is the anchor text; the targets go to
//! the document's metadata (`links` = `[{text, url}]`, `images` =
//! `[{alt, url}]`), the same shape the HTML extractor gives. [`unlink`]
//! rewrites inline links `[text](url "title")`, reference links
//! `[text][ref]` / `[text][]` / `[ref]` (their `[ref]: url` definitions are
//! dropped) and images `![alt](src)` (dropped from the text, as the HTML
//! extractor drops `<img>`). Code spans and fenced code blocks are left as
//! they are; autolinks `<https://…>` and bare URLs are text the author wrote
//! and stay.

use std::collections::HashMap;

use url::Url;

/// Markdown with link targets taken out, and the links and images found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unlinked {
    /// The Markdown with each link replaced by its anchor text.
    pub text: String,
    /// `(anchor text, target)` in document order.
    pub links: Vec<(String, String)>,
    /// `(alt text, source)` in document order.
    pub images: Vec<(String, String)>,
}

/// Deepest bracket nesting read inside a link text (deeper is left as text).
const MAX_NESTING: usize = 8;

/// Take link targets out of Markdown `md`; relative targets are resolved
/// against `base` when given.
pub fn unlink(md: &str, base: Option<&Url>) -> Unlinked {
    let defs = definitions(md);
    let mut out = Unlinked::default();
    let mut lines: Vec<String> = Vec::new();
    let mut fence: Option<&str> = None;
    // A definition line removed since the last kept line: a blank line that
    // would then follow another blank line goes too.
    let mut removed = false;
    for line in md.split('\n') {
        let t = line.trim_start();
        let kept = if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            line.to_string()
        } else if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
            line.to_string()
        } else if definition(line).is_some() {
            // A reference definition: its target is in `defs`, the line goes.
            removed = true;
            continue;
        } else {
            let mut inline = Inline {
                defs: &defs,
                base,
                out: &mut out,
            };
            inline.run(line, 0)
        };
        let blank = kept.trim().is_empty();
        if removed && blank && lines.last().is_none_or(|l| l.trim().is_empty()) {
            continue;
        }
        removed = false;
        lines.push(kept);
    }
    out.text = lines.join("\n");
    out
}

struct Inline<'a> {
    defs: &'a HashMap<String, String>,
    base: Option<&'a Url>,
    out: &'a mut Unlinked,
}

impl Inline<'_> {
    /// The text of `s` with links replaced by their anchor text.
    fn run(&mut self, s: &str, depth: usize) -> String {
        let b = s.as_bytes();
        let mut text = String::with_capacity(s.len());
        let mut i = 0;
        let mut last = 0;
        while i < b.len() {
            match b.get(i) {
                Some(b'\\') => {
                    i += 2;
                    continue;
                }
                Some(b'`') => {
                    let run = b
                        .get(i..)
                        .map_or(0, |r| r.iter().take_while(|&&c| c == b'`').count());
                    let ticks = "`".repeat(run);
                    i = s
                        .get(i + run..)
                        .and_then(|r| r.find(&ticks))
                        .map_or(i + run, |e| i + run + e + run);
                    continue;
                }
                Some(b'!') if b.get(i + 1) == Some(&b'[') && depth < MAX_NESTING => {
                    if let Some((alt, target, end)) = self.link_at(s, i + 1) {
                        text.push_str(s.get(last..i).unwrap_or(""));
                        let alt = collapse(&self.run(&alt, depth + 1));
                        if let Some(src) = target {
                            self.out.images.push((alt, src));
                        }
                        i = end;
                        last = i;
                        continue;
                    }
                }
                Some(b'[') if depth < MAX_NESTING => {
                    if let Some((label, target, end)) = self.link_at(s, i) {
                        text.push_str(s.get(last..i).unwrap_or(""));
                        let anchor = self.run(&label, depth + 1);
                        let clean = collapse(&anchor);
                        if let Some(url) = target.filter(|_| !clean.is_empty()) {
                            self.out.links.push((clean, url));
                        }
                        text.push_str(anchor.trim());
                        i = end;
                        last = i;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        text.push_str(s.get(last..).unwrap_or(""));
        text
    }

    /// A link starting at the `[` at `i`: (label, target, end of the link).
    /// `None` when the brackets do not form a link (the `[` is text).
    fn link_at(&self, s: &str, i: usize) -> Option<(String, Option<String>, usize)> {
        let close = matching(s, i, b'[', b']')?;
        let label = s.get(i + 1..close)?.to_string();
        let after = close + 1;
        let b = s.as_bytes();
        match b.get(after) {
            Some(b'(') => {
                let end = matching(s, after, b'(', b')')?;
                let dest = destination(s.get(after + 1..end)?);
                Some((label, dest.map(|d| self.resolve(&d)), end + 1))
            }
            Some(b'[') => {
                let end = matching(s, after, b'[', b']')?;
                let key = s.get(after + 1..end)?;
                let key = if key.trim().is_empty() { &label } else { key };
                let url = self.defs.get(&norm_label(key))?;
                Some((label, Some(self.resolve(url)), end + 1))
            }
            _ => {
                // Shortcut reference `[ref]`: a link only if `ref` is defined
                // (and not a footnote `[^1]`).
                if label.starts_with('^') {
                    return None;
                }
                let url = self.defs.get(&norm_label(&label))?;
                Some((label, Some(self.resolve(url)), after))
            }
        }
    }

    fn resolve(&self, target: &str) -> String {
        match (Url::parse(target), self.base) {
            (Ok(u), _) => u.to_string(),
            (Err(_), Some(b)) => b
                .join(target)
                .map_or_else(|_| target.to_string(), |u| u.to_string()),
            (Err(_), None) => target.to_string(),
        }
    }
}

/// Position of the bracket closing the one at `open`, on the same line,
/// skipping escapes and code spans.
fn matching(s: &str, open: usize, l: u8, r: u8) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while let Some(&c) = b.get(i) {
        if c == b'\\' {
            i += 2;
            continue;
        }
        if c == b'`' && l == b'[' {
            // A code span inside a link text.
            let close = s.get(i + 1..).and_then(|rest| rest.find('`'))?;
            i += close + 2;
            continue;
        }
        if c == l {
            depth += 1;
        } else if c == r {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// The URL of a link destination `url "title"` / `<url> 'title'`; `None` when empty.
fn destination(inner: &str) -> Option<String> {
    let inner = inner.trim();
    let url = if let Some(rest) = inner.strip_prefix('<') {
        rest.split('>').next().unwrap_or("")
    } else {
        inner.split_whitespace().next().unwrap_or("")
    };
    (!url.is_empty()).then(|| url.to_string())
}

/// A reference definition line `[label]: url "title"` (up to 3 spaces of
/// indent): (normalised label, url). Footnote definitions (`[^1]:`) are not.
fn definition(line: &str) -> Option<(String, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = line.trim_start_matches(' ');
    if !t.starts_with('[') || t.starts_with("[^") {
        return None;
    }
    let close = matching(t, 0, b'[', b']')?;
    let label = t.get(1..close)?;
    let rest = t.get(close + 1..)?.strip_prefix(':')?;
    let url = destination(rest)?;
    (!label.trim().is_empty()).then(|| (norm_label(label), url))
}

/// Reference definitions of the whole document, outside fenced code (first wins).
fn definitions(md: &str) -> HashMap<String, String> {
    let mut defs = HashMap::new();
    let mut fence: Option<&str> = None;
    for line in md.lines() {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
            continue;
        }
        if let Some((k, v)) = definition(line) {
            defs.entry(k).or_insert(v);
        }
    }
    defs
}

/// Labels match case-insensitively with whitespace collapsed.
fn norm_label(l: &str) -> String {
    l.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(String, String)]) -> Vec<(&str, &str)> {
        v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
    }

    #[test]
    fn inline_links_keep_anchor_text_only() {
        let u = unlink(
            "See [the docs](https://x.y/z \"Docs\") and [a *b*](</p q>) here.",
            None,
        );
        assert_eq!(u.text, "See the docs and a *b* here.");
        assert_eq!(
            pairs(&u.links),
            vec![("the docs", "https://x.y/z"), ("a *b*", "/p q")]
        );
    }

    #[test]
    fn images_and_linked_images_leave_the_text() {
        let u = unlink(
            "A ![Image 1: a cat](https://i/c.png) B [![logo](/l.png)](https://home/) C",
            Url::parse("https://site.example/a/").ok().as_ref(),
        );
        assert_eq!(u.text, "A  B  C");
        assert_eq!(
            pairs(&u.images),
            vec![
                ("Image 1: a cat", "https://i/c.png"),
                ("logo", "https://site.example/l.png")
            ]
        );
        assert!(u.links.is_empty(), "{:?}", u.links);
    }

    #[test]
    fn reference_links_and_definitions() {
        let md = "Read [the paper][p] and [Rust][] or [rust].\n\n[p]: https://a.example/paper \"T\"\n[Rust]: <https://rust-lang.org>\n\nEnd [^1].\n\n[^1]: a footnote";
        let u = unlink(md, None);
        assert_eq!(
            u.text,
            "Read the paper and Rust or rust.\n\nEnd [^1].\n\n[^1]: a footnote"
        );
        assert_eq!(
            pairs(&u.links),
            vec![
                ("the paper", "https://a.example/paper"),
                ("Rust", "https://rust-lang.org/"),
                ("rust", "https://rust-lang.org/")
            ]
        );
    }

    #[test]
    fn code_escapes_and_plain_brackets_untouched() {
        let md = "Use `[a](b)` and \\[x](y) or [not a link] or [x] (y).\n\n```md\n[k](https://k)\n[r]: https://r\n```\n<https://auto.example> stays.";
        let u = unlink(md, None);
        assert_eq!(u.text, md);
        assert!(u.links.is_empty());
    }

    #[test]
    fn wikipedia_style_parentheses_and_unclosed_brackets() {
        let u = unlink(
            "[Rust](https://en.wikipedia.org/wiki/Rust_(programming_language)) and [open",
            None,
        );
        assert_eq!(u.text, "Rust and [open");
        assert_eq!(
            pairs(&u.links),
            vec![(
                "Rust",
                "https://en.wikipedia.org/wiki/Rust_(programming_language)"
            )]
        );
    }
}
