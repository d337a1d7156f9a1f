//! Layout: glyphs → fragments → lines (columns aware) → paragraphs.

use super::interp::{Glyph, PageGlyphs};

/// A horizontal run of glyphs that belong together.
#[derive(Debug, Clone)]
struct Frag {
    x0: f32,
    x1: f32,
    y: f32,
    size: f32,
    text: String,
}

/// A text line in reading order.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub(crate) text: String,
    pub(crate) x0: f32,
    pub(crate) x1: f32,
    pub(crate) y: f32,
    pub(crate) size: f32,
    /// Which column region this line belongs to (lines of one column share it).
    col: usize,
}

/// The laid-out text of a page.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageText {
    /// Markdown-ish text: paragraphs separated by blank lines.
    pub(crate) text: String,
    /// Lines in reading order (for the title fallback).
    pub(crate) lines: Vec<Line>,
    /// Most common font size, weighted by characters.
    pub(crate) body_size: f32,
}

/// Rotate a device-space point so that text of direction `rot` reads left to right.
fn unrotate(rot: u8, x: f32, y: f32) -> (f32, f32) {
    match rot {
        1 => (y, -x),
        2 => (-x, -y),
        3 => (-y, x),
        _ => (x, y),
    }
}

fn is_space(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// Group glyphs, in content order, into fragments.
fn fragments(page: &PageGlyphs) -> Vec<Frag> {
    // Dominant direction.
    let mut counts = [0usize; 4];
    for g in &page.glyphs {
        if let Some(c) = counts.get_mut(usize::from(g.rot)) {
            *c += 1;
        }
    }
    let rot = counts
        .iter()
        .enumerate()
        .max_by_key(|(_, c)| **c)
        .map(|(i, _)| i as u8)
        .unwrap_or(0);
    let mut frags: Vec<Frag> = Vec::new();
    let mut cur: Option<Frag> = None;
    for g in page.glyphs.iter().filter(|g| g.rot == rot) {
        let (x0, y) = unrotate(rot, g.x, g.y);
        let (x1, _) = unrotate(rot, g.ex, g.ey);
        let (x0, x1) = if x1 < x0 { (x1, x0) } else { (x0, x1) };
        let text = page.text(g);
        push_glyph(&mut frags, &mut cur, g, x0, x1, y, text);
    }
    if let Some(f) = cur.take() {
        finish(&mut frags, f);
    }
    // Drop fake-bold duplicates (the same text overprinted at nearly the same place).
    let mut seen: std::collections::HashSet<(String, i32, i32)> = std::collections::HashSet::new();
    frags.retain(|f| {
        seen.insert((
            f.text.clone(),
            (f.x0 / 2.0).round() as i32,
            (f.y / 2.0).round() as i32,
        ))
    });
    frags
}

fn finish(frags: &mut Vec<Frag>, mut f: Frag) {
    let trimmed = f.text.trim_end().len();
    f.text.truncate(trimmed);
    if !f.text.trim().is_empty() {
        frags.push(f);
    }
}

fn push_glyph(
    frags: &mut Vec<Frag>,
    cur: &mut Option<Frag>,
    g: &Glyph,
    x0: f32,
    x1: f32,
    y: f32,
    text: &str,
) {
    let space = is_space(text);
    if let Some(f) = cur.as_mut() {
        let size = f.size.max(g.size);
        let gap = x0 - f.x1;
        let same_line = (y - f.y).abs() < 0.3 * size.min(f.size.max(1.0)).max(g.size.min(f.size));
        if same_line && gap > -0.5 * size && gap < 0.8 * size {
            if space {
                if !f.text.ends_with(' ') {
                    f.text.push(' ');
                }
                f.x1 = f.x1.max(x1);
                return;
            }
            if gap > 0.18 * g.size.min(f.size) && !f.text.ends_with(' ') {
                f.text.push(' ');
            }
            f.text.push_str(text);
            f.x1 = f.x1.max(x1);
            // The line's size and baseline follow the larger glyphs.
            if g.size > f.size * 1.05 && (y - f.y).abs() < 0.1 * g.size {
                f.size = g.size;
            }
            return;
        }
    }
    if let Some(f) = cur.take() {
        finish(frags, f);
    }
    if space {
        return;
    }
    *cur = Some(Frag {
        x0,
        x1,
        y,
        size: g.size,
        text: text.to_string(),
    });
}

/// Find a gutter x splitting the fragments into two columns.
fn find_gutter(frags: &[Frag]) -> Option<f32> {
    if frags.len() < 12 {
        return None;
    }
    let min_x = frags.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
    let max_x = frags.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
    let width = max_x - min_x;
    if !(width.is_finite() && width > 50.0) {
        return None;
    }
    let steps = 120;
    let mut best: Option<(usize, f32, f32)> = None; // (crossing, x, run width)
    let mut run: Option<(usize, f32, f32)> = None; // (crossing, start x, end x)
    let mut candidates: Vec<(usize, f32, f32)> = Vec::new();
    for i in 0..=steps {
        let x = min_x + width * (0.3 + 0.4 * i as f32 / steps as f32);
        let crossing = frags.iter().filter(|f| f.x0 < x && f.x1 > x).count();
        match run {
            Some((c, s, _)) if c == crossing => run = Some((c, s, x)),
            _ => {
                if let Some(r) = run.take() {
                    candidates.push(r);
                }
                run = Some((crossing, x, x));
            }
        }
    }
    if let Some(r) = run {
        candidates.push(r);
    }
    for (c, s, e) in candidates {
        let better = match best {
            None => true,
            Some((bc, _, bw)) => c < bc || (c == bc && e - s > bw),
        };
        if better {
            best = Some((c, (s + e) / 2.0, e - s));
        }
    }
    let (crossing, gx, _) = best?;
    let left: Vec<&Frag> = frags.iter().filter(|f| f.x1 <= gx).collect();
    let right: Vec<&Frag> = frags.iter().filter(|f| f.x0 >= gx).collect();
    if left.len() < 5 || right.len() < 5 {
        return None;
    }
    if crossing * 3 > left.len().min(right.len()) {
        return None;
    }
    // Both columns must span a good part of the text height and overlap vertically.
    let span = |v: &[&Frag]| {
        let top = v.iter().map(|f| f.y).fold(f32::NEG_INFINITY, f32::max);
        let bottom = v.iter().map(|f| f.y).fold(f32::INFINITY, f32::min);
        (bottom, top)
    };
    let (lb, lt) = span(&left);
    let (rb, rt) = span(&right);
    let overlap = lt.min(rt) - lb.max(rb);
    let total_top = frags.iter().map(|f| f.y).fold(f32::NEG_INFINITY, f32::max);
    let total_bottom = frags.iter().map(|f| f.y).fold(f32::INFINITY, f32::min);
    let height = total_top - total_bottom;
    if overlap.partial_cmp(&(0.3 * height)) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    // Text on each side must hug the gutter (a real column edge), not a ragged label/value table.
    let gap_left = gx - left.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
    let gap_right = right.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min) - gx;
    let size = median(frags.iter().map(|f| f.size).collect()).unwrap_or(10.0);
    if gap_left + gap_right < 0.5 * size {
        return None;
    }
    Some(gx)
}

fn median(mut v: Vec<f32>) -> Option<f32> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied()
}

/// Group fragments (any order) into lines, top to bottom.
fn lines_of(mut frags: Vec<Frag>, col: usize, out: &mut Vec<Line>) {
    frags.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x0.total_cmp(&b.x0)));
    let mut groups: Vec<Vec<Frag>> = Vec::new();
    for f in frags {
        if let Some(g) = groups.last_mut() {
            let base = g.iter().map(|x| x.y).sum::<f32>() / g.len() as f32;
            let size = g.iter().map(|x| x.size).fold(0.0, f32::max);
            if (f.y - base).abs() < 0.45 * size.min(f.size).max(1.0) {
                g.push(f);
                continue;
            }
        }
        groups.push(vec![f]);
    }
    for mut g in groups {
        g.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        let mut text = String::new();
        let mut last_x1 = f32::NEG_INFINITY;
        let mut size_w = 0.0f32;
        let mut chars = 0usize;
        let mut best_size = 0.0f32;
        for f in &g {
            let gap = f.x0 - last_x1;
            if !text.is_empty() && !text.ends_with(' ') && (gap > 0.1 * f.size || gap < -f.size) {
                text.push(' ');
            }
            text.push_str(&f.text);
            last_x1 = last_x1.max(f.x1);
            let n = f.text.chars().count();
            if n > chars {
                chars = n;
                best_size = f.size;
            }
            size_w += f.size;
        }
        let _ = size_w;
        let x0 = g.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
        let y = g.iter().map(|f| f.y).fold(f32::INFINITY, f32::min);
        out.push(Line {
            text,
            x0,
            x1: last_x1,
            y,
            size: best_size,
            col,
        });
    }
}

fn is_page_number(s: &str) -> bool {
    let t = s
        .trim()
        .trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c.is_whitespace());
    if t.is_empty() {
        return false;
    }
    let lower = t.to_lowercase();
    let core = lower.strip_prefix("page").map(str::trim).unwrap_or(&lower);
    let core = core.split(" of ").next().unwrap_or(core).trim();
    (core.len() <= 4 && core.chars().all(|c| c.is_ascii_digit()))
        || (core.len() <= 6 && core.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l')))
}

/// Lay out one page.
pub(crate) fn layout(page: &PageGlyphs) -> PageText {
    let frags = fragments(page);
    if frags.is_empty() {
        return PageText::default();
    }
    // Body size: weighted by characters.
    let mut sizes: Vec<(f32, usize)> = Vec::new();
    for f in &frags {
        let s = (f.size * 2.0).round() / 2.0;
        let n = f.text.chars().count();
        match sizes.iter_mut().find(|(x, _)| (*x - s).abs() < 0.01) {
            Some(e) => e.1 += n,
            None => sizes.push((s, n)),
        }
    }
    let body_size = sizes
        .iter()
        .max_by_key(|(_, n)| *n)
        .map(|(s, _)| *s)
        .unwrap_or(10.0);

    let gutter = find_gutter(&frags);
    let mut lines: Vec<Line> = Vec::new();
    match gutter {
        None => lines_of(frags, 0, &mut lines),
        Some(gx) => {
            let mut sorted = frags;
            sorted.sort_by(|a, b| b.y.total_cmp(&a.y));
            let mut left = Vec::new();
            let mut right = Vec::new();
            let mut col = 0usize;
            for f in sorted {
                if f.x0 < gx - 1.0 && f.x1 > gx + 1.0 {
                    // Full-width: flush the columns above it.
                    lines_of(std::mem::take(&mut left), col, &mut lines);
                    lines_of(std::mem::take(&mut right), col + 1, &mut lines);
                    col += 2;
                    // Full-width frags on the same line go together.
                    lines_of(vec![f], col, &mut lines);
                    col += 1;
                } else if (f.x0 + f.x1) / 2.0 < gx {
                    left.push(f);
                } else {
                    right.push(f);
                }
            }
            lines_of(left, col, &mut lines);
            lines_of(right, col + 1, &mut lines);
            merge_adjacent_full_width(&mut lines);
        }
    }
    // Drop a page number at the very top or bottom.
    if lines.len() > 1 {
        if lines.last().is_some_and(|l| is_page_number(&l.text)) {
            lines.pop();
        }
        if lines.first().is_some_and(|l| is_page_number(&l.text)) {
            lines.remove(0);
        }
    }
    let text = paragraphs(&lines, body_size);
    PageText {
        text,
        lines,
        body_size,
    }
}

/// Full-width fragments were emitted one line each; re-join those sharing a baseline.
fn merge_adjacent_full_width(lines: &mut Vec<Line>) {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    for l in lines.drain(..) {
        if let Some(prev) = out.last_mut() {
            if prev.col + 1 == l.col
                && (prev.y - l.y).abs() < 0.3 * prev.size.min(l.size)
                && l.x0 > prev.x1
            {
                prev.text.push(' ');
                prev.text.push_str(&l.text);
                prev.x1 = l.x1;
                prev.col = l.col;
                continue;
            }
        }
        out.push(l);
    }
    *lines = out;
}

fn ends_with_hyphen(s: &str) -> bool {
    let mut it = s.chars().rev();
    matches!(it.next(), Some('-' | '\u{2010}' | '\u{AD}'))
        && it.next().is_some_and(char::is_alphabetic)
}

/// Join lines into paragraphs (blank-line separated), joining hyphenated words.
fn paragraphs(lines: &[Line], body_size: f32) -> String {
    // Typical line spacing.
    let mut deltas = Vec::new();
    for w in lines.windows(2) {
        if let [a, b] = w {
            let d = a.y - b.y;
            if a.col == b.col
                && d > 0.0
                && (a.size - b.size).abs() < 0.5
                && (a.size - body_size).abs() < 0.6
            {
                deltas.push(d);
            }
        }
    }
    let spacing = median(deltas)
        .unwrap_or(body_size * 1.2)
        .max(body_size * 0.8);
    // Column extents.
    let mut col_right: std::collections::HashMap<usize, (f32, f32)> =
        std::collections::HashMap::new();
    for l in lines {
        let e = col_right
            .entry(l.col)
            .or_insert((f32::INFINITY, f32::NEG_INFINITY));
        e.0 = e.0.min(l.x0);
        e.1 = e.1.max(l.x1);
    }
    let heading = |l: &Line| l.size >= body_size * 1.2 && l.text.chars().count() <= 200;
    let mut out = String::new();
    let mut prev: Option<&Line> = None;
    for l in lines {
        if let Some(p) = prev {
            let dy = p.y - l.y;
            let (cl, cr) = col_right.get(&p.col).copied().unwrap_or((p.x0, p.x1));
            let short = (cr - p.x1) > 0.2 * (cr - cl).max(1.0);
            let size_change = (p.size - l.size).abs() > 0.15 * p.size.max(l.size);
            let big_gap = if p.col == l.col || (p.col + 1 == l.col && dy > 0.0) {
                dy > spacing * 1.45 || dy < -spacing * 0.5 && p.col == l.col
            } else {
                false
            };
            let new_para = big_gap || size_change || short || heading(p) != heading(l);
            if new_para {
                out.push_str("\n\n");
                if heading(l) {
                    out.push_str("## ");
                }
            } else if (ends_with_hyphen(&out)
                && l.text.chars().next().is_some_and(char::is_lowercase))
                || out.ends_with('\u{AD}')
            {
                out.pop();
            } else {
                out.push(' ');
            }
        } else if heading(l) {
            out.push_str("## ");
        }
        out.push_str(&l.text);
        prev = Some(l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers() {
        assert!(is_page_number(" 12 "));
        assert!(is_page_number("Page 3 of 10"));
        assert!(is_page_number("- 4 -"));
        assert!(is_page_number("xiv"));
        assert!(!is_page_number("1984 was a year"));
        assert!(!is_page_number("Introduction"));
    }

    #[test]
    fn hyphen_detection() {
        assert!(ends_with_hyphen("exam-"));
        assert!(!ends_with_hyphen("1-"));
        assert!(!ends_with_hyphen("-"));
    }
}
