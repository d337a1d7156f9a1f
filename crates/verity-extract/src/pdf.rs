//! PDF text extraction with lopdf: per-page text through font encodings and ToUnicode CMaps.
//!
//! lopdf reads the file structure (cross-reference, objects, filters,
//! decryption with the empty password); this module interprets the page
//! content streams itself: text and graphics state, Form XObjects, fonts
//! (`/ToUnicode`, simple encodings with `/Differences`, Type0/Identity-H),
//! then lays the glyphs out into lines (two-column aware) and paragraphs.
//!
//! ```no_run
//! let bytes = std::fs::read("paper.pdf").unwrap();
//! let parsed = verity_extract::pdf::parse_pdf(&bytes).unwrap();
//! println!("{} pages: {}", parsed.pages.len(), parsed.document.content);
//! ```

mod cmap;
mod font;
mod interp;
mod layout;
mod lexer;
mod meta;
mod tables;

use std::panic::{catch_unwind, AssertUnwindSafe};

use lopdf::{Dictionary, Document, LoadOptions, Object, Stream};
use verity_core::{Error, PageSpan, ParseError, ParsedDocument, Result, SourceFormat};

use interp::{FontCache, Interp, PageGlyphs};

/// Bounds on the work done for one document.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// Pages read (later pages are ignored).
    pub(crate) max_pages: usize,
    /// Decompressed bytes of one content stream (page or form).
    pub(crate) max_content_bytes: usize,
    /// Operators run per page.
    pub(crate) max_ops_per_page: usize,
    /// Glyphs kept per page.
    pub(crate) max_glyphs_per_page: usize,
    /// Nesting of Form XObjects.
    pub(crate) max_form_depth: usize,
    /// Form XObjects drawn per page.
    pub(crate) max_forms_per_page: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_pages: 5_000,
            max_content_bytes: 64 << 20,
            max_ops_per_page: 4_000_000,
            max_glyphs_per_page: 400_000,
            max_form_depth: 12,
            max_forms_per_page: 5_000,
        }
    }
}

/// Largest decompressed size of any stream while loading the file.
const MAX_STREAM_BYTES: usize = 128 << 20;

fn malformed(message: impl Into<String>) -> Error {
    Error::Parse(ParseError::Malformed {
        format: "pdf",
        message: message.into(),
    })
}

fn no_text(reason: impl Into<String>) -> Error {
    Error::Parse(ParseError::NoTextLayer {
        reason: reason.into(),
    })
}

/// Follow references (bounded) to the object itself.
pub(crate) fn resolve<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Object> {
    let mut o = obj;
    for _ in 0..16 {
        match o {
            Object::Reference(id) => o = doc.get_object(*id).ok()?,
            other => return Some(other),
        }
    }
    None
}

/// `dict[key]`, references followed.
pub(crate) fn get<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    resolve(doc, dict.get(key).ok()?)
}

/// `dict[key]` as a dictionary (a stream's dictionary counts).
pub(crate) fn get_dict<'a>(
    doc: &'a Document,
    dict: &'a Dictionary,
    key: &[u8],
) -> Option<&'a Dictionary> {
    match get(doc, dict, key)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// A name's bytes.
pub(crate) fn name_of(o: &Object) -> Option<Vec<u8>> {
    o.as_name().ok().map(<[u8]>::to_vec)
}

/// A number as `f32`.
pub(crate) fn num_of(o: &Object) -> Option<f32> {
    o.as_float().ok().filter(|v| v.is_finite())
}

/// Decoded stream bytes, bounded; raw bytes when the filter is unsupported.
pub(crate) fn stream_data(s: &Stream, limit: usize) -> Option<Vec<u8>> {
    match s.decompressed_content_with_limit(limit) {
        Ok(d) => Some(d),
        Err(lopdf::Error::Decompress(_)) if s.content.len() > limit => None,
        Err(_) => {
            if s.filters().map(|f| f.is_empty()).unwrap_or(true) && s.content.len() <= limit {
                Some(s.content.clone())
            } else {
                None
            }
        }
    }
}

/// Text extracted from each page, in page order (empty string for a page
/// without text). Errors as [`parse_pdf`].
pub fn extract_pages(bytes: &[u8]) -> Result<Vec<String>> {
    let ex = guarded(bytes)?;
    Ok(ex.pages.into_iter().map(|p| p.text).collect())
}

/// Parse a PDF into a [`ParsedDocument`]: Markdown-ish content (pages
/// separated by blank lines), title/author/date/lang from the Info
/// dictionary or XMP (title falls back to the largest first-page line), and
/// the page map.
///
/// Errors: [`ParseError::NoTextLayer`] for encrypted PDFs that the empty
/// password does not open and for image-only PDFs; [`ParseError::Malformed`]
/// for damaged files. Never panics.
pub fn parse_pdf(bytes: &[u8]) -> Result<ParsedDocument> {
    let ex = guarded(bytes)?;
    let mut content = String::new();
    let mut spans = Vec::with_capacity(ex.pages.len());
    for (i, p) in ex.pages.iter().enumerate() {
        let text = p.text.trim();
        if !text.is_empty() && !content.is_empty() {
            content.push_str("\n\n");
        }
        let start = content.len();
        content.push_str(text);
        spans.push(PageSpan {
            page: i as u32 + 1,
            start,
            end: content.len(),
        });
    }
    let mut document =
        verity_core::Document::new(verity_core::stable_uid("pdf", &content), content);
    let info = ex.info;
    document.title = info.title.or(ex.fallback_title);
    document.lang = info.lang;
    document.ts = info.date.and_then(|d| d.parse().ok());
    if let Some(author) = info.author {
        document.metadata.insert("author".into(), author.into());
    }
    if let Some(subject) = info.subject {
        document.metadata.insert("subject".into(), subject.into());
    }
    if let Some(keywords) = info.keywords {
        document.metadata.insert("keywords".into(), keywords.into());
    }
    document
        .metadata
        .insert("page_count".into(), (ex.page_count as u64).into());
    Ok(ParsedDocument {
        document,
        format: SourceFormat::Pdf,
        pages: spans,
    })
}

struct Extraction {
    pages: Vec<layout::PageText>,
    info: meta::Info,
    fallback_title: Option<String>,
    page_count: usize,
}

fn guarded(bytes: &[u8]) -> Result<Extraction> {
    match catch_unwind(AssertUnwindSafe(|| extract(bytes, &Limits::default()))) {
        Ok(r) => r,
        Err(_) => Err(malformed("the PDF reader failed on damaged data")),
    }
}

fn looks_encrypted(bytes: &[u8]) -> bool {
    bytes.windows(8).any(|w| w == b"/Encrypt")
}

fn extract(bytes: &[u8], limits: &Limits) -> Result<Extraction> {
    let head = bytes.get(..bytes.len().min(1024)).unwrap_or_default();
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(malformed("no %PDF- header"));
    }
    let options = LoadOptions {
        max_decompressed_size: Some(MAX_STREAM_BYTES),
        ..LoadOptions::default()
    };
    let doc = match Document::load_mem_with_options(bytes, options) {
        Ok(d) => d,
        Err(e) => {
            let msg = e.to_string();
            let lower = msg.to_lowercase();
            if looks_encrypted(bytes)
                && (lower.contains("encrypt")
                    || lower.contains("password")
                    || lower.contains("decrypt"))
            {
                return Err(no_text(format!(
                    "encrypted PDF that cannot be opened without a password ({msg})"
                )));
            }
            return Err(malformed(msg));
        }
    };
    if doc.is_encrypted() {
        return Err(no_text(
            "encrypted PDF that cannot be opened without a password",
        ));
    }
    let page_ids: Vec<_> = doc.page_iter().take(limits.max_pages + 1).collect();
    if page_ids.is_empty() {
        return Err(malformed("no pages"));
    }
    let mut fonts = FontCache::new();
    let mut pages = Vec::with_capacity(page_ids.len());
    let (mut glyphs, mut unmapped, mut images) = (0usize, 0usize, 0usize);
    for &id in page_ids.iter().take(limits.max_pages) {
        let page = run_page(&doc, id, &mut fonts, limits);
        glyphs += page.glyphs.len();
        unmapped += page.unmapped;
        images += page.images;
        pages.push(layout::layout(&page));
    }
    let chars: usize = pages
        .iter()
        .map(|p| p.text.chars().filter(|c| !c.is_whitespace()).count())
        .sum();
    if chars == 0 {
        let reason = if unmapped > 0 {
            format!(
                "{unmapped} glyphs are shown but none maps to Unicode (fonts without ToUnicode)"
            )
        } else if images > 0 {
            format!("image-only PDF: {images} images and no text operators (scanned? needs OCR)")
        } else {
            "no text operators on any page".to_string()
        };
        return Err(no_text(reason));
    }
    if unmapped > 4 * glyphs && chars < 200 {
        return Err(no_text(format!(
            "{unmapped} of {} glyphs have no Unicode mapping",
            unmapped + glyphs
        )));
    }
    let info = meta::read_info(&doc);
    let fallback_title = pages.first().and_then(title_from_layout);
    Ok(Extraction {
        pages,
        info,
        fallback_title,
        page_count: page_ids.len(),
    })
}

fn run_page(
    doc: &Document,
    id: lopdf::ObjectId,
    fonts: &mut FontCache,
    limits: &Limits,
) -> PageGlyphs {
    let mut it = Interp::new(doc, fonts, limits);
    let content = match doc.get_page_content_with_limit(id, limits.max_content_bytes) {
        Ok(c) => c,
        Err(_) => {
            it.out.truncated = true;
            return it.out;
        }
    };
    // Resources: the nearest inline dictionary or the first referenced one.
    let resources: Option<&Dictionary> = match doc.get_page_resources(id) {
        Ok((Some(d), _)) => Some(d),
        Ok((None, ids)) => ids.first().and_then(|rid| doc.get_dictionary(*rid).ok()),
        Err(_) => None,
    };
    it.run(&content, resources, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], 0);
    it.out
}

/// Largest-font lines at the top of the first page, when larger than body text.
fn title_from_layout(p: &layout::PageText) -> Option<String> {
    let max = p
        .lines
        .iter()
        .take(40)
        .map(|l| l.size)
        .fold(0.0f32, f32::max);
    if max < p.body_size * 1.15 {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut started = false;
    for l in p.lines.iter().take(40) {
        if (l.size - max).abs() < 0.5 {
            started = true;
            parts.push(l.text.trim());
        } else if started {
            break;
        }
    }
    let t: String = parts.join(" ");
    let t: String = t.chars().take(300).collect();
    (!t.trim().is_empty()).then(|| t.trim().to_string())
}
