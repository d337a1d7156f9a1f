//! Syllabus parsing: the agenda (themes and sub-themes from the headings)
//! and the seed's three kinds of references.
//!
//! - **internal files**, named by file name (`Prompt_Engineering.txt`),
//!   looked up in the knowledge base;
//! - **long-term references**: URLs in the References section, to download,
//!   convert to Markdown, index and add to the knowledge base;
//! - **ephemeral citations**: URLs inside a module's description, for one
//!   web lookup only, never added to the knowledge base.
//!
//! A title (Markdown link text), a description and keywords written next to
//! a URL (`Keywords: a, b` / `Mots-clés : a, b`) are kept.
//!
//! Markdown is read directly; PDF and HTML syllabi go through
//! `verity-extract` first (their text is Markdown afterwards).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::error::{ResearchError, Result};
use crate::reference_line;

/// A URL given in the syllabus, with what was written next to it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UrlRef {
    /// The URL.
    pub url: String,
    /// Link text or title written next to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description written next to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Keywords written next to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Theme id (`T1`…) whose description holds it (ephemeral citations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Line of the syllabus it was read from (1-based; 0: not from a syllabus).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub line: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A sub-theme of the agenda.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubTheme {
    /// Heading text.
    pub title: String,
    /// Text under the heading.
    #[serde(default)]
    pub description: String,
}

/// A theme of the agenda (a module).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Theme {
    /// `T1`, `T2`, … in syllabus order.
    pub id: String,
    /// Heading text.
    pub title: String,
    /// Text under the heading (before the first sub-theme).
    #[serde(default)]
    pub description: String,
    /// Sub-themes, in order.
    #[serde(default)]
    pub sub_themes: Vec<SubTheme>,
    /// Internal file names cited in this theme.
    #[serde(default)]
    pub internal_files: Vec<String>,
    /// Keywords written in the module (`Keywords: a, b`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

/// A parsed syllabus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Syllabus {
    /// Title (the single top heading, else the first line).
    pub title: String,
    /// The agenda.
    pub themes: Vec<Theme>,
    /// Internal files named anywhere, deduplicated, in order.
    pub internal_files: Vec<String>,
    /// Long-term references (References section).
    pub references: Vec<UrlRef>,
    /// Ephemeral citations (URLs in module descriptions).
    pub ephemeral: Vec<UrlRef>,
    /// Local paths named as references (`../notes.md`, `file:///…`): never
    /// read — only files of the knowledge base directory are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_paths: Vec<String>,
    /// What was wrong in the syllabus and how it was handled (duplicates
    /// read once, no module heading, a path outside the knowledge base, …):
    /// listed under "What is missing", and the run is partial.
    #[serde(default)]
    pub warnings: Vec<String>,
}

const REFERENCE_HEADINGS: &[&str] = &[
    "references",
    "références",
    "reference",
    "référence",
    "bibliography",
    "bibliographie",
    "sources",
    "resources",
    "ressources",
    "further reading",
    "reading list",
    "lectures",
];

fn keywords_line_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)^\s*[-*+]?\s*\**(?:keywords|key words|mots[- ]cl[ée]s|tags)\**\s*[:=]\s*(.+)$",
        )
        .unwrap_or_else(|_| unreachable())
    })
}

// The pattern above is a constant; a failure to compile it is a bug caught
// by the unit tests, never user input.
#[allow(clippy::panic)]
fn unreachable() -> Regex {
    panic!("constant regex failed to compile")
}

impl Syllabus {
    /// Read a syllabus file: Markdown/text directly, PDF and HTML through
    /// `verity-extract`.
    pub fn from_file(path: &Path) -> Result<Syllabus> {
        let unreadable = |message: String| ResearchError::SyllabusUnreadable {
            path: path.to_path_buf(),
            message,
        };
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let text = match ext.as_str() {
            "md" | "markdown" | "txt" | "" => {
                std::fs::read_to_string(path).map_err(|e| unreadable(e.to_string()))?
            }
            _ => {
                let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
                let raw = String::from_utf8_lossy(&bytes);
                let parsed =
                    verity_extract::parse_file(path).map_err(|e| unreadable(e.to_string()))?;
                // HTML links are rendered as text: keep the raw URLs visible
                // by appending those the Markdown lost.
                let mut md = parsed.document.content;
                if ext.starts_with("htm") {
                    let lost: Vec<String> = reference_line::bare_url_re()
                        .find_iter(&raw)
                        .map(|m| m.as_str().to_string())
                        .filter(|u| !md.contains(u.as_str()))
                        .collect();
                    if !lost.is_empty() {
                        md.push_str("\n\n## References\n\n");
                        for u in lost {
                            md.push_str(&format!("- {u}\n"));
                        }
                    }
                }
                md
            }
        };
        Syllabus::parse_markdown(&text)
    }

    /// Parse a Markdown syllabus.
    ///
    /// Themes are the headings of the highest level under the title; the
    /// References section is a heading (any level) or a line (`**References**`,
    /// `References:`) whose text is one of the usual names. A syllabus with
    /// text but no heading is read as one module (said in `warnings`); an
    /// empty one is an error.
    pub fn parse_markdown(text: &str) -> Result<Syllabus> {
        let text = text.trim_start_matches('\u{feff}');
        if text.trim().is_empty() {
            return Err(ResearchError::NoThemes("the syllabus is empty".into()));
        }
        let lines: Vec<&str> = text.lines().collect();
        let mut in_code = false;
        let headings: Vec<(usize, usize, String)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                if l.trim_start().starts_with("```") {
                    in_code = !in_code;
                }
                if in_code {
                    return None;
                }
                heading(l).map(|(lvl, t)| (i, lvl, t))
            })
            .collect();
        // The title is a heading of a level used once, above every other one.
        let (title, title_line) = match headings.first() {
            Some((i, lvl, t))
                if headings.iter().filter(|h| h.1 == *lvl).count() == 1
                    && headings.iter().all(|h| h.1 >= *lvl)
                    && !is_reference_heading(t) =>
            {
                (t.clone(), Some(*i))
            }
            _ => (
                lines
                    .iter()
                    .map(|l| l.trim())
                    .find(|l| !l.is_empty())
                    .unwrap_or("Syllabus")
                    .trim_start_matches('#')
                    .trim()
                    .to_string(),
                None,
            ),
        };
        let theme_level = headings
            .iter()
            .filter(|h| Some(h.0) != title_line && !is_reference_heading(&h.2))
            .map(|h| h.1)
            .min();

        let mut syl = Syllabus {
            title,
            themes: Vec::new(),
            internal_files: Vec::new(),
            references: Vec::new(),
            ephemeral: Vec::new(),
            local_paths: Vec::new(),
            warnings: Vec::new(),
        };
        #[derive(PartialEq, Clone, Copy)]
        enum Section {
            Preamble,
            Theme,
            References,
        }
        let mut section = Section::Preamble;
        // A syllabus with no module heading: one module, the whole text.
        if theme_level.is_none() {
            syl.warnings.push(
                "the syllabus has no module heading (write each module as a `##` heading): \
                 it was read as one module"
                    .into(),
            );
            syl.themes.push(Theme {
                id: "T1".into(),
                title: syl.title.clone(),
                description: String::new(),
                sub_themes: Vec::new(),
                internal_files: Vec::new(),
                keywords: Vec::new(),
            });
            section = Section::Theme;
        }
        let theme_level = theme_level.unwrap_or(usize::MAX);
        let mut ref_lines: Vec<(usize, String)> = Vec::new();
        let mut in_code = false;
        for (i, raw) in lines.iter().enumerate() {
            if raw.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            if in_code || Some(i) == title_line {
                continue;
            }
            if let Some((lvl, t)) = heading(raw) {
                if is_reference_heading(&t) {
                    section = Section::References;
                    continue;
                }
                if lvl <= theme_level {
                    section = Section::Theme;
                    let id = format!("T{}", syl.themes.len() + 1);
                    syl.themes.push(Theme {
                        id,
                        title: t,
                        description: String::new(),
                        sub_themes: Vec::new(),
                        internal_files: Vec::new(),
                        keywords: Vec::new(),
                    });
                    continue;
                }
                match section {
                    Section::Theme => {
                        if let Some(th) = syl.themes.last_mut() {
                            th.sub_themes.push(SubTheme {
                                title: t,
                                description: String::new(),
                            });
                        }
                    }
                    // A heading inside References groups its items.
                    Section::References | Section::Preamble => {}
                }
                continue;
            }
            if is_reference_label(raw) {
                section = Section::References;
                continue;
            }
            match section {
                Section::Preamble => {}
                Section::References => ref_lines.push((i + 1, raw.to_string())),
                Section::Theme => {
                    let Some(th) = syl.themes.last_mut() else {
                        continue;
                    };
                    if let Some(c) = keywords_line_re().captures(raw) {
                        th.keywords.extend(
                            c[1].split([',', ';'])
                                .map(|k| k.trim().trim_matches(['`', '*', '.', '"']).trim())
                                .filter(|k| !k.is_empty())
                                .map(str::to_string),
                        );
                        continue;
                    }
                    let target = match th.sub_themes.last_mut() {
                        Some(s) => &mut s.description,
                        None => &mut th.description,
                    };
                    if !raw.trim().is_empty() {
                        if !target.is_empty() {
                            target.push('\n');
                        }
                        target.push_str(raw.trim());
                    }
                    let found = reference_line::parse_item(raw);
                    for u in found.urls {
                        syl.ephemeral.push(UrlRef {
                            url: u.url,
                            title: u.title,
                            description: None,
                            keywords: u.keywords,
                            theme: Some(th.id.clone()),
                            line: i + 1,
                        });
                    }
                    for f in found.files {
                        if !th.internal_files.contains(&f) {
                            th.internal_files.push(f.clone());
                        }
                        syl.internal_files.push(f);
                    }
                    syl.local_paths.extend(found.local_paths);
                }
            }
        }
        for (line, item) in list_items(&ref_lines) {
            let found = reference_line::parse_item(&item);
            // An item with a URL names that URL; file names only count alone.
            if found.urls.is_empty() {
                syl.internal_files.extend(found.files);
                syl.local_paths.extend(found.local_paths);
            }
            syl.references
                .extend(found.urls.into_iter().map(|u| UrlRef {
                    url: u.url,
                    title: u.title,
                    description: u.description,
                    keywords: u.keywords,
                    theme: None,
                    line,
                }));
        }
        syl.dedupe();
        for p in &syl.local_paths {
            syl.warnings.push(format!(
                "`{p}` is a local path: only files in the knowledge base directory are read \
                 (copy the file there and name it by its file name, or give its URL)"
            ));
        }
        Ok(syl)
    }

    /// Drop repeated references and file names, saying so in `warnings`.
    fn dedupe(&mut self) {
        let mut seen = HashSet::new();
        let mut files = Vec::new();
        for f in std::mem::take(&mut self.internal_files) {
            if seen.insert(f.to_lowercase()) {
                files.push(f);
            } else if !self.warnings.iter().any(|w| w.contains(&format!("`{f}`"))) {
                self.warnings.push(format!(
                    "internal file `{f}` is named more than once: read once"
                ));
            }
        }
        self.internal_files = files;
        let mut first_line: HashMap<String, usize> = HashMap::new();
        let mut refs: Vec<UrlRef> = Vec::new();
        for r in std::mem::take(&mut self.references) {
            match first_line.get(&r.url) {
                None => {
                    first_line.insert(r.url.clone(), r.line);
                    refs.push(r);
                }
                Some(first) => {
                    // What the repeat adds (keywords, a title) is kept.
                    if let Some(kept) = refs.iter_mut().find(|k| k.url == r.url) {
                        if kept.title.is_none() {
                            kept.title = r.title.clone();
                        }
                        if kept.description.is_none() {
                            kept.description = r.description.clone();
                        }
                        for k in &r.keywords {
                            if !kept.keywords.contains(k) {
                                kept.keywords.push(k.clone());
                            }
                        }
                    }
                    self.warnings.push(format!(
                        "reference {} is listed more than once (lines {first} and {}): read once",
                        r.url, r.line
                    ));
                }
            }
        }
        self.references = refs;
        let mut seen = HashSet::new();
        self.local_paths.retain(|p| seen.insert(p.clone()));
        // A URL in the References section is long-term even when a module
        // also mentions it: it is not looked up twice.
        let long: HashSet<String> = self.references.iter().map(|r| r.url.clone()).collect();
        let mut seen = HashSet::new();
        self.ephemeral
            .retain(|e| !long.contains(&e.url) && seen.insert((e.url.clone(), e.theme.clone())));
    }

    /// The theme with id `id`.
    pub fn theme(&self, id: &str) -> Option<&Theme> {
        self.themes.iter().find(|t| t.id == id)
    }

    /// Whether the syllabus names any source at all (references, internal
    /// files, one-off URLs or local paths).
    pub fn names_sources(&self) -> bool {
        !self.references.is_empty()
            || !self.internal_files.is_empty()
            || !self.ephemeral.is_empty()
            || !self.local_paths.is_empty()
    }
}

fn heading(line: &str) -> Option<(usize, String)> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let lvl = t.chars().take_while(|c| *c == '#').count();
    if lvl == 0 || lvl > 6 {
        return None;
    }
    let rest = &t[lvl..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim();
    let title = title.replace("**", "");
    (!title.is_empty()).then(|| (lvl, title.to_string()))
}

fn is_reference_heading(t: &str) -> bool {
    let norm: String = t
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || !c.is_ascii())
        .collect();
    let norm = norm.trim();
    let norm = norm
        .split_once(' ')
        .filter(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
        .map(|(_, r)| r.trim())
        .unwrap_or(norm);
    REFERENCE_HEADINGS.contains(&norm)
}

/// `**References**`, `References:` or `__Références__` alone on a line.
fn is_reference_label(line: &str) -> bool {
    let t = line.trim();
    let bare = t
        .trim_matches(['*', '_'])
        .trim()
        .trim_end_matches(':')
        .trim()
        .trim_matches(['*', '_']);
    let decorated = t.starts_with("**") || t.starts_with("__") || t.ends_with(':');
    decorated && !bare.is_empty() && is_reference_heading(bare)
}

/// Group reference lines into list items (a bullet and its indented
/// continuation, or a `Keywords:` line under it), with the line each starts on.
fn list_items(lines: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut items: Vec<(usize, String)> = Vec::new();
    for (n, l) in lines {
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        let is_bullet = reference_line::strip_marker(t).is_some();
        let indented = l.starts_with("  ") || l.starts_with('\t');
        let has_source = reference_line::bare_url_re().is_match(t)
            || !reference_line::parse_item(t).files.is_empty();
        match items.last_mut() {
            Some((_, last)) if !is_bullet && (indented || !has_source) => {
                last.push('\n');
                last.push_str(t);
            }
            _ => items.push((*n, t.to_string())),
        }
    }
    items
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SYL: &str = "# AI Course\n\nIntro.\n\n## Module 1: Prompts\n\nSee `Prompt_Eng.txt` and \
        [a post](https://blog.example/exa) for an anecdote.\n\n### Few-shot\n\nExamples.\n\n\
        ## Module 2: Agents\n\nPlanning.\n\n## References\n\n\
        - [Agents](https://huyenchip.com/agents.html) — A long essay on agents. Keywords: agents, planning\n\
        - `03_Attacks.md`\n- https://example.org/paper.pdf\n- https://example.org/paper.pdf\n";

    #[test]
    fn parses_agenda_and_three_reference_kinds() {
        let s = Syllabus::parse_markdown(SYL).unwrap();
        assert_eq!(s.title, "AI Course");
        assert_eq!(s.themes.len(), 2);
        assert_eq!(s.themes[0].sub_themes[0].title, "Few-shot");
        assert_eq!(s.internal_files, vec!["Prompt_Eng.txt", "03_Attacks.md"]);
        assert_eq!(s.ephemeral.len(), 1);
        assert_eq!(s.ephemeral[0].theme.as_deref(), Some("T1"));
        assert_eq!(s.references.len(), 2);
        let r = &s.references[0];
        assert_eq!(r.title.as_deref(), Some("Agents"));
        assert_eq!(r.description.as_deref(), Some("A long essay on agents."));
        assert_eq!(r.keywords, vec!["agents", "planning"]);
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    }

    #[test]
    fn an_empty_syllabus_is_a_typed_error() {
        assert_eq!(
            Syllabus::parse_markdown("  \n").unwrap_err().code(),
            "syllabus_no_themes"
        );
        assert_eq!(
            Syllabus::parse_markdown("\u{feff}").unwrap_err().code(),
            "syllabus_no_themes"
        );
    }

    #[test]
    fn text_without_module_headings_is_one_module_said_so() {
        let s = Syllabus::parse_markdown("Space exploration\n\nEuropa and Titan.\n").unwrap();
        assert_eq!(s.themes.len(), 1);
        assert_eq!(s.themes[0].title, "Space exploration");
        assert!(
            s.warnings[0].contains("no module heading"),
            "{:?}",
            s.warnings
        );
        // A title and a References section, no module: the same.
        let s = Syllabus::parse_markdown("# Course\n\n## References\n\n- https://h.example/a\n")
            .unwrap();
        assert_eq!(s.themes.len(), 1);
        assert_eq!(s.references.len(), 1);
    }

    #[test]
    fn references_under_any_heading_level_or_a_label_line() {
        for refs in [
            "### References",
            "**References**",
            "References:",
            "## Sources",
            "#### 4. Bibliographie",
        ] {
            let text = format!(
                "# C\n\n## Module 1: Moons\n\nEuropa.\n\n{refs}\n\n- Titan map — http://127.0.0.1:9/t.html (keywords: Titan, map)\n"
            );
            let s = Syllabus::parse_markdown(&text).unwrap();
            assert_eq!(s.references.len(), 1, "{refs}: {s:?}");
            assert!(s.ephemeral.is_empty(), "{refs}");
            assert_eq!(s.themes.len(), 1, "{refs}");
            assert_eq!(s.references[0].keywords, ["Titan", "map"]);
            assert_eq!(s.references[0].line, 9, "{refs}");
            assert!(s.names_sources());
        }
    }

    #[test]
    fn module_keywords_line_is_kept_apart_from_the_description() {
        let s = Syllabus::parse_markdown(
            "# C\n\n## Markets and media\n\nLarge listings and media mergers.\nKeywords: IPO, mergers\n",
        )
        .unwrap();
        assert_eq!(s.themes[0].keywords, ["IPO", "mergers"]);
        assert_eq!(s.themes[0].description, "Large listings and media mergers.");
        assert!(!s.names_sources());
    }

    #[test]
    fn duplicates_are_read_once_and_paths_are_refused() {
        let s = Syllabus::parse_markdown(
            "# C\n\n## M\n\nText.\n\n## References\n\n- [A](https://h.example/a)\n- ../private/notes.md\n             - https://h.example/a (keywords: k)\n",
        )
        .unwrap();
        assert_eq!(s.references.len(), 1);
        assert_eq!(s.references[0].keywords, ["k"]);
        assert_eq!(s.local_paths, ["../private/notes.md"]);
        assert!(s.internal_files.is_empty());
        let w = s.warnings.join("\n");
        assert!(w.contains("listed more than once (lines 9 and 11)"), "{w}");
        assert!(w.contains("`../private/notes.md` is a local path"), "{w}");
    }
}
