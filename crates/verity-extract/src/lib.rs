//! Parsers: HTML main content to Markdown, PDF, Markdown and plain text, into `ParsedDocument`.
//!
//! | entry point | input |
//! |---|---|
//! | [`parse_bytes`] | raw bytes + optional content type / file name / URL: sniffs the format and routes |
//! | [`parse_file`] | a file on disk |
//! | [`parse_html`] | HTML text: main content (boilerplate stripped) as Markdown, with metadata |
//! | [`parse_markdown`] | Markdown with optional front matter |
//! | [`parse_text`] | plain text |
//! | [`links::unlink`] | Markdown: link targets out of the text, into a links list |
//! | [`detect_lang`] | the language detector of every Verity reader (ISO 639-1) |
//!
//! Byte input is decoded with [`encoding::decode_text`] / [`encoding::decode_html`]
//! (BOM, `charset`, `<meta charset>`, UTF-8, Windows-1252 fallback).

mod boilerplate;
pub mod dom;
pub mod encoding;
mod entities;
pub mod eval;
pub mod html;
mod lang;
pub mod links;
pub mod markdown;
pub mod open;
#[cfg(feature = "pdf")]
pub mod pdf;
pub mod text;

use std::path::Path;

use url::Url;
use verity_core::{Error, InputError, ParseError, ParsedDocument, Result};

pub use html::parse_html;
pub use lang::detect_lang;
pub use markdown::parse_markdown;
pub use text::parse_text;

/// Formats [`parse_bytes`] can route to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// `%PDF-` magic or a PDF content type / extension.
    Pdf,
    /// HTML / XHTML.
    Html,
    /// Markdown.
    Markdown,
    /// Plain text.
    Text,
}

/// Largest input accepted by [`parse_bytes`] (256 MiB).
pub const MAX_INPUT_BYTES: usize = 256 << 20;

/// Guess the format of `bytes` from magic bytes, the content type, then the
/// file extension of `name_hint` (or of the URL path), then the content.
pub fn sniff(
    bytes: &[u8],
    content_type: Option<&str>,
    name_hint: Option<&str>,
    url: Option<&Url>,
) -> Sniffed {
    let head = bytes.get(..bytes.len().min(1024)).unwrap_or(bytes);
    if find_bytes(head, b"%PDF-").is_some() {
        return Sniffed::Pdf;
    }
    let mime = content_type
        .map(|c| {
            c.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    match mime.as_str() {
        "application/pdf" | "application/x-pdf" => return Sniffed::Pdf,
        "text/html" | "application/xhtml+xml" => return Sniffed::Html,
        "text/markdown" | "text/x-markdown" => return Sniffed::Markdown,
        _ => {}
    }
    let ext_of = |s: &str| -> Option<String> {
        let last = s.rsplit(['/', '\\']).next().unwrap_or(s);
        let last = last.split(['?', '#']).next().unwrap_or(last);
        last.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())
    };
    let ext = name_hint
        .and_then(ext_of)
        .or_else(|| url.and_then(|u| ext_of(u.path())));
    match ext.as_deref() {
        Some("pdf") => return Sniffed::Pdf,
        Some("html" | "htm" | "xhtml" | "shtml") => return Sniffed::Html,
        Some("md" | "markdown" | "mdx" | "mkd" | "mdown") => return Sniffed::Markdown,
        Some("txt" | "text" | "log" | "csv" | "tsv" | "rst") => return Sniffed::Text,
        _ => {}
    }
    if looks_like_html(head) {
        return Sniffed::Html;
    }
    if mime == "text/plain" {
        return Sniffed::Text;
    }
    if looks_like_markdown(head) {
        return Sniffed::Markdown;
    }
    Sniffed::Text
}

fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn looks_like_html(head: &[u8]) -> bool {
    // Skip a BOM and leading whitespace; tolerate UTF-16 by dropping NULs.
    let lower: Vec<u8> = head
        .iter()
        .filter(|&&b| b != 0)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    let start = lower
        .iter()
        .position(|b| !b.is_ascii_whitespace() && !matches!(b, 0xEF | 0xBB | 0xBF | 0xFE | 0xFF));
    let trimmed = start.and_then(|s| lower.get(s..)).unwrap_or(&[]);
    [
        b"<!doctype html".as_slice(),
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
        b"<meta",
        b"<?xml",
    ]
    .iter()
    .any(|p| trimmed.starts_with(p) && (p != b"<?xml" || find_bytes(&lower, b"<html").is_some()))
        || find_bytes(&lower, b"<html").is_some()
        || (trimmed.starts_with(b"<")
            && [b"<p>".as_slice(), b"<div", b"<br", b"</a>", b"<table"]
                .iter()
                .any(|t| find_bytes(&lower, t).is_some()))
}

fn looks_like_markdown(head: &[u8]) -> bool {
    let s = String::from_utf8_lossy(head);
    let s = s.trim_start_matches('\u{feff}');
    if s.starts_with("---\n") || s.starts_with("---\r\n") || s.starts_with("+++\n") {
        return true;
    }
    let mut signals = 0;
    for line in s.lines().take(40) {
        let l = line.trim_start();
        if l.starts_with("# ") || l.starts_with("## ") || l.starts_with("```") {
            signals += 2;
        } else if l.starts_with("- [") || l.contains("](http") || l.starts_with("> ") {
            signals += 1;
        }
    }
    signals >= 2
}

/// Parse `bytes` of any supported format into a [`ParsedDocument`].
///
/// The format is chosen by [`sniff`]; text is decoded with the detected
/// encoding (`charset` of `content_type`, `<meta charset>` for HTML, BOM, …).
/// `url` is the page address (base for relative links, fallback canonical URL).
/// PDF needs the `pdf` feature, otherwise [`ParseError::Unsupported`].
pub fn parse_bytes(
    bytes: &[u8],
    content_type: Option<&str>,
    name_hint: Option<&str>,
    url: Option<&Url>,
) -> Result<ParsedDocument> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Error::invalid_input(format!(
            "input of {} bytes exceeds the {} byte limit",
            bytes.len(),
            MAX_INPUT_BYTES
        )));
    }
    let mut parsed = match sniff(bytes, content_type, name_hint, url) {
        Sniffed::Pdf => parse_pdf_bytes(bytes)?,
        Sniffed::Html => {
            let (text, _) = encoding::decode_html(bytes, content_type);
            parse_html(&text, url)?
        }
        Sniffed::Markdown => {
            let (text, _) = encoding::decode_text(
                bytes,
                content_type.and_then(encoding::charset_param).as_deref(),
            );
            markdown::parse_markdown_at(&text, url)?
        }
        Sniffed::Text => {
            if is_binary(bytes) {
                return Err(ParseError::Unsupported(
                    "binary content (not text, HTML, Markdown or PDF)".into(),
                )
                .into());
            }
            let (text, _) = encoding::decode_text(
                bytes,
                content_type.and_then(encoding::charset_param).as_deref(),
            );
            parse_text(&text)?
        }
    };
    let doc = &mut parsed.document;
    if doc.url.is_none() {
        doc.url = url.map(|u| u.to_string());
    }
    if doc.source.is_empty() {
        doc.source = url
            .map(|u| u.to_string())
            .or_else(|| name_hint.map(str::to_string))
            .unwrap_or_default();
    }
    doc.uid = verity_core::stable_uid(doc.url.as_deref().unwrap_or(&doc.source), &doc.content);
    Ok(parsed)
}

#[cfg(feature = "pdf")]
fn parse_pdf_bytes(bytes: &[u8]) -> Result<ParsedDocument> {
    pdf::parse_pdf(bytes)
}

#[cfg(not(feature = "pdf"))]
fn parse_pdf_bytes(_bytes: &[u8]) -> Result<ParsedDocument> {
    Err(
        ParseError::Unsupported("PDF (verity-extract built without the `pdf` feature)".into())
            .into(),
    )
}

/// Binary data: NUL bytes or many control characters, unless it is UTF-16 with a BOM
/// or a zero-byte pattern.
fn is_binary(bytes: &[u8]) -> bool {
    if encoding_rs::Encoding::for_bom(bytes).is_some() {
        return false;
    }
    let sample = bytes.get(..bytes.len().min(8192)).unwrap_or(bytes);
    if sample.is_empty() {
        return false;
    }
    let (text, enc) = encoding::decode_text(sample, None);
    if enc.starts_with("UTF-16") {
        return text
            .chars()
            .filter(|c| c.is_control() && !c.is_whitespace())
            .count()
            * 10
            > text.len();
    }
    let nul = sample.iter().filter(|&&b| b == 0).count();
    let ctrl = sample
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c | 0x1b))
        .count();
    nul > 0 || ctrl * 20 > sample.len()
}

/// Read and parse a file; the format comes from its content and extension.
/// Only regular files are read ([`open::open_document`]: a FIFO, socket or
/// device is refused at once instead of blocking the reader).
pub fn parse_file(path: impl AsRef<Path>) -> Result<ParsedDocument> {
    let path = path.as_ref();
    let bytes = read_document_bytes(path, None)?;
    parse_file_bytes(path, &bytes)
}

/// The bytes of the regular file `path` (inside `roots` when given: see
/// [`open::open_document`]), refused past [`MAX_INPUT_BYTES`].
pub fn read_document_bytes(
    path: &Path,
    roots: Option<&[std::path::PathBuf]>,
) -> std::result::Result<Vec<u8>, InputError> {
    use std::io::Read;
    let file = open::open_document(path, roots)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > MAX_INPUT_BYTES as u64 {
        return Err(InputError::Unsupported {
            path: path.to_path_buf(),
            detail: format!(
                "file of {len} bytes exceeds the {} byte limit",
                MAX_INPUT_BYTES
            ),
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::Unreadable {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(InputError::Unsupported {
            path: path.to_path_buf(),
            detail: format!("file exceeds the {MAX_INPUT_BYTES} byte limit"),
        });
    }
    Ok(bytes)
}

/// Parse the `bytes` read from the file `path` (its name hints the format;
/// `source` is the path).
pub fn parse_file_bytes(path: &Path, bytes: &[u8]) -> Result<ParsedDocument> {
    let name = path.to_string_lossy();
    let mut parsed = parse_bytes(bytes, None, Some(&name), None).map_err(|e| match e {
        Error::Parse(ParseError::Unsupported(detail)) => Error::Input(InputError::Unsupported {
            path: path.to_path_buf(),
            detail,
        }),
        other => other,
    })?;
    parsed.document.source = name.into_owned();
    Ok(parsed)
}

/// Shared helper: a `Document` with a provisional uid (callers set the final one).
pub(crate) fn new_document(content: String) -> verity_core::Document {
    let uid = verity_core::stable_uid("", &content);
    verity_core::Document::new(uid, content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b"%PDF-1.7\n", None, None, None), Sniffed::Pdf);
        assert_eq!(
            sniff(b"  <!DOCTYPE html><html>", None, None, None),
            Sniffed::Html
        );
        assert_eq!(
            sniff(b"hello", Some("text/html; charset=utf-8"), None, None),
            Sniffed::Html
        );
        assert_eq!(
            sniff(b"hello", None, Some("notes/readme.md"), None),
            Sniffed::Markdown
        );
        assert_eq!(
            sniff(
                b"# Title\n\nSome `code` and ## more\n\n## Sub\n",
                None,
                None,
                None
            ),
            Sniffed::Markdown
        );
        assert_eq!(sniff(b"just words", None, None, None), Sniffed::Text);
        let u = Url::parse("https://example.com/paper.pdf?x=1").ok();
        assert_eq!(sniff(b"??", None, None, u.as_ref()), Sniffed::Pdf);
    }

    #[test]
    fn dispatch_html_text_markdown() {
        let url = Url::parse("https://example.com/a/b.html").ok();
        let html = b"<html lang=en><head><title>T</title></head><body><article><p>Hello <a href='/x'>link</a> world, this is a paragraph of text that is long enough.</p></article></body></html>";
        let p = parse_bytes(html, None, None, url.as_ref()).unwrap();
        assert_eq!(p.format, verity_core::SourceFormat::Html);
        assert!(
            p.document.content.contains("Hello link world"),
            "{}",
            p.document.content
        );
        assert_eq!(
            p.document.metadata["links"][0]["url"],
            "https://example.com/x"
        );
        assert_eq!(
            p.document.url.as_deref(),
            Some("https://example.com/a/b.html")
        );

        let p = parse_bytes(
            b"---\ntitle: Front\n---\nbody text",
            None,
            Some("x.md"),
            None,
        )
        .unwrap();
        assert_eq!(p.document.title.as_deref(), Some("Front"));
        assert_eq!(p.format, verity_core::SourceFormat::Markdown);

        let p = parse_bytes(b"\xFF\xFEh\x00i\x00", None, None, None).unwrap();
        assert_eq!(p.document.content, "hi");
        assert_eq!(p.format, verity_core::SourceFormat::Text);

        let err = parse_bytes(b"\x00\x01\x02\x03binary\x00\x00", None, None, None).unwrap_err();
        assert_eq!(err.code(), "parse_error");
    }

    #[test]
    fn parse_file_reads_and_reports() {
        let dir = std::env::temp_dir().join(format!("verity-extract-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("note.txt");
        std::fs::write(&f, "caf\u{e9} notes\n\nsecond").unwrap();
        let p = parse_file(&f).unwrap();
        assert!(p.document.content.contains("café"));
        assert_eq!(p.document.source, f.to_string_lossy());
        let missing = parse_file(dir.join("missing.txt")).unwrap_err();
        assert_eq!(missing.code(), "invalid_input");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
