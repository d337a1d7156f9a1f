//! Markdown report.

use std::fmt::Write;

use super::label;
use crate::report::Report;
use crate::text::clip;

fn esc(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The report as Markdown: summary, a table, details per claim, statistics.
pub fn markdown(r: &Report) -> String {
    let mut o = String::new();
    let s = &r.summary;
    let _ = writeln!(
        o,
        "# Citation check{}\n",
        r.document
            .as_deref()
            .map(|d| format!(": {d}"))
            .unwrap_or_default()
    );
    let _ = writeln!(o, "{}\n", s.message);
    let _ = writeln!(
        o,
        "| total | supported | partial | not supported | inconclusive | unavailable |\n|---|---|---|---|---|---|\n| {} | {} | {} | {} | {} | {} |\n",
        s.total, s.supported, s.partial, s.not_supported, s.inconclusive, s.unavailable
    );
    if r.cancelled {
        let _ = writeln!(
            o,
            "> The run was cancelled: this report holds the claims checked before.\n"
        );
    }
    if !r.results.is_empty() {
        let _ = writeln!(
            o,
            "| # | line | verdict | claim | source |\n|---|---|---|---|---|"
        );
        for (i, x) in r.results.iter().enumerate() {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                i + 1,
                x.location.line,
                label(x.verdict),
                esc(&clip(&x.claim, 120)),
                esc(x.source_url.as_deref().unwrap_or(&x.citation_ref))
            );
        }
        let _ = writeln!(o, "\n## Details\n");
        for (i, x) in r.results.iter().enumerate() {
            let _ = writeln!(
                o,
                "### {}. {} — line {}\n",
                i + 1,
                label(x.verdict),
                x.location.line
            );
            let _ = writeln!(o, "**Claim:** {}\n", x.claim);
            let _ = writeln!(
                o,
                "**Source:** {}\n",
                x.source_url.as_deref().unwrap_or(&x.citation_ref)
            );
            let _ = writeln!(
                o,
                "**Why:** {} (confidence {:.2})\n",
                x.explanation, x.confidence
            );
            if let Some(q) = &x.source_quote {
                let _ = writeln!(o, "> {}\n", q.replace('\n', " "));
            }
            for c in &x.checks {
                let _ = writeln!(o, "- check: {c}");
            }
            if !x.checks.is_empty() {
                o.push('\n');
            }
        }
    }
    let st = &r.statistics;
    let _ = writeln!(o, "## Statistics\n");
    let _ = writeln!(
        o,
        "- claims: {}, distinct sources: {}, fetched: {}, unavailable: {}\n- time: {:.0} ms total, {:.0} ms fetching, {:.1} ms per citation after fetching\n- judge: {}{}, passages: {}\n- quotes replaced: {}, verdicts lowered by checks: {}, judge errors: {}, missing reference entries: {}",
        st.claims,
        st.distinct_sources,
        st.sources_fetched,
        st.unavailable_sources.len(),
        st.elapsed_ms,
        st.fetch_ms,
        st.ms_per_citation,
        st.judge,
        if st.judge_tokens > 0 { format!(" ({} tokens)", st.judge_tokens) } else { String::new() },
        if st.dense { "BM25 + dense" } else { "BM25 (lexical)" },
        st.quotes_replaced,
        st.downgraded,
        st.judge_errors,
        st.missing_entries
    );
    if !st.unavailable_sources.is_empty() {
        let _ = writeln!(o, "\n### Unavailable sources\n");
        for u in &st.unavailable_sources {
            let _ = writeln!(
                o,
                "- {} — {:?}: {} ({} claim(s))",
                u.source, u.status, u.reason, u.claims
            );
        }
    }
    o
}
