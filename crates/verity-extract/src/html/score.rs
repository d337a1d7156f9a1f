//! Scoring: readability-style paragraph scores, selection of the main-content roots, conditional cleaning.

use super::*;

pub(super) fn paragraph_like(dom: &Dom, st: &Stats, id: NodeId) -> bool {
    match dom.tag(id) {
        "p" | "pre" | "td" | "blockquote" | "dd" => true,
        "div" | "section" | "span" | "font" | "center" => {
            !st.block_child.get(id).copied().unwrap_or(true)
        }
        _ => false,
    }
}

pub(super) fn base_score(dom: &Dom, id: NodeId) -> f32 {
    let t = match dom.tag(id) {
        "div" | "article" | "main" | "section" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    };
    t + class_weight(&class_id(dom, id))
}

/// Select the main-content roots (the best container, or it and some siblings).
pub(super) fn select(dom: &Dom, st: &Stats, removed: &[bool]) -> Vec<NodeId> {
    let n = dom.nodes.len();
    let mut score: Vec<f32> = vec![f32::NAN; n];
    // Loose text (text nodes and inline elements) directly inside block containers
    // counts as an implicit paragraph of that container.
    let mut direct_text = vec![0u32; n];
    let mut direct_commas = vec![0u32; n];
    for id in 1..n {
        if removed.get(id).copied().unwrap_or(true) {
            continue;
        }
        let Some(node) = dom.nodes.get(id) else {
            continue;
        };
        let inline = match &node.data {
            NodeData::Text(_) => true,
            NodeData::Element { tag, .. } => !is_block(tag),
            NodeData::Root => false,
        };
        if inline {
            if let Some(x) = direct_text.get_mut(node.parent) {
                *x += st.text.get(id).copied().unwrap_or(0);
            }
            if let Some(x) = direct_commas.get_mut(node.parent) {
                *x += st.commas.get(id).copied().unwrap_or(0);
            }
        }
    }
    for id in 1..n {
        if removed.get(id).copied().unwrap_or(true) {
            continue;
        }
        let para = paragraph_like(dom, st, id);
        let loose = !para
            && st.block_child.get(id).copied().unwrap_or(false)
            && !matches!(
                dom.tag(id),
                "ul" | "ol" | "table" | "tbody" | "tr" | "dl" | "body" | "html" | ""
            );
        if !para && !loose {
            continue;
        }
        let (len, commas) = if para {
            (
                st.text.get(id).copied().unwrap_or(0),
                st.commas.get(id).copied().unwrap_or(0),
            )
        } else {
            (
                direct_text.get(id).copied().unwrap_or(0),
                direct_commas.get(id).copied().unwrap_or(0),
            )
        };
        if len < 25 {
            continue;
        }
        let s = 1.0 + commas as f32 + (len as f32 / 100.0).min(3.0);
        // A loose-text container is itself the parent of its implicit paragraph.
        let mut anc = id;
        let first_level = if loose { 1 } else { 0 };
        if loose {
            if let Some(slot) = score.get_mut(id) {
                if slot.is_nan() {
                    *slot = base_score(dom, id);
                }
                *slot += s;
            }
        }
        for level in first_level..5 {
            let Some(p) = dom.parent(anc) else { break };
            if p == 0 || matches!(dom.tag(p), "html" | "body") {
                break;
            }
            if let Some(slot) = score.get_mut(p) {
                if slot.is_nan() {
                    *slot = base_score(dom, p);
                }
                let div = match level {
                    0 => 1.0,
                    1 => 2.0,
                    l => l as f32 * 3.0,
                };
                *slot += s / div;
            }
            anc = p;
        }
    }
    let ld = |id: NodeId| -> f32 {
        let t = st.text.get(id).copied().unwrap_or(0);
        if t == 0 {
            return 0.0;
        }
        st.link.get(id).copied().unwrap_or(0) as f32 / t as f32
    };
    let mut cands: Vec<(NodeId, f32)> = score
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_nan())
        .map(|(i, s)| (i, s * (1.0 - ld(i))))
        .collect();
    cands.sort_by(|a, b| b.1.total_cmp(&a.1));
    let Some(&(mut top, mut top_score)) = cands.first() else {
        // No paragraphs: fall back to body (or the root).
        return vec![dom.find_all("body").first().copied().unwrap_or(0)];
    };
    let final_score = |id: NodeId| -> Option<f32> {
        let s = score.get(id).copied()?;
        (!s.is_nan()).then(|| s * (1.0 - ld(id)))
    };
    // Several strong candidates under one ancestor: take the ancestor.
    let strong: Vec<NodeId> = cands
        .iter()
        .skip(1)
        .take(5)
        .filter(|(_, s)| *s >= top_score * 0.75)
        .map(|(i, _)| *i)
        .collect();
    if strong.len() >= 3 {
        let mut anc = dom.parent(top);
        while let Some(a) = anc {
            if a == 0 || matches!(dom.tag(a), "body" | "html") {
                break;
            }
            let contained = strong.iter().filter(|&&c| is_ancestor(dom, a, c)).count();
            if contained >= 3 {
                top = a;
                break;
            }
            anc = dom.parent(a);
        }
    }
    // Walk up while the parent scores better.
    let mut last = final_score(top).unwrap_or(top_score);
    let threshold = last / 3.0;
    let mut parent = dom.parent(top);
    while let Some(p) = parent {
        if p == 0 || matches!(dom.tag(p), "body" | "html") {
            break;
        }
        match final_score(p) {
            None => {}
            Some(ps) if ps < threshold => break,
            Some(ps) if ps > last => {
                top = p;
                break;
            }
            Some(ps) => last = ps,
        }
        parent = dom.parent(p);
    }
    // Only child: use the parent.
    while let Some(p) = dom.parent(top) {
        if p == 0 || matches!(dom.tag(p), "body" | "html") {
            break;
        }
        let kept = dom
            .children(p)
            .iter()
            .filter(|&&c| !removed.get(c).copied().unwrap_or(true) && !dom.tag(c).is_empty())
            .count();
        if kept != 1 {
            break;
        }
        top = p;
    }
    top_score = final_score(top).unwrap_or(top_score);
    // Siblings.
    let Some(parent) = dom.parent(top) else {
        return vec![top];
    };
    let threshold = (top_score * 0.2).max(10.0);
    let top_class = dom.attr(top, "class").unwrap_or("");
    let mut out = Vec::new();
    for &sib in dom.children(parent) {
        if removed.get(sib).copied().unwrap_or(true) {
            continue;
        }
        if sib == top {
            out.push(sib);
            continue;
        }
        let NodeData::Element { .. } = dom
            .nodes
            .get(sib)
            .map(|n| &n.data)
            .unwrap_or(&NodeData::Root)
        else {
            continue;
        };
        let bonus = if !top_class.is_empty() && dom.attr(sib, "class") == Some(top_class) {
            top_score * 0.2
        } else {
            0.0
        };
        let append = match final_score(sib) {
            Some(s) if s + bonus >= threshold => true,
            _ => {
                if dom.tag(sib) == "p" || paragraph_like(dom, st, sib) {
                    let len = st.text.get(sib).copied().unwrap_or(0);
                    let d = ld(sib);
                    if len > 80 {
                        d < 0.25
                    } else {
                        len > 0 && d == 0.0 && dom.text_content(sib).trim_end().ends_with('.')
                    }
                } else {
                    false
                }
            }
        };
        if append {
            out.push(sib);
        }
    }
    out
}

pub(super) fn is_ancestor(dom: &Dom, anc: NodeId, mut node: NodeId) -> bool {
    let mut steps = 0;
    while let Some(p) = dom.parent(node) {
        if p == anc {
            return true;
        }
        node = p;
        steps += 1;
        if steps > crate::dom::MAX_DEPTH + 2 {
            break;
        }
    }
    false
}

/// Conditional cleaning of a block inside the content (readability's rules).
pub(super) fn clean_conditionally(dom: &Dom, st: &Stats, id: NodeId) -> bool {
    let tag = dom.tag(id);
    if !matches!(
        tag,
        "div"
            | "section"
            | "ul"
            | "ol"
            | "table"
            | "form"
            | "fieldset"
            | "header"
            | "footer"
            | "dl"
    ) {
        return false;
    }
    let ci = class_id(dom, id);
    let weight = class_weight(&ci);
    if weight < 0.0 {
        return true;
    }
    let g = |v: &Vec<u32>| v.get(id).copied().unwrap_or(0);
    if g(&st.commas) >= 10 {
        return false;
    }
    let is_list = matches!(tag, "ul" | "ol");
    let text = g(&st.text);
    let p = g(&st.p) as f32;
    let img = g(&st.img) as f32;
    let li = g(&st.li) as f32 - 100.0;
    let input = g(&st.input) as f32;
    let ld = if text == 0 {
        0.0
    } else {
        g(&st.link) as f32 / text as f32
    };
    if tag == "table" && is_data_table(dom, id) {
        return ld > 0.5;
    }
    (img > 1.0 && p / img < 0.5)
        || (!is_list && li > p)
        || (input > (p / 3.0).floor())
        || (!is_list && text < 25 && (img == 0.0 || img > 2.0) && ld > 0.0)
        || (!is_list && weight < 25.0 && ld > 0.2)
        || (weight >= 25.0 && ld > 0.5)
        || (is_list && ld > 0.5)
}

pub(super) fn is_data_table(dom: &Dom, id: NodeId) -> bool {
    let mut rows = 0;
    let mut max_cols = 0;
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        for &c in dom.children(n) {
            match dom.tag(c) {
                "table" => return false,
                "tr" => {
                    rows += 1;
                    let cols = dom
                        .children(c)
                        .iter()
                        .filter(|&&x| matches!(dom.tag(x), "td" | "th"))
                        .count();
                    max_cols = max_cols.max(cols);
                }
                "thead" | "tbody" | "tfoot" => stack.push(c),
                _ => {}
            }
        }
    }
    rows >= 2 && max_cols >= 2
}

/// Main content of a parsed page as Markdown.
pub fn extract_main(dom: &Dom, base: Option<&Url>, title: Option<&str>) -> String {
    extract_main_parts(dom, base, title).markdown
}

/// The main content and what was taken out of its text.
pub(super) struct MainContent {
    /// Markdown without link targets or image syntax.
    pub(super) markdown: String,
    /// (anchor text, absolute target) of the links in the content.
    pub(super) links: Vec<(String, String)>,
    /// (alt text, absolute source) of the content's described images.
    pub(super) images: Vec<(String, String)>,
}

/// [`extract_main`] with the links and images kept aside.
pub(super) fn extract_main_parts(
    dom: &Dom,
    base: Option<&Url>,
    title: Option<&str>,
) -> MainContent {
    let removed = mark_removed(dom);
    let st = compute_stats(dom, &removed);
    let roots = select(dom, &st, &removed);
    let mut r = Renderer {
        dom,
        st: &st,
        removed: &removed,
        base,
        title: title.map(norm_title),
        out: String::new(),
        root_ptext: roots
            .iter()
            .map(|&r| st.ptext.get(r).copied().unwrap_or(0))
            .sum(),
        links: Vec::new(),
        images: Vec::new(),
    };
    for root in roots {
        r.block(root, 0);
    }
    MainContent {
        markdown: finish(r.out),
        links: r.links,
        images: r.images,
    }
}

pub(super) fn norm_title(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub(super) fn finish(s: String) -> String {
    // Collapse 3+ newlines and trim trailing spaces on lines.
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let l = line.trim_end();
        if l.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(l);
    }
    out
}
