//! Fonts: from character codes to Unicode text and glyph widths.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use super::cmap::{CMap, CodeRange};
use super::tables;
use super::{get, name_of, num_of, stream_data};

/// Largest CMap / font program decoded.
const MAX_CMAP_BYTES: usize = 8 << 20;

/// Unicode text for a glyph name: Adobe glyph list subset, `uniXXXX`,
/// `uXXXX[XX]`, ligature names `f_f_i` and suffixed names `a.sc`.
pub(crate) fn glyph_to_unicode(name: &str) -> Option<String> {
    let base = name.split('.').next().unwrap_or(name);
    if base.is_empty() {
        return None;
    }
    if let Ok(i) = tables::GLYPHS.binary_search_by(|(n, _)| n.cmp(&base)) {
        let u = tables::GLYPHS.get(i)?.1;
        return char::from_u32(u32::from(u)).map(String::from);
    }
    if base.contains('_') {
        let parts: Option<String> = base.split('_').map(glyph_to_unicode).collect();
        return parts;
    }
    if let Some(hex) = base.strip_prefix("uni") {
        if hex.len() >= 4 && hex.len() % 4 == 0 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let units: Vec<u16> = hex
                .as_bytes()
                .chunks(4)
                .filter_map(|c| {
                    std::str::from_utf8(c)
                        .ok()
                        .and_then(|s| u16::from_str_radix(s, 16).ok())
                })
                .collect();
            return Some(String::from_utf16_lossy(&units));
        }
    }
    if let Some(hex) = base.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .map(String::from);
        }
    }
    None
}

/// Widths of a font's glyphs.
#[derive(Debug, Clone)]
enum Widths {
    /// Simple font: `/FirstChar` and `/Widths`.
    Simple {
        first: u32,
        widths: Vec<f32>,
        missing: f32,
    },
    /// Composite font: `/W` ranges and `/DW`.
    Cid {
        ranges: Vec<(u32, u32, f32)>,
        singles: HashMap<u32, f32>,
        default: f32,
    },
    /// Base-14 font without `/Widths`.
    Builtin(&'static [u16; 256]),
    /// Monospaced or unknown.
    Fixed(f32),
}

/// A font ready to decode shown strings.
#[derive(Debug, Clone)]
pub(crate) struct Font {
    composite: bool,
    codespace: Vec<CodeRange>,
    to_unicode: Option<CMap>,
    /// Simple fonts: code → text from `/Encoding` (empty = undefined).
    simple: Vec<String>,
    /// Composite font whose codes are UCS-2 / UTF-16 (a `Uni…-UCS2-…` CMap).
    ucs2: bool,
    widths: Widths,
    /// Glyph space → text space (1/1000, or Type 3 `/FontMatrix`).
    scale: f32,
    /// Vertical writing mode (`-V` CMaps): advance goes down.
    pub(crate) vertical: bool,
}

/// One decoded character code.
pub(crate) struct Code<'f> {
    /// The code value.
    pub(crate) code: u32,
    /// Its length in bytes.
    pub(crate) len: usize,
    /// Unicode text, if the code could be mapped.
    pub(crate) text: Option<std::borrow::Cow<'f, str>>,
    /// Advance width in text space units per unit font size.
    pub(crate) width: f32,
}

fn base_table(name: &[u8]) -> Option<&'static [u16; 256]> {
    match name {
        b"WinAnsiEncoding" => Some(&tables::WIN_ANSI),
        b"MacRomanEncoding" => Some(&tables::MAC_ROMAN),
        b"StandardEncoding" => Some(&tables::STANDARD),
        b"PDFDocEncoding" => Some(&tables::PDF_DOC),
        _ => None,
    }
}

fn table_strings(t: &[u16; 256]) -> Vec<String> {
    t.iter()
        .map(|&u| {
            if u == 0 {
                String::new()
            } else {
                char::from_u32(u32::from(u))
                    .map(String::from)
                    .unwrap_or_default()
            }
        })
        .collect()
}

fn builtin_widths(base_font: &[u8]) -> Widths {
    // Subset prefixes `ABCDEF+Name`.
    let name = match base_font.iter().position(|&b| b == b'+') {
        Some(6) => base_font.get(7..).unwrap_or(base_font),
        _ => base_font,
    };
    let s = String::from_utf8_lossy(name).to_ascii_lowercase();
    let bold = s.contains("bold");
    if s.contains("courier") || s.contains("mono") {
        Widths::Fixed(600.0)
    } else if s.contains("times") || s.contains("serif") && !s.contains("sans") {
        if bold {
            Widths::Builtin(&tables::W_TIMES_BOLD)
        } else if s.contains("italic") {
            Widths::Builtin(&tables::W_TIMES_ITALIC)
        } else {
            Widths::Builtin(&tables::W_TIMES_ROMAN)
        }
    } else if bold {
        Widths::Builtin(&tables::W_HELVETICA_BOLD)
    } else {
        Widths::Builtin(&tables::W_HELVETICA)
    }
}

impl Font {
    /// Build a font from its dictionary. Never fails: unknown parts fall back.
    pub(crate) fn load(doc: &Document, dict: &Dictionary) -> Font {
        let subtype = get(doc, dict, b"Subtype")
            .and_then(name_of)
            .unwrap_or_default();
        let base_font = get(doc, dict, b"BaseFont")
            .and_then(name_of)
            .unwrap_or_default();
        let to_unicode = get(doc, dict, b"ToUnicode")
            .and_then(|o| o.as_stream().ok())
            .and_then(|s| stream_data(s, MAX_CMAP_BYTES))
            .map(|d| CMap::parse(&d))
            .filter(|c| !c.is_empty());
        if subtype == b"Type0" {
            return Self::load_composite(doc, dict, to_unicode);
        }
        // Simple font.
        let mut simple = table_strings(if subtype == b"TrueType" {
            &tables::WIN_ANSI
        } else {
            &tables::STANDARD
        });
        let lower = String::from_utf8_lossy(&base_font).to_ascii_lowercase();
        if lower.contains("symbol") {
            simple = table_strings(&tables::SYMBOL);
        }
        match get(doc, dict, b"Encoding") {
            Some(Object::Name(n)) => {
                if let Some(t) = base_table(n) {
                    simple = table_strings(t);
                }
            }
            Some(Object::Dictionary(enc)) => {
                if let Some(t) = get(doc, enc, b"BaseEncoding")
                    .and_then(name_of)
                    .and_then(|n| base_table(&n))
                {
                    simple = table_strings(t);
                }
                if let Some(Object::Array(diffs)) = get(doc, enc, b"Differences") {
                    let mut code: i64 = 0;
                    for item in diffs {
                        match super::resolve(doc, item) {
                            Some(Object::Integer(i)) => code = *i,
                            Some(Object::Real(r)) => code = *r as i64,
                            Some(Object::Name(n)) => {
                                if (0..256).contains(&code) {
                                    let name = String::from_utf8_lossy(n);
                                    let text = glyph_to_unicode(&name).unwrap_or_default();
                                    if let Some(slot) = simple.get_mut(code as usize) {
                                        *slot = text;
                                    }
                                }
                                code += 1;
                            }
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
        let mut scale = 0.001;
        if subtype == b"Type3" {
            if let Some(Object::Array(m)) = get(doc, dict, b"FontMatrix") {
                if let Some(a) = m
                    .first()
                    .and_then(|o| super::resolve(doc, o))
                    .and_then(num_of)
                {
                    if a.is_finite() && a != 0.0 {
                        scale = a.abs();
                    }
                }
            }
        }
        let widths = match get(doc, dict, b"Widths") {
            Some(Object::Array(ws)) => {
                let first = get(doc, dict, b"FirstChar")
                    .and_then(num_of)
                    .unwrap_or(0.0)
                    .max(0.0) as u32;
                let missing = get(doc, dict, b"FontDescriptor")
                    .and_then(|o| o.as_dict().ok())
                    .and_then(|fd| get(doc, fd, b"MissingWidth"))
                    .and_then(num_of)
                    .unwrap_or(0.0);
                let widths = ws
                    .iter()
                    .take(65536)
                    .map(|w| super::resolve(doc, w).and_then(num_of).unwrap_or(missing))
                    .collect();
                Widths::Simple {
                    first,
                    widths,
                    missing,
                }
            }
            _ if subtype == b"Type3" => Widths::Fixed(500.0),
            _ => builtin_widths(&base_font),
        };
        Font {
            composite: false,
            codespace: Vec::new(),
            to_unicode,
            simple,
            ucs2: false,
            widths,
            scale,
            vertical: false,
        }
    }

    fn load_composite(doc: &Document, dict: &Dictionary, to_unicode: Option<CMap>) -> Font {
        let mut codespace = vec![CodeRange {
            len: 2,
            lo: 0,
            hi: 0xffff,
        }];
        let mut ucs2 = false;
        let mut vertical = false;
        match get(doc, dict, b"Encoding") {
            Some(Object::Name(n)) => {
                let s = String::from_utf8_lossy(n);
                ucs2 = s.starts_with("Uni") && (s.contains("UCS2") || s.contains("UTF16"));
                vertical = s.ends_with("-V");
            }
            Some(Object::Stream(st)) => {
                if let Some(data) = stream_data(st, MAX_CMAP_BYTES) {
                    let enc = CMap::parse(&data);
                    if !enc.codespace.is_empty() {
                        codespace = enc.codespace;
                    }
                }
                vertical = get(doc, &st.dict, b"WMode")
                    .and_then(num_of)
                    .is_some_and(|w| w == 1.0);
            }
            _ => {}
        }
        let descendant = match get(doc, dict, b"DescendantFonts") {
            Some(Object::Array(a)) => a
                .first()
                .and_then(|o| super::resolve(doc, o))
                .and_then(|o| o.as_dict().ok()),
            Some(Object::Dictionary(d)) => Some(d),
            _ => None,
        };
        let mut default = 1000.0;
        let mut ranges = Vec::new();
        let mut singles = HashMap::new();
        if let Some(desc) = descendant {
            if let Some(dw) = get(doc, desc, b"DW").and_then(num_of) {
                default = dw;
            }
            if let Some(Object::Array(w)) = get(doc, desc, b"W") {
                let items: Vec<&Object> = w.iter().filter_map(|o| super::resolve(doc, o)).collect();
                let mut i = 0;
                while i < items.len() && singles.len() < 1 << 20 {
                    let Some(start) = items.get(i).and_then(|o| num_of(o)) else {
                        break;
                    };
                    match items.get(i + 1) {
                        Some(Object::Array(list)) => {
                            for (k, w) in list.iter().enumerate().take(1 << 16) {
                                if let Some(w) = super::resolve(doc, w).and_then(num_of) {
                                    singles.insert(start as u32 + k as u32, w);
                                }
                            }
                            i += 2;
                        }
                        Some(end) => {
                            let (Some(end), Some(w)) =
                                (num_of(end), items.get(i + 2).and_then(|o| num_of(o)))
                            else {
                                break;
                            };
                            ranges.push((start as u32, end as u32, w));
                            i += 3;
                        }
                        None => break,
                    }
                }
            }
        }
        Font {
            composite: true,
            codespace,
            to_unicode,
            simple: Vec::new(),
            ucs2,
            widths: Widths::Cid {
                ranges,
                singles,
                default,
            },
            scale: 0.001,
            vertical,
        }
    }

    fn width(&self, code: u32) -> f32 {
        let w = match &self.widths {
            Widths::Simple {
                first,
                widths,
                missing,
            } => code
                .checked_sub(*first)
                .and_then(|i| widths.get(i as usize))
                .copied()
                .unwrap_or(*missing),
            Widths::Cid {
                ranges,
                singles,
                default,
            } => match singles.get(&code) {
                Some(w) => *w,
                None => ranges
                    .iter()
                    .find(|(lo, hi, _)| *lo <= code && code <= *hi)
                    .map(|r| r.2)
                    .unwrap_or(*default),
            },
            Widths::Builtin(t) => match t.get(code as usize).copied().unwrap_or(0) {
                0 => 500.0,
                w => f32::from(w),
            },
            Widths::Fixed(w) => *w,
        };
        let w = if w > 0.0 || matches!(self.widths, Widths::Simple { .. } | Widths::Cid { .. }) {
            w
        } else {
            500.0
        };
        w * self.scale
    }

    /// Decode the codes of a shown string, calling `f` for each.
    pub(crate) fn decode<'f>(&'f self, bytes: &[u8], mut f: impl FnMut(Code<'f>)) {
        let mut i = 0;
        while i < bytes.len() {
            let rest = bytes.get(i..).unwrap_or_default();
            let len = if self.composite {
                CMap::code_len(&self.codespace, rest, 2)
            } else if let Some(tu) = &self.to_unicode {
                // Simple fonts use one byte codes, whatever a broken ToUnicode says.
                let _ = tu;
                1
            } else {
                1
            };
            let Some(head) = bytes.get(i..i + len) else {
                break;
            };
            let code = head.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
            let text = self.unicode(code);
            f(Code {
                code,
                len,
                text,
                width: self.width(code),
            });
            i += len;
        }
    }

    fn unicode(&self, code: u32) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(tu) = &self.to_unicode {
            if let Some(s) = tu.lookup(code) {
                return Some(std::borrow::Cow::Owned(s));
            }
        }
        if self.composite {
            if self.ucs2 {
                return char::from_u32(code).map(|c| std::borrow::Cow::Owned(c.to_string()));
            }
            return None;
        }
        match self.simple.get(code as usize) {
            Some(s) if !s.is_empty() => Some(std::borrow::Cow::Borrowed(s.as_str())),
            _ => None,
        }
    }

    /// Whether single-byte code 32 gets word spacing (`Tw`).
    pub(crate) fn word_space_applies(&self, code: &Code<'_>) -> bool {
        code.len == 1 && code.code == 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyph_names() {
        assert_eq!(glyph_to_unicode("fi").as_deref(), Some("\u{fb01}"));
        assert_eq!(glyph_to_unicode("quoteright").as_deref(), Some("\u{2019}"));
        assert_eq!(glyph_to_unicode("uni00E9").as_deref(), Some("é"));
        assert_eq!(glyph_to_unicode("u1D400").as_deref(), Some("\u{1d400}"));
        assert_eq!(glyph_to_unicode("f_f_i").as_deref(), Some("ffi"));
        assert_eq!(glyph_to_unicode("a.sc").as_deref(), Some("a"));
        assert_eq!(glyph_to_unicode("g123"), None);
    }
}
