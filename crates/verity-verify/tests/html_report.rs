//! The HTML report rendered in headless Chromium: what a person sees
//! (verdict badges, the quote highlighted, filtering by verdict).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use crate::common;
use std::path::Path;
use std::process::Command;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use verity_verify::{render, Report, Verdict, Verifier};

const SOURCE: &str = "<!DOCTYPE html><html><head><title>AI survey 2023</title></head><body><article><h1>AI survey 2023</h1>\
<p>The survey asked executives at 1,500 companies across industries about their use of artificial intelligence in daily operations.</p>\
<p>In 2023, 78 % of companies had adopted AI in at least one business function, up from 55 % a year earlier.</p>\
<p>Adoption was highest in technology and financial services, where most firms reported several uses of the technology.</p>\
<p>Respondents <script>alert(1)</script> said budgets for AI would keep growing over the next three years.</p></article></body></html>";

async fn report() -> Report {
    let app = Router::new().route(
        "/survey",
        get(|| async { ([(header::CONTENT_TYPE, "text/html")], SOURCE).into_response() }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let doc = format!(
        "# Notes on AI adoption\n\n\
         In 2023, 78 % of companies had adopted <b>AI</b> in at least one business function [1].\n\n\
         According to the survey, 85 % of companies had adopted AI in at least one business function [1].\n\n\
         A claim whose source is gone [2].\n\n\
         ## References\n1. AI survey. http://{addr}/survey\n2. http://{addr}/gone\n"
    );
    let v = Verifier::builder(common::test_fetcher()).build();
    let r = v.check_text(&doc).await.unwrap();
    let audit = verity_verify::audit::audit_report(&r, |u| {
        u.ends_with("/survey").then(|| SOURCE.to_string())
    });
    assert!(audit.foreign.is_empty(), "{:#?}", audit.foreign);
    assert!(audit.checked >= 2);
    r
}

fn chromium() -> Option<String> {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(c.to_string());
        }
    }
    None
}

fn run_chromium(bin: &str, profile: &Path, extra: &[&str], url: &str) -> String {
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Text content of the elements of `dom` (a crude but sufficient reading of the dumped DOM).
fn visible_cards(dom: &str) -> Vec<String> {
    dom.split("<section class=\"card\"")
        .skip(1)
        .filter(|s| !s.split('>').next().unwrap_or("").contains("hidden"))
        .map(|s| s.split("</section>").next().unwrap_or("").to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_report_in_headless_chromium() {
    let r = report().await;
    let verdicts: Vec<Verdict> = r.results.iter().map(|x| x.verdict).collect();
    assert_eq!(
        verdicts,
        vec![
            Verdict::Supported,
            Verdict::Partial,
            Verdict::SourceUnavailable
        ],
        "{:#?}",
        r.results
    );
    let html = render::html(&r);
    // Self-contained: no external resource, markup from the document is escaped.
    assert!(!html.contains("src=\"http") && !html.contains("<link "));
    assert!(!html.contains("<b>AI</b>") && html.contains("&lt;b&gt;AI&lt;/b&gt;"));
    let Some(bin) = chromium() else {
        if std::env::var_os("VERITY_REQUIRE_CHROMIUM").is_some() {
            panic!("VERITY_REQUIRE_CHROMIUM is set but chromium is not installed");
        }
        eprintln!("skipped: chromium is not installed (apt-get install -y chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    std::fs::write(&file, &html).unwrap();
    let url = format!("file://{}", file.display());
    let profile = dir.path().join("profile");

    // All claims shown, with badges, the quote highlighted in its context.
    let dom = run_chromium(&bin, &profile, &["--dump-dom"], &url);
    assert!(dom.contains("Showing 3 of 3 claims"), "{dom}");
    let cards = visible_cards(&dom);
    assert_eq!(cards.len(), 3);
    assert!(cards[0].contains("badge SUPPORTED"));
    assert!(cards[1].contains("badge PARTIAL") && cards[1].contains("the source says 78 %"));
    assert!(
        cards[1].contains("<mark class=\"quote\">In 2023, 78 % of companies had adopted AI"),
        "{}",
        cards[1]
    );
    assert!(
        cards[1].contains("executives at 1,500 companies"),
        "context before the quote: {}",
        cards[1]
    );
    assert!(cards[2].contains("SOURCE UNAVAILABLE") && cards[2].contains("404"));

    // Filtering by verdict (preset through the URL, as a click does).
    let dom = run_chromium(
        &bin,
        &profile,
        &["--dump-dom"],
        &format!("{url}#filter=PARTIAL"),
    );
    assert!(dom.contains("Showing 1 of 3 claims"), "{dom}");
    let cards = visible_cards(&dom);
    assert_eq!(cards.len(), 1);
    assert!(cards[0].contains("badge PARTIAL"));
    assert!(dom.contains("class=\"filter active\" data-filter=\"PARTIAL\""));

    // A screenshot renders (kept when VERITY_SCREENSHOT_DIR is set, for a look).
    let shot_dir = std::env::var("VERITY_SCREENSHOT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or(dir.path().to_path_buf());
    let shot = shot_dir.join("verify-report.png");
    run_chromium(
        &bin,
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1100,1300",
        ],
        &url,
    );
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "screenshot of {} bytes",
        png.len()
    );
}
