//! The research brief: themes, their topics and research axes, the
//! references attached to each theme and the search queries they give,
//! drawn from the syllabus and persisted (JSON and Markdown) in the run
//! directory.
//!
//! Queries read the whole module: its title, its description, its
//! `Keywords:` line and the keywords (and titles) of the references
//! attached to it. A module with several topics — sub-themes, or a
//! description naming several things ("large listings and media mergers")
//! — gets one query per topic besides its own.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::extract;
use crate::syllabus::{Syllabus, Theme, UrlRef};

/// One topic of a theme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topic {
    /// What the syllabus calls it (a sub-theme title, a part of the
    /// description, or an attached reference's title).
    pub label: String,
    /// The search query of this topic.
    pub query: String,
    /// Attached references treating it (URLs, or internal file names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// A sub-theme, or a topic some reference treats: the report says when
    /// the note does not cover it.
    #[serde(default)]
    pub explicit: bool,
}

/// One theme of the brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefTheme {
    /// Theme id of the syllabus (`T1`…).
    pub id: String,
    /// Theme title.
    pub title: String,
    /// The module's description, as written.
    #[serde(default)]
    pub description: String,
    /// Sub-theme titles.
    #[serde(default)]
    pub sub_themes: Vec<String>,
    /// Research axes: what the note must answer for this theme.
    #[serde(default)]
    pub axes: Vec<String>,
    /// Words that steer FileSearch and WebSearch queries: the module's own
    /// keywords, then those of its references.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Internal files the syllabus cites for this theme.
    #[serde(default)]
    pub internal_files: Vec<String>,
    /// Ephemeral URLs of this theme (one-off web lookups).
    #[serde(default)]
    pub ephemeral: Vec<String>,
    /// References attached to this theme (URLs, internal file names): named
    /// in its text, or whose title and keywords match it best.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// Topics: more than one when the module has sub-themes or names
    /// several things.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<Topic>,
}

/// Content words of a module's description that go into its query.
const DESCRIPTION_WORDS: usize = 14;
/// Keywords of attached references that go into a query.
const REFERENCE_KEYWORDS: usize = 10;

impl BriefTheme {
    /// The search query of the whole theme: title, description words,
    /// sub-themes and keywords (the module's and its references').
    pub fn query(&self) -> String {
        let mut words: Vec<String> = extract::content_words(&strip_numbering(&self.title));
        words.extend(
            extract::content_words(&self.description)
                .into_iter()
                .take(DESCRIPTION_WORDS),
        );
        for s in &self.sub_themes {
            words.extend(extract::content_words(s));
        }
        for k in self.keywords.iter().take(REFERENCE_KEYWORDS) {
            words.extend(extract::content_words(k));
        }
        join_query(words)
    }

    /// The text a sentence must speak about to belong to this theme:
    /// title, description, sub-themes, keywords.
    pub fn subject(&self) -> String {
        let mut s = format!("{}\n{}", strip_numbering(&self.title), self.description);
        for x in self.sub_themes.iter().chain(self.keywords.iter()) {
            s.push('\n');
            s.push_str(x);
        }
        s
    }
}

/// Words joined once each (by their matching key), in order.
fn join_query(words: Vec<String>) -> String {
    let mut seen = HashSet::new();
    words
        .into_iter()
        .filter(|w| seen.insert(extract::term_key(&verity_verify::text::stem(w))))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The research brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Brief {
    /// Syllabus title.
    pub title: String,
    /// Themes, in syllabus order.
    pub themes: Vec<BriefTheme>,
}

/// `Module 1: Prompt engineering`, `2. Agents`, `Part II — Ethics`,
/// `Module A: WeWork` → the title without its numbering.
pub fn strip_numbering(title: &str) -> String {
    let t = title.trim();
    if let Some((head, rest)) = t.split_once([':', '.', '—', '–', ')']) {
        let h = head.trim().to_lowercase();
        let words: Vec<&str> = h.split_whitespace().collect();
        let numeral = |w: &str| {
            w.chars().all(|c| c.is_ascii_digit())
                || (w.len() <= 4 && w.chars().all(|c| "ivxlc".contains(c)))
                || (w.len() == 1 && w.chars().all(|c| c.is_ascii_alphabetic()))
        };
        let numbered = match words.as_slice() {
            [n] => n.chars().any(|c| c.is_ascii_digit()) || numeral(n),
            [label, n] => {
                [
                    "module", "part", "chapter", "unit", "section", "week", "lesson", "session",
                    "day", "partie", "chapitre", "séance", "semaine", "leçon",
                ]
                .contains(label)
                    && numeral(n)
            }
            _ => false,
        };
        if numbered && !rest.trim().is_empty() {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

impl Brief {
    /// The deterministic brief of a syllabus.
    pub fn from_syllabus(s: &Syllabus) -> Brief {
        let attached = attach_references(s);
        let themes = s
            .themes
            .iter()
            .map(|t| {
                let title = strip_numbering(&t.title);
                let refs: Vec<&UrlRef> = s
                    .references
                    .iter()
                    .filter(|r| attached.get(&r.url).is_some_and(|ids| ids.contains(&t.id)))
                    .collect();
                let mut keywords: Vec<String> = t.keywords.clone();
                for r in &refs {
                    keywords.extend(r.keywords.iter().cloned());
                }
                if keywords.is_empty() {
                    let text = format!(
                        "{}\n{}",
                        t.description,
                        t.sub_themes
                            .iter()
                            .map(|s| format!("{}\n{}", s.title, s.description))
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                    keywords = extract::keywords(&title, &text, 6);
                }
                dedupe_ci(&mut keywords);
                let mut axes: Vec<String> = t
                    .sub_themes
                    .iter()
                    .map(|s| format!("{}: what it is, how it works, and examples", s.title))
                    .collect();
                if axes.is_empty() {
                    axes.push(format!("{title}: key concepts, practices and examples"));
                }
                let mut references: Vec<String> = refs.iter().map(|r| r.url.clone()).collect();
                references.extend(t.internal_files.iter().cloned());
                let mut bt = BriefTheme {
                    id: t.id.clone(),
                    title: t.title.clone(),
                    description: t.description.clone(),
                    sub_themes: t.sub_themes.iter().map(|s| s.title.clone()).collect(),
                    axes,
                    keywords,
                    internal_files: t.internal_files.clone(),
                    ephemeral: s
                        .ephemeral
                        .iter()
                        .filter(|e| e.theme.as_deref() == Some(t.id.as_str()))
                        .map(|e| e.url.clone())
                        .collect(),
                    references,
                    topics: Vec::new(),
                };
                bt.topics = topics(t, &bt, &refs);
                bt
            })
            .collect();
        Brief {
            title: s.title.clone(),
            themes,
        }
    }

    /// The theme with id `id`.
    pub fn theme(&self, id: &str) -> Option<&BriefTheme> {
        self.themes.iter().find(|t| t.id == id)
    }

    /// The brief as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut md = format!("# Research brief: {}\n", self.title);
        for t in &self.themes {
            md.push_str(&format!("\n## {} ({})\n\n", t.title, t.id));
            if !t.sub_themes.is_empty() {
                md.push_str(&format!("Sub-themes: {}\n\n", t.sub_themes.join("; ")));
            }
            md.push_str("Research axes:\n\n");
            for a in &t.axes {
                md.push_str(&format!("- {a}\n"));
            }
            if !t.keywords.is_empty() {
                md.push_str(&format!("\nKeywords: {}\n", t.keywords.join(", ")));
            }
            md.push_str(&format!("\nQuery: {}\n", t.query()));
            if t.topics.len() > 1 {
                md.push_str("\nTopics:\n\n");
                for p in &t.topics {
                    md.push_str(&format!("- {} — query: {}\n", p.label, p.query));
                }
            }
            if !t.references.is_empty() {
                md.push_str(&format!("\nReferences: {}\n", t.references.join(", ")));
            }
            if !t.internal_files.is_empty() {
                md.push_str(&format!(
                    "\nInternal files: {}\n",
                    t.internal_files.join(", ")
                ));
            }
            if !t.ephemeral.is_empty() {
                md.push_str(&format!("\nWeb lookups: {}\n", t.ephemeral.join(", ")));
            }
        }
        md
    }
}

fn dedupe_ci(v: &mut Vec<String>) {
    let mut seen = HashSet::new();
    v.retain(|k| seen.insert(k.to_lowercase()));
}

/// The words a reference is known by before it is downloaded: title,
/// description, keywords and the words of its URL path.
fn reference_text(r: &UrlRef) -> String {
    let path: String = url::Url::parse(&r.url)
        .map(|u| u.path().replace(['/', '-', '_', '.'], " "))
        .unwrap_or_default();
    // Hashes and ids in paths are not words.
    let path: Vec<&str> = path
        .split_whitespace()
        .filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_alphabetic()))
        .filter(|w| !["html", "htm", "php", "aspx", "index"].contains(w))
        .collect();
    format!(
        "{}\n{}\n{}\n{}",
        r.title.as_deref().unwrap_or_default(),
        r.description.as_deref().unwrap_or_default(),
        r.keywords.join(", "),
        path.join(" ")
    )
}

fn module_text(t: &Theme) -> String {
    let mut s = format!("{}\n{}", strip_numbering(&t.title), t.description);
    for sub in &t.sub_themes {
        s.push_str(&format!("\n{}\n{}", sub.title, sub.description));
    }
    for k in &t.keywords {
        s.push('\n');
        s.push_str(k);
    }
    s
}

/// Which themes each reference (by URL) is attached to: the themes whose
/// text names it (its URL or its title), else the themes whose words it
/// shares most (weighted by how few themes use each word); a reference
/// that shares no word with any theme is attached to none and serves every
/// theme's own search.
pub fn attach_references(s: &Syllabus) -> HashMap<String, Vec<String>> {
    let module_terms: Vec<HashSet<String>> = s
        .themes
        .iter()
        .map(|t| extract::terms(&module_text(t)))
        .collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for ts in &module_terms {
        for t in ts {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    let n = s.themes.len().max(1) as f32;
    let mut out = HashMap::new();
    for r in &s.references {
        let named: Vec<String> = s
            .themes
            .iter()
            .filter(|t| {
                let text = module_text(t).to_lowercase();
                text.contains(&r.url.to_lowercase())
                    || r.title.as_ref().is_some_and(|title| {
                        title.split_whitespace().count() >= 2
                            && text.contains(&title.to_lowercase())
                    })
            })
            .map(|t| t.id.clone())
            .collect();
        if !named.is_empty() {
            out.insert(r.url.clone(), named);
            continue;
        }
        let rt = extract::terms(&reference_text(r));
        let scores: Vec<f32> = module_terms
            .iter()
            .map(|mt| {
                rt.iter()
                    .filter(|t| mt.contains(*t))
                    .map(|t| (1.0 + n / df.get(t.as_str()).copied().unwrap_or(1) as f32).ln())
                    .sum()
            })
            .collect();
        let best = scores.iter().copied().fold(0.0f32, f32::max);
        if best > 0.0 {
            let ids = s
                .themes
                .iter()
                .zip(&scores)
                .filter(|(_, sc)| **sc >= best - 1e-6)
                .map(|(t, _)| t.id.clone())
                .collect();
            out.insert(r.url.clone(), ids);
        }
    }
    out
}

/// Parts of a description naming several things: split on `;`, `, and`,
/// commas and `and` between parts of two words or more.
fn description_parts(description: &str) -> Vec<String> {
    // The first paragraph names the topics; a long text is not split.
    let first = description.split("\n\n").next().unwrap_or_default();
    let first = first.lines().collect::<Vec<_>>().join(" ");
    let first = first.trim().trim_end_matches(['.', '!', '?']);
    if first.split_whitespace().count() > 40 {
        return Vec::new();
    }
    let mut parts: Vec<String> = vec![first.to_string()];
    for sep in [";", ", and ", ", ", " and ", " & "] {
        parts = parts
            .into_iter()
            .flat_map(|p| {
                let pieces: Vec<String> = p.split(sep).map(|x| x.trim().to_string()).collect();
                let fine = pieces.len() > 1
                    && pieces.iter().all(|x| {
                        x.split_whitespace().count() >= 2 && !extract::terms(x).is_empty()
                    });
                if fine {
                    pieces
                } else {
                    vec![p]
                }
            })
            .collect();
    }
    parts
        .into_iter()
        .map(|p| {
            let p = p
                .strip_prefix("and ")
                .or_else(|| p.strip_prefix("And "))
                .unwrap_or(&p)
                .trim()
                .to_string();
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => p,
            }
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// The topics of a theme, each with its query and the attached references
/// treating it.
fn topics(t: &Theme, bt: &BriefTheme, refs: &[&UrlRef]) -> Vec<Topic> {
    let core = extract::content_words(&strip_numbering(&t.title));
    let mut topics: Vec<(Topic, String)> = if !t.sub_themes.is_empty() {
        t.sub_themes
            .iter()
            .map(|s| {
                (
                    Topic {
                        label: s.title.clone(),
                        query: String::new(),
                        references: Vec::new(),
                        explicit: true,
                    },
                    format!("{}\n{}", s.title, s.description),
                )
            })
            .collect()
    } else {
        let parts = description_parts(&t.description);
        if parts.len() > 1 {
            parts
                .into_iter()
                .map(|p| {
                    (
                        Topic {
                            label: p.clone(),
                            query: String::new(),
                            references: Vec::new(),
                            explicit: false,
                        },
                        p,
                    )
                })
                .collect()
        } else {
            Vec::new()
        }
    };
    // Each attached reference goes to the topic it shares most words with;
    // one that matches no topic is a topic of its own.
    let mut extra: Vec<(Topic, String)> = Vec::new();
    for r in refs {
        let rt = extract::terms(&reference_text(r));
        let best = topics
            .iter()
            .enumerate()
            .map(|(i, (_, text))| (i, extract::terms(text).intersection(&rt).count()))
            .max_by_key(|(i, n)| (*n, std::cmp::Reverse(*i)));
        match best {
            Some((i, n)) if n > 0 => {
                topics[i].0.references.push(r.url.clone());
                topics[i].0.explicit = true;
            }
            // One topic (the theme): every reference treats it.
            _ if topics.is_empty() => {}
            _ => {
                let label = r
                    .title
                    .clone()
                    .or_else(|| r.keywords.first().cloned())
                    .unwrap_or_else(|| r.url.clone());
                extra.push((
                    Topic {
                        label,
                        query: String::new(),
                        references: vec![r.url.clone()],
                        explicit: true,
                    },
                    reference_text(r),
                ));
            }
        }
    }
    topics.extend(extra);
    if topics.len() < 2 {
        // One topic: the theme itself, with every reference.
        return vec![Topic {
            label: strip_numbering(&t.title),
            query: bt.query(),
            references: bt.references.clone(),
            explicit: false,
        }];
    }
    let ref_keywords: HashMap<&str, &[String]> = refs
        .iter()
        .map(|r| (r.url.as_str(), r.keywords.as_slice()))
        .collect();
    topics
        .into_iter()
        .map(|(mut topic, text)| {
            let mut words = extract::content_words(&text);
            for u in &topic.references {
                for k in ref_keywords.get(u.as_str()).copied().unwrap_or_default() {
                    words.extend(extract::content_words(k));
                }
            }
            words.extend(core.iter().cloned());
            topic.query = join_query(words);
            topic
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn numbering_is_stripped_from_titles() {
        assert_eq!(strip_numbering("Module 1: Prompting"), "Prompting");
        assert_eq!(strip_numbering("2. Agents"), "Agents");
        assert_eq!(strip_numbering("Module A: WeWork"), "WeWork");
        assert_eq!(strip_numbering("Part II — Ethics"), "Ethics");
        assert_eq!(strip_numbering("3) Moons"), "Moons");
        assert_eq!(
            strip_numbering("Agents: an overview"),
            "Agents: an overview"
        );
    }

    #[test]
    fn queries_read_the_description_and_the_references_keywords() {
        let s = Syllabus::parse_markdown(
            "# Course\n\n## Markets and media\n\nLarge listings and media mergers.\n\n\
             ## Space\n\nEuropa.\n\n## References\n\n\
             - IPO season — https://h.example/ipo (keywords: listings, IPO)\n\
             - Newsroom deals — https://h.example/deals (keywords: media mergers, acquisitions)\n\
             - Europa — https://h.example/europa (keywords: Europa, plumes)\n",
        )
        .unwrap();
        let b = Brief::from_syllabus(&s);
        let t = &b.themes[0];
        let q = t.query();
        // Not the title repeated: the description and the references' keywords.
        assert!(q.starts_with("markets media large listings mergers"), "{q}");
        assert!(q.contains("ipo") && q.contains("acquisitions"), "{q}");
        assert!(!q.contains("europa"), "{q}");
        assert_eq!(t.references.len(), 2, "{:?}", t.references);
        // Two topics, a query each, each with its reference.
        assert_eq!(t.topics.len(), 2, "{:?}", t.topics);
        assert_eq!(t.topics[0].label, "Large listings");
        assert_eq!(t.topics[0].references, ["https://h.example/ipo"]);
        assert!(t.topics[0].query.contains("ipo"), "{:?}", t.topics[0]);
        assert_eq!(t.topics[1].label, "Media mergers");
        assert_eq!(t.topics[1].references, ["https://h.example/deals"]);
        assert!(t.topics.iter().all(|p| p.explicit));
        assert_eq!(b.themes[1].references, ["https://h.example/europa"]);
        assert_eq!(b.themes[1].topics.len(), 1);
        let md = b.to_markdown();
        assert!(md.contains("- Large listings — query: "), "{md}");
    }

    #[test]
    fn a_reference_named_in_a_module_is_attached_to_it() {
        let s = Syllabus::parse_markdown(
            "# C\n\n## One\n\nRead Deep Dive first.\n\n## Two\n\nDeep things.\n\n## References\n\n\
             - Deep Dive — https://h.example/x\n- https://h.example/0a1b2c3d.html\n",
        )
        .unwrap();
        let a = attach_references(&s);
        assert_eq!(a["https://h.example/x"], ["T1"]);
        // No words at all: attached to no theme (every theme's search reads it).
        assert!(!a.contains_key("https://h.example/0a1b2c3d.html"));
    }

    #[test]
    fn sub_themes_are_the_topics() {
        let s = Syllabus::parse_markdown(
            "# C\n\n## Prompts\n\nHow to ask.\n\n### Few-shot\n\nExamples.\n\n### Chain of thought\n\nSteps.\n",
        )
        .unwrap();
        let b = Brief::from_syllabus(&s);
        let labels: Vec<&str> = b.themes[0]
            .topics
            .iter()
            .map(|t| t.label.as_str())
            .collect();
        assert_eq!(labels, ["Few-shot", "Chain of thought"]);
        assert!(b.themes[0].topics[1].query.contains("prompts"));
    }
}
