//! `verity check`: reports and exit statuses, with the cited source served on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;
use verity_testkit::Reply;

const SOURCE: &str = "<!DOCTYPE html><html><head><title>AI survey 2023</title></head><body><article><h1>AI survey 2023</h1>\
<p>The survey asked executives at 1,500 companies across industries about their use of artificial intelligence in daily operations.</p>\
<p>In 2023, 78 % of companies had adopted AI in at least one business function, up from 55 % a year earlier.</p>\
<p>Adoption was highest in technology and financial services, where most firms reported several uses of the technology.</p></article></body></html>";

/// A tiny HTTP/1.1 server on loopback: `/survey` is the page, `/doc` a
/// document citing it, anything else 404. Runs until the test process ends.
fn serve() -> String {
    verity_testkit::serve(|path, base| match path {
        "/survey" => Reply::html(SOURCE),
        "/doc" => Reply::ok("text/markdown; charset=utf-8", document(base)),
        _ => Reply::not_found(),
    })
    .unwrap()
}

fn document(base: &str) -> String {
    format!(
        "# Notes on AI adoption\n\n\
         In 2023, 78 % of companies had adopted AI in at least one business function [1].\n\n\
         According to the survey, 85 % of companies had adopted AI in at least one business function [1].\n\n\
         ## References\n1. AI survey. {base}/survey\n"
    )
}

fn verity(home: &Path) -> Command {
    let mut c = Command::cargo_bin("verity").unwrap();
    c.env("VERITY_HOME", home)
        .env("VERITY_EMBEDDER", "none")
        .env_remove("VERITY_GENERATOR")
        .arg("--quiet");
    c
}

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn check_reports_and_exit_statuses() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let base = serve();
    let doc = tmp.path().join("doc.md");
    std::fs::write(&doc, document(&base)).unwrap();

    // JSON report: the faithful claim supported, the exaggerated one partial.
    let out = verity(&home)
        .args(["check", "--allow-private", "--format", "json"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let verdicts: Vec<&str> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["SUPPORTED", "PARTIAL"], "{r:#}");
    assert!(r["results"][1]["explanation"]
        .as_str()
        .unwrap()
        .contains("78"));

    // --fail-on: 9 when a claim has one of the verdicts, 0 otherwise.
    let out = verity(&home)
        .args([
            "check",
            "--allow-private",
            "--fail-on",
            "not_supported,partial",
        ])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 9, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("PARTIAL") && text.contains("SUPPORTED"),
        "{text}"
    );
    // `verify` (the capability's name) is an alias of seed 002's `check`.
    let out = verity(&home)
        .args(["verify", "--allow-private", "--fail-on", "not_supported"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);

    // -o: the HTML report written to a file.
    let html = tmp.path().join("report.html");
    let out = verity(&home)
        .args(["check", "--allow-private", "--format", "html", "-o"])
        .arg(&html)
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("badge SUPPORTED") && page.contains("badge PARTIAL"));

    // The document itself by URL.
    let out = verity(&home)
        .args(["--json", "check", "--allow-private"])
        .arg(format!("{base}/doc"))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["summary"]["supported"], 1, "{r:#}");

    // Without --allow-private, the loopback source is refused by the SSRF guard.
    let out = verity(&home)
        .args(["--json", "check", "--fail-on", "unavailable"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 9);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["summary"]["unavailable"], 2, "{r:#}");

    // Bad input: 3, with the error on stderr.
    for args in [
        vec!["check".to_string(), format!("{base}/doc")],
        vec![
            "check".into(),
            tmp.path().join("missing.md").display().to_string(),
        ],
        vec![
            "check".into(),
            "--format".into(),
            "pdf".into(),
            doc.display().to_string(),
        ],
        vec![
            "check".into(),
            "--fail-on".into(),
            "maybe".into(),
            doc.display().to_string(),
        ],
        vec![
            "check".into(),
            "--concurrency".into(),
            "0".into(),
            doc.display().to_string(),
        ],
    ] {
        let out = verity(&home).args(&args).output().unwrap();
        assert_eq!(
            code(&out),
            3,
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("error:"));
    }
}

/// The evaluation data (`shared/data` next to the repository), if present.
fn data_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("VERITY_DATA_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    (dir.join("scifact").is_dir() && dir.join("article-extraction").is_dir()).then_some(dir)
}

#[test]
fn eval_verify_on_a_small_slice() {
    let Some(data) = data_dir() else {
        verity_testkit::skip("eval_verify_on_a_small_slice: no shared/data (set VERITY_DATA_DIR)");
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let out = verity(home.path())
        .args(["--json", "eval", "verify"])
        .arg(&data)
        .args(["--limit", "5", "--citations", "10", "--judge", "local"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["judge"], "local", "{r}");
    assert_eq!(r["dense"], false, "{r}");

    let s = &r["scifact"];
    assert_eq!(s["claims"], 5, "{r}");
    assert!(s["pairs"].as_u64().unwrap() >= 5, "{r}");
    let rows = s["confusion"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let total: u64 = rows
        .iter()
        .map(|row| {
            ["supported", "not_supported", "inconclusive"]
                .iter()
                .map(|k| row[k].as_u64().unwrap())
                .sum::<u64>()
        })
        .sum();
    assert_eq!(total, 5, "{r}");
    for k in ["accuracy", "macro_f1", "quote_top1", "quote_top3"] {
        let x = s[k].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{k} {x}");
    }

    let d = &r["distortion"];
    let n = d["sentences"].as_u64().unwrap();
    assert!(n > 0 && d["pages"].as_u64().unwrap() <= 5, "{r}");
    assert!(d["caught"].as_u64().unwrap() <= n);
    assert_eq!(d["supported_without_figures"], 0, "{r}");

    // Every cited sentence is verbatim in its loopback source.
    let p = &r["speed"];
    assert_eq!(p["citations"], 10, "{r}");
    assert!(p["sources"].as_u64().unwrap() >= 1, "{r}");
    assert!(p["supported"].as_u64().unwrap() >= 5, "{r}");
}

#[test]
fn eval_verify_refuses_an_unknown_set() {
    let home = tempfile::tempdir().unwrap();
    let out = verity(home.path())
        .args(["eval", "verify", "/nonexistent", "--sets", "fever"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fever") && err.contains("sets"), "{err}");
}

#[test]
fn non_breaking_spaces_are_checked_not_crashed() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let base = serve();
    let doc = tmp.path().join("f.md");
    // The report's reproduction, then French typography citing a real page.
    for text in [
        "A\u{a0}x. B [1]\n\n## References\n1. https://example.org/a\n".to_string(),
        format!(
            "Selon l'enquête\u{a0}x. En 2023, 78\u{a0}% des entreprises avaient adopté l'IA [1].\n\n\
             ## Références\n1. Enquête. {base}/survey\n"
        ),
    ] {
        std::fs::write(&doc, &text).unwrap();
        let out = verity(&home)
            .args(["check", "--allow-private", "--format", "json"])
            .arg(&doc)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_ne!(code(&out), 101, "{stderr}");
        let r: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert!(r["summary"].is_object(), "{r}");
    }
}
