//! A small, fast, forgiving HTML tokenizer and tree builder.
//!
//! It implements the parts of the HTML5 parsing rules that matter for text
//! extraction (void elements, raw-text elements, implied end tags for `p`,
//! `li`, `td`, … and end-tag recovery) and never panics: nesting is capped at
//! [`MAX_DEPTH`] (deeper elements are flattened into their ancestor).

use crate::entities::decode_entities;

/// Maximum element nesting kept in the tree; deeper start tags are flattened.
pub const MAX_DEPTH: usize = 256;

/// Index of a node in [`Dom::nodes`].
pub type NodeId = usize;

/// A node of the tree.
#[derive(Debug, Clone)]
pub struct Node {
    /// Parent node (the root is its own parent).
    pub parent: NodeId,
    /// Children in document order.
    pub children: Vec<NodeId>,
    /// Element or text payload.
    pub data: NodeData,
}

/// What a node holds.
#[derive(Debug, Clone)]
pub enum NodeData {
    /// The document root.
    Root,
    /// An element with its lower-case tag name and attributes (names lower-cased, values decoded).
    Element {
        /// Lower-case tag name.
        tag: String,
        /// Attributes in source order.
        attrs: Vec<(String, String)>,
    },
    /// Decoded text.
    Text(String),
}

/// A parsed document.
#[derive(Debug, Clone)]
pub struct Dom {
    /// All nodes; `nodes[0]` is the root.
    pub nodes: Vec<Node>,
}

impl Dom {
    /// Tag name of an element node (empty for other nodes).
    pub fn tag(&self, id: NodeId) -> &str {
        match self.nodes.get(id).map(|n| &n.data) {
            Some(NodeData::Element { tag, .. }) => tag,
            _ => "",
        }
    }

    /// Attribute value of an element node.
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        match self.nodes.get(id).map(|n| &n.data) {
            Some(NodeData::Element { attrs, .. }) => attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }

    /// Children of a node.
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.nodes
            .get(id)
            .map(|n| n.children.as_slice())
            .unwrap_or(&[])
    }

    /// Parent of a node (`None` for the root).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        match self.nodes.get(id) {
            Some(n) if id != 0 => Some(n.parent),
            _ => None,
        }
    }

    /// Text of a text node.
    pub fn text(&self, id: NodeId) -> Option<&str> {
        match self.nodes.get(id).map(|n| &n.data) {
            Some(NodeData::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// All element ids with the given tag, in document order.
    pub fn find_all(&self, tag: &str) -> Vec<NodeId> {
        (0..self.nodes.len())
            .filter(|&i| self.tag(i) == tag)
            .collect()
    }

    /// Concatenated text of a subtree (iterative, no recursion).
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            if let Some(t) = self.text(n) {
                out.push_str(t);
            }
            for &c in self.children(n).iter().rev() {
                stack.push(c);
            }
        }
        out
    }

    /// Parse HTML text into a tree.
    pub fn parse(html: &str) -> Dom {
        Builder::new(html.len()).run(html)
    }
}

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen", "command", "basefont", "bgsound", "frame",
];

/// Elements whose content is raw text up to the matching end tag.
const RAW_TEXT: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
];

/// Start tags that close an open `<p>`.
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
    "li",
    "dd",
    "dt",
    "listing",
];

/// Elements that bound the search for implied end tags.
const SCOPE: &[&str] = &[
    "html",
    "table",
    "td",
    "th",
    "caption",
    "marquee",
    "object",
    "template",
    "applet",
    "button",
    "ol",
    "ul",
    "div",
    "article",
    "section",
    "main",
    "body",
    "blockquote",
    "li",
    "dd",
    "dt",
];

struct Builder {
    nodes: Vec<Node>,
    stack: Vec<NodeId>,
    /// Number of start tags flattened because of the depth cap; their end tags are ignored.
    flattened: usize,
}

fn is_in(list: &[&str], tag: &str) -> bool {
    list.contains(&tag)
}

impl Builder {
    fn new(len: usize) -> Self {
        let mut nodes = Vec::with_capacity(len / 40 + 16);
        nodes.push(Node {
            parent: 0,
            children: Vec::new(),
            data: NodeData::Root,
        });
        Builder {
            nodes,
            stack: vec![0],
            flattened: 0,
        }
    }

    fn current(&self) -> NodeId {
        self.stack.last().copied().unwrap_or(0)
    }

    fn append(&mut self, data: NodeData) -> NodeId {
        let parent = self.current();
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent,
            children: Vec::new(),
            data,
        });
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children.push(id);
        }
        id
    }

    fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let decoded = decode_entities(text);
        // Merge with a previous text sibling.
        let parent = self.current();
        if let Some(&last) = self.nodes.get(parent).and_then(|p| p.children.last()) {
            if let Some(Node {
                data: NodeData::Text(t),
                ..
            }) = self.nodes.get_mut(last)
            {
                t.push_str(&decoded);
                return;
            }
        }
        self.append(NodeData::Text(decoded.into_owned()));
    }

    fn open_tag_name(&self, i: usize) -> &str {
        match self
            .stack
            .get(i)
            .and_then(|&id| self.nodes.get(id))
            .map(|n| &n.data)
        {
            Some(NodeData::Element { tag, .. }) => tag,
            _ => "",
        }
    }

    /// Close the innermost open `tag` if it is found before a scope boundary.
    fn close_if_open(&mut self, tag: &str, boundaries: &[&str]) {
        let mut i = self.stack.len();
        while i > 1 {
            i -= 1;
            let name = self.open_tag_name(i);
            if name == tag {
                self.stack.truncate(i);
                return;
            }
            if is_in(boundaries, name) {
                return;
            }
        }
    }

    fn start_tag(&mut self, tag: String, attrs: Vec<(String, String)>, self_closing: bool) {
        match tag.as_str() {
            t if is_in(CLOSES_P, t) => {
                self.close_if_open("p", SCOPE);
                match t {
                    "li" => {
                        self.close_if_open("li", &["ul", "ol", "menu", "table", "body", "html"])
                    }
                    "dd" | "dt" => {
                        self.close_if_open("dd", &["dl", "table", "body"]);
                        self.close_if_open("dt", &["dl", "table", "body"]);
                    }
                    _ => {}
                }
            }
            "td" | "th" => {
                self.close_if_open("td", &["tr", "table"]);
                self.close_if_open("th", &["tr", "table"]);
            }
            "tr" => {
                self.close_if_open("td", &["tr", "table"]);
                self.close_if_open("th", &["tr", "table"]);
                self.close_if_open("tr", &["table", "tbody", "thead", "tfoot"]);
            }
            "tbody" | "thead" | "tfoot" => {
                self.close_if_open("td", &["table"]);
                self.close_if_open("th", &["table"]);
                self.close_if_open("tr", &["table"]);
                self.close_if_open("tbody", &["table"]);
                self.close_if_open("thead", &["table"]);
            }
            "option" => self.close_if_open("option", &["select", "datalist"]),
            "a" => self.close_if_open("a", SCOPE),
            _ => {}
        }
        let void = is_in(VOID, &tag) || self_closing;
        if self.stack.len() >= MAX_DEPTH && !void {
            // Too deep: keep the content, drop the element.
            self.flattened += 1;
            return;
        }
        let id = self.append(NodeData::Element { tag, attrs });
        if !void {
            self.stack.push(id);
        }
    }

    fn end_tag(&mut self, tag: &str) {
        if self.flattened > 0 && self.stack.len() >= MAX_DEPTH {
            self.flattened -= 1;
            return;
        }
        // Search a bounded number of levels for the matching open element.
        let mut i = self.stack.len();
        let mut steps = 0;
        while i > 1 && steps < 64 {
            i -= 1;
            steps += 1;
            let name = self.open_tag_name(i);
            if name == tag {
                self.stack.truncate(i);
                return;
            }
            // Formatting end tags do not cross block boundaries.
            if matches!(
                tag,
                "b" | "i" | "em" | "strong" | "span" | "a" | "font" | "u" | "small"
            ) && is_in(SCOPE, name)
            {
                return;
            }
        }
    }

    fn run(mut self, html: &str) -> Dom {
        let bytes = html.as_bytes();
        let len = bytes.len();
        let mut pos = 0usize;
        let mut text_start = 0usize;
        while pos < len {
            // Jump to the next '<'.
            match memchr(b'<', bytes, pos) {
                Some(p) => pos = p,
                None => break,
            }
            let next = bytes.get(pos + 1).copied().unwrap_or(0);
            if next == b'!' {
                self.push_text(html.get(text_start..pos).unwrap_or(""));
                if html.get(pos..pos + 4) == Some("<!--") {
                    pos = find(bytes, b"-->", pos + 4).map(|e| e + 3).unwrap_or(len);
                } else if bytes
                    .get(pos + 2..pos + 9)
                    .is_some_and(|s| s.eq_ignore_ascii_case(b"[CDATA["))
                {
                    let end = find(bytes, b"]]>", pos + 9).unwrap_or(len);
                    self.push_text(html.get(pos + 9..end).unwrap_or(""));
                    pos = (end + 3).min(len);
                } else {
                    pos = memchr(b'>', bytes, pos).map(|e| e + 1).unwrap_or(len);
                }
                text_start = pos;
                continue;
            }
            if next == b'?' {
                self.push_text(html.get(text_start..pos).unwrap_or(""));
                pos = memchr(b'>', bytes, pos).map(|e| e + 1).unwrap_or(len);
                text_start = pos;
                continue;
            }
            if next == b'/' {
                let name_start = pos + 2;
                if !bytes
                    .get(name_start)
                    .is_some_and(|b| b.is_ascii_alphabetic())
                {
                    // `</>` or `</ junk`: skip to '>' (a bogus comment).
                    self.push_text(html.get(text_start..pos).unwrap_or(""));
                    pos = memchr(b'>', bytes, pos).map(|e| e + 1).unwrap_or(len);
                    text_start = pos;
                    continue;
                }
                self.push_text(html.get(text_start..pos).unwrap_or(""));
                let mut e = name_start;
                while e < len
                    && !matches!(
                        bytes.get(e),
                        Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
                    )
                {
                    e += 1;
                }
                let name = html.get(name_start..e).unwrap_or("").to_ascii_lowercase();
                pos = memchr(b'>', bytes, e).map(|x| x + 1).unwrap_or(len);
                text_start = pos;
                self.end_tag(&name);
                continue;
            }
            if !next.is_ascii_alphabetic() {
                // A literal '<' in text.
                pos += 1;
                continue;
            }
            self.push_text(html.get(text_start..pos).unwrap_or(""));
            let (tag, attrs, self_closing, after) = parse_tag(html, pos + 1);
            pos = after;
            text_start = pos;
            if is_in(RAW_TEXT, &tag) && !self_closing {
                let end = find_end_tag(bytes, &tag, pos).unwrap_or(len);
                let body = html.get(pos..end).unwrap_or("");
                let keep_script = tag == "script"
                    && attrs
                        .iter()
                        .any(|(k, v)| k == "type" && v.eq_ignore_ascii_case("application/ld+json"));
                let is_title = tag == "title" || tag == "textarea";
                self.start_tag(tag, attrs, false);
                if keep_script {
                    let parent = self.current();
                    let id = self.append(NodeData::Text(body.to_string()));
                    let _ = (parent, id);
                } else if is_title {
                    self.push_text(body);
                }
                // Close the raw-text element.
                if let Some(top) = self.stack.last().copied() {
                    if self.nodes.get(top).is_some_and(|n| matches!(&n.data, NodeData::Element { tag: t, .. } if is_in(RAW_TEXT, t)))
                    {
                        self.stack.pop();
                    }
                }
                pos = memchr(b'>', bytes, end).map(|x| x + 1).unwrap_or(len);
                text_start = pos;
                continue;
            }
            self.start_tag(tag, attrs, self_closing);
        }
        if text_start < len {
            self.push_text(html.get(text_start..).unwrap_or(""));
        }
        Dom { nodes: self.nodes }
    }
}

/// Parse a start tag whose name begins at `start`; returns (name, attrs, self-closing, position after `>`).
fn parse_tag(html: &str, start: usize) -> (String, Vec<(String, String)>, bool, usize) {
    let bytes = html.as_bytes();
    let len = bytes.len();
    let mut p = start;
    while p < len
        && !matches!(
            bytes.get(p),
            Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
        )
    {
        p += 1;
    }
    let name = html.get(start..p).unwrap_or("").to_ascii_lowercase();
    let mut attrs = Vec::new();
    let mut self_closing = false;
    loop {
        while p < len && matches!(bytes.get(p), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            p += 1;
        }
        match bytes.get(p) {
            None => return (name, attrs, self_closing, len),
            Some(b'>') => return (name, attrs, self_closing, p + 1),
            Some(b'/') => {
                p += 1;
                if bytes.get(p) == Some(&b'>') {
                    self_closing = true;
                }
                continue;
            }
            _ => {}
        }
        let an_start = p;
        p += 1;
        while p < len
            && !matches!(
                bytes.get(p),
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>' | b'=')
            )
        {
            p += 1;
        }
        let aname = html.get(an_start..p).unwrap_or("").to_ascii_lowercase();
        while p < len && matches!(bytes.get(p), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            p += 1;
        }
        let mut value = String::new();
        if bytes.get(p) == Some(&b'=') {
            p += 1;
            while p < len && matches!(bytes.get(p), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
                p += 1;
            }
            match bytes.get(p) {
                Some(&q) if q == b'"' || q == b'\'' => {
                    let vs = p + 1;
                    let ve = memchr(q, bytes, vs).unwrap_or(len);
                    value = decode_entities(html.get(vs..ve).unwrap_or("")).into_owned();
                    p = (ve + 1).min(len);
                }
                _ => {
                    let vs = p;
                    while p < len
                        && !matches!(
                            bytes.get(p),
                            Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>')
                        )
                    {
                        p += 1;
                    }
                    value = decode_entities(html.get(vs..p).unwrap_or("")).into_owned();
                }
            }
        }
        if !aname.is_empty() && attrs.len() < 64 && !attrs.iter().any(|(k, _)| *k == aname) {
            attrs.push((aname, value));
        }
    }
}

fn memchr(needle: u8, hay: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .iter()
        .position(|&b| b == needle)
        .map(|i| i + from)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = *needle.first()?;
    let mut p = from;
    loop {
        let i = memchr(first, hay, p)?;
        if hay.get(i..i + needle.len()) == Some(needle) {
            return Some(i);
        }
        p = i + 1;
    }
}

/// Position of `</tag` (case-insensitive) at or after `from`.
fn find_end_tag(hay: &[u8], tag: &str, from: usize) -> Option<usize> {
    let t = tag.as_bytes();
    let mut p = from;
    loop {
        let i = find(hay, b"</", p)?;
        if hay
            .get(i + 2..i + 2 + t.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(t))
            && !hay
                .get(i + 2 + t.len())
                .is_some_and(|b| b.is_ascii_alphanumeric())
        {
            return Some(i);
        }
        p = i + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implied_end_tags_and_voids() {
        let d = Dom::parse("<div><p>one<p>two<br>three<ul><li>a<li>b</ul></div>");
        let ps = d.find_all("p");
        assert_eq!(ps.len(), 2);
        assert_eq!(d.text_content(ps[1]), "twothree");
        let lis = d.find_all("li");
        assert_eq!(lis.len(), 2);
        assert_eq!(d.parent(lis[1]), d.find_all("ul").first().copied());
    }

    #[test]
    fn raw_text_and_entities() {
        let d = Dom::parse(
            "<script>if (a<b) {}</script><p title='x &amp; y'>caf&eacute; &#233; &lt;b&gt;</p>",
        );
        let p = d.find_all("p")[0];
        assert_eq!(d.text_content(p), "café é <b>");
        assert_eq!(d.attr(p, "title"), Some("x & y"));
        assert_eq!(d.text_content(d.find_all("script")[0]), "");
    }

    #[test]
    fn depth_is_capped() {
        let html = "<div>".repeat(10_000) + "deep" + &"</div>".repeat(10_000);
        let d = Dom::parse(&html);
        assert!(d.text_content(0).contains("deep"));
        // No node sits deeper than the cap.
        let mut max = 0;
        for i in 0..d.nodes.len() {
            let (mut n, mut depth) = (i, 0);
            while let Some(p) = d.parent(n) {
                n = p;
                depth += 1;
            }
            max = max.max(depth);
        }
        assert!(max <= MAX_DEPTH + 1, "{max}");
    }
}
