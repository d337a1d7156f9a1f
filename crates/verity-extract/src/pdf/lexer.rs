//! A forgiving tokenizer for PDF content streams and CMaps.
//!
//! Unlike a strict parser it never fails: unknown bytes are skipped, so one
//! damaged operator does not lose the rest of the page.

/// An operand of a content-stream operator.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operand {
    /// Integer or real number.
    Num(f32),
    /// Literal or hexadecimal string (raw bytes).
    Str(Vec<u8>),
    /// Name (without the slash, `#xx` escapes resolved).
    Name(Vec<u8>),
    /// Array.
    Arr(Vec<Operand>),
    /// Dictionary or anything else the interpreter does not need.
    Other,
}

impl Operand {
    /// The number, if this is one.
    pub(crate) fn num(&self) -> Option<f32> {
        match self {
            Operand::Num(n) => Some(*n),
            _ => None,
        }
    }
}

/// Most operands kept per operator (the largest real operators take 6–7;
/// long arrays count as one).
const MAX_OPERANDS: usize = 64;
/// Most elements in one array operand.
const MAX_ARRAY: usize = 1 << 16;
/// Deepest array/dict nesting followed.
const MAX_NESTING: usize = 32;

/// Tokenizer over a content stream.
pub(crate) struct Lexer<'a> {
    data: &'a [u8],
    pos: usize,
}

fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// A raw token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok<'a> {
    Num(f32),
    Str(Vec<u8>),
    Name(Vec<u8>),
    ArrBegin,
    ArrEnd,
    DictBegin,
    DictEnd,
    /// A bare keyword (operator or PostScript word).
    Word(&'a [u8]),
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// Next raw token, `None` at the end of data.
    pub(crate) fn next_tok(&mut self) -> Option<Tok<'a>> {
        loop {
            self.skip_ws();
            let b = self.peek()?;
            match b {
                b'(' => {
                    self.pos += 1;
                    return Some(Tok::Str(self.literal_string()));
                }
                b'<' => {
                    if self.data.get(self.pos + 1) == Some(&b'<') {
                        self.pos += 2;
                        return Some(Tok::DictBegin);
                    }
                    self.pos += 1;
                    return Some(Tok::Str(self.hex_string()));
                }
                b'>' => {
                    if self.data.get(self.pos + 1) == Some(&b'>') {
                        self.pos += 2;
                        return Some(Tok::DictEnd);
                    }
                    self.pos += 1;
                    continue;
                }
                b'[' => {
                    self.pos += 1;
                    return Some(Tok::ArrBegin);
                }
                b']' => {
                    self.pos += 1;
                    return Some(Tok::ArrEnd);
                }
                b'{' | b'}' | b')' => {
                    self.pos += 1;
                    continue;
                }
                b'/' => {
                    self.pos += 1;
                    return Some(Tok::Name(self.name()));
                }
                _ => {
                    let start = self.pos;
                    while let Some(c) = self.peek() {
                        if is_white(c) || is_delim(c) {
                            break;
                        }
                        self.pos += 1;
                    }
                    let word = self.data.get(start..self.pos).unwrap_or_default();
                    if word.is_empty() {
                        self.pos += 1;
                        continue;
                    }
                    if let Some(n) = parse_number(word) {
                        return Some(Tok::Num(n));
                    }
                    return Some(Tok::Word(word));
                }
            }
        }
    }

    fn name(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            if is_white(c) || is_delim(c) {
                break;
            }
            self.pos += 1;
            if c == b'#' {
                let h = self.data.get(self.pos).copied().and_then(hex_val);
                let l = self.data.get(self.pos + 1).copied().and_then(hex_val);
                if let (Some(h), Some(l)) = (h, l) {
                    out.push(h * 16 + l);
                    self.pos += 2;
                    continue;
                }
            }
            out.push(c);
        }
        out
    }

    fn literal_string(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return out;
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(e) = self.peek() else { break };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'\r' => {
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push((v & 0xff) as u8);
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        out
    }

    fn hex_string(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut hi: Option<u8> = None;
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == b'>' {
                break;
            }
            if let Some(v) = hex_val(c) {
                match hi.take() {
                    Some(h) => out.push(h * 16 + v),
                    None => hi = Some(v),
                }
            }
        }
        if let Some(h) = hi {
            out.push(h * 16);
        }
        out
    }

    /// Skip inline image data after `ID` up to and including `EI`.
    fn skip_inline_image(&mut self) {
        // One whitespace byte follows ID.
        self.pos += 1;
        while self.pos < self.data.len() {
            if self.data.get(self.pos..self.pos + 2) == Some(b"EI")
                && self.pos > 0
                && self.data.get(self.pos - 1).is_some_and(|&b| is_white(b))
                && self
                    .data
                    .get(self.pos + 2)
                    .is_none_or(|&b| is_white(b) || is_delim(b))
            {
                self.pos += 2;
                return;
            }
            self.pos += 1;
        }
    }

    /// Next operator with its operands, `None` at the end of data.
    pub(crate) fn next_op(&mut self, operands: &mut Vec<Operand>) -> Option<Vec<u8>> {
        operands.clear();
        // Stack of open arrays (dicts are parsed into `Other`).
        let mut stack: Vec<Vec<Operand>> = Vec::new();
        let mut dict_depth = 0usize;
        loop {
            let tok = self.next_tok()?;
            let value = match tok {
                Tok::Word(w) => {
                    if dict_depth > 0 || !stack.is_empty() {
                        // `true`, `false`, `null` inside containers.
                        Operand::Other
                    } else {
                        if w == b"ID" {
                            self.skip_inline_image();
                            operands.clear();
                            continue;
                        }
                        return Some(w.to_vec());
                    }
                }
                Tok::Num(n) => Operand::Num(n),
                Tok::Str(s) => Operand::Str(s),
                Tok::Name(n) => Operand::Name(n),
                Tok::ArrBegin => {
                    if dict_depth == 0 && stack.len() < MAX_NESTING {
                        stack.push(Vec::new());
                    }
                    continue;
                }
                Tok::ArrEnd => {
                    if dict_depth > 0 {
                        continue;
                    }
                    match stack.pop() {
                        Some(arr) => Operand::Arr(arr),
                        None => continue,
                    }
                }
                Tok::DictBegin => {
                    dict_depth += 1;
                    continue;
                }
                Tok::DictEnd => {
                    if dict_depth > 0 {
                        dict_depth -= 1;
                        if dict_depth == 0 {
                            Operand::Other
                        } else {
                            continue;
                        }
                    } else {
                        continue;
                    }
                }
            };
            if dict_depth > 0 {
                continue;
            }
            if let Some(top) = stack.last_mut() {
                if top.len() < MAX_ARRAY {
                    top.push(value);
                }
            } else {
                if operands.len() >= MAX_OPERANDS {
                    operands.remove(0);
                }
                operands.push(value);
            }
        }
    }
}

/// Parse a PDF number (`12`, `-3.5`, `.5`, `4.`); `None` for anything else.
fn parse_number(w: &[u8]) -> Option<f32> {
    let first = *w.first()?;
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return None;
    }
    let s = std::str::from_utf8(w).ok()?;
    if let Ok(v) = s.parse::<f32>() {
        return v.is_finite().then_some(v);
    }
    // Tolerate oddities such as `--5` or `1.2.3`: keep the leading valid part.
    let trimmed: String = s
        .trim_start_matches(['-', '+'])
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = trimmed.splitn(3, '.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next().unwrap_or("");
    let v: f32 = format!("0{int}.{frac}0").parse().ok()?;
    Some(if s.starts_with('-') { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_and_operands() {
        let mut lx = Lexer::new(b"BT /F1 12 Tf (a\\(b\\)c\\101) Tj [(x) -250 <4142>] TJ ET");
        let mut ops = Vec::new();
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"BT"[..]));
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"Tf"[..]));
        assert_eq!(ops, vec![Operand::Name(b"F1".to_vec()), Operand::Num(12.0)]);
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"Tj"[..]));
        assert_eq!(ops, vec![Operand::Str(b"a(b)cA".to_vec())]);
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"TJ"[..]));
        assert_eq!(
            ops,
            vec![Operand::Arr(vec![
                Operand::Str(b"x".to_vec()),
                Operand::Num(-250.0),
                Operand::Str(b"AB".to_vec())
            ])]
        );
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"ET"[..]));
        assert_eq!(lx.next_op(&mut ops), None);
    }

    #[test]
    fn inline_image_and_dicts_are_skipped() {
        let mut lx = Lexer::new(b"BI /W 2 /H 2 ID \x00\xff)(EI\x01 EI Q /P <</MCID 3>> BDC");
        let mut ops = Vec::new();
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"BI"[..]));
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"Q"[..]));
        assert_eq!(lx.next_op(&mut ops).as_deref(), Some(&b"BDC"[..]));
        assert_eq!(ops, vec![Operand::Name(b"P".to_vec()), Operand::Other]);
    }

    #[test]
    fn odd_numbers() {
        assert_eq!(parse_number(b"-.5"), Some(-0.5));
        assert_eq!(parse_number(b"4."), Some(4.0));
        assert_eq!(parse_number(b"--3"), Some(-3.0));
        assert_eq!(parse_number(b"Tj"), None);
    }
}
