//! Rendering: the kept tree as Markdown, and Markdown back to plain text.

use super::*;

pub(super) struct Renderer<'a> {
    pub(super) dom: &'a Dom,
    pub(super) st: &'a Stats,
    pub(super) removed: &'a [bool],
    pub(super) base: Option<&'a Url>,
    pub(super) title: Option<String>,
    pub(super) out: String,
    /// Paragraph text of the selected roots: elements holding half of it are never cleaned.
    pub(super) root_ptext: u32,
    /// Links met in the content (anchor text, absolute target): the Markdown
    /// keeps the anchor text only, the targets go to the document's metadata.
    pub(super) links: Vec<(String, String)>,
    /// Images with a descriptive alt text (alt, absolute source), kept as metadata.
    pub(super) images: Vec<(String, String)>,
}

impl Renderer<'_> {
    /// A short paragraph made mostly of several links (tag lists, "read also" lines).
    fn link_paragraph(&self, id: NodeId) -> bool {
        if !crate::boilerplate::on(crate::boilerplate::Rule::LinkParagraph) {
            return false;
        }
        if !paragraph_like(self.dom, self.st, id) && self.dom.tag(id) != "p" {
            return false;
        }
        let text = self.st.text.get(id).copied().unwrap_or(0);
        let link = self.st.link.get(id).copied().unwrap_or(0);
        if text == 0 || text > 600 || link * 10 < text * 6 {
            return false;
        }
        // An inline element inside running text is part of its sentence
        // ("… has reported that <span><a>the NFL will fine Rudolph</a></span>
        // for his role …"), not a teaser paragraph: dropping it put words in
        // the page's mouth that a reader does not read together.
        if matches!(self.dom.tag(id), "span" | "font") {
            let parent_text = self
                .dom
                .parent(id)
                .and_then(|p| self.st.text.get(p).copied())
                .unwrap_or(0);
            if parent_text > text {
                return false;
            }
        }
        // A whole paragraph that is one link (teaser lists).
        if link * 100 >= text * 80 && text >= 20 {
            return true;
        }
        let mut links = 0;
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            for &c in self.dom.children(n) {
                if self.dom.tag(c) == "a" {
                    links += 1;
                } else {
                    stack.push(c);
                }
            }
        }
        links >= 2
    }

    fn skip(&self, id: NodeId) -> bool {
        self.removed.get(id).copied().unwrap_or(true)
    }

    fn para_break(&mut self) {
        trim_trailing_spaces(&mut self.out);
        if self.out.is_empty() || self.out.ends_with("\n\n") {
            return;
        }
        if self.out.ends_with('\n') {
            self.out.push('\n');
        } else {
            self.out.push_str("\n\n");
        }
    }

    fn line_break(&mut self) {
        trim_trailing_spaces(&mut self.out);
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn push_text(&mut self, t: &str) {
        let starts_ws = t.starts_with(|c: char| c.is_whitespace());
        let mut first = true;
        for w in t.split_whitespace() {
            if (!first || starts_ws) && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
                self.out.push(' ');
            }
            first = false;
            self.out.push_str(w);
        }
        if t.ends_with(|c: char| c.is_whitespace()) && !first && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        if first && starts_ws && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
    }

    /// Render children of `id`.
    fn children(&mut self, id: NodeId, depth: usize) {
        for &c in self.dom.children(id) {
            self.block(c, depth + 1);
        }
    }

    fn sub(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let saved = std::mem::take(&mut self.out);
        f(self);
        std::mem::replace(&mut self.out, saved)
    }

    pub(super) fn block(&mut self, id: NodeId, depth: usize) {
        if self.skip(id) || depth > crate::dom::MAX_DEPTH + 8 {
            return;
        }
        let Some(node) = self.dom.nodes.get(id) else {
            return;
        };
        let tag = match &node.data {
            NodeData::Text(t) => {
                self.push_text(t);
                return;
            }
            NodeData::Root => {
                self.children(id, depth);
                return;
            }
            NodeData::Element { tag, .. } => tag.as_str(),
        };
        let own_ptext = self.st.ptext.get(id).copied().unwrap_or(0);
        let wrapper = self.root_ptext > 0 && own_ptext * 2 >= self.root_ptext;
        if depth > 0
            && !wrapper
            && (clean_conditionally(self.dom, self.st, id) || self.link_paragraph(id))
        {
            return;
        }
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let text = collapse_ws(&self.inline_text(id, depth));
                if text.is_empty() {
                    return;
                }
                if tag == "h1"
                    && self
                        .title
                        .as_deref()
                        .is_some_and(|t| !t.is_empty() && norm_title(&text) == t)
                {
                    return;
                }
                let level = tag
                    .as_bytes()
                    .get(1)
                    .map(|b| (b - b'0') as usize)
                    .unwrap_or(2);
                self.para_break();
                self.out.push_str(&"#".repeat(level.clamp(1, 6)));
                self.out.push(' ');
                self.out.push_str(&text);
                self.para_break();
            }
            "p" | "div" | "section" | "article" | "main" | "header" | "footer" | "figure"
            | "figcaption" | "address" | "center" | "details" | "summary" | "fieldset" | "dl"
            | "body" | "html" | "hgroup" => {
                self.para_break();
                self.children(id, depth);
                self.para_break();
            }
            "dt" | "dd" | "caption" => {
                self.line_break();
                self.children(id, depth);
                self.line_break();
            }
            "br" => self.line_break(),
            "hr" => {
                self.para_break();
                self.out.push_str("---");
                self.para_break();
            }
            "ul" | "ol" => self.list(id, tag == "ol", depth),
            "li" => {
                // A stray li outside a list.
                self.line_break();
                self.out.push_str("- ");
                self.children(id, depth);
                self.line_break();
            }
            "pre" => self.pre(id),
            "blockquote" => {
                let inner = self.sub(|r| r.children(id, depth));
                let inner = finish(inner);
                if inner.is_empty() {
                    return;
                }
                self.para_break();
                for (i, line) in inner.lines().enumerate() {
                    if i > 0 {
                        self.out.push('\n');
                    }
                    self.out.push('>');
                    if !line.is_empty() {
                        self.out.push(' ');
                        self.out.push_str(line);
                    }
                }
                self.para_break();
            }
            "table" => self.table(id, depth),
            "a" => {
                let inner = collapse_ws(&self.sub(|r| r.children(id, depth)));
                let href = self
                    .dom
                    .attr(id, "href")
                    .and_then(|h| absolutize(h, self.base));
                if inner.is_empty() {
                    self.blank_inline(id);
                    return;
                }
                self.space_before(id);
                match href {
                    Some(h)
                        if h.starts_with("http://")
                            || h.starts_with("https://")
                            || h.starts_with("mailto:") =>
                    {
                        // Link targets stay out of the text an embedder or a judge reads.
                        self.out.push_str(&inner);
                        self.links.push((inner, h));
                    }
                    _ => self.out.push_str(&inner),
                }
                self.space_after(id);
            }
            "strong" | "b" | "em" | "i" | "code" | "kbd" | "samp" | "tt" => {
                let inner = collapse_ws(&self.sub(|r| r.children(id, depth)));
                if inner.is_empty() {
                    self.blank_inline(id);
                    return;
                }
                // Inline markup only when it stays on one line and holds no link syntax.
                let mark = match tag {
                    "strong" | "b" => "**",
                    "em" | "i" => "*",
                    _ => "`",
                };
                self.space_before(id);
                let plain = inner.contains(['\n', '[', '*', '`']) || self.in_tag(id, "pre");
                if !plain {
                    self.out.push_str(mark);
                }
                self.out.push_str(&inner);
                if !plain {
                    self.out.push_str(mark);
                }
                self.space_after(id);
            }
            "img" => {
                let alt = self
                    .dom
                    .attr(id, "alt")
                    .map(collapse_ws)
                    .unwrap_or_default();
                let src = self
                    .dom
                    .attr(id, "src")
                    .or_else(|| self.dom.attr(id, "data-src"))
                    .and_then(|s| absolutize(s, self.base));
                if alt.split_whitespace().count() >= 2 {
                    if let Some(src) = src.filter(|s| s.starts_with("http")) {
                        self.images.push((alt, src));
                    }
                }
            }
            _ => self.children(id, depth),
        }
    }

    fn in_tag(&self, id: NodeId, tag: &str) -> bool {
        let mut n = id;
        let mut steps = 0;
        while let Some(p) = self.dom.parent(n) {
            if self.dom.tag(p) == tag {
                return true;
            }
            n = p;
            steps += 1;
            if steps > 64 {
                break;
            }
        }
        false
    }

    /// Inline markup needs a separating space when the source had whitespace
    /// before it, outside (`word <a>`) or inside (`<a> word`).
    fn space_before(&mut self, id: NodeId) {
        let prev_ws = self
            .prev_sibling_text(id)
            .is_some_and(|t| t.ends_with(|c: char| c.is_whitespace()))
            || self.dom.text_content(id).starts_with(char::is_whitespace);
        if prev_ws {
            self.space();
        }
    }

    /// Whitespace closing an inline element (`<a>word </a>next`) separates
    /// it from the next word.
    fn space_after(&mut self, id: NodeId) {
        if self.dom.text_content(id).ends_with(char::is_whitespace) {
            self.space();
        }
    }

    /// An inline element holding only whitespace (`word<b> </b>word`) is a space.
    fn blank_inline(&mut self, id: NodeId) {
        if self.dom.text_content(id).contains(char::is_whitespace) {
            self.space();
        }
    }

    fn space(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
    }

    fn prev_sibling_text(&self, id: NodeId) -> Option<&str> {
        let p = self.dom.parent(id)?;
        let sibs = self.dom.children(p);
        let i = sibs.iter().position(|&c| c == id)?;
        let prev = *sibs.get(i.checked_sub(1)?)?;
        self.dom.text(prev)
    }

    fn inline_text(&mut self, id: NodeId, depth: usize) -> String {
        let s = self.sub(|r| r.children(id, depth));
        s.replace('\n', " ")
    }

    fn list(&mut self, id: NodeId, ordered: bool, depth: usize) {
        let items: Vec<NodeId> = self
            .dom
            .children(id)
            .iter()
            .copied()
            .filter(|&c| !self.skip(c) && self.dom.tag(c) == "li")
            .collect();
        let start: usize = self
            .dom
            .attr(id, "start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        self.para_break();
        let mut k = start;
        for &c in self.dom.children(id) {
            if self.skip(c) {
                continue;
            }
            if self.dom.tag(c) != "li" {
                // Loose content between items.
                if self.dom.text(c).is_some_and(|t| t.trim().is_empty()) {
                    continue;
                }
                let s = finish(self.sub(|r| r.block(c, depth + 1)));
                if !s.is_empty() {
                    self.line_break();
                    self.out.push_str(&s);
                    self.line_break();
                }
                continue;
            }
            let body = finish(self.sub(|r| r.children(c, depth + 1)));
            if body.is_empty() {
                continue;
            }
            let marker = if ordered {
                format!("{k}. ")
            } else {
                "- ".to_string()
            };
            k += 1;
            let indent = " ".repeat(marker.len());
            self.line_break();
            for (i, line) in body.lines().enumerate() {
                if i == 0 {
                    self.out.push_str(&marker);
                } else {
                    self.out.push('\n');
                    if !line.is_empty() {
                        self.out.push_str(&indent);
                    }
                }
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
        let _ = items;
        self.para_break();
    }

    fn pre(&mut self, id: NodeId) {
        let text = self.dom.text_content(id);
        let text = text.trim_matches('\n');
        if text.trim().is_empty() {
            return;
        }
        let lang = self.code_lang(id);
        let fence = if text.contains("```") { "~~~~" } else { "```" };
        self.para_break();
        self.out.push_str(fence);
        self.out.push_str(&lang);
        self.out.push('\n');
        self.out.push_str(text.trim_end());
        self.out.push('\n');
        self.out.push_str(fence);
        self.para_break();
    }

    fn code_lang(&self, id: NodeId) -> String {
        let mut cands = vec![id];
        cands.extend(
            self.dom
                .children(id)
                .iter()
                .copied()
                .filter(|&c| self.dom.tag(c) == "code"),
        );
        if let Some(p) = self.dom.parent(id) {
            cands.push(p);
        }
        for c in cands {
            if let Some(l) = self
                .dom
                .attr(c, "data-lang")
                .or_else(|| self.dom.attr(c, "data-language"))
            {
                let l = l.trim().to_ascii_lowercase();
                if is_lang_token(&l) {
                    return l;
                }
            }
            for cls in self.dom.attr(c, "class").unwrap_or("").split_whitespace() {
                let cls = cls.to_ascii_lowercase();
                for pre in [
                    "language-",
                    "lang-",
                    "highlight-source-",
                    "highlight-",
                    "brush:",
                ] {
                    if let Some(l) = cls.strip_prefix(pre) {
                        if is_lang_token(l) {
                            return l.to_string();
                        }
                    }
                }
            }
        }
        String::new()
    }

    fn table(&mut self, id: NodeId, depth: usize) {
        if !is_data_table(self.dom, id) {
            // Layout table: render cells as blocks.
            self.para_break();
            self.children(id, depth);
            self.para_break();
            return;
        }
        let mut rows: Vec<(Vec<String>, bool)> = Vec::new();
        let mut stack = vec![id];
        let mut order = Vec::new();
        while let Some(n) = stack.pop() {
            for &c in self.dom.children(n).iter().rev() {
                match self.dom.tag(c) {
                    "tr" => order.push(c),
                    "thead" | "tbody" | "tfoot" => stack.push(c),
                    _ => {}
                }
            }
        }
        // `order` was built from reversed pushes per level; sort by id = document order.
        order.sort_unstable();
        for tr in order {
            if self.skip(tr) {
                continue;
            }
            let mut cells = Vec::new();
            let mut header = true;
            for &c in self.dom.children(tr) {
                let t = self.dom.tag(c);
                if !matches!(t, "td" | "th") || self.skip(c) {
                    continue;
                }
                if t == "td" {
                    header = false;
                }
                let s = collapse_ws(&self.sub(|r| r.children(c, depth + 2)).replace('\n', " "));
                cells.push(s.replace('|', "\\|"));
            }
            if !cells.is_empty() {
                rows.push((cells, header));
            }
        }
        if rows.is_empty() {
            return;
        }
        let cols = rows.iter().map(|(r, _)| r.len()).max().unwrap_or(1);
        self.para_break();
        let caption = self
            .dom
            .children(id)
            .iter()
            .copied()
            .find(|&c| self.dom.tag(c) == "caption");
        if let Some(c) = caption {
            let s = collapse_ws(&self.sub(|r| r.children(c, depth + 1)));
            if !s.is_empty() {
                self.out.push_str(&s);
                self.out.push_str("\n\n");
            }
        }
        let first_is_header = rows.first().is_some_and(|(_, h)| *h);
        let write_row = |out: &mut String, cells: &[String]| {
            out.push('|');
            for i in 0..cols {
                out.push(' ');
                out.push_str(cells.get(i).map(String::as_str).unwrap_or(""));
                out.push_str(" |");
            }
            out.push('\n');
        };
        let mut iter = rows.iter();
        if first_is_header {
            if let Some((h, _)) = iter.next() {
                write_row(&mut self.out, h);
            }
        } else {
            write_row(&mut self.out, &vec![String::new(); cols]);
        }
        self.out.push('|');
        for _ in 0..cols {
            self.out.push_str(" --- |");
        }
        self.out.push('\n');
        for (r, _) in iter {
            write_row(&mut self.out, r);
        }
        self.para_break();
    }
}

pub(super) fn is_lang_token(l: &str) -> bool {
    !l.is_empty()
        && l.len() <= 20
        && l.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '#' | '-' | '_'))
}

pub(super) fn trim_trailing_spaces(s: &mut String) {
    let t = s.trim_end_matches([' ', '\t']).len();
    s.truncate(t);
}

/// Plain text of Markdown produced by this crate: link targets, image syntax,
/// fence markers, heading/list/quote markers and table pipes removed.
pub fn markdown_to_plain(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut in_fence = false;
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        if in_fence {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let t = t
            .trim_start_matches('#')
            .trim_start_matches('>')
            .trim_start();
        if t.chars().all(|c| matches!(c, '|' | '-' | ' ' | ':')) && t.contains("---") {
            out.push('\n');
            continue;
        }
        strip_inline(t, &mut out);
        out.push('\n');
    }
    out
}

pub(super) fn strip_inline(s: &str, out: &mut String) {
    let start = out.len();
    let b = s.as_bytes();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        match b.get(i) {
            Some(b'!') if b.get(i + 1) == Some(&b'[') => {
                if let Some(end) = link_end(s, i + 1) {
                    out.push_str(s.get(last..i).unwrap_or(""));
                    i = end;
                    last = i;
                    continue;
                }
            }
            Some(b']') if b.get(i + 1) == Some(&b'(') => {
                if let Some(close) = s.get(i + 2..).and_then(|r| r.find(')')) {
                    out.push_str(s.get(last..i).unwrap_or(""));
                    i = i + 2 + close + 1;
                    last = i;
                    continue;
                }
            }
            Some(b'[') | Some(b'*') | Some(b'`') | Some(b'|') => {
                out.push_str(s.get(last..i).unwrap_or(""));
                out.push(if b.get(i) == Some(&b'|') {
                    ' '
                } else {
                    '\u{0}'
                });
                i += 1;
                last = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(s.get(last..).unwrap_or(""));
    // Markers were replaced by NUL to keep word boundaries as in the source;
    // only this line's part of `out` is scanned (no quadratic rescans).
    if out.get(start..).is_some_and(|l| l.contains('\0')) {
        let line: String = out
            .get(start..)
            .unwrap_or("")
            .chars()
            .filter(|&c| c != '\0')
            .collect();
        out.truncate(start);
        out.push_str(&line);
    }
}

/// End (exclusive) of `[text](target)` starting at `[` position `i`.
pub(super) fn link_end(s: &str, i: usize) -> Option<usize> {
    let rest = s.get(i..)?;
    let close = rest.find("](")?;
    let after = rest.get(close + 2..)?;
    let paren = after.find(')')?;
    Some(i + close + 2 + paren + 1)
}
