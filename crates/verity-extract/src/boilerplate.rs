//! Structural boilerplate rules that class/id words alone miss: "related"
//! section headings (and the teasers after them), `rel="tag"` link lists,
//! microdata publication dates, ad labels and gallery counters.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::dom::{Dom, NodeData, NodeId};

/// The structural rules, for ablation in the evaluation (does a rule help
/// both halves of the benchmark, or only the pages it was written for?).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A heading whose text says "Related…", "You may also like", … drops the teasers after it.
    RelatedByText,
    /// A heading whose class/id says `related`, `recommend`, … drops the teasers after it.
    RelatedByClass,
    /// Containers of ≥ 2 `rel="tag"` links that are mostly link text.
    TagList,
    /// Short microdata date elements.
    DateMicrodata,
    /// Ad labels and gallery counters.
    Label,
    /// Short paragraphs made mostly of several links (rendering).
    LinkParagraph,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 6] = [
        Rule::RelatedByText,
        Rule::RelatedByClass,
        Rule::TagList,
        Rule::DateMicrodata,
        Rule::Label,
        Rule::LinkParagraph,
    ];

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// Rules switched off process-wide (bit per [`Rule`]); 0 in normal use.
static DISABLED: AtomicU32 = AtomicU32::new(0);

/// Switch rules off for the whole process (evaluation only; empty = all on).
#[doc(hidden)]
pub fn set_disabled_rules(rules: &[Rule]) {
    let mask = rules.iter().fold(0, |m, r| m | r.bit());
    DISABLED.store(mask, Ordering::Relaxed);
}

/// Whether `rule` is on (always, unless an evaluation switched it off).
pub(crate) fn on(rule: Rule) -> bool {
    DISABLED.load(Ordering::Relaxed) & rule.bit() == 0
}

/// Class/id substrings that mark a heading as the title of a recirculation block.
const RELATED_CLASS: &[&str] = &[
    "related",
    "recommend",
    "more-stories",
    "morestories",
    "read-more",
    "readmore",
    "read-next",
    "readnext",
    "you-may-like",
    "also-like",
];

/// Lower-case heading texts (prefixes) that introduce recirculation teasers.
const RELATED_TEXT: &[&str] = &[
    "related",
    "you may also like",
    "you might also like",
    "you may like",
    "you might like",
    "recommended for you",
    "more stories",
    "more from",
    "read next",
    "read more",
    "also read",
    "see also",
    "most popular",
    "leave a comment",
    "leave a reply",
    "tell us what you think",
    "join the conversation",
    "join the discussion",
];

/// Headings longer than this (characters) are article sub-headings, not block titles.
const MAX_RELATED_HEADING: usize = 60;

/// How sure a heading is to title a related/recommended block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Related {
    /// An ordinary heading.
    No,
    /// Its text says so ("Related posts", "You may also like").
    ByText,
    /// Its class/id says so (`relatedposts-title`).
    ByClass,
}

/// Whether `id` is a heading titling a related/recommended/comments block:
/// an `h2`–`h6`, or a `div`/`p`/`span` styled as one (class with "heading"/"title").
/// `text_chars` is the element's text length (longer ones are not read).
pub fn related_heading(dom: &Dom, id: NodeId, text_chars: u32) -> Related {
    let mut ci = String::new();
    for a in ["class", "id"] {
        if let Some(v) = dom.attr(id, a) {
            ci.push_str(&v.to_ascii_lowercase());
            ci.push(' ');
        }
    }
    match dom.tag(id) {
        "h2" | "h3" | "h4" | "h5" | "h6" => {
            if RELATED_CLASS.iter().any(|p| ci.contains(p)) {
                return Related::ByClass;
            }
        }
        "div" | "p" | "span" if ci.contains("heading") || ci.contains("title") => {}
        _ => return Related::No,
    }
    if text_chars as usize > MAX_RELATED_HEADING {
        return Related::No;
    }
    let text = dom.text_content(id);
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_RELATED_HEADING {
        return Related::No;
    }
    let lower: String = text
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let norm = words.join(" ");
    let hit = RELATED_TEXT.iter().any(|p| {
        norm.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    });
    if hit {
        Related::ByText
    } else {
        Related::No
    }
}

/// For every element, how many `rel="tag"` links it holds as a tag list
/// (links directly inside it, or inside its `li` children).
pub fn tag_link_counts(dom: &Dom) -> Vec<u32> {
    let mut counts = vec![0u32; dom.nodes.len()];
    for (id, node) in dom.nodes.iter().enumerate() {
        let NodeData::Element { tag, .. } = &node.data else {
            continue;
        };
        if tag != "a"
            || !dom
                .attr(id, "rel")
                .is_some_and(|r| r.split_whitespace().any(|w| w.eq_ignore_ascii_case("tag")))
        {
            continue;
        }
        let mut container = node.parent;
        if dom.tag(container) == "li" {
            container = dom.parent(container).unwrap_or(container);
        }
        if let Some(c) = counts.get_mut(container) {
            *c += 1;
        }
    }
    counts
}

/// Whether `id` is a microdata publication/modification date element.
pub fn is_date_microdata(dom: &Dom, id: NodeId) -> bool {
    dom.attr(id, "itemprop").is_some_and(|p| {
        p.split_whitespace().any(|w| {
            w.eq_ignore_ascii_case("datePublished")
                || w.eq_ignore_ascii_case("dateModified")
                || w.eq_ignore_ascii_case("dateCreated")
        })
    })
}

/// Longest text (characters) an ad label or slide counter can have.
pub const MAX_LABEL_CHARS: u32 = 24;

/// Whether a short element's whole text is an ad label ("Advertisement") or a
/// gallery counter ("Image 3 of 5").
pub fn is_label(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    if matches!(
        t.as_str(),
        "advertisement"
            | "advert"
            | "ad"
            | "sponsored"
            | "anzeige"
            | "publicidade"
            | "publicidad"
            | "publicité"
    ) {
        return true;
    }
    let w: Vec<&str> = t.split_whitespace().collect();
    matches!(w.as_slice(), [kind, n, "of", m]
        if matches!(*kind, "image" | "photo" | "slide" | "picture")
            && n.bytes().all(|b| b.is_ascii_digit())
            && m.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(dom: &Dom, tag: &str) -> NodeId {
        dom.find_all(tag).first().copied().unwrap_or(0)
    }

    #[test]
    fn related_headings_by_class_or_text() {
        for (html, want) in [
            (
                r#"<h3 class="relatedpoststitle">Você pode gostar</h3>"#,
                Related::ByClass,
            ),
            ("<h2>You may also like:</h2>", Related::ByText),
            ("<h3>Related post: Pickled sprouts</h3>", Related::ByText),
            ("<h2>Relatedness in graphs</h2>", Related::No),
            ("<h2>Results</h2>", Related::No),
            (
                r#"<div class="heading-h3">More stories from the archive</div>"#,
                Related::ByText,
            ),
            ("<div>More stories from the archive</div>", Related::No),
            // A phrase of one site's teaser block, not a general heading.
            (
                r#"<div class="heading-h3">More Great WIRED Stories</div>"#,
                Related::No,
            ),
            ("<h3>Tell us what YOU think...</h3>", Related::ByText),
            ("<p class=\"related\">x</p>", Related::No),
        ] {
            let dom = Dom::parse(html);
            let id = dom
                .nodes
                .iter()
                .position(|n| matches!(n.data, NodeData::Element { .. }))
                .unwrap_or(0);
            assert_eq!(related_heading(&dom, id, 30), want, "{html}");
        }
    }

    #[test]
    fn tag_links_counted_on_their_list() {
        let dom = Dom::parse(
            r#"<div><strong>Tags <a rel="tag" href="/a">a</a>, <a rel="tag" href="/b">b</a></strong>
            <ul><li><a rel="category tag" href="/c">c</a></li><li><a rel="tag" href="/d">d</a></li></ul></div>"#,
        );
        let counts = tag_link_counts(&dom);
        assert_eq!(counts.get(first(&dom, "strong")).copied(), Some(2));
        assert_eq!(counts.get(first(&dom, "ul")).copied(), Some(2));
        assert_eq!(counts.get(first(&dom, "div")).copied(), Some(0));
    }

    #[test]
    fn date_microdata() {
        let dom = Dom::parse(r#"<span itemprop="datePublished">Monday</span><span>x</span>"#);
        let spans = dom.find_all("span");
        assert!(is_date_microdata(&dom, spans[0]));
        assert!(!is_date_microdata(&dom, spans[1]));
    }

    #[test]
    fn labels() {
        for t in [
            " Advertisement ",
            "ADVERT",
            "Image 1 of 5",
            "photo 12 of 30",
        ] {
            assert!(is_label(t), "{t}");
        }
        for t in ["Ads are bad", "Image one of five", "Adverts", "image 1 of"] {
            assert!(!is_label(t), "{t}");
        }
    }
}
