//! CMaps: `/ToUnicode` maps (bfchar, bfrange incl. the array form) and the
//! codespace ranges that tell how many bytes a character code takes.

use std::collections::HashMap;

use super::lexer::{Lexer, Tok};

/// Largest range expanded or stored (a `<0000> <FFFF>` range is fine: it is
/// kept as a range, not expanded).
const MAX_ENTRIES: usize = 1 << 20;

/// A codespace range: codes of `len` bytes between `lo` and `hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CodeRange {
    pub(crate) len: u8,
    pub(crate) lo: u32,
    pub(crate) hi: u32,
}

#[derive(Debug, Clone)]
enum RangeDst {
    /// Destination of the first code; the last UTF-16 unit is incremented.
    Base(Vec<u16>),
    /// One destination per code.
    List(Vec<String>),
}

/// A parsed CMap.
#[derive(Debug, Clone, Default)]
pub(crate) struct CMap {
    pub(crate) codespace: Vec<CodeRange>,
    singles: HashMap<u32, String>,
    ranges: Vec<(u32, u32, RangeDst)>,
}

fn code_of(bytes: &[u8]) -> Option<(u32, u8)> {
    if bytes.is_empty() || bytes.len() > 4 {
        return None;
    }
    let mut v = 0u32;
    for &b in bytes {
        v = (v << 8) | u32::from(b);
    }
    Some((v, bytes.len() as u8))
}

/// Decode UTF-16BE (with surrogate pairs); lone surrogates become U+FFFD.
pub(crate) fn utf16be(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
        .collect();
    String::from_utf16_lossy(&units)
}

fn units_of(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
        .collect()
}

impl CMap {
    /// Parse CMap program text. Never fails: whatever can be read is kept.
    pub(crate) fn parse(data: &[u8]) -> CMap {
        let mut cmap = CMap::default();
        let mut lx = Lexer::new(data);
        #[derive(PartialEq)]
        enum Mode {
            None,
            Codespace,
            BfChar,
            BfRange,
        }
        let mut mode = Mode::None;
        let mut pending: Vec<Tok<'_>> = Vec::new();
        let mut array: Option<Vec<Vec<u8>>> = None;
        let mut entries = 0usize;
        while let Some(tok) = lx.next_tok() {
            match tok {
                Tok::Word(w) => {
                    mode = match w {
                        b"begincodespacerange" => Mode::Codespace,
                        b"beginbfchar" => Mode::BfChar,
                        b"beginbfrange" => Mode::BfRange,
                        _ if w.starts_with(b"end") => Mode::None,
                        _ => mode,
                    };
                    pending.clear();
                    continue;
                }
                Tok::ArrBegin if mode == Mode::BfRange => {
                    array = Some(Vec::new());
                    continue;
                }
                Tok::Str(s) if array.is_some() => {
                    if let Some(a) = array.as_mut() {
                        a.push(s);
                    }
                    continue;
                }
                Tok::ArrEnd if array.is_some() => {
                    let list = array.take().unwrap_or_default();
                    if let (Some(Tok::Str(lo)), Some(Tok::Str(hi))) =
                        (pending.first(), pending.get(1))
                    {
                        if let (Some((lo, _)), Some((hi, _))) = (code_of(lo), code_of(hi)) {
                            if lo <= hi && entries < MAX_ENTRIES {
                                entries += list.len();
                                let list = list.iter().map(|d| utf16be(d)).collect();
                                cmap.ranges.push((lo, hi, RangeDst::List(list)));
                            }
                        }
                    }
                    pending.clear();
                    continue;
                }
                _ => {}
            }
            if mode == Mode::None {
                continue;
            }
            pending.push(tok);
            match mode {
                Mode::Codespace if pending.len() == 2 => {
                    if let (Some(Tok::Str(lo)), Some(Tok::Str(hi))) =
                        (pending.first(), pending.get(1))
                    {
                        if let (Some((l, n)), Some((h, _))) = (code_of(lo), code_of(hi)) {
                            cmap.codespace.push(CodeRange {
                                len: n,
                                lo: l,
                                hi: h,
                            });
                        }
                    }
                    pending.clear();
                }
                Mode::BfChar if pending.len() == 2 => {
                    if let (Some(Tok::Str(src)), Some(dst)) = (pending.first(), pending.get(1)) {
                        if let Some((code, _)) = code_of(src) {
                            let text = match dst {
                                Tok::Str(d) => Some(utf16be(d)),
                                Tok::Name(n) => {
                                    super::font::glyph_to_unicode(&String::from_utf8_lossy(n))
                                }
                                _ => None,
                            };
                            if let Some(text) = text {
                                if entries < MAX_ENTRIES {
                                    entries += 1;
                                    cmap.singles.insert(code, text);
                                }
                            }
                        }
                    }
                    pending.clear();
                }
                Mode::BfRange if pending.len() == 3 => {
                    if let (Some(Tok::Str(lo)), Some(Tok::Str(hi)), Some(Tok::Str(dst))) =
                        (pending.first(), pending.get(1), pending.get(2))
                    {
                        if let (Some((lo, _)), Some((hi, _))) = (code_of(lo), code_of(hi)) {
                            if lo <= hi && entries < MAX_ENTRIES {
                                entries += 1;
                                cmap.ranges.push((lo, hi, RangeDst::Base(units_of(dst))));
                            }
                        }
                    }
                    pending.clear();
                }
                _ => {
                    if pending.len() > 3 {
                        pending.clear();
                    }
                }
            }
        }
        cmap
    }

    /// Whether the map has any mapping.
    pub(crate) fn is_empty(&self) -> bool {
        self.singles.is_empty() && self.ranges.is_empty()
    }

    /// Unicode text of `code`, if mapped.
    pub(crate) fn lookup(&self, code: u32) -> Option<String> {
        if let Some(s) = self.singles.get(&code) {
            return Some(s.clone());
        }
        for (lo, hi, dst) in self.ranges.iter().rev() {
            if *lo <= code && code <= *hi {
                let off = code - lo;
                return match dst {
                    RangeDst::Base(units) => {
                        let mut units = units.clone();
                        let last = units.last_mut()?;
                        *last = last.wrapping_add(off as u16);
                        Some(String::from_utf16_lossy(&units))
                    }
                    RangeDst::List(list) => list.get(off as usize).cloned(),
                };
            }
        }
        None
    }

    /// Length in bytes of the code at the start of `bytes` under this
    /// codespace (`default` when no range matches).
    pub(crate) fn code_len(codespace: &[CodeRange], bytes: &[u8], default: usize) -> usize {
        for n in 1..=4usize {
            let Some(head) = bytes.get(..n) else { break };
            let Some((code, _)) = code_of(head) else {
                break;
            };
            if codespace
                .iter()
                .any(|r| usize::from(r.len) == n && r.lo <= code && code <= r.hi)
            {
                return n;
            }
        }
        default.clamp(1, 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &[u8] = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Adobe-Identity-UCS def
1 begincodespacerange <0000> <FFFF> endcodespacerange
3 beginbfchar
<0003> <0020>
<0011> <FB01>
<0012> <D835DC00>
endbfchar
2 beginbfrange
<0020> <0022> <0041>
<0030> <0032> [<0061> <00660066> <0063>]
endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end";

    #[test]
    fn bfchar_bfrange_and_surrogates() {
        let c = CMap::parse(SAMPLE);
        assert_eq!(
            c.codespace,
            vec![CodeRange {
                len: 2,
                lo: 0,
                hi: 0xffff
            }]
        );
        assert_eq!(c.lookup(3).as_deref(), Some(" "));
        assert_eq!(c.lookup(0x11).as_deref(), Some("\u{fb01}"));
        assert_eq!(c.lookup(0x12).as_deref(), Some("\u{1d400}"));
        assert_eq!(c.lookup(0x21).as_deref(), Some("B"));
        assert_eq!(c.lookup(0x22).as_deref(), Some("C"));
        assert_eq!(c.lookup(0x31).as_deref(), Some("ff"));
        assert_eq!(c.lookup(0x40), None);
        assert_eq!(CMap::code_len(&c.codespace, &[0, 3, 0, 4], 1), 2);
    }

    #[test]
    fn mixed_codespace_lengths() {
        let c = CMap::parse(b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange");
        assert_eq!(CMap::code_len(&c.codespace, &[0x41, 0x81], 1), 1);
        assert_eq!(CMap::code_len(&c.codespace, &[0x81, 0x41], 1), 2);
    }
}
