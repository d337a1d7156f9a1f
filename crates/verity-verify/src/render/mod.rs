//! Report renderers: JSON, Markdown, terminal (colours + table) and a
//! self-contained HTML page.

mod html;
mod markdown;
mod terminal;

pub use html::html;
pub use markdown::markdown;
pub use terminal::{terminal, ProgressBar};

use crate::report::Report;

/// The report as pretty JSON (the seed's shape).
pub fn json(report: &Report) -> String {
    report.to_json()
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Pretty JSON.
    Json,
    /// Markdown.
    Markdown,
    /// Terminal text (ANSI colours when `color`).
    Terminal {
        /// Use ANSI colours.
        color: bool,
    },
    /// Self-contained HTML.
    Html,
}

impl Format {
    /// Parse `json`, `md`/`markdown`, `terminal`/`text`, `html`.
    pub fn parse(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "md" | "markdown" => Some(Format::Markdown),
            "terminal" | "text" | "term" => Some(Format::Terminal { color: false }),
            "html" => Some(Format::Html),
            _ => None,
        }
    }
}

/// Render `report` in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Json => json(report),
        Format::Markdown => markdown(report),
        Format::Terminal { color } => terminal(report, color),
        Format::Html => html(report),
    }
}

/// Verdict label with an icon, for text outputs.
pub(crate) fn label(v: verity_core::Verdict) -> &'static str {
    use verity_core::Verdict::*;
    match v {
        Supported => "✓ SUPPORTED",
        Partial => "◐ PARTIAL",
        NotSupported => "✗ NOT_SUPPORTED",
        Inconclusive => "? INCONCLUSIVE",
        SourceUnavailable => "⊘ SOURCE_UNAVAILABLE",
    }
}
