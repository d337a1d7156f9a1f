//! A source's text as a reader sees it: the text every quote is taken from.
//!
//! Fetched pages reach the verifier as Markdown (HTML is rendered to
//! Markdown by `verity-extract`). A reader of the page never sees that
//! markup — `*Reuters*` is "Reuters" in italics, `[the report](https://…)` is
//! "the report" — so a quote copied from the Markdown would put characters
//! in the source's mouth. [`SourceText::from_markdown`] removes the markup
//! (emphasis, code and link syntax, heading, list and quote markers, table
//! pipes, escapes) and keeps the words, the punctuation and the line
//! structure (each heading, list item and table row its own paragraph, so
//! sentences do not run across them). Plain text and PDF text are taken as
//! they are ([`SourceText::plain`]).

/// The text of a source as a reader sees it (see the module doc), and its
/// title: what a reader reads first, where framing words (who, where,
/// which survey) often are — read by the judge, never quoted (a title may
/// come from metadata the page does not show).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceText {
    text: String,
    title: Option<String>,
}

impl SourceText {
    /// The reader's text of Markdown (ours or a Markdown source's).
    pub fn from_markdown(md: &str) -> Self {
        Self::plain(reader_text(md))
    }

    /// Text that is already what a reader sees (plain text, PDF text).
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            title: None,
        }
    }

    /// With the source's title.
    pub fn titled(mut self, title: Option<&str>) -> Self {
        self.title = title
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        self
    }

    /// The text (quotes are taken from it).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The title, if known.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Everything a reader reads: the title, then the text.
    pub fn with_title(&self) -> std::borrow::Cow<'_, str> {
        match &self.title {
            Some(t) if !self.text.contains(t.as_str()) => {
                std::borrow::Cow::Owned(format!("{t}\n\n{}", self.text))
            }
            _ => std::borrow::Cow::Borrowed(&self.text),
        }
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.text
    }

    /// `true` when there is no text (white space only).
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

impl std::fmt::Display for SourceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// The reader's text of Markdown `md` (see the module doc).
pub fn reader_text(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<&str> = None;
    for line in md.lines() {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
                out.push('\n');
            } else {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
            out.push('\n');
            continue;
        }
        let (body, own_paragraph) = strip_block(t);
        let Some(body) = body else {
            out.push('\n');
            continue;
        };
        if own_paragraph && !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        strip_inline(&body, &mut out);
        out.push('\n');
        if own_paragraph {
            out.push('\n');
        }
    }
    out
}

/// A line without its block markers, and whether it stands as its own
/// paragraph (headings, list items, table rows). `None`: a line with no
/// text for a reader (a table's separator row, a rule).
fn strip_block(t: &str) -> (Option<String>, bool) {
    let mut t = t;
    let mut own = false;
    // Block quotes (possibly nested).
    while let Some(rest) = t.strip_prefix('>') {
        t = rest.trim_start();
    }
    // Headings.
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t']) {
        t = t[hashes..].trim();
        t = t.trim_end_matches('#').trim_end();
        own = true;
    }
    // Bullets.
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            t = rest.trim_start();
            own = true;
            break;
        }
    }
    // Rules.
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() >= 3 && compact.chars().all(|c| c == '-' || c == '*' || c == '_') {
        return (None, false);
    }
    // Table rows: cells apart, separator rows dropped.
    if t.starts_with('|') {
        if compact.chars().all(|c| matches!(c, '|' | '-' | ':')) {
            return (None, false);
        }
        let cells: Vec<&str> = t
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        return (Some(cells.join("  ")), true);
    }
    (Some(t.to_string()), own)
}

/// Whether `c` may stand before an opening emphasis delimiter.
fn opens_after(c: Option<char>) -> bool {
    c.is_none_or(|c| c.is_whitespace() || "([{\"'“‘«—–-/".contains(c))
}

/// Whether `c` may stand after a closing emphasis delimiter.
fn closes_before(c: Option<char>) -> bool {
    c.is_none_or(|c| c.is_whitespace() || c.is_ascii_punctuation() || "”’»—–…".contains(c))
}

/// Append `s` without inline markup to `out`.
fn strip_inline(s: &str, out: &mut String) {
    let chars: Vec<char> = s.chars().collect();
    let mut skip = vec![false; chars.len()];
    let mut replaced: Vec<Option<String>> = vec![None; chars.len()];
    let at = |i: usize| chars.get(i).copied();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // Escapes: `\*` is a literal `*`.
        if c == '\\' && at(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
            skip[i] = true;
            i += 2;
            continue;
        }
        // Images: `![alt](src)` is not text.
        if c == '!' && at(i + 1) == Some('[') {
            if let Some((close, end)) = link_at(&chars, i + 1) {
                let _ = close;
                for k in skip.iter_mut().take(end).skip(i) {
                    *k = true;
                }
                i = end;
                continue;
            }
        }
        // Links: `[text](target)` reads as its text.
        if c == '[' {
            if let Some((close, end)) = link_at(&chars, i) {
                skip[i] = true;
                for k in skip.iter_mut().take(end).skip(close) {
                    *k = true;
                }
                i += 1;
                continue;
            }
        }
        // Autolinks: `<https://…>` reads as the address.
        if c == '<' {
            let rest: String = chars[i + 1..].iter().take(8).collect();
            if rest.starts_with("http://") || rest.starts_with("https://") {
                if let Some(end) = chars[i..].iter().position(|&x| x == '>') {
                    skip[i] = true;
                    skip[i + end] = true;
                    i += end + 1;
                    continue;
                }
            }
        }
        // Code spans.
        if c == '`' {
            let n = chars[i..].iter().take_while(|&&x| x == '`').count();
            let delim: String = "`".repeat(n);
            let rest: String = chars[i + n..].iter().collect();
            if let Some(p) = rest.find(&delim) {
                let close = i + n + rest[..p].chars().count();
                skip[i..i + n].fill(true);
                skip[close..close + n].fill(true);
                i = close + n;
                continue;
            }
        }
        // Emphasis: `*x*`, `**x**`, `_x_`, `__x__` with flanking delimiters.
        if c == '*' || c == '_' {
            let n = chars[i..].iter().take_while(|&&x| x == c).count().min(3);
            let before = i.checked_sub(1).and_then(at);
            let after = at(i + n);
            if opens_after(before) && after.is_some_and(|a| !a.is_whitespace()) {
                // The closing run of the same length on this line.
                let mut j = i + n;
                let mut found = None;
                while j < chars.len() {
                    if chars[j] == c {
                        let m = chars[j..].iter().take_while(|&&x| x == c).count();
                        let prev = at(j - 1);
                        if m == n
                            && prev.is_some_and(|p| !p.is_whitespace())
                            && closes_before(at(j + m))
                        {
                            found = Some(j);
                            break;
                        }
                        j += m;
                        continue;
                    }
                    j += 1;
                }
                if let Some(j) = found {
                    skip[i..i + n].fill(true);
                    skip[j..j + n].fill(true);
                    i += n;
                    continue;
                }
            }
            i += n;
            continue;
        }
        i += 1;
    }
    for (k, ch) in chars.iter().enumerate() {
        if let Some(r) = &replaced[k] {
            out.push_str(r);
        } else if !skip[k] {
            out.push(*ch);
        }
    }
    replaced.clear();
}

/// For `[` at `i`: the index of the `]` that starts `](`, and one past the `)`.
fn link_at(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut j = i;
    while j < chars.len() {
        match chars[j] {
            '[' => depth += 1,
            ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    if chars.get(j) != Some(&']') || chars.get(j + 1) != Some(&'(') {
        return None;
    }
    let close = chars[j + 2..].iter().position(|&c| c == ')')?;
    Some((j, j + 2 + close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_removed_and_words_kept() {
        let md = "# *Assassin's Creed* dates\n\n**Release dates:** the game is out, \
                  said *Reuters.* See [the report](https://example.org/r) and `cargo test`.\n\n\
                  - first item\n- second item\n\n| Team | Wins |\n|---|---|\n| Spain | 2 |\n";
        let t = reader_text(md);
        assert!(t.contains("Assassin's Creed dates"), "{t}");
        assert!(
            t.contains(
                "Release dates: the game is out, said Reuters. See the report and cargo test."
            ),
            "{t}"
        );
        assert!(t.contains("first item") && !t.contains("- first"), "{t}");
        assert!(t.contains("Spain  2") && !t.contains('|'), "{t}");
        assert!(!t.contains('*') && !t.contains("https://"), "{t}");
    }

    #[test]
    fn literal_stars_underscores_and_escapes_stay_text() {
        let t = reader_text("5 * 3 = 15, snake_case_name and a \\*literal\\* star.");
        assert_eq!(
            t.trim(),
            "5 * 3 = 15, snake_case_name and a *literal* star."
        );
        let t = reader_text("```\nlet x = *y;\n```\nafter");
        assert!(t.contains("let x = *y;") && t.contains("after"), "{t}");
    }

    #[test]
    fn headings_and_items_are_paragraphs_of_their_own() {
        let t = reader_text("## Title\nText under it.\n- one\n- two");
        let spans = crate::text::sentence_spans(&t);
        let sents: Vec<&str> = spans.iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(sents, vec!["Title", "Text under it.", "one", "two"]);
    }
}
