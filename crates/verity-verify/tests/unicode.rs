//! No text makes the verification pipeline panic: claim extraction, sentence
//! splitting, passages, the local judge, quoting checks and number parsing run
//! on documents and sources built from awkward Unicode (non-ASCII spaces,
//! combining marks, right-to-left text, emoji, lone surrogates decoded from
//! JSON escapes) and on arbitrary strings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use verity_fetch::ResolverConfig;
use verity_verify::claims::extract;

use crate::exercise::exercise;

/// The document of the report that found the crash, as the JSON body sent it.
const NBSP_DOC: &str = "A\u{a0}x. B [1]\n\n## References\n1. https://example.org/a\n";

#[test]
fn nbsp_before_a_word_ending_in_a_period() {
    exercise(NBSP_DOC, "B is what x says.");
    let e = extract(NBSP_DOC, &ResolverConfig::default());
    assert_eq!(e.sentences, 2, "{e:?}");
    // The same shape in French typography, with a claim worth checking.
    let doc =
        "Selon l'enquête\u{a0}x. Les frais de routage ont baissé de 80\u{a0}% en\u{a0}2023 [1]\n\n\
               ## Références\n1. https://example.org/a\n";
    let e = extract(doc, &ResolverConfig::default());
    assert_eq!(e.claims.len(), 1, "{e:?}");
    // Claim text has its white space normalised.
    assert_eq!(
        e.claims[0].claim_text,
        "Les frais de routage ont baissé de 80 % en 2023"
    );
    exercise(
        doc,
        "En 2023, les frais de routage ont baissé de 80\u{a0}%.",
    );
}

/// Spaces that are white space to Rust but more than one byte in UTF-8.
const WIDE_SPACES: &[char] = &[
    '\u{a0}', '\u{1680}', '\u{2000}', '\u{2002}', '\u{2003}', '\u{2009}', '\u{200a}', '\u{2028}',
    '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{85}',
];

#[test]
fn every_wide_space_before_every_punctuation() {
    for &sp in WIDE_SPACES {
        for end in [".", "!", "?", "…", ".\u{301}", "。"] {
            let doc = format!(
                "In 2023{sp}78{sp}% of firms{sp}(e.g.{sp}Acme) adopted{sp}AI{end} Then{sp}J.{sp}Smith said{sp}x{end}{sp}[1]{sp}\n\n\
                 ## References\n1.{sp}Survey{sp}https://example.org/s{sp}\n"
            );
            let src = format!(
                "Intro{end}{sp}In{sp}2023,{sp}78{sp}%{sp}of{sp}firms adopted AI{end}{sp}e.g.{sp}x"
            );
            exercise(&doc, &src);
        }
    }
}

#[test]
fn json_escaped_lone_surrogates_become_replacement_characters() {
    // serde_json refuses a lone surrogate escape; a client library that
    // decodes leniently hands over U+FFFD instead. Both must be safe.
    assert!(serde_json::from_str::<String>(r#""a\ud800. B [1]""#).is_err());
    let doc = String::from_utf8_lossy(
        b"A\xed\xa0\x80x. B [1]\n\n## References\n1. https://example.org/a\n",
    )
    .into_owned();
    exercise(&doc, &doc);
}

/// Characters that stress byte arithmetic: multi-byte spaces, combining
/// marks, right-to-left letters and marks, emoji (with ZWJ and variation
/// selectors), CJK punctuation, quotes and brackets, digits of other scripts.
fn awkward_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::sample::select(vec![
            'a', 'B', 'x', 'J', 'e', 'g', '1', '7', '0', '.', ',', ';', ':', '!', '?', '%', '(', ')',
            '[', ']', '^', '-', '–', '—', '"', '\'', '“', '”', '«', '»', '‘', '’', ' ', '\n', '#',
            '*', '_', '/', '|', '>', '€', '$', '…', '·', '×',
        ]),
        2 => proptest::sample::select(WIDE_SPACES.to_vec()),
        1 => proptest::sample::select(vec![
            '\u{301}', '\u{308}', '\u{200d}', '\u{fe0f}', '\u{200e}', '\u{200f}', '\u{202e}',
            'א', 'ב', 'ع', 'ر', '١', '٢', '۳', '😀', '👍', '🏽', '中', '。', '、', '．', '！',
            '\u{feff}', '\u{fffd}', 'ß', 'İ', 'ﬁ', 'Ⅻ', '½', '²',
        ]),
        1 => any::<char>(),
    ]
}

fn awkward_text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(awkward_char(), 0..max).prop_map(|cs| cs.into_iter().collect())
}

/// A document with references, so claims, markers and the bibliography are
/// all reached, made of awkward pieces.
fn awkward_document() -> impl Strategy<Value = (String, String)> {
    (
        proptest::collection::vec(awkward_text(40), 1..6),
        awkward_text(30),
        awkward_text(200),
    )
        .prop_map(|(sentences, reference, source)| {
            let mut doc = String::new();
            for (i, s) in sentences.iter().enumerate() {
                doc.push_str(s);
                doc.push_str(&format!(" [{}]. ", i % 3 + 1));
            }
            doc.push_str("\n\n## References\n");
            for i in 1..=3 {
                doc.push_str(&format!("{i}. {reference} https://example.org/{i}\n"));
            }
            (doc, source)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_awkward_document_and_source((doc, source) in awkward_document()) {
        exercise(&doc, &source);
    }

    #[test]
    fn any_awkward_text_as_both(text in awkward_text(300)) {
        exercise(&text, &text);
    }

    #[test]
    fn any_string(doc in any::<String>(), source in any::<String>()) {
        exercise(&doc, &source);
    }
}
