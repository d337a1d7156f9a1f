//! A self-contained HTML report: no network, verdict badges, quotes
//! highlighted in their context, filter by verdict (inline JS; the filter
//! can also be preset with `#filter=PARTIAL`).

use std::fmt::Write;

use verity_core::Verdict;

use crate::report::Report;

/// Escape text for HTML.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn safe_href(url: &str) -> Option<String> {
    (url.starts_with("http://") || url.starts_with("https://")).then(|| escape(url))
}

const STYLE: &str = r#"
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:20px}
main{max-width:980px;margin:0 auto;padding:18px}
.counts{display:flex;gap:8px;flex-wrap:wrap;margin:10px 0 16px}
.filter{border:1px solid #c8ced8;background:#fff;border-radius:16px;padding:4px 12px;cursor:pointer;font:inherit}
.filter.active{background:#1d2330;color:#fff;border-color:#1d2330}
.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:14px 16px;margin:10px 0}
.card[hidden]{display:none}
.badge{display:inline-block;font-weight:600;font-size:12px;border-radius:4px;padding:2px 8px;color:#fff}
.SUPPORTED{background:#1f8a4c}.PARTIAL{background:#c27c0e}.NOT_SUPPORTED{background:#c0392b}
.INCONCLUSIVE{background:#2c7a9b}.SOURCE_UNAVAILABLE{background:#6b7280}
.claim{font-size:16px;margin:8px 0}
.meta{color:#5b6474;font-size:13px}
.why{margin:6px 0}
.context{background:#f3f4f6;border-left:3px solid #c8ced8;padding:8px 10px;font-size:14px;white-space:pre-wrap}
mark{background:#fff1a8;padding:0 1px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #dde1e8;padding:3px 8px;text-align:left}
#shown{color:#5b6474;font-size:13px}
"#;

const SCRIPT: &str = r#"
(function(){
  var cards=[].slice.call(document.querySelectorAll('.card'));
  var buttons=[].slice.call(document.querySelectorAll('.filter'));
  function apply(v){
    var n=0;
    cards.forEach(function(c){var show=(v==='ALL'||c.dataset.verdict===v);c.hidden=!show;if(show)n++;});
    buttons.forEach(function(b){b.classList.toggle('active',b.dataset.filter===v);});
    var s=document.getElementById('shown');if(s)s.textContent='Showing '+n+' of '+cards.length+' claims';
  }
  buttons.forEach(function(b){b.addEventListener('click',function(){apply(b.dataset.filter);history.replaceState(null,'','#filter='+b.dataset.filter);});});
  var m=/filter=([A-Z_]+)/.exec(location.hash);
  apply(m?m[1]:'ALL');
})();
"#;

/// The report as one HTML file.
pub fn html(r: &Report) -> String {
    let s = &r.summary;
    let title = format!(
        "Citation check{}",
        r.document
            .as_deref()
            .map(|d| format!(" — {d}"))
            .unwrap_or_default()
    );
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\"><title>{}</title><style>{STYLE}</style></head><body>",
        escape(&title)
    );
    let _ = write!(
        o,
        "<header><h1>{}</h1><div id=\"message\">{}</div></header><main>",
        escape(&title),
        escape(&s.message)
    );
    if r.cancelled {
        o.push_str("<p><strong>The run was cancelled:</strong> this report holds the claims checked before.</p>");
    }
    o.push_str("<div class=\"counts\">");
    let _ = write!(
        o,
        "<button class=\"filter\" data-filter=\"ALL\">All {}</button>",
        s.total
    );
    for (v, n) in [
        (Verdict::Supported, s.supported),
        (Verdict::Partial, s.partial),
        (Verdict::NotSupported, s.not_supported),
        (Verdict::Inconclusive, s.inconclusive),
        (Verdict::SourceUnavailable, s.unavailable),
    ] {
        let _ = write!(
            o,
            "<button class=\"filter\" data-filter=\"{v}\"><span class=\"badge {v}\">{}</span> {n}</button>",
            v.as_str().replace('_', " ")
        );
    }
    o.push_str("</div><div id=\"shown\"></div>");
    for (i, x) in r.results.iter().enumerate() {
        let v = x.verdict;
        let _ = write!(
            o,
            "<section class=\"card\" data-verdict=\"{v}\" id=\"claim-{}\"><span class=\"badge {v}\">{}</span> <span class=\"meta\">line {} · confidence {:.2} · {}</span>",
            i + 1,
            v.as_str().replace('_', " "),
            x.location.line,
            x.confidence,
            escape(&x.judge)
        );
        let _ = write!(o, "<div class=\"claim\">{}</div>", escape(&x.claim));
        let src = x.source_url.as_deref().unwrap_or(&x.citation_ref);
        match safe_href(src) {
            Some(h) => {
                let _ = write!(o, "<div class=\"meta\">Source: <a href=\"{h}\" rel=\"noreferrer noopener\">{h}</a></div>");
            }
            None => {
                let _ = write!(o, "<div class=\"meta\">Source: {}</div>", escape(src));
            }
        }
        let _ = write!(o, "<div class=\"why\">{}</div>", escape(&x.explanation));
        match (&x.quote_context, &x.source_quote) {
            (Some(c), _) => {
                let _ = write!(
                    o,
                    "<blockquote class=\"context\">…{}<mark class=\"quote\">{}</mark>{}…</blockquote>",
                    escape(&c.before),
                    escape(&c.quote),
                    escape(&c.after)
                );
            }
            (None, Some(q)) => {
                let _ = write!(
                    o,
                    "<blockquote class=\"context\"><mark class=\"quote\">{}</mark></blockquote>",
                    escape(q)
                );
            }
            _ => {}
        }
        for c in &x.checks {
            let _ = write!(o, "<div class=\"meta\">check: {}</div>", escape(c));
        }
        o.push_str("</section>");
    }
    let st = &r.statistics;
    let _ = write!(
        o,
        "<h2>Statistics</h2><table><tr><th>claims</th><td>{}</td></tr><tr><th>distinct sources</th><td>{}</td></tr><tr><th>sources fetched</th><td>{}</td></tr><tr><th>time</th><td>{:.0} ms ({:.1} ms per citation after fetching)</td></tr><tr><th>judge</th><td>{}</td></tr><tr><th>quotes replaced / verdicts lowered</th><td>{} / {}</td></tr></table>",
        st.claims,
        st.distinct_sources,
        st.sources_fetched,
        st.elapsed_ms,
        st.ms_per_citation,
        escape(&st.judge),
        st.quotes_replaced,
        st.downgraded
    );
    if !st.unavailable_sources.is_empty() {
        o.push_str("<h3>Unavailable sources</h3><ul>");
        for u in &st.unavailable_sources {
            let _ = write!(o, "<li>{} — {}</li>", escape(&u.source), escape(&u.reason));
        }
        o.push_str("</ul>");
    }
    let _ = writeln!(o, "</main><script>{SCRIPT}</script></body></html>");
    o
}
