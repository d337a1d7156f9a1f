//! Link targets stay out of the text every reader hands on (HTML pages,
//! Markdown files, Markdown from a reader service); they are kept as
//! `metadata.links` / `metadata.images`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use url::Url;
use verity_extract::parse_bytes;

/// `[(text, url)]` of a document's `metadata.links`.
fn links(doc: &verity_core::Document) -> Vec<(String, String)> {
    doc.metadata
        .get("links")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|l| {
                    (
                        l["text"].as_str().unwrap_or("").to_string(),
                        l["url"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn assert_no_url(content: &str) {
    for needle in ["http://", "https://", "](", "mailto:", ".png"] {
        assert!(!content.contains(needle), "{needle} in {content}");
    }
}

#[test]
fn html_page_keeps_anchor_text_and_link_metadata() {
    let url = Url::parse("https://news.example/a/story.html").unwrap();
    let html = br#"<html><head><title>Story</title></head><body><nav><a href="/">Home</a></nav><article>
        <p>The <a href="/reports/2024">annual report</a> says revenue grew, as
        <a href="https://other.example/x?y=1">the regulator</a> confirmed on Monday in a long statement.</p>
        <p><img src="/chart.png" alt="Revenue by quarter chart"> Write to <a href="mailto:desk@news.example">the desk</a> for more detail on this.</p>
        </article></body></html>"#;
    let p = parse_bytes(html, Some("text/html"), None, Some(&url)).unwrap();
    let c = &p.document.content;
    assert!(c.contains("The annual report says revenue grew"), "{c}");
    assert!(c.contains("as the regulator confirmed"), "{c}");
    assert_no_url(c);
    assert_eq!(
        links(&p.document),
        vec![
            (
                "annual report".into(),
                "https://news.example/reports/2024".into()
            ),
            ("the regulator".into(), "https://other.example/x?y=1".into()),
            ("the desk".into(), "mailto:desk@news.example".into()),
        ]
    );
    assert_eq!(
        p.document.metadata["images"][0]["url"],
        "https://news.example/chart.png"
    );
}

#[test]
fn markdown_from_a_reader_service_is_unlinked_the_same_way() {
    // What a Markdown reader (Jina Reader) returns for the page above.
    let url = Url::parse("https://news.example/a/story.html").unwrap();
    let md = "The [annual report](/reports/2024) says revenue grew, as [the regulator](https://other.example/x?y=1 \"Regulator\") confirmed.\n\n![Image 1: Revenue by quarter chart](https://news.example/chart.png)\n\nWrite to [the desk][desk] for more.\n\n[desk]: mailto:desk@news.example\n";
    let p = parse_bytes(md.as_bytes(), Some("text/markdown"), None, Some(&url)).unwrap();
    let c = &p.document.content;
    assert!(c.contains("The annual report says revenue grew"), "{c}");
    assert!(c.contains("Write to the desk for more."), "{c}");
    assert_no_url(c);
    assert_eq!(
        links(&p.document),
        vec![
            (
                "annual report".into(),
                "https://news.example/reports/2024".into()
            ),
            ("the regulator".into(), "https://other.example/x?y=1".into()),
            ("the desk".into(), "mailto:desk@news.example".into()),
        ]
    );
    assert_eq!(
        p.document.metadata["images"][0]["alt"],
        "Image 1: Revenue by quarter chart"
    );
}

#[test]
fn markdown_file_keeps_code_and_front_matter() {
    let md = "---\ntitle: Notes\n---\n# [Notes](https://n.example)\n\nSee [docs](https://d.example).\n\n```sh\ncurl [x](https://kept.example)\n```\n";
    let p = parse_bytes(md.as_bytes(), None, Some("notes.md"), None).unwrap();
    assert_eq!(p.document.title.as_deref(), Some("Notes"));
    assert_eq!(
        p.document.content,
        "# Notes\n\nSee docs.\n\n```sh\ncurl [x](https://kept.example)\n```"
    );
    assert_eq!(links(&p.document).len(), 2);
}
