//! One function that runs every text-handling entry point of the crate on a
//! document and a source; shared by the property tests (`unicode.rs`) and the
//! fuzz target `verify_text` (`fuzz/fuzz_targets/verify_text.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verity_core::{Judgement, Verdict};
use verity_fetch::ResolverConfig;
use verity_verify::checks;
use verity_verify::claims::extract;
use verity_verify::evidence::SourceIndex;
use verity_verify::numbers;
use verity_verify::rank;
use verity_verify::text::{clip, content_terms, find_verbatim, sentence_spans, words};
use verity_verify::LocalJudge;

/// Every text-handling entry point of the crate on `doc` (a citing document)
/// and `source` (the text of a cited source). Panics are the failure.
pub fn exercise(doc: &str, source: &str) {
    let extraction = extract(doc, &ResolverConfig::default());
    for span in sentence_spans(doc) {
        assert!(doc.get(span.clone()).is_some(), "span {span:?} of {doc:?}");
    }
    let index = SourceIndex::lexical(source);
    let judge = LocalJudge::new();
    let mut claims: Vec<String> = extraction
        .claims
        .iter()
        .map(|c| c.claim_text.clone())
        .collect();
    claims.push(doc.to_string());
    for claim in &claims {
        let passages = index.passages(claim, None, 5);
        for p in &passages {
            assert_eq!(source.get(p.start..p.end), Some(p.text.as_str()));
        }
        let mut j = judge.decide(claim, &passages);
        checks::run(claim, &mut j, source, &passages);
        // A judge (an LLM) may quote anything: the checks must cope.
        let mut j = Judgement::new(Verdict::Supported, 0.9, "quoted", "test")
            .with_quote(claim.chars().rev().collect::<String>(), Some(0));
        checks::run(claim, &mut j, source, &passages);
        for q in numbers::quantities(claim) {
            numbers::check(&q, &numbers::quantities(source));
        }
        numbers::change_first_number(claim);
    }
    if let Some(r) = find_verbatim(source, doc) {
        assert!(source.get(r).is_some());
    }
    let _ = find_verbatim(doc, source);
    let _ = (words(doc), content_terms(source), clip(doc, 7));
    let abbrevs = rank::abbreviations(source);
    let _ = rank::expanded_terms(doc, &abbrevs);
    let sentences: Vec<&str> = sentence_spans(source)
        .into_iter()
        .map(|r| &source[r])
        .collect();
    let _ = rank::roles(&sentences);
    let _ = rank::reports_statistic(doc);
    for raw in doc.split_whitespace() {
        let _ = numbers::version_components(raw);
    }
}
