//! Character encoding detection: BOM, HTML `<meta charset>`, content-type
//! `charset=`, UTF-8 validity, and a Windows-1252 (Latin-1 superset) fallback.

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

/// Decode `bytes` into a string: a byte-order mark wins, then a `charset` label
/// (`declared`, e.g. from a `Content-Type` header), then valid UTF-8, then
/// UTF-16 without BOM when the zero-byte pattern says so, then Windows-1252.
/// Returns the text and the name of the encoding used.
pub fn decode_text(bytes: &[u8], declared: Option<&str>) -> (String, &'static str) {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let body = bytes.get(bom_len..).unwrap_or(&[]);
        let (text, _) = enc.decode_without_bom_handling(body);
        return (text.into_owned(), enc.name());
    }
    if let Some(enc) = declared.and_then(|l| Encoding::for_label(l.trim().as_bytes())) {
        // A page labelled UTF-16 without BOM, or a label that lies about
        // ASCII-compatible bytes, is still decoded with the label.
        let enc = if enc == UTF_16LE || enc == UTF_16BE {
            utf16_guess(bytes).unwrap_or(enc)
        } else {
            enc
        };
        let (text, _) = enc.decode_without_bom_handling(bytes);
        return (text.into_owned(), enc.name());
    }
    if bytes.contains(&0) {
        if let Some(enc) = utf16_guess(bytes) {
            let (text, _) = enc.decode_without_bom_handling(bytes);
            return (text.into_owned(), enc.name());
        }
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return (s.to_string(), UTF_8.name());
    }
    // Mostly-UTF-8 with a few bad bytes (truncated page): keep UTF-8 with
    // replacement characters rather than mojibake everything.
    let invalid = count_invalid_utf8(bytes);
    let non_ascii = bytes.iter().filter(|b| !b.is_ascii()).count();
    if non_ascii > 0 && invalid * 20 < non_ascii {
        return (String::from_utf8_lossy(bytes).into_owned(), UTF_8.name());
    }
    let (text, _) = WINDOWS_1252.decode_without_bom_handling(bytes);
    (text.into_owned(), WINDOWS_1252.name())
}

/// Decode HTML bytes: BOM, then the transport `charset`, then a `<meta charset>`
/// or `<meta http-equiv content="…charset=…">` in the first 4 KiB, then [`decode_text`]'s rules.
pub fn decode_html(bytes: &[u8], content_type: Option<&str>) -> (String, &'static str) {
    if Encoding::for_bom(bytes).is_some() {
        return decode_text(bytes, None);
    }
    let declared = content_type
        .and_then(charset_param)
        .or_else(|| meta_charset(bytes));
    // A meta claiming UTF-16 in an ASCII-compatible byte stream means UTF-8 (HTML spec).
    let declared = declared.map(|d| {
        let lower = d.to_ascii_lowercase();
        if lower.starts_with("utf-16") && utf16_guess(bytes).is_none() {
            "utf-8".to_string()
        } else {
            d
        }
    });
    // A wrong `iso-8859-1` label on valid UTF-8 is common: trust valid multi-byte UTF-8.
    if let Some(d) = &declared {
        let enc = Encoding::for_label(d.trim().as_bytes());
        if enc == Some(WINDOWS_1252) && !bytes.is_ascii() && std::str::from_utf8(bytes).is_ok() {
            return decode_text(bytes, None);
        }
    }
    decode_text(bytes, declared.as_deref())
}

/// The `charset=` parameter of a content type.
pub fn charset_param(content_type: &str) -> Option<String> {
    let lower = content_type.to_ascii_lowercase();
    let i = lower.find("charset=")?;
    let v = lower.get(i + 8..)?;
    let v = v.trim_start_matches(['"', '\'']);
    let end = v
        .find(|c: char| c == ';' || c == '"' || c == '\'' || c.is_whitespace())
        .unwrap_or(v.len());
    let v = v.get(..end)?;
    (!v.is_empty()).then(|| v.to_string())
}

/// A charset declared by a `<meta>` in the first 4 KiB.
fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = bytes.get(..bytes.len().min(4096)).unwrap_or(bytes);
    let lower: Vec<u8> = head.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut from = 0;
    while let Some(i) = find(&lower, b"<meta", from) {
        let end = lower
            .get(i..)
            .and_then(|s| s.iter().position(|&b| b == b'>'))
            .map(|e| e + i)
            .unwrap_or(lower.len());
        let tag = String::from_utf8_lossy(lower.get(i..end).unwrap_or(&[])).into_owned();
        if let Some(j) = tag.find("charset") {
            let rest = tag.get(j + 7..).unwrap_or("").trim_start();
            if let Some(rest) = rest.strip_prefix('=') {
                let rest = rest.trim_start().trim_start_matches(['"', '\'']);
                let e = rest
                    .find(|c: char| {
                        c == '"' || c == '\'' || c == ';' || c == '/' || c.is_whitespace()
                    })
                    .unwrap_or(rest.len());
                let v = rest.get(..e).unwrap_or("");
                if !v.is_empty() {
                    return Some(v.to_string());
                }
            }
        }
        from = end;
    }
    None
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// UTF-16 without BOM: many zero bytes at odd (LE) or even (BE) positions.
fn utf16_guess(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = bytes.get(..bytes.len().min(1024)).unwrap_or(bytes);
    if sample.len() < 4 {
        return None;
    }
    let pairs = sample.len() / 2;
    let even_zero = sample
        .chunks_exact(2)
        .filter(|c| c.first() == Some(&0))
        .count();
    let odd_zero = sample
        .chunks_exact(2)
        .filter(|c| c.get(1) == Some(&0))
        .count();
    if odd_zero * 10 >= pairs * 7 && even_zero * 10 < pairs {
        Some(UTF_16LE)
    } else if even_zero * 10 >= pairs * 7 && odd_zero * 10 < pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

fn count_invalid_utf8(mut bytes: &[u8]) -> usize {
    let mut n = 0;
    loop {
        match std::str::from_utf8(bytes) {
            Ok(_) => return n,
            Err(e) => {
                n += 1;
                let skip = e.valid_up_to() + e.error_len().unwrap_or(1);
                match bytes.get(skip..) {
                    Some(rest) if !rest.is_empty() => bytes = rest,
                    _ => return n,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_and_fallbacks() {
        assert_eq!(
            decode_text(b"\xEF\xBB\xBFcaf\xC3\xA9", None),
            ("café".to_string(), "UTF-8")
        );
        assert_eq!(decode_text(b"caf\xC3\xA9", None).0, "café");
        assert_eq!(
            decode_text(b"\xFF\xFEc\x00a\x00f\x00\xE9\x00", None),
            ("café".to_string(), "UTF-16LE")
        );
        assert_eq!(
            decode_text(b"\xFE\xFF\x00c\x00a\x00f\x00\xE9", None),
            ("café".to_string(), "UTF-16BE")
        );
        assert_eq!(
            decode_text(b"caf\xE9 \x93quoted\x94", None),
            ("café “quoted”".to_string(), "windows-1252")
        );
        assert_eq!(decode_text(b"c\x00a\x00f\x00e\x00", None).0, "cafe");
    }

    #[test]
    fn html_meta_charset() {
        let html = b"<html><head><meta charset=\"iso-8859-15\"></head><body>\xA4</body></html>";
        assert!(decode_html(html, None).0.contains('€'));
        let html = b"<meta http-equiv=Content-Type content='text/html; charset=windows-1251'><p>\xCF\xF0\xE8";
        assert!(decode_html(html, None).0.contains("При"));
        // The transport header wins over the meta.
        let html = b"<meta charset=windows-1251><p>caf\xC3\xA9";
        assert!(decode_html(html, Some("text/html; charset=utf-8"))
            .0
            .contains("café"));
        assert_eq!(
            charset_param("text/html; Charset=\"UTF-8\""),
            Some("utf-8".into())
        );
    }
}
