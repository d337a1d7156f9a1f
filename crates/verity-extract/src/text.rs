//! Plain text documents.

use verity_core::{ParsedDocument, Result, SourceFormat};

/// Parse plain text: line endings normalised to `\n`, a leading BOM and
/// trailing whitespace removed, NUL characters dropped. The title is the first
/// non-empty line when it is short (≤ 120 characters) and followed by a blank line.
pub fn parse_text(text: &str) -> Result<ParsedDocument> {
    let content = normalize(text);
    let mut doc = crate::new_document(content);
    doc.title = guess_title(&doc.content);
    Ok(ParsedDocument {
        document: doc,
        format: SourceFormat::Text,
        pages: Vec::new(),
    })
}

/// Normalise line endings, drop a BOM and NULs, trim trailing whitespace on the whole text.
pub(crate) fn normalize(text: &str) -> String {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\0' => {}
            c => out.push(c),
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

fn guess_title(content: &str) -> Option<String> {
    let mut lines = content.lines().skip_while(|l| l.trim().is_empty());
    let first = lines.next()?.trim();
    let next_blank = lines.next().is_none_or(|l| l.trim().is_empty());
    (first.chars().count() <= 120 && next_blank && first.chars().any(char::is_alphanumeric))
        .then(|| first.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_title_and_normalisation() {
        let p = parse_text("\u{feff}Release notes\r\n\r\nLine one\r\nLine two\0  \n\n").unwrap();
        assert_eq!(p.document.content, "Release notes\n\nLine one\nLine two");
        assert_eq!(p.document.title.as_deref(), Some("Release notes"));
        let p = parse_text("a long first line that continues\nright on the next line").unwrap();
        assert_eq!(p.document.title, None);
        assert_eq!(p.format, SourceFormat::Text);
    }
}
