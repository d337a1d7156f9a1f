//! End to end: a document citing real article pages served on loopback
//! (plus a dead link, a paywall, a redirect loop and a `[7]` with no entry).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use crate::common;
use std::sync::Arc;

use common::{pages, serve_sources, test_fetcher, Page};
use verity_verify::numbers::change_first_number;
use verity_verify::{CitationType, Report, Verdict, Verifier};

fn document(base: &str, p: &[Page]) -> (String, Vec<String>) {
    let (s0, s1, s2) = (&p[0].sentence, &p[1].sentence, &p[2].sentence);
    let (distorted, _, _) = change_first_number(s0).unwrap();
    let doc = format!(
        "# A report citing its sources\n\n\
         Some context without any citation.\n\n\
         {s0} [1]\n\n\
         {distorted} [1]\n\n\
         {s1} [2, 4]\n\n\
         As [reported here]({base}/a/2), {s2}\n\n\
         Premium analysts agree on the outlook for the sector [5].\n\n\
         The missing study shows a large effect [7].\n\n\
         The looping page confirms the rumour [6].\n\n\
         ## References\n\n\
         1. First page. {base}/a/0\n\
         2. Second page. {base}/a/1\n\
         4. A page that is gone. {base}/dead\n\
         5. Paywalled analysis. {base}/paywall\n\
         6. Looping page. {base}/loop\n"
    );
    (doc, vec![s0.clone(), distorted, s1.clone(), s2.clone()])
}

fn by_claim<'a>(r: &'a Report, needle: &str) -> Vec<&'a verity_verify::CheckResult> {
    r.results
        .iter()
        .filter(|x| x.claim.contains(needle))
        .collect()
}

fn check_report(r: &Report, sentences: &[String]) {
    let st = &r.statistics;
    // Every claim has a status and the run completed.
    assert_eq!(r.summary.total, r.results.len());
    assert_eq!(
        r.results.len(),
        8,
        "{:#?}",
        r.results
            .iter()
            .map(|x| (&x.claim, x.verdict))
            .collect::<Vec<_>>()
    );

    // Faithful sentence: supported with a verbatim quote that states its figure.
    let faithful = by_claim(r, &sentences[0][..40.min(sentences[0].len())]);
    let f = faithful
        .iter()
        .find(|x| x.claim.trim_end_matches('.') == sentences[0].trim_end_matches('.'))
        .unwrap();
    assert_eq!(
        f.verdict,
        Verdict::Supported,
        "{}: {}",
        f.claim,
        f.explanation
    );
    let ctx = f
        .quote_context
        .as_ref()
        .expect("quote located in the source");
    assert_eq!(Some(&ctx.quote), f.source_quote.as_ref());

    // Distorted figure: not supported, explained with what the source says.
    let d = r
        .results
        .iter()
        .find(|x| x.claim.trim_end_matches('.') == sentences[1].trim_end_matches('.'))
        .unwrap();
    assert!(
        matches!(d.verdict, Verdict::Partial | Verdict::NotSupported),
        "{}: {:?} {}",
        d.claim,
        d.verdict,
        d.explanation
    );
    assert!(
        d.explanation.to_lowercase().contains("the source says"),
        "{}",
        d.explanation
    );

    // [2, 4]: two results, one judged, one unavailable (404).
    let two = by_claim(r, &sentences[2][..30.min(sentences[2].len())]);
    assert_eq!(two.len(), 2);
    let dead = two
        .iter()
        .find(|x| {
            x.source_url
                .as_deref()
                .is_some_and(|u| u.ends_with("/dead"))
        })
        .unwrap();
    assert_eq!(dead.verdict, Verdict::SourceUnavailable);
    assert!(
        dead.explanation.contains("404") || dead.explanation.contains("not found"),
        "{}",
        dead.explanation
    );

    let pay = by_claim(r, "Premium analysts")[0];
    assert_eq!(pay.verdict, Verdict::SourceUnavailable);
    assert!(pay.explanation.contains("paywall"), "{}", pay.explanation);

    let missing = by_claim(r, "missing study")[0];
    assert_eq!(missing.verdict, Verdict::SourceUnavailable);
    assert!(
        missing.explanation.contains("no entry [7]"),
        "{}",
        missing.explanation
    );
    assert_eq!(missing.citation_type, CitationType::Bibliography);

    let looping = by_claim(r, "looping page")[0];
    assert_eq!(
        looping.verdict,
        Verdict::SourceUnavailable,
        "{}",
        looping.explanation
    );

    // Statistics.
    assert_eq!(st.missing_entries, 1);
    assert_eq!(st.distinct_sources, 6);
    assert_eq!(st.sources_fetched, 3);
    assert_eq!(
        st.unavailable_sources.len(),
        4,
        "{:#?}",
        st.unavailable_sources
    );
    assert!(st.ms_per_citation > 0.0);
    for x in &r.results {
        if let (Some(q), Some(c)) = (&x.source_quote, &x.quote_context) {
            assert_eq!(q, &c.quote);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_document_against_real_pages() {
    let Some(pages) = pages(3) else { return };
    let server = serve_sources(&pages).await;
    let verifier = Verifier::builder(test_fetcher()).concurrency(3).build();
    let (doc, sentences) = document(&server.base, &pages);
    let r = verifier.check_text(&doc).await.unwrap();
    check_report(&r, &sentences);
    assert!(common::assert_quotes_from_pages(&r, &server.base, &pages) >= 4);
    // Each distinct source fetched once.
    for path in ["/a/0", "/a/1", "/dead", "/paywall"] {
        assert_eq!(
            server.hits(path),
            1,
            "{path} fetched {} times",
            server.hits(path)
        );
    }
    // Inline link to /a/2: judged against the third page.
    let inline = r
        .results
        .iter()
        .find(|x| x.citation_type == CitationType::Url)
        .unwrap();
    assert!(
        inline.claim.starts_with("As reported here,"),
        "{}",
        inline.claim
    );
    assert_eq!(inline.verdict, Verdict::Supported, "{}", inline.explanation);
    // Renderers agree on the counts.
    let json: serde_json::Value = serde_json::from_str(&verity_verify::render::json(&r)).unwrap();
    assert_eq!(json["summary"]["total"], 8);
    assert_eq!(json["results"][0]["location"]["line"], 5);
    let md = verity_verify::render::markdown(&r);
    assert!(md.contains("NOT_SUPPORTED") || md.contains("PARTIAL"));
    let term = verity_verify::render::terminal(&r, false);
    assert!(!term.contains('\x1b'));
    assert!(verity_verify::render::terminal(&r, true).contains("\x1b[1;32m"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_document_against_real_pages() {
    let Some(pages) = pages(3) else { return };
    let server = serve_sources(&pages).await;
    let base = &server.base;
    let (s0, s1) = (&pages[0].sentence, &pages[1].sentence);
    let html = format!(
        "<!DOCTYPE html><html><head><title>Checked article</title></head><body><article>\
         <h1>Checked article</h1>\
         <p>This article discusses several recent events reported in the press, and it cites the reports it relies on so that readers can check them.</p>\
         <p>According to <a href=\"{base}/a/0\">the first report</a>, {s0}</p>\
         <p>The second report is also clear: {s1} (see <a href=\"{base}/a/1\">the second report</a>).</p>\
         <p>A third statement cites a page that has disappeared from the web since then (<a href=\"{base}/dead\">gone</a>).</p>\
         </article></body></html>"
    );
    let verifier = Verifier::builder(test_fetcher()).build();
    let r = verifier
        .check_bytes(html.as_bytes(), Some("text/html"), Some("article.html"))
        .await
        .unwrap();
    assert_eq!(
        r.results.len(),
        3,
        "{:#?}",
        r.results.iter().map(|x| &x.claim).collect::<Vec<_>>()
    );
    assert_eq!(
        r.results[0].verdict,
        Verdict::Supported,
        "{}",
        r.results[0].explanation
    );
    assert_eq!(r.results[2].verdict, Verdict::SourceUnavailable);
    assert!(common::assert_quotes_from_pages(&r, base, &pages) >= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_complete_with_clear_statuses() {
    let verifier = Verifier::builder(test_fetcher()).build();
    // Empty and citation-free documents: an empty report that says so.
    for doc in ["", "   \n\n", "No citation in this text. Nothing to check."] {
        let r = verifier.check_text(doc).await.unwrap();
        assert_eq!(r.summary.total, 0);
        assert!(r.summary.message.contains("cites no source"));
    }
    // Binary bytes: a typed error, not a panic.
    let err = verifier
        .check_bytes(&[0u8, 159, 146, 150, 0, 1, 2, 3], None, Some("x.bin"))
        .await
        .unwrap_err();
    assert!(
        matches!(err.code(), "parse_error" | "invalid_input"),
        "{err}"
    );
    // Broken PDF: a typed error.
    let err = verifier
        .check_bytes(b"%PDF-1.7\n garbage without xref", None, Some("broken.pdf"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.code(),
            "parse_error" | "invalid_input" | "no_text_layer"
        ),
        "{err}"
    );
    // Malformed references and unresolvable entries.
    let doc = "A first claim about things [1]. A second one [3]. A third (Nobody, 2001).\n\n## References\n1. Just a title with no link\n2) http://[::1\n3. https://exa mple.invalid/x\n";
    let r = verifier.check_text(doc).await.unwrap();
    assert_eq!(r.summary.total, 3);
    assert!(
        r.results
            .iter()
            .all(|x| x.verdict == Verdict::SourceUnavailable),
        "{:#?}",
        r.results
    );
    // 1,000 citations to one unreachable host: bounded, completes, one fetch per distinct source.
    let dead = common::dead_url().await;
    let mut big = String::new();
    for i in 0..1000 {
        big.push_str(&format!(
            "Claim number {i} is about item {i} of the list [{}].\n",
            i % 10 + 1
        ));
    }
    big.push_str("\n## References\n");
    for i in 1..=10 {
        big.push_str(&format!("{i}. {dead}/s{i}\n"));
    }
    let v = Verifier::builder(test_fetcher()).concurrency(4).build();
    let r = v.check_text(&big).await.unwrap();
    assert_eq!(r.summary.total, 1000);
    assert_eq!(r.statistics.distinct_sources, 10);
    assert_eq!(r.summary.unavailable, 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_flag_reports_what_is_done() {
    let Some(pages) = pages(3) else { return };
    let server = serve_sources(&pages).await;
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let f2 = flag.clone();
    let verifier = Verifier::builder(test_fetcher())
        .concurrency(1)
        .cancel_flag(flag)
        .progress(Arc::new(move |p| {
            if p.stage == verity_verify::Stage::Judging && p.done >= 2 {
                f2.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }))
        .build();
    let (doc, _) = document(&server.base, &pages);
    let r = verifier.check_text(&doc).await.unwrap();
    assert!(r.cancelled);
    common::assert_quotes_from_pages(&r, &server.base, &pages);
    assert!(
        r.results.len() >= 2 && r.results.len() < 8,
        "{}",
        r.results.len()
    );
    assert_eq!(r.statistics.skipped, 8 - r.results.len());
}
