//! Smoke fuzzing: mutated fixture bytes never panic the PDF extractor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "pdf")]

use std::path::PathBuf;

use proptest::prelude::*;
use verity_core::Error;
use verity_extract::pdf::parse_pdf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pdf")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Bytes of the uncompressed handmade fixture plus two compressed ones.
fn corpus() -> Vec<Vec<u8>> {
    ["handmade.pdf", "single.pdf", "two_column.pdf"]
        .iter()
        .map(|n| fixture(n))
        .collect()
}

fn check(bytes: &[u8]) {
    // The call returns (the test would abort on a panic or hang); any error is typed.
    match parse_pdf(bytes) {
        Ok(p) => assert!(p
            .pages
            .iter()
            .all(|s| s.start <= s.end && s.end <= p.document.content.len())),
        Err(Error::Parse(_)) => {}
        Err(other) => panic!("unexpected error kind: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic(
        which in 0usize..3,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..24),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = corpus().swap_remove(which);
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if truncate {
            let n = cut.index(bytes.len());
            bytes.truncate(n);
        }
        check(&bytes);
    }

    #[test]
    fn content_stream_garbage_never_panics(ops in proptest::collection::vec(
        prop_oneof![
            Just("BT ".to_string()), Just("ET ".to_string()), Just("q ".to_string()), Just("Q ".to_string()),
            Just("/F1 12 Tf ".to_string()), Just("(abc) Tj ".to_string()), Just("[(a) -500 (b)] TJ ".to_string()),
            Just("1 0 0 1 5 5 cm ".to_string()), Just("0 -14 Td ".to_string()), Just("T* ".to_string()),
            Just("/Fx Do ".to_string()), Just("<< /A [1 2 ".to_string()), Just("] >> ".to_string()),
            Just("(unterminated ".to_string()), Just("1e999 9 Tz ".to_string()), Just("BI /W 1 ID x EI ".to_string()),
            any::<u8>().prop_map(|b| (b as char).to_string()),
        ],
        0..80,
    )) {
        let content: String = ops.concat();
        let mut bytes = fixture("handmade.pdf");
        // Replace the page content stream's data in place is fiddly; append an
        // incremental update that redefines object 4 with the garbage instead.
        let body = content.as_bytes();
        let offset = bytes.len();
        bytes.extend_from_slice(format!("4 0 obj\n<< /Length {} >>\nstream\n", body.len()).as_bytes());
        bytes.extend_from_slice(body);
        bytes.extend_from_slice(b"\nendstream\nendobj\n");
        let xref = bytes.len();
        bytes.extend_from_slice(format!("xref\n4 1\n{offset:010} 00000 n \ntrailer\n<< /Size 10 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").as_bytes());
        check(&bytes);
    }
}

#[test]
fn self_referencing_forms_are_bounded() {
    // A form that draws itself: recursion must stop at the depth bound.
    let stream = |dict: &str, data: &str| {
        format!(
            "<< {dict} /Length {} >>\nstream\n{data}\nendstream",
            data.len()
        )
        .into_bytes()
    };
    let objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources 6 0 R >>".to_vec(),
        stream("", "BT /F1 12 Tf 72 700 Td (Top) Tj ET /Me Do"),
        stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources 6 0 R",
            "BT /F1 9 Tf 0 0 Td (loop) Tj ET /Me Do /Me Do /Me Do /Me Do",
        ),
        b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> /XObject << /Me 5 0 R >> >>".to_vec(),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend_from_slice(o);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        pdf.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    let parsed = parse_pdf(&pdf).unwrap();
    assert!(
        parsed.document.content.contains("Top"),
        "{}",
        parsed.document.content
    );
    assert!(
        parsed.document.content.contains("loop"),
        "{}",
        parsed.document.content
    );
}
