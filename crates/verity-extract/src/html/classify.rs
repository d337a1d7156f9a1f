//! Classification: which elements are blocks, boilerplate, hidden; per-node text statistics.

use super::*;

/// Tags never part of the content.
pub(super) const DROP_TAGS: &[&str] = &[
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "object",
    "embed",
    "nav",
    "aside",
    "button",
    "select",
    "input",
    "textarea",
    "label",
    "dialog",
    "menu",
    "head",
    "title",
    "meta",
    "link",
    "map",
    "video",
    "audio",
    "picture",
    "source",
    "option",
    "datalist",
    "output",
    "progress",
    "meter",
    "form",
    "figcaption",
];

pub(super) const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dd",
    "div",
    "dl",
    "dt",
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
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
    "tfoot",
    "caption",
    "body",
    "html",
    "menu",
    "br",
];

pub(super) fn is_block(tag: &str) -> bool {
    BLOCK_TAGS.contains(&tag)
}

/// Class/id substrings of boilerplate that is removed outright.
pub(super) const UNLIKELY: &[&str] = &[
    "caption",
    "credit",
    "comment",
    "disqus",
    "cookie",
    "consent",
    "gdpr",
    "breadcrumb",
    "newsletter",
    "outbrain",
    "taboola",
    "sidebar",
    "footer",
    "social",
    "sharing",
    "sharedaddy",
    "share-",
    "-share",
    "related",
    "recommend",
    "subscribe",
    "paywall",
    "popup",
    "skiplink",
    "skip-link",
    "sr-only",
    "screen-reader",
    "visually-hidden",
    "signup",
    "sign-up",
    "masthead",
    "navbar",
    "byline",
    "author-bio",
    "authorbio",
    "about-author",
    "author-box",
    "author-info",
    "more-stories",
    "recirc",
    "trending",
    "promo",
    "sponsor",
    "advert",
    "banner",
    "pagination",
    "toolbar",
    "tagcloud",
    "tag-list",
    "taglist",
    "post-tags",
    "entry-tags",
    "article-tags",
    "post-meta",
    "entry-meta",
    "article-meta",
    "yarpp",
    "relatedposts",
    "addtoany",
    "shoutbox",
    "skyscraper",
    "supplemental",
    "lightbox",
    "modal",
    "carousel",
    "slideshow",
    "donate",
    "breaking-news",
    "ticker",
    "most-popular",
    "mostpopular",
    "read-more",
    "readmore",
    "further-reading",
    "see-also",
    "print-only",
    "jump-link",
    "offscreen",
    "agegate",
    "ai2html",
    "cover-wrap",
];

/// Whole class/id words (split on non-alphanumerics) of boilerplate.
pub(super) const UNLIKELY_TOKENS: &[&str] = &[
    "ad",
    "ads",
    "adv",
    "advert",
    "advertisement",
    "advertising",
    "dfp",
    "gpt",
    "nav",
    "menu",
    "header",
    "share",
    "shares",
    "tags",
    "tag",
    "pager",
    "meta",
    "caption",
    "credit",
    "credits",
    "print",
    "rss",
    "login",
    "rating",
    "poll",
    "survey",
    "alert",
    "follow",
    "bio",
    "dateline",
    "timestamp",
    "date",
    "extra",
    "legends",
    "remark",
    "replies",
    "community",
    "topbar",
    "utility",
    "gallery",
    "hidden",
    "hide",
    "dnone",
    "noprint",
    "subnav",
    "submenu",
    "breadcrumbs",
    "teaser",
    "teasers",
    "outbrain",
    "prev",
    "next",
    "pullquote",
];

pub(super) const NEGATIVE: &[&str] = &[
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "foot",
    "footnote",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "tool",
    "widget",
    "byline",
    "author",
    "caption",
    "credit",
    "newsletter",
];

pub(super) const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "text",
    "blog", "story",
];

pub(super) fn class_id(dom: &Dom, id: NodeId) -> String {
    let mut s = String::new();
    if let Some(c) = dom.attr(id, "class") {
        s.push_str(&c.to_ascii_lowercase());
    }
    if let Some(i) = dom.attr(id, "id") {
        s.push(' ');
        s.push_str(&i.to_ascii_lowercase());
    }
    s
}

pub(super) fn class_weight(ci: &str) -> f32 {
    if ci.is_empty() {
        return 0.0;
    }
    let mut w = 0.0;
    if NEGATIVE.iter().any(|p| ci.contains(p)) {
        w -= 25.0;
    }
    if POSITIVE.iter().any(|p| ci.contains(p)) {
        w += 25.0;
    }
    w
}

pub(super) fn is_hidden(dom: &Dom, id: NodeId) -> bool {
    if dom.attr(id, "hidden").is_some() || dom.attr(id, "aria-hidden").is_some_and(|v| v == "true")
    {
        return true;
    }
    if let Some(style) = dom.attr(id, "style") {
        let s: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if s.contains("display:none") || s.contains("visibility:hidden") {
            return true;
        }
    }
    false
}

/// Per-node statistics over the kept tree.
pub(super) struct Stats {
    pub(super) text: Vec<u32>,
    pub(super) link: Vec<u32>,
    pub(super) commas: Vec<u32>,
    pub(super) p: Vec<u32>,
    pub(super) img: Vec<u32>,
    pub(super) li: Vec<u32>,
    pub(super) input: Vec<u32>,
    /// Text inside `p` elements.
    pub(super) ptext: Vec<u32>,
    pub(super) block_child: Vec<bool>,
}

pub(super) fn text_len(t: &str) -> u32 {
    // Characters with runs of whitespace counted once.
    let mut n = 0u32;
    let mut ws = true;
    for c in t.chars() {
        if c.is_whitespace() {
            if !ws {
                n += 1;
            }
            ws = true;
        } else {
            n += 1;
            ws = false;
        }
    }
    n
}

pub(super) fn compute_stats(dom: &Dom, removed: &[bool]) -> Stats {
    let n = dom.nodes.len();
    let mut s = Stats {
        text: vec![0; n],
        link: vec![0; n],
        commas: vec![0; n],
        p: vec![0; n],
        img: vec![0; n],
        li: vec![0; n],
        input: vec![0; n],
        ptext: vec![0; n],
        block_child: vec![false; n],
    };
    // Children always have larger ids than their parent: one reverse sweep accumulates.
    for id in (1..n).rev() {
        if removed.get(id).copied().unwrap_or(true) {
            continue;
        }
        let Some(node) = dom.nodes.get(id) else {
            continue;
        };
        match &node.data {
            NodeData::Text(t) => {
                if let Some(x) = s.text.get_mut(id) {
                    *x = text_len(t);
                }
                if let Some(x) = s.commas.get_mut(id) {
                    *x = t.matches([',', '，', '、']).count() as u32;
                }
            }
            NodeData::Element { tag, .. } => match tag.as_str() {
                "a" => {
                    let t = s.text.get(id).copied().unwrap_or(0);
                    if let Some(x) = s.link.get_mut(id) {
                        *x = t;
                    }
                }
                "p" => {
                    inc(&mut s.p, id);
                    let t = s.text.get(id).copied().unwrap_or(0);
                    if let Some(x) = s.ptext.get_mut(id) {
                        *x = t;
                    }
                }
                "img" => inc(&mut s.img, id),
                "li" => inc(&mut s.li, id),
                "input" | "select" | "textarea" | "button" => inc(&mut s.input, id),
                _ => {}
            },
            NodeData::Root => {}
        }
        let parent = node.parent;
        let tag_is_block = is_block(dom.tag(id));
        for v in [
            &mut s.text,
            &mut s.link,
            &mut s.commas,
            &mut s.p,
            &mut s.img,
            &mut s.li,
            &mut s.input,
            &mut s.ptext,
        ] {
            let c = v.get(id).copied().unwrap_or(0);
            if let Some(x) = v.get_mut(parent) {
                *x = x.saturating_add(c);
            }
        }
        if tag_is_block {
            if let Some(x) = s.block_child.get_mut(parent) {
                *x = true;
            }
        }
    }
    s
}

pub(super) fn inc(v: &mut [u32], id: NodeId) {
    if let Some(x) = v.get_mut(id) {
        *x = x.saturating_add(1);
    }
}

pub(super) fn tokens(ci: &str) -> impl Iterator<Item = &str> {
    ci.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// Mark boilerplate subtrees (and everything under them) as removed.
pub(super) fn mark_removed(dom: &Dom) -> Vec<bool> {
    let n = dom.nodes.len();
    let mut removed = vec![false; n];
    let raw = compute_stats(dom, &removed);
    let body_text = raw.ptext.first().copied().unwrap_or(0);
    let tag_links = boilerplate::tag_link_counts(dom);
    for id in 1..n {
        let Some(node) = dom.nodes.get(id) else {
            continue;
        };
        if removed.get(node.parent).copied().unwrap_or(false) {
            if let Some(r) = removed.get_mut(id) {
                *r = true;
            }
            continue;
        }
        let NodeData::Element { tag, .. } = &node.data else {
            continue;
        };
        if removed.get(id).copied().unwrap_or(false) {
            // Already dropped as a sibling of a "related" heading.
            continue;
        }
        let tag = tag.as_str();
        // Holding half of the page's paragraph text makes an element a content wrapper.
        let text = raw.ptext.get(id).copied().unwrap_or(0);
        let big = body_text > 0 && text as u64 * 2 >= body_text as u64;
        let drop = match tag {
            "html" | "body" | "main" | "article" => false,
            "form" => !big,
            "header" | "footer" => !big,
            t if DROP_TAGS.contains(&t) => true,
            _ => false,
        } || (!matches!(tag, "html" | "body") && is_hidden(dom, id))
            || unlikely(dom, id, tag, big);
        let tag_list = boilerplate::on(boilerplate::Rule::TagList)
            && !big
            && !matches!(tag, "body" | "main" | "article")
            && tag_links.get(id).copied().unwrap_or(0) >= 2
            && raw.link.get(id).copied().unwrap_or(0) * 2 >= raw.text.get(id).copied().unwrap_or(0);
        let date = boilerplate::on(boilerplate::Rule::DateMicrodata)
            && !big
            && raw.text.get(id).copied().unwrap_or(0) < 100
            && boilerplate::is_date_microdata(dom, id);
        let label = boilerplate::on(boilerplate::Rule::Label)
            && !drop
            && matches!(
                tag,
                "span" | "div" | "p" | "small" | "strong" | "b" | "em" | "i"
            )
            && raw
                .text
                .get(id)
                .is_some_and(|&t| t > 0 && t <= boilerplate::MAX_LABEL_CHARS)
            && boilerplate::is_label(&dom.text_content(id));
        let related =
            match boilerplate::related_heading(dom, id, raw.text.get(id).copied().unwrap_or(0)) {
                boilerplate::Related::ByText
                    if !boilerplate::on(boilerplate::Rule::RelatedByText) =>
                {
                    boilerplate::Related::No
                }
                boilerplate::Related::ByClass
                    if !boilerplate::on(boilerplate::Rule::RelatedByClass) =>
                {
                    boilerplate::Related::No
                }
                r => r,
            };
        if related != boilerplate::Related::No {
            // A class says it outright; a text match keeps siblings holding the article.
            let guard = if related == boilerplate::Related::ByText {
                body_text
            } else {
                0
            };
            drop_related_block(dom, &raw, &mut removed, id, guard);
        } else if drop || tag_list || date || label {
            if let Some(r) = removed.get_mut(id) {
                *r = true;
            }
        }
    }
    removed
}

/// Remove a "related" heading and the teasers after it in its parent, unless
/// those siblings hold half of `body_text` (0: no guard).
pub(super) fn drop_related_block(
    dom: &Dom,
    raw: &Stats,
    removed: &mut [bool],
    id: NodeId,
    body_text: u32,
) {
    let sibs = dom.parent(id).map(|p| dom.children(p)).unwrap_or(&[]);
    let after = sibs
        .iter()
        .position(|&c| c == id)
        .map_or(sibs.len(), |i| i + 1);
    let rest = sibs.get(after..).unwrap_or(&[]);
    let text: u64 = rest
        .iter()
        .map(|&c| u64::from(raw.ptext.get(c).copied().unwrap_or(0)))
        .sum();
    if let Some(r) = removed.get_mut(id) {
        *r = true;
    }
    if body_text > 0 && text * 2 >= u64::from(body_text) {
        return;
    }
    for &c in rest {
        if let Some(r) = removed.get_mut(c) {
            *r = true;
        }
    }
}

pub(super) fn unlikely(dom: &Dom, id: NodeId, tag: &str, big: bool) -> bool {
    if matches!(
        tag,
        "html"
            | "body"
            | "a"
            | "main"
            | "article"
            | "td"
            | "tr"
            | "tbody"
            | "table"
            | "pre"
            | "code"
    ) {
        return false;
    }
    if let Some(role) = dom.attr(id, "role") {
        if matches!(
            role.to_ascii_lowercase().as_str(),
            "navigation"
                | "banner"
                | "contentinfo"
                | "complementary"
                | "menu"
                | "menubar"
                | "dialog"
                | "alertdialog"
                | "search"
                | "toolbar"
                | "tablist"
        ) {
            return !big;
        }
    }
    let ci = class_id(dom, id);
    if ci.is_empty() || big {
        return false;
    }
    UNLIKELY.iter().any(|p| ci.contains(p)) || tokens(&ci).any(|t| UNLIKELY_TOKENS.contains(&t))
}
