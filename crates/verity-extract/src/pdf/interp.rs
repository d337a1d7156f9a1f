//! Content-stream interpreter: text state, graphics state and Form XObjects,
//! producing positioned glyphs.

use std::collections::HashMap;
use std::rc::Rc;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::font::Font;
use super::lexer::{Lexer, Operand};
use super::{get, get_dict, num_of, stream_data, Limits};

/// An affine matrix `[a b c d e f]`.
pub(crate) type Matrix = [f32; 6];

const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `m1` then `m2`.
fn mul(m1: &Matrix, m2: &Matrix) -> Matrix {
    [
        m1[0] * m2[0] + m1[1] * m2[2],
        m1[0] * m2[1] + m1[1] * m2[3],
        m1[2] * m2[0] + m1[3] * m2[2],
        m1[2] * m2[1] + m1[3] * m2[3],
        m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
        m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
    ]
}

fn apply(m: &Matrix, x: f32, y: f32) -> (f32, f32) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

fn matrix_of(ops: &[Operand]) -> Option<Matrix> {
    let n: Vec<f32> = ops.iter().filter_map(Operand::num).collect();
    let tail = n.get(n.len().checked_sub(6)?..)?;
    let mut m = [0.0; 6];
    m.copy_from_slice(tail);
    m.iter().all(|v| v.is_finite()).then_some(m)
}

/// A glyph placed on the page (device space, before rotation normalisation).
#[derive(Debug, Clone)]
pub(crate) struct Glyph {
    /// Origin.
    pub(crate) x: f32,
    pub(crate) y: f32,
    /// End of the advance.
    pub(crate) ex: f32,
    pub(crate) ey: f32,
    /// Effective font size.
    pub(crate) size: f32,
    /// Text direction, quarter turns counter-clockwise (0 = normal).
    pub(crate) rot: u8,
    /// Byte range of the glyph's text in [`PageGlyphs::buf`].
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// Everything collected from one page.
#[derive(Debug, Default)]
pub(crate) struct PageGlyphs {
    pub(crate) glyphs: Vec<Glyph>,
    pub(crate) buf: String,
    /// Glyphs shown without a Unicode mapping.
    pub(crate) unmapped: usize,
    /// Images drawn (XObjects and inline).
    pub(crate) images: usize,
    /// Set when a limit cut the page short.
    pub(crate) truncated: bool,
}

impl PageGlyphs {
    /// Text of a glyph.
    pub(crate) fn text(&self, g: &Glyph) -> &str {
        self.buf.get(g.start as usize..g.end as usize).unwrap_or("")
    }
}

#[derive(Clone)]
struct GState {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    size: f32,
    tc: f32,
    tw: f32,
    th: f32,
    tl: f32,
    rise: f32,
}

/// Fonts shared across pages, by object id.
pub(crate) type FontCache = HashMap<ObjectId, Rc<Font>>;

/// Interpreter for one page.
pub(crate) struct Interp<'d, 'c> {
    doc: &'d Document,
    fonts: &'c mut FontCache,
    limits: &'c Limits,
    pub(crate) out: PageGlyphs,
    ops: usize,
    forms: usize,
}

fn normalise_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            '\u{A0}' | '\t' | '\n' | '\r' | '\u{2002}'..='\u{200A}' => out.push(' '),
            '\u{0}'..='\u{1F}' | '\u{7F}' | '\u{FFFD}' | '\u{FEFF}' | '\u{200B}' => {}
            c => out.push(c),
        }
    }
}

impl<'d, 'c> Interp<'d, 'c> {
    /// A fresh interpreter for one page.
    pub(crate) fn new(doc: &'d Document, fonts: &'c mut FontCache, limits: &'c Limits) -> Self {
        Self {
            doc,
            fonts,
            limits,
            out: PageGlyphs::default(),
            ops: 0,
            forms: 0,
        }
    }

    fn font(&mut self, resources: Option<&Dictionary>, name: &[u8]) -> Option<Rc<Font>> {
        let fonts = get_dict(self.doc, resources?, b"Font")?;
        let obj = fonts.get(name).ok()?;
        if let Object::Reference(id) = obj {
            if let Some(f) = self.fonts.get(id) {
                return Some(f.clone());
            }
            let dict = self.doc.get_object(*id).ok()?.as_dict().ok()?;
            let f = Rc::new(Font::load(self.doc, dict));
            self.fonts.insert(*id, f.clone());
            return Some(f);
        }
        let dict = obj.as_dict().ok()?;
        Some(Rc::new(Font::load(self.doc, dict)))
    }

    /// Run a content stream.
    pub(crate) fn run(
        &mut self,
        content: &[u8],
        resources: Option<&Dictionary>,
        ctm: Matrix,
        depth: usize,
    ) {
        let mut gs = GState {
            ctm,
            font: None,
            size: 0.0,
            tc: 0.0,
            tw: 0.0,
            th: 1.0,
            tl: 0.0,
            rise: 0.0,
        };
        let mut stack: Vec<GState> = Vec::new();
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        let mut lx = Lexer::new(content);
        let mut ops: Vec<Operand> = Vec::new();
        while let Some(op) = lx.next_op(&mut ops) {
            self.ops += 1;
            if self.ops > self.limits.max_ops_per_page
                || self.out.glyphs.len() > self.limits.max_glyphs_per_page
            {
                self.out.truncated = true;
                return;
            }
            let n = |i: usize| -> f32 {
                // i-th operand from the end (0 = last).
                ops.len()
                    .checked_sub(i + 1)
                    .and_then(|k| ops.get(k))
                    .and_then(Operand::num)
                    .unwrap_or(0.0)
            };
            match op.as_slice() {
                b"q" if stack.len() < 512 => stack.push(gs.clone()),
                b"Q" => {
                    if let Some(s) = stack.pop() {
                        gs = s;
                    }
                }
                b"cm" => {
                    if let Some(m) = matrix_of(&ops) {
                        gs.ctm = mul(&m, &gs.ctm);
                    }
                }
                b"BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                }
                b"Tf" => {
                    gs.size = n(0);
                    if let Some(Operand::Name(name)) =
                        ops.len().checked_sub(2).and_then(|k| ops.get(k))
                    {
                        gs.font = self.font(resources, name);
                    }
                }
                b"Tc" => gs.tc = n(0),
                b"Tw" => gs.tw = n(0),
                b"Tz" => gs.th = n(0) / 100.0,
                b"TL" => gs.tl = n(0),
                b"Ts" => gs.rise = n(0),
                b"Td" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, n(1), n(0)], &tlm);
                    tm = tlm;
                }
                b"TD" => {
                    gs.tl = -n(0);
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, n(1), n(0)], &tlm);
                    tm = tlm;
                }
                b"Tm" => {
                    if let Some(m) = matrix_of(&ops) {
                        tm = m;
                        tlm = m;
                    }
                }
                b"T*" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.tl], &tlm);
                    tm = tlm;
                }
                b"Tj" => {
                    if let Some(Operand::Str(s)) = ops.last() {
                        self.show(&gs, &mut tm, s);
                    }
                }
                b"'" | b"\"" => {
                    if op.as_slice() == b"\"" && ops.len() >= 3 {
                        gs.tw = n(2);
                        gs.tc = n(1);
                    }
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.tl], &tlm);
                    tm = tlm;
                    if let Some(Operand::Str(s)) = ops.last() {
                        self.show(&gs, &mut tm, s);
                    }
                }
                b"TJ" => {
                    if let Some(Operand::Arr(items)) = ops.last() {
                        for item in items {
                            match item {
                                Operand::Str(s) => self.show(&gs, &mut tm, s),
                                Operand::Num(adj) => {
                                    let tx = -adj / 1000.0 * gs.size * gs.th;
                                    let vertical = gs.font.as_ref().is_some_and(|f| f.vertical);
                                    let t = if vertical {
                                        [1.0, 0.0, 0.0, 1.0, 0.0, -adj / 1000.0 * gs.size]
                                    } else {
                                        [1.0, 0.0, 0.0, 1.0, tx, 0.0]
                                    };
                                    tm = mul(&t, &tm);
                                }
                                _ => {}
                            }
                        }
                    }
                }
                b"BI" => self.out.images += 1,
                b"Do" => {
                    if let Some(Operand::Name(name)) = ops.last() {
                        self.do_xobject(resources, name, &gs.ctm, depth);
                    }
                }
                _ => {}
            }
        }
    }

    fn do_xobject(
        &mut self,
        resources: Option<&Dictionary>,
        name: &[u8],
        ctm: &Matrix,
        depth: usize,
    ) {
        let Some(xobjects) = resources.and_then(|r| get_dict(self.doc, r, b"XObject")) else {
            return;
        };
        let Some(stream) = get(self.doc, xobjects, name).and_then(|o| o.as_stream().ok()) else {
            return;
        };
        let subtype = get(self.doc, &stream.dict, b"Subtype")
            .and_then(super::name_of)
            .unwrap_or_default();
        if subtype == b"Image" {
            self.out.images += 1;
            return;
        }
        if subtype != b"Form" {
            return;
        }
        self.forms += 1;
        if depth >= self.limits.max_form_depth || self.forms > self.limits.max_forms_per_page {
            self.out.truncated = true;
            return;
        }
        let matrix = match get(self.doc, &stream.dict, b"Matrix") {
            Some(Object::Array(a)) => {
                let v: Vec<f32> = a
                    .iter()
                    .filter_map(|o| super::resolve(self.doc, o).and_then(num_of))
                    .collect();
                let mut m = IDENTITY;
                if v.len() == 6 && v.iter().all(|x| x.is_finite()) {
                    m.copy_from_slice(&v);
                }
                m
            }
            _ => IDENTITY,
        };
        let form_resources = get_dict(self.doc, &stream.dict, b"Resources").or(resources);
        let Some(data) = stream_data(stream, self.limits.max_content_bytes) else {
            return;
        };
        self.run(&data, form_resources, mul(&matrix, ctm), depth + 1);
    }

    fn show(&mut self, gs: &GState, tm: &mut Matrix, s: &[u8]) {
        let Some(font) = gs.font.clone() else {
            return;
        };
        let size = gs.size;
        let vertical = font.vertical;
        font.decode(s, |code| {
            let m = mul(tm, &gs.ctm);
            let w = code.width * size;
            let (x, y) = apply(&m, 0.0, gs.rise);
            let (ex, ey) = if vertical {
                apply(&m, 0.0, gs.rise - size)
            } else {
                apply(&m, w * gs.th, gs.rise)
            };
            let (dx, dy) = if (ex - x).abs() + (ey - y).abs() > 1e-6 {
                (ex - x, ey - y)
            } else {
                (m[0], m[1])
            };
            let rot = if dx.abs() >= dy.abs() {
                if dx >= 0.0 {
                    0
                } else {
                    2
                }
            } else if dy > 0.0 {
                1
            } else {
                3
            };
            let dev_size = size.abs() * (m[2] * m[2] + m[3] * m[3]).sqrt();
            match &code.text {
                Some(t) => {
                    let start = self.out.buf.len();
                    normalise_text(t, &mut self.out.buf);
                    let end = self.out.buf.len();
                    if end > start
                        && x.is_finite()
                        && y.is_finite()
                        && ex.is_finite()
                        && ey.is_finite()
                    {
                        self.out.glyphs.push(Glyph {
                            x,
                            y,
                            ex,
                            ey,
                            size: if dev_size.is_finite() && dev_size > 0.0 {
                                dev_size
                            } else {
                                1.0
                            },
                            rot,
                            start: start as u32,
                            end: end as u32,
                        });
                    } else {
                        self.out.buf.truncate(start);
                    }
                }
                None => self.out.unmapped += 1,
            }
            let spacing = gs.tc
                + if font.word_space_applies(&code) {
                    gs.tw
                } else {
                    0.0
                };
            let t = if vertical {
                [1.0, 0.0, 0.0, 1.0, 0.0, -(size + spacing)]
            } else {
                [1.0, 0.0, 0.0, 1.0, (w + spacing) * gs.th, 0.0]
            };
            *tm = mul(&t, tm);
        });
    }
}
