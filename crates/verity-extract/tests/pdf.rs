//! PDF extraction on real generated fixtures (see tests/fixtures/pdf/make_fixtures.py).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "pdf")]

use std::path::PathBuf;

use verity_core::{Error, ParseError, SourceFormat};
use verity_extract::pdf::{extract_pages, parse_pdf};

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pdf")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn single_column_text_metadata_and_page_map() {
    let parsed = parse_pdf(&fixture("single.pdf")).unwrap();
    let doc = &parsed.document;
    assert_eq!(parsed.format, SourceFormat::Pdf);
    assert_eq!(doc.title.as_deref(), Some("Verity Single Column Fixture"));
    assert_eq!(
        doc.metadata.get("author").and_then(|v| v.as_str()),
        Some("Ada Lovelace")
    );
    assert_eq!(
        doc.ts.map(|t| t.to_rfc3339()).as_deref(),
        Some("2024-01-31T11:00:00+00:00")
    );
    let text = squash(&doc.content);
    // Hyphenated line ends are joined, accents kept.
    assert!(
        text.contains("Every claim in the answer is checked"),
        "{text}"
    );
    assert!(
        text.contains("for example by overlap and entailment."),
        "{text}"
    );
    assert!(text.contains("Café and naïve are kept intact."), "{text}");
    // A compound word hyphen in the middle of a line stays.
    assert!(text.contains("well-known results"), "{text}");
    // Page numbers at the bottom are dropped, not glued into sentences.
    assert!(!text.contains("intact. 1"), "{text}");
    assert!(!doc.content.contains("\n1\n"), "{}", doc.content);
    // Heading marked, paragraphs separated.
    assert!(
        doc.content.starts_with("## Retrieval with Citations\n\n"),
        "{}",
        doc.content
    );
    assert!(
        doc.content.contains("intact.\n\nA second paragraph"),
        "{}",
        doc.content
    );

    // Page map: two pages, contiguous, in order, each covering its own text.
    assert_eq!(parsed.pages.len(), 2);
    assert_eq!(parsed.pages[0].page, 1);
    assert_eq!(parsed.pages[1].page, 2);
    let p2 = doc.content.find("Page two").unwrap();
    assert_eq!(parsed.page_of(p2), Some(2));
    assert_eq!(
        parsed.page_of(doc.content.find("Grounded").unwrap()),
        Some(1)
    );
    assert!(parsed.pages[0].end <= parsed.pages[1].start);
    assert_eq!(
        &doc.content[parsed.pages[1].start..parsed.pages[1].end],
        "Page two talks about well-known results. It ends here."
    );
}

#[test]
fn two_columns_read_left_then_right() {
    let pages = extract_pages(&fixture("two_column.pdf")).unwrap();
    assert_eq!(pages.len(), 1);
    let text = squash(&pages[0]);
    let title = text
        .find("A Two Column Study of Reading Order")
        .expect("title");
    let left_start = text
        .find("The left column opens the paper")
        .expect("left start");
    let left_end = text
        .find("This sentence ends the left column.")
        .expect("left end");
    let right_start = text
        .find("The right column comes second")
        .expect("right start");
    let right_end = text
        .find("This sentence ends the right column.")
        .expect("right end");
    assert!(
        title < left_start
            && left_start < left_end
            && left_end < right_start
            && right_start < right_end,
        "{text}"
    );
    // Whole sentences survive the line breaks of the left column.
    assert!(
        text.contains("describes the problem in plain words."),
        "{text}"
    );
}

#[test]
fn cid_identity_h_font_with_to_unicode_and_ligatures() {
    let parsed = parse_pdf(&fixture("unicode_cid.pdf")).unwrap();
    let text = &parsed.document.content;
    assert!(text.contains("Γειά σου κόσμε"), "{text}");
    assert!(text.contains("Привет, мир"), "{text}");
    // Ligature glyphs are normalised to letters.
    assert!(text.contains("efficient final flow"), "{text}");
    assert!(!text.contains('\u{FB01}'));
    assert!(text.contains("Zoë ≤ 42 → done"), "{text}");
    assert_eq!(parsed.document.title.as_deref(), Some("Unicode été — test"));
}

#[test]
fn handmade_operators_encodings_forms_and_xmp() {
    let parsed = parse_pdf(&fixture("handmade.pdf")).unwrap();
    let text = squash(&parsed.document.content);
    // TJ: small kerning joins, a large gap becomes a space.
    assert!(text.contains("Words apart"), "{text}");
    // T*, ' and TL.
    assert!(text.contains("first line second line third"), "{text}");
    // /Differences with glyph names (fi, f_f, quoteright).
    assert!(text.contains("fiDiffffrences: \u{2019}ve"), "{text}");
    // ToUnicode with bfchar (incl. a surrogate pair) and bfrange array form.
    assert!(text.contains("H\u{1D400}elo"), "{text}");
    // Form XObject drawn through Do, inside q/cm/Q.
    assert!(text.contains("Inside the form"), "{text}");
    // Tz and Ts do not split or lose text; " sets spacing and shows.
    assert!(text.contains("Squeezed text raised"), "{text}");
    assert!(text.contains("wide words"), "{text}");
    // Metadata from XMP (no Info dictionary).
    let doc = &parsed.document;
    assert_eq!(doc.title.as_deref(), Some("Handmade XMP Title"));
    assert_eq!(
        doc.metadata.get("author").and_then(|v| v.as_str()),
        Some("Grace Hopper")
    );
    assert_eq!(doc.lang.as_deref(), Some("fr"));
    assert_eq!(
        doc.ts.map(|t| t.to_rfc3339()).as_deref(),
        Some("2021-05-06T07:08:09+00:00")
    );
}

#[test]
fn title_falls_back_to_largest_first_page_line() {
    let parsed = parse_pdf(&fixture("two_column.pdf")).unwrap();
    assert_eq!(
        parsed.document.title.as_deref(),
        Some("A Two Column Study of Reading Order")
    );
}

fn parse_error(name: &str) -> ParseError {
    match parse_pdf(&fixture(name)) {
        Err(Error::Parse(e)) => e,
        Err(other) => panic!("{name}: unexpected error {other:?}"),
        Ok(p) => panic!("{name}: expected an error, got {:?}", p.document.content),
    }
}

#[test]
fn encrypted_with_user_password_is_no_text_layer() {
    match parse_error("encrypted.pdf") {
        ParseError::NoTextLayer { reason } => assert!(reason.contains("encrypted"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn encrypted_with_empty_user_password_opens() {
    let parsed = parse_pdf(&fixture("encrypted_empty_user.pdf")).unwrap();
    assert!(squash(&parsed.document.content).contains("Café and naïve are kept intact."));
    assert_eq!(
        parsed.document.title.as_deref(),
        Some("Verity Single Column Fixture")
    );
}

#[test]
fn image_only_is_no_text_layer() {
    match parse_error("image_only.pdf") {
        ParseError::NoTextLayer { reason } => assert!(reason.contains("image"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_inputs() {
    assert!(matches!(
        parse_error("not_a_pdf.pdf"),
        ParseError::Malformed { format: "pdf", .. }
    ));
    assert!(matches!(
        parse_error("truncated.pdf"),
        ParseError::Malformed { .. } | ParseError::NoTextLayer { .. }
    ));
    assert!(matches!(
        parse_pdf(b""),
        Err(Error::Parse(ParseError::Malformed { .. }))
    ));
    assert!(matches!(
        parse_pdf(b"%PDF-1.7\n"),
        Err(Error::Parse(ParseError::Malformed { .. }))
    ));
}
