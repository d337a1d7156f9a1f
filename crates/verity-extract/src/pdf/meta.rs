//! Document metadata: the Info dictionary, XMP and the catalog's `/Lang`.

use lopdf::{Document, Object};

use super::cmap::utf16be;
use super::{get, get_dict, stream_data, tables};

/// Metadata found in the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Info {
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    pub(crate) subject: Option<String>,
    pub(crate) keywords: Option<String>,
    /// RFC 3339 date.
    pub(crate) date: Option<String>,
    /// ISO 639-1 code.
    pub(crate) lang: Option<String>,
}

/// Decode a PDF text string (UTF-16BE with BOM, UTF-8 with BOM, or PDFDocEncoding).
pub(crate) fn text_string(b: &[u8]) -> String {
    if let Some(rest) = b.strip_prefix(&[0xfe, 0xff]) {
        return utf16be(rest);
    }
    if let Some(rest) = b.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    b.iter()
        .filter_map(
            |&c| match tables::PDF_DOC.get(usize::from(c)).copied().unwrap_or(0) {
                0 if c.is_ascii() => Some(char::from(c)),
                0 => None,
                u => char::from_u32(u32::from(u)),
            },
        )
        .collect()
}

fn clean(s: String) -> Option<String> {
    let s: String = s.chars().filter(|c| !c.is_control() || *c == ' ').collect();
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty() && !s.eq_ignore_ascii_case("untitled")).then_some(s)
}

/// `D:YYYYMMDDHHmmSSOHH'mm'` (most parts optional) to RFC 3339.
pub(crate) fn pdf_date(s: &str) -> Option<String> {
    let s = s.trim();
    let s = s.strip_prefix("D:").unwrap_or(s);
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 {
        return None;
    }
    let part = |from: usize, len: usize, default: u32| -> u32 {
        digits
            .get(from..from + len)
            .and_then(|p| p.parse().ok())
            .unwrap_or(default)
    };
    let (year, month, day) = (part(0, 4, 1), part(4, 2, 1), part(6, 2, 1));
    let (hour, min, sec) = (part(8, 2, 0), part(10, 2, 0), part(12, 2, 0));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let rest = s.get(digits.len()..).unwrap_or("");
    let offset = match rest.chars().next() {
        Some(sign @ ('+' | '-')) => {
            let tz: String = rest.chars().skip(1).filter(char::is_ascii_digit).collect();
            let h: u32 = tz.get(0..2).and_then(|p| p.parse().ok()).unwrap_or(0);
            let m: u32 = tz.get(2..4).and_then(|p| p.parse().ok()).unwrap_or(0);
            if h > 23 || m > 59 {
                "Z".to_string()
            } else {
                format!("{sign}{h:02}:{m:02}")
            }
        }
        _ => "Z".to_string(),
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{min:02}:{:02}{offset}",
        sec.min(59)
    ))
}

/// Language tag (`en-US`) to its ISO 639-1 part (`en`).
fn lang_code(s: &str) -> Option<String> {
    let primary = s.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    (primary.len() == 2 && primary.chars().all(|c| c.is_ascii_alphabetic()) && primary != "x-")
        .then_some(primary)
}

/// Inner text of the first `<tag …>…</tag>` in `xml` (markup removed).
fn xml_field(xml: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}");
    let start = xml.find(&open)?;
    let after = xml.get(start + open.len()..)?;
    // Attribute form: <dc:title="…"> is not valid XMP, but `xmp:CreateDate="…"` attributes are.
    let gt = after.find('>')?;
    if after.get(gt.saturating_sub(1)..gt) == Some("/") {
        return None;
    }
    let body = after.get(gt + 1..)?;
    let end = body.find(&format!("</{tag}>"))?;
    let inner = body.get(..end)?;
    // Strip nested tags (rdf:Alt / rdf:li), keep the first li's text.
    let mut out = String::new();
    let mut in_tag = false;
    let mut got_text = false;
    for c in inner.chars() {
        match c {
            '<' => {
                in_tag = true;
                if got_text && !out.trim().is_empty() {
                    break;
                }
            }
            '>' => in_tag = false,
            c if !in_tag => {
                out.push(c);
                if !c.is_whitespace() {
                    got_text = true;
                }
            }
            _ => {}
        }
    }
    let out = out
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'");
    clean(out)
}

fn xml_attr(xml: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let start = xml.find(&key)? + key.len();
    let rest = xml.get(start..)?;
    let end = rest.find('"')?;
    clean(rest.get(..end)?.to_string())
}

/// Read Info, XMP and `/Lang`; Info wins over XMP when both are present.
pub(crate) fn read_info(doc: &Document) -> Info {
    let mut info = Info::default();
    let info_dict = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|o| super::resolve(doc, o))
        .and_then(|o| o.as_dict().ok());
    if let Some(d) = info_dict {
        let field = |k: &[u8]| {
            get(doc, d, k)
                .and_then(|o| o.as_str().ok())
                .map(text_string)
                .and_then(clean)
        };
        info.title = field(b"Title");
        info.author = field(b"Author");
        info.subject = field(b"Subject");
        info.keywords = field(b"Keywords");
        info.date = field(b"CreationDate").and_then(|s| pdf_date(&s));
    }
    let catalog = doc
        .trailer
        .get(b"Root")
        .ok()
        .and_then(|o| super::resolve(doc, o))
        .and_then(|o| o.as_dict().ok());
    if let Some(cat) = catalog {
        if let Some(Object::String(l, _)) = get(doc, cat, b"Lang") {
            info.lang = lang_code(&text_string(l));
        }
        let xmp = get(doc, cat, b"Metadata")
            .and_then(|o| o.as_stream().ok())
            .and_then(|s| stream_data(s, 4 << 20));
        if let Some(xmp) = xmp {
            let xml = String::from_utf8_lossy(&xmp);
            if info.title.is_none() {
                info.title = xml_field(&xml, "dc:title");
            }
            if info.author.is_none() {
                info.author = xml_field(&xml, "dc:creator");
            }
            if info.date.is_none() {
                info.date = xml_field(&xml, "xmp:CreateDate")
                    .or_else(|| xml_attr(&xml, "xmp:CreateDate"))
                    .and_then(|d| normalise_iso(&d));
            }
            if info.lang.is_none() {
                info.lang = xml_field(&xml, "dc:language").and_then(|l| lang_code(&l));
            }
        }
        let _ = get_dict(doc, cat, b"Pages");
    }
    info
}

/// XMP dates are ISO 8601, possibly without seconds or zone.
fn normalise_iso(s: &str) -> Option<String> {
    let s = s.trim();
    let digits: String = s.chars().filter(char::is_ascii_digit).take(14).collect();
    let zone_start = s
        .get(10..)
        .and_then(|t| t.find(['Z', '+', '-']).map(|i| i + 10));
    let zone = zone_start.and_then(|i| s.get(i..)).unwrap_or("");
    let zone = zone.replace(':', "");
    let pdf = format!(
        "D:{digits}{}",
        if zone.starts_with('Z') {
            ""
        } else {
            zone.as_str()
        }
    );
    pdf_date(&pdf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(
            pdf_date("D:20240131120000+01'00'").as_deref(),
            Some("2024-01-31T12:00:00+01:00")
        );
        assert_eq!(pdf_date("D:2023").as_deref(), Some("2023-01-01T00:00:00Z"));
        assert_eq!(pdf_date("D:20231301"), None);
        assert_eq!(
            normalise_iso("2021-05-06T07:08:09+02:00").as_deref(),
            Some("2021-05-06T07:08:09+02:00")
        );
        assert_eq!(
            normalise_iso("2021-05-06T07:08Z").as_deref(),
            Some("2021-05-06T07:08:00Z")
        );
    }

    #[test]
    fn text_strings() {
        assert_eq!(text_string(b"\xfe\xff\x00A\x00\xe9"), "Aé");
        assert_eq!(text_string(b"caf\xe9"), "café");
    }

    #[test]
    fn xmp_fields() {
        let xml = r#"<x:xmpmeta><rdf:Description xmp:CreateDate="2020-02-03T04:05:06Z"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">A &amp; B</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>Ann</rdf:li><rdf:li>Bob</rdf:li></rdf:Seq></dc:creator></rdf:Description></x:xmpmeta>"#;
        assert_eq!(xml_field(xml, "dc:title").as_deref(), Some("A & B"));
        assert_eq!(xml_field(xml, "dc:creator").as_deref(), Some("Ann"));
        assert_eq!(
            xml_attr(xml, "xmp:CreateDate").as_deref(),
            Some("2020-02-03T04:05:06Z")
        );
        assert_eq!(lang_code("en-US").as_deref(), Some("en"));
    }
}
