//! The research brief: themes, sub-themes and research axes drawn from the
//! syllabus agenda, persisted (JSON and Markdown) in the run directory.

use serde::{Deserialize, Serialize};

use crate::extract;
use crate::syllabus::Syllabus;

/// One theme of the brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefTheme {
    /// Theme id of the syllabus (`T1`…).
    pub id: String,
    /// Theme title.
    pub title: String,
    /// Sub-theme titles.
    #[serde(default)]
    pub sub_themes: Vec<String>,
    /// Research axes: what the note must answer for this theme.
    #[serde(default)]
    pub axes: Vec<String>,
    /// Words that steer FileSearch and WebSearch queries.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Internal files the syllabus cites for this theme.
    #[serde(default)]
    pub internal_files: Vec<String>,
    /// Ephemeral URLs of this theme (one-off web lookups).
    #[serde(default)]
    pub ephemeral: Vec<String>,
}

impl BriefTheme {
    /// The search query for this theme: title, sub-themes and keywords.
    pub fn query(&self) -> String {
        let mut q = strip_numbering(&self.title);
        for s in &self.sub_themes {
            q.push(' ');
            q.push_str(s);
        }
        for k in self.keywords.iter().take(4) {
            q.push(' ');
            q.push_str(k);
        }
        q
    }
}

/// The research brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Brief {
    /// Syllabus title.
    pub title: String,
    /// Themes, in syllabus order.
    pub themes: Vec<BriefTheme>,
}

/// `Module 1: Prompt engineering` → `Prompt engineering`.
pub fn strip_numbering(title: &str) -> String {
    let t = title.trim();
    if let Some((head, rest)) = t.split_once([':', '.', '—', '–']) {
        let h = head.trim().to_lowercase();
        let numbered = h.chars().any(|c| c.is_ascii_digit())
            && h.split_whitespace().count() <= 2
            && !rest.trim().is_empty();
        if numbered {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

impl Brief {
    /// The deterministic brief of a syllabus.
    pub fn from_syllabus(s: &Syllabus) -> Brief {
        let themes = s
            .themes
            .iter()
            .map(|t| {
                let title = strip_numbering(&t.title);
                let text = format!(
                    "{}\n{}",
                    t.description,
                    t.sub_themes
                        .iter()
                        .map(|s| format!("{}\n{}", s.title, s.description))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                let mut axes: Vec<String> = t
                    .sub_themes
                    .iter()
                    .map(|s| format!("{}: what it is, how it works, and examples", s.title))
                    .collect();
                if axes.is_empty() {
                    axes.push(format!("{title}: key concepts, practices and examples"));
                }
                BriefTheme {
                    id: t.id.clone(),
                    title: t.title.clone(),
                    sub_themes: t.sub_themes.iter().map(|s| s.title.clone()).collect(),
                    axes,
                    keywords: extract::keywords(&title, &text, 6),
                    internal_files: t.internal_files.clone(),
                    ephemeral: s
                        .ephemeral
                        .iter()
                        .filter(|e| e.theme.as_deref() == Some(t.id.as_str()))
                        .map(|e| e.url.clone())
                        .collect(),
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_is_stripped_from_titles() {
        assert_eq!(strip_numbering("Module 1: Prompting"), "Prompting");
        assert_eq!(strip_numbering("2. Agents"), "Agents");
        assert_eq!(
            strip_numbering("Agents: an overview"),
            "Agents: an overview"
        );
    }
}
