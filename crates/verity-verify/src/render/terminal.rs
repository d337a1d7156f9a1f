//! Terminal report: a coloured table (plain text when not a TTY) and a progress bar.

use std::fmt::Write;

use verity_core::Verdict;

use super::label;
use crate::report::Report;
use crate::text::clip;

fn paint(s: &str, v: Verdict, color: bool) -> String {
    if !color {
        return s.to_string();
    }
    let code = match v {
        Verdict::Supported => "32",
        Verdict::Partial => "33",
        Verdict::NotSupported => "31",
        Verdict::Inconclusive => "36",
        Verdict::SourceUnavailable => "90",
    };
    format!("\x1b[1;{code}m{s}\x1b[0m")
}

fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n >= w {
        s.chars().take(w).collect()
    } else {
        format!("{s}{}", " ".repeat(w - n))
    }
}

/// The report for a terminal. `color` adds ANSI colours (use it only on a TTY).
pub fn terminal(r: &Report, color: bool) -> String {
    let mut o = String::new();
    let s = &r.summary;
    let bold = |t: &str| {
        if color {
            format!("\x1b[1m{t}\x1b[0m")
        } else {
            t.to_string()
        }
    };
    let _ = writeln!(
        o,
        "{}",
        bold(&format!(
            "Citation check{}",
            r.document
                .as_deref()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default()
        ))
    );
    let _ = writeln!(o, "{}", s.message);
    let _ = writeln!(
        o,
        "{}  {}  {}  {}  {}",
        paint(
            &format!("supported {}", s.supported),
            Verdict::Supported,
            color
        ),
        paint(&format!("partial {}", s.partial), Verdict::Partial, color),
        paint(
            &format!("not supported {}", s.not_supported),
            Verdict::NotSupported,
            color
        ),
        paint(
            &format!("inconclusive {}", s.inconclusive),
            Verdict::Inconclusive,
            color
        ),
        paint(
            &format!("unavailable {}", s.unavailable),
            Verdict::SourceUnavailable,
            color
        ),
    );
    if r.cancelled {
        let _ = writeln!(o, "(cancelled: showing the claims checked before the stop)");
    }
    if r.results.is_empty() {
        return o;
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{}",
        bold(&format!(
            "{:>3}  {:>5}  {}  {}  {}",
            "#",
            "line",
            pad("verdict", 22),
            pad("claim", 48),
            "source"
        ))
    );
    for (i, x) in r.results.iter().enumerate() {
        let v = paint(&pad(label(x.verdict), 22), x.verdict, color);
        let _ = writeln!(
            o,
            "{:>3}  {:>5}  {}  {}  {}",
            i + 1,
            x.location.line,
            v,
            pad(&clip(&x.claim.replace('\n', " "), 46), 48),
            x.source_url.as_deref().unwrap_or(&x.citation_ref)
        );
        let _ = writeln!(o, "{:>12}{}", "", x.explanation);
        if let Some(q) = &x.source_quote {
            let _ = writeln!(o, "{:>12}“{}”", "", clip(&q.replace('\n', " "), 200));
        }
    }
    let st = &r.statistics;
    let _ = writeln!(
        o,
        "\n{} claims, {} sources ({} unavailable), {:.0} ms ({:.1} ms per citation after fetching), judge {}",
        st.claims,
        st.distinct_sources,
        st.unavailable_sources.len(),
        st.elapsed_ms,
        st.ms_per_citation,
        st.judge
    );
    o
}

/// A one-line progress bar for stderr (`\r`-redrawn on a TTY).
#[derive(Debug, Clone, Copy)]
pub struct ProgressBar {
    /// Bar width in cells.
    pub width: usize,
}

impl ProgressBar {
    /// The bar for `done` of `total` with a label.
    pub fn line(&self, label: &str, done: usize, total: usize) -> String {
        let total = total.max(1);
        let filled = (done.min(total) * self.width) / total;
        format!(
            "\r{label} [{}{}] {done}/{total}",
            "█".repeat(filled),
            "░".repeat(self.width - filled)
        )
    }
}
