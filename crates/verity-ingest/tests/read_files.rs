//! The file readers go through verity-extract: PDF, HTML main content,
//! Markdown front matter, text in any encoding; skipped files carry a reason.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::path::{Path, PathBuf};

use verity_ingest::{read_file, read_paths, SkipReason};

fn extract_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../verity-extract/tests/fixtures/pdf")
        .join(name)
}

#[test]
fn pdf_from_the_fixtures_is_read() {
    let d = read_file(extract_fixture("single.pdf")).unwrap();
    assert_eq!(d.metadata["format"], "pdf");
    assert!(d.metadata["pages"].as_u64().unwrap() >= 1);
    assert!(d.content.split_whitespace().count() > 3, "{}", d.content);
    assert_eq!(d.uid, verity_core::stable_uid(&d.source, &d.content));
}

#[test]
fn image_only_and_not_a_pdf_are_skipped_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["image_only.pdf", "not_a_pdf.pdf", "single.pdf"] {
        std::fs::copy(extract_fixture(name), dir.path().join(name)).unwrap();
    }
    std::fs::write(dir.path().join("photo.png"), [0x89u8, b'P', b'N', b'G']).unwrap();
    let mut reader = read_paths(&[dir.path().to_path_buf()]);
    let items: Vec<_> = reader.by_ref().collect();
    assert_eq!(items.iter().filter(|r| r.is_ok()).count(), 1, "{items:?}");
    let reasons: Vec<(String, SkipReason)> = reader
        .skipped_files()
        .iter()
        .map(|s| {
            (
                s.path.file_name().unwrap().to_string_lossy().into_owned(),
                s.reason,
            )
        })
        .collect();
    assert!(
        reasons.contains(&("image_only.pdf".into(), SkipReason::NoTextLayer)),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("photo.png".into(), SkipReason::Unsupported)),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|(n, r)| n == "not_a_pdf.pdf"
            && matches!(r, SkipReason::Malformed | SkipReason::Unsupported)),
        "{reasons:?}"
    );
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reader.skipped_files().iter().all(|s| !s.detail.is_empty()));
}

#[test]
fn html_page_gives_its_main_content() {
    let data = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
        .join("article-extraction");
    let Ok(truth) = std::fs::read_to_string(data.join("ground-truth.json")) else {
        eprintln!("skipped: {} is absent", data.display());
        return;
    };
    let truth: serde_json::Value = serde_json::from_str(&truth).unwrap();
    let (id, expected) = truth.as_object().unwrap().iter().next().unwrap();
    let mut html = Vec::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(data.join(format!("html/{id}.html.gz"))).unwrap(),
    )
    .read_to_end(&mut html)
    .unwrap();
    // Copied into a temporary directory at test time, never into the repository.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, &html).unwrap();
    let d = read_file(&page).unwrap();
    assert_eq!(d.metadata["format"], "html");
    let body = expected["articleBody"].as_str().unwrap();
    let first_words: Vec<&str> = body.split_whitespace().skip(3).take(6).collect();
    assert!(
        d.content.contains(&first_words.join(" ")),
        "main content missing {first_words:?}"
    );
    assert!(!d.content.contains("<div"), "markup stripped");
    assert_eq!(d.lang.as_deref(), Some("en"));
}

#[test]
fn markdown_front_matter_fills_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("post.md");
    std::fs::write(
        &md,
        "---\ntitle: Lightning fees in 2025\ndate: 2025-03-04\ntags: [lightning, fees]\nurl: https://blog.example.org/fees\nauthor: Ada\n---\n# Heading\n\nRouting fees went up sharply over the year, according to the operators we asked.\n",
    )
    .unwrap();
    let d = read_file(&md).unwrap();
    assert_eq!(d.title.as_deref(), Some("Lightning fees in 2025"));
    assert_eq!(d.ts.unwrap().to_rfc3339(), "2025-03-04T00:00:00+00:00");
    assert_eq!(d.tags, vec!["lightning", "fees"]);
    assert_eq!(d.url.as_deref(), Some("https://blog.example.org/fees"));
    assert_eq!(d.metadata["author"], "Ada");
    assert_eq!(d.metadata["format"], "markdown");
    assert!(
        d.content.starts_with("# Heading"),
        "front matter is not content"
    );
    assert!(!d.content.contains("title:"));
}

#[test]
fn latin1_text_is_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("notes.txt");
    // "Le café coûte trois euros à Noël." in ISO-8859-1.
    let bytes: Vec<u8> = "Le caf\u{e9} co\u{fb}te trois euros \u{e0} No\u{eb}l, et la cr\u{e8}me br\u{fb}l\u{e9}e est d\u{e9}licieuse."
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    std::fs::write(&txt, bytes).unwrap();
    let d = read_file(&txt).unwrap();
    assert!(d.content.contains("café coûte"), "{}", d.content);
    assert!(d.content.contains("Noël"));
    assert_eq!(d.metadata["format"], "text");
    assert_eq!(d.lang.as_deref(), Some("fr"));
    assert_eq!(d.title.as_deref(), Some("notes"));
}
