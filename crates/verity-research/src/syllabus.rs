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

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::error::{ResearchError, Result};

/// A URL given in the syllabus, with what was written next to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// What was odd and how it was handled (duplicates dropped, …).
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
    "lectures",
];

fn url_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"https?://[^\s<>"'`\)\]]+"#).unwrap_or_else(|_| unreachable()))
}

fn file_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b[A-Za-z0-9][A-Za-z0-9_\-.]*\.(?:txt|md|markdown|pdf|html?|docx?)\b")
            .unwrap_or_else(|_| unreachable())
    })
}

fn link_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\[([^\]]+)\]\((https?://[^\s\)]+)\)").unwrap_or_else(|_| unreachable())
    })
}

fn keywords_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:keywords|mots[- ]cl[ée]s|tags)\s*[:=]\s*(.+)$")
            .unwrap_or_else(|_| unreachable())
    })
}

// The patterns above are constants; a failure to compile them is a bug
// caught by the unit tests, never user input.
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
                    let lost: Vec<String> = url_re()
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
    pub fn parse_markdown(text: &str) -> Result<Syllabus> {
        let text = text.trim_start_matches('\u{feff}');
        if text.trim().is_empty() {
            return Err(ResearchError::NoThemes("the syllabus is empty".into()));
        }
        let lines: Vec<&str> = text.lines().collect();
        let headings: Vec<(usize, usize, String)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| heading(l).map(|(lvl, t)| (i, lvl, t)))
            .collect();
        // The title is a heading of a level used once, above every other one.
        let (title, title_line) = match headings.first() {
            Some((i, lvl, t)) if headings.iter().filter(|h| h.1 == *lvl).count() == 1 => {
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
        let rest: Vec<&(usize, usize, String)> = headings
            .iter()
            .filter(|h| Some(h.0) != title_line)
            .collect();
        let Some(theme_level) = rest.iter().map(|h| h.1).min() else {
            return Err(ResearchError::NoThemes(
                "no section headings: write each theme as a `##` heading".into(),
            ));
        };

        let mut syl = Syllabus {
            title,
            themes: Vec::new(),
            internal_files: Vec::new(),
            references: Vec::new(),
            ephemeral: Vec::new(),
            warnings: Vec::new(),
        };
        #[derive(PartialEq)]
        enum Section {
            Preamble,
            Theme,
            References,
        }
        let mut section = Section::Preamble;
        let mut ref_lines: Vec<String> = Vec::new();
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
                if lvl == theme_level {
                    if is_reference_heading(&t) {
                        section = Section::References;
                    } else {
                        section = Section::Theme;
                        let id = format!("T{}", syl.themes.len() + 1);
                        syl.themes.push(Theme {
                            id,
                            title: t,
                            description: String::new(),
                            sub_themes: Vec::new(),
                            internal_files: Vec::new(),
                        });
                    }
                    continue;
                }
                if lvl > theme_level && section == Section::Theme {
                    if let Some(th) = syl.themes.last_mut() {
                        th.sub_themes.push(SubTheme {
                            title: t,
                            description: String::new(),
                        });
                    }
                    continue;
                }
                if section == Section::References {
                    ref_lines.push(raw.to_string());
                }
                continue;
            }
            match section {
                Section::Preamble => {}
                Section::References => ref_lines.push(raw.to_string()),
                Section::Theme => {
                    let Some(th) = syl.themes.last_mut() else {
                        continue;
                    };
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
                    for u in urls_in_line(raw) {
                        syl.ephemeral.push(UrlRef {
                            theme: Some(th.id.clone()),
                            ..u
                        });
                    }
                    for f in files_in_line(raw) {
                        if !th.internal_files.contains(&f) {
                            th.internal_files.push(f.clone());
                        }
                        syl.internal_files.push(f);
                    }
                }
            }
        }
        if syl.themes.is_empty() {
            return Err(ResearchError::NoThemes(
                "only a References section: the agenda needs at least one theme heading".into(),
            ));
        }
        for item in list_items(&ref_lines) {
            let urls = urls_in_line(&item);
            if urls.is_empty() {
                syl.internal_files.extend(files_in_line(&item));
            }
            syl.references.extend(urls);
        }
        syl.dedupe();
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
                self.warnings
                    .push(format!("internal file `{f}` is named more than once"));
            }
        }
        self.internal_files = files;
        let mut seen = HashSet::new();
        let mut refs = Vec::new();
        for r in std::mem::take(&mut self.references) {
            if seen.insert(r.url.clone()) {
                refs.push(r);
            } else {
                self.warnings
                    .push(format!("reference {} is listed more than once", r.url));
            }
        }
        self.references = refs;
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

/// Group reference lines into list items (a bullet and its indented continuation).
fn list_items(lines: &[String]) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for l in lines {
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        let is_bullet = t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("+ ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let indented = l.starts_with("  ") || l.starts_with('\t');
        match items.last_mut() {
            Some(last) if !is_bullet && (indented || !url_re().is_match(t)) => {
                last.push('\n');
                last.push_str(t);
            }
            _ => items.push(t.to_string()),
        }
    }
    items
}

fn clean_text(s: &str) -> String {
    let s = s
        .trim()
        .trim_start_matches(['-', '*', '+'])
        .trim()
        .trim_matches(|c: char| {
            matches!(c, '—' | '–' | '-' | ':' | '|' | ',' | ';') || c.is_whitespace()
        });
    s.replace("**", "").replace('`', "").trim().to_string()
}

/// URLs of one line (or list item) with their title, description and keywords.
fn urls_in_line(item: &str) -> Vec<UrlRef> {
    let mut out = Vec::new();
    let mut keywords = Vec::new();
    let mut body = String::new();
    for l in item.lines() {
        if let Some(c) = keywords_re().captures(l) {
            keywords = c[1]
                .split([',', ';'])
                .map(|k| {
                    k.trim()
                        .trim_matches(['`', '*', '.', '"'])
                        .trim()
                        .to_string()
                })
                .filter(|k| !k.is_empty())
                .collect();
            let before = &l[..c.get(0).map_or(0, |m| m.start())];
            body.push_str(before);
        } else {
            body.push_str(l);
        }
        body.push('\n');
    }
    let links: Vec<(String, String)> = link_re()
        .captures_iter(&body)
        .map(|c| (c[1].to_string(), trim_url(&c[2])))
        .collect();
    let mut rest = link_re().replace_all(&body, "").to_string();
    let bare: Vec<String> = url_re()
        .find_iter(&rest)
        .map(|m| trim_url(m.as_str()))
        .collect();
    rest = url_re().replace_all(&rest, "").to_string();
    let rest_clean = clean_text(&rest.replace('\n', " "));
    // A quoted or bold title written before the URL.
    let (title_guess, description) = split_title(&rest_clean);
    let single = links.len() + bare.len() == 1;
    for (title, url) in links {
        out.push(UrlRef {
            url,
            title: Some(clean_text(&title)),
            description: (single && !rest_clean.is_empty()).then(|| rest_clean.clone()),
            keywords: if single { keywords.clone() } else { Vec::new() },
            theme: None,
        });
    }
    for url in bare {
        out.push(UrlRef {
            url,
            title: if single { title_guess.clone() } else { None },
            description: if single { description.clone() } else { None },
            keywords: if single { keywords.clone() } else { Vec::new() },
            theme: None,
        });
    }
    out.retain(|u| url::Url::parse(&u.url).is_ok());
    out
}

fn split_title(s: &str) -> (Option<String>, Option<String>) {
    if s.is_empty() {
        return (None, None);
    }
    for sep in [" — ", " – ", " - ", ": "] {
        if let Some((a, b)) = s.split_once(sep) {
            let (a, b) = (clean_text(a), clean_text(b));
            return ((!a.is_empty()).then_some(a), (!b.is_empty()).then_some(b));
        }
    }
    (Some(s.to_string()), None)
}

fn trim_url(u: &str) -> String {
    u.trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '_'])
        .to_string()
}

fn files_in_line(line: &str) -> Vec<String> {
    let no_urls = url_re().replace_all(line, " ");
    let no_urls = link_re().replace_all(&no_urls, " ");
    file_re()
        .find_iter(&no_urls)
        .map(|m| m.as_str().to_string())
        // `e.g.` and version numbers are not files; a name needs a stem.
        .filter(|f| f.split('.').next().is_some_and(|s| s.len() >= 2))
        .collect()
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
    fn no_headings_is_a_typed_error() {
        let e = Syllabus::parse_markdown("just text").unwrap_err();
        assert_eq!(e.code(), "syllabus_no_themes");
        assert_eq!(
            Syllabus::parse_markdown("  ").unwrap_err().code(),
            "syllabus_no_themes"
        );
    }
}
