//! Property tests: no input makes the parsers panic, and work stays bounded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use verity_extract::{parse_bytes, parse_html, parse_markdown, parse_text};

/// Random tag soup: tags (some unclosed, some mis-nested), attributes, entities, text.
fn tag_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<div>".to_string()),
        Just("</div>".to_string()),
        Just("<p>".to_string()),
        Just("</p>".to_string()),
        Just("<table><tr><td>".to_string()),
        Just("<ul><li>".to_string()),
        Just("<pre><code class=\"language-rust\">".to_string()),
        Just("<a href=\"/x?a=1&amp;b\">".to_string()),
        Just("</a>".to_string()),
        Just("<script>var x = '</div>';".to_string()),
        Just("</script>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("<br/>".to_string()),
        Just("&amp;&#x1F600;&#99999999;&bogus".to_string()),
        Just("<blockquote>".to_string()),
        Just("<h2 class=\"comment\">".to_string()),
        Just("<".to_string()),
        "[a-zA-Z ,.]{0,40}",
        "\\PC{0,20}",
    ];
    prop::collection::vec(piece, 0..200).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        let _ = parse_bytes(&bytes, None, None, None);
        let _ = parse_bytes(&bytes, Some("text/html"), None, None);
        let _ = parse_bytes(&bytes, Some("text/markdown"), Some("x.md"), None);
    }

    #[test]
    fn random_strings_never_panic(s in "\\PC{0,2000}") {
        prop_assert!(parse_html(&s, None).is_ok());
        prop_assert!(parse_markdown(&s).is_ok());
        prop_assert!(parse_text(&s).is_ok());
    }

    #[test]
    fn tag_soup_never_panics(s in tag_soup()) {
        let url = url::Url::parse("https://example.com/dir/page.html").ok();
        let parsed = parse_html(&s, url.as_ref());
        prop_assert!(parsed.is_ok());
        // Output is bounded by the input (plus Markdown syntax and absolute URLs).
        let out = parsed.map(|p| p.document.content.len()).unwrap_or(0);
        prop_assert!(out <= s.len() * 4 + 1024, "output {} for input {}", out, s.len());
    }
}

#[test]
fn deep_nesting_and_huge_inputs_are_bounded() {
    // 200k nested elements: no stack overflow, content kept.
    let html = "<div><span>".repeat(100_000)
        + "needle text that matters"
        + &"</span></div>".repeat(100_000);
    let p = parse_html(&html, None).unwrap();
    assert!(
        p.document.content.contains("needle text"),
        "{}",
        p.document.content.len()
    );
    // Many unclosed formatting tags and a long run of '<'.
    let html = "<b><i><a href=x>".repeat(50_000) + &"<".repeat(100_000);
    assert!(parse_html(&html, None).is_ok());
    // A 1 MB single text node.
    let html = format!("<p>{}</p>", "word ".repeat(200_000));
    let p = parse_html(&html, None).unwrap();
    assert!(
        p.document.content.len() >= 900_000,
        "{}",
        p.document.content.len()
    );
}
