//! ExtractiveGenerator: verbatim quotes with citations, insufficient-evidence answers, determinism,
//! plus a quality check on SciFact rationales (skipped when the shared data is absent).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::collections::HashMap;
use std::path::PathBuf;

use futures::StreamExt;
use verity_core::{
    ChatMessage, ChatRequest, ContextBlock, Generator, Grounding, ProviderErrorKind,
};
use verity_llm::ExtractiveGenerator;

fn block(index: usize, text: &str) -> ContextBlock {
    ContextBlock {
        index,
        chunk_id: format!("c{index}"),
        doc_uid: format!("d{index}"),
        text: text.into(),
    }
}

fn req(question: &str, blocks: Vec<ContextBlock>, lang: Option<&str>) -> ChatRequest {
    let mut r = ChatRequest::new(vec![ChatMessage::user(question)]);
    r.grounding = Some(Grounding {
        question: question.into(),
        blocks,
        lang: lang.map(str::to_string),
    });
    r
}

fn corpus() -> Vec<ContextBlock> {
    vec![
        block(
            1,
            "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed by the engineering company of \
             Gustave Eiffel. The tower was completed in 1889 for the World's Fair.",
        ),
        block(
            2,
            "Water boils at 100 degrees Celsius at sea level.\nAt higher altitudes, the boiling point of water is lower \
             because the air pressure is lower.",
        ),
        block(3, "Photosynthesis converts light energy into chemical energy. Plants store this energy as glucose."),
    ]
}

/// The text with bracketed numeric references (`[14]`, `[3, 5]`) removed, as the generator does.
fn without_markers(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '[' {
            if let Some(end) = text[i..].find(']') {
                let inner = &text[i + 1..i + end];
                if !inner.is_empty()
                    && inner.chars().any(|c| c.is_ascii_digit())
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_digit() || ", -–;".contains(c))
                {
                    while out.ends_with(' ') {
                        out.pop();
                    }
                    while chars.peek().is_some_and(|&(j, _)| j <= i + end) {
                        chars.next();
                    }
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Every `sentence [n]` of the answer, checked verbatim against block n.
fn assert_verbatim(answer: &str, blocks: &[ContextBlock]) -> Vec<(String, usize)> {
    let by_index: HashMap<usize, String> = blocks
        .iter()
        .map(|b| {
            (
                b.index,
                without_markers(&b.text)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
        .collect();
    let mut out = Vec::new();
    let mut rest = answer;
    // Citation markers: ` [n]` followed by a space or the end of the answer.
    let next_marker = |s: &str| -> Option<(usize, usize, usize)> {
        let mut from = 0;
        while let Some(p) = s[from..].find(" [").map(|p| p + from) {
            let digits: String = s[p + 2..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let close = p + 2 + digits.len();
            if !digits.is_empty()
                && s[close..].starts_with(']')
                && (close + 1 == s.len() || s[close + 1..].starts_with(' '))
            {
                return Some((p, digits.parse().ok()?, close));
            }
            from = p + 1;
        }
        None
    };
    while let Some((open, n, close)) = next_marker(rest) {
        let sentence = rest[..open].trim();
        let src = by_index
            .get(&n)
            .unwrap_or_else(|| panic!("citation [{n}] names no block"));
        assert!(
            src.contains(sentence),
            "`{sentence}` is not verbatim in block [{n}]"
        );
        out.push((sentence.to_string(), n));
        rest = &rest[close + 1..];
    }
    assert!(
        rest.trim().is_empty(),
        "text outside quoted sentences: {rest:?}"
    );
    out
}

#[tokio::test]
async fn quotes_the_best_sentence_with_its_citation() {
    let g = ExtractiveGenerator::new();
    let blocks = corpus();
    let out = g
        .generate(&req(
            "When was the Eiffel Tower completed?",
            blocks.clone(),
            Some("en"),
        ))
        .await
        .unwrap();
    assert_eq!(out.model, "extractive");
    let quotes = assert_verbatim(&out.text, &blocks);
    assert_eq!(
        quotes.first().unwrap(),
        &(
            "The tower was completed in 1889 for the World's Fair.".to_string(),
            1
        )
    );
    assert!(quotes.len() <= 3);

    let out = g
        .generate(&req(
            "At what temperature does water boil?",
            blocks.clone(),
            None,
        ))
        .await
        .unwrap();
    let quotes = assert_verbatim(&out.text, &blocks);
    assert_eq!(
        quotes[0],
        (
            "Water boils at 100 degrees Celsius at sea level.".to_string(),
            2
        )
    );
    assert!(
        quotes.iter().all(|(_, n)| *n == 2),
        "unrelated blocks are not quoted: {quotes:?}"
    );
}

#[tokio::test]
async fn several_sentences_when_they_all_match() {
    let g = ExtractiveGenerator::builder().max_sentences(2).build();
    let blocks = corpus();
    let out = g
        .generate(&req(
            "water boiling point sea level altitude",
            blocks.clone(),
            Some("en"),
        ))
        .await
        .unwrap();
    let quotes = assert_verbatim(&out.text, &blocks);
    assert_eq!(quotes.len(), 2, "{quotes:?}");
    assert!(quotes.iter().all(|(_, n)| *n == 2), "{quotes:?}");
    let one = ExtractiveGenerator::builder().max_sentences(1).build();
    let out = one
        .generate(&req(
            "water boiling point sea level altitude",
            blocks.clone(),
            Some("en"),
        ))
        .await
        .unwrap();
    assert_eq!(assert_verbatim(&out.text, &blocks).len(), 1);
}

#[tokio::test]
async fn insufficient_evidence_in_the_request_language() {
    let g = ExtractiveGenerator::new();
    let blocks = corpus();
    let en = g
        .generate(&req(
            "Who won the 1998 football World Cup?",
            blocks.clone(),
            Some("en"),
        ))
        .await
        .unwrap();
    assert_eq!(
        en.text,
        "The provided sources do not contain enough evidence to answer this question."
    );
    let fr = g
        .generate(&req(
            "Qui a gagné la coupe du monde de football ?",
            blocks.clone(),
            Some("fr"),
        ))
        .await
        .unwrap();
    assert_eq!(fr.text, "Les sources fournies ne contiennent pas suffisamment d'éléments pour répondre à cette question.");
    // Language guessed from the question when not given.
    let fr = g
        .generate(&req(
            "Quel est le meilleur fromage de Normandie ?",
            blocks.clone(),
            None,
        ))
        .await
        .unwrap();
    assert!(fr.text.starts_with("Les sources fournies"), "{}", fr.text);
    // No blocks at all.
    let none = g
        .generate(&req(
            "When was the Eiffel Tower completed?",
            vec![],
            Some("en"),
        ))
        .await
        .unwrap();
    assert!(none.text.starts_with("The provided sources do not contain"));
}

#[tokio::test]
async fn french_sources_and_question() {
    let g = ExtractiveGenerator::new();
    let blocks = vec![
        block(1, "La tour Eiffel mesure 330 mètres de hauteur. Elle a été construite pour l'Exposition universelle de 1889."),
        block(2, "Les énergies renouvelables représentent une part croissante de la production d'électricité en France."),
    ];
    let out = g
        .generate(&req(
            "Quelle part de l'électricité provient des énergies renouvelables ?",
            blocks.clone(),
            Some("fr"),
        ))
        .await
        .unwrap();
    let quotes = assert_verbatim(&out.text, &blocks);
    assert_eq!(quotes[0].1, 2, "{}", out.text);
    let out = g
        .generate(&req(
            "Quelle est la hauteur de la tour Eiffel ?",
            blocks.clone(),
            Some("fr"),
        ))
        .await
        .unwrap();
    assert_eq!(
        assert_verbatim(&out.text, &blocks)[0].0,
        "La tour Eiffel mesure 330 mètres de hauteur."
    );
}

#[tokio::test]
async fn streaming_equals_generate_and_is_deterministic() {
    let g = ExtractiveGenerator::new();
    let r = req("When was the Eiffel Tower completed?", corpus(), Some("en"));
    let a = g.generate(&r).await.unwrap().text;
    let b = g.generate(&r).await.unwrap().text;
    assert_eq!(a, b);
    let mut s = g.stream(&r).await.unwrap();
    let mut pieces = Vec::new();
    while let Some(p) = s.next().await {
        pieces.push(p.unwrap());
    }
    assert!(pieces.len() > 3);
    assert_eq!(pieces.concat(), a);
}

#[tokio::test]
async fn grounding_is_required() {
    let g = ExtractiveGenerator::new();
    let r = ChatRequest::new(vec![ChatMessage::user("hi")]);
    for e in [
        g.generate(&r).await.unwrap_err(),
        g.stream(&r).await.err().unwrap(),
    ] {
        match e {
            verity_core::Error::Provider(p) => {
                assert_eq!(p.kind, ProviderErrorKind::InvalidRequest)
            }
            other => panic!("{other}"),
        }
    }
}

fn data_dir() -> PathBuf {
    std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

/// On SciFact claims with SUPPORT/CONTRADICT evidence, the cited abstracts are the context and the
/// claim is the question: the first quoted sentence should often be an annotated rationale.
#[tokio::test]
async fn scifact_rationale_hit_rate() {
    let dir = data_dir().join("scifact");
    let (Ok(corpus), Ok(claims)) = (
        std::fs::read_to_string(dir.join("corpus.jsonl")),
        std::fs::read_to_string(dir.join("claims_train.jsonl")),
    ) else {
        verity_testkit::skip(&format!(
            "SciFact data not found under {} (set VERITY_DATA_DIR)",
            dir.display()
        ));
        return;
    };
    let docs: HashMap<String, serde_json::Value> = corpus
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| (v["_id"].to_string().trim_matches('"').to_string(), v))
        .collect();
    let default_cov = 0.3;
    let mut rate = 0.0;
    for cov in [0.15, 0.2, default_cov, 0.4] {
        let g = ExtractiveGenerator::builder().min_coverage(cov).build();
        let (mut total, mut hits, mut answered) = (0usize, 0usize, 0usize);
        let mut history: Vec<Vec<ContextBlock>> = Vec::new();
        let mut off_topic_answered = 0usize;
        for line in claims.lines().take(400) {
            let c: serde_json::Value = serde_json::from_str(line).unwrap();
            let Some(ev) = c["evidence"].as_object().filter(|e| !e.is_empty()) else {
                continue;
            };
            let mut blocks = Vec::new();
            let mut rationale = Vec::new();
            for (i, id) in c["cited_doc_ids"].as_array().unwrap().iter().enumerate() {
                let id = id.to_string().trim_matches('"').to_string();
                let Some(doc) = docs.get(&id) else { continue };
                let sentences: Vec<String> = doc["sentences"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().trim().to_string())
                    .collect();
                blocks.push(block(i + 1, &sentences.join(" ")));
                if let Some(sets) = ev.get(&id).and_then(|v| v.as_array()) {
                    for set in sets {
                        for s in set["sentences"].as_array().unwrap() {
                            if let Some(t) = sentences.get(s.as_u64().unwrap() as usize) {
                                rationale.push(t.split_whitespace().collect::<Vec<_>>().join(" "));
                            }
                        }
                    }
                }
            }
            if blocks.is_empty() || rationale.is_empty() {
                continue;
            }
            total += 1;
            // Off-topic control: the sources of a claim 37 positions back (claims next to each
            // other often share an abstract) should not answer this claim.
            history.push(blocks.clone());
            if let Some(prev) = history
                .len()
                .checked_sub(38)
                .and_then(|i| history.get(i))
                .cloned()
            {
                let off = g
                    .generate(&req(c["claim"].as_str().unwrap(), prev, Some("en")))
                    .await
                    .unwrap();
                if !off.text.starts_with("The provided sources do not contain") {
                    off_topic_answered += 1;
                }
            }
            let out = g
                .generate(&req(
                    c["claim"].as_str().unwrap(),
                    blocks.clone(),
                    Some("en"),
                ))
                .await
                .unwrap();
            if out.text.starts_with("The provided sources do not contain") {
                continue;
            }
            answered += 1;
            let quotes = assert_verbatim(&out.text, &blocks);
            if quotes.iter().any(|(q, _)| {
                rationale
                    .iter()
                    .any(|r| r.contains(q.as_str()) || q.contains(r.as_str()))
            }) {
                hits += 1;
            }
        }
        let r = hits as f64 / total.max(1) as f64;
        eprintln!(
        "SciFact extractive (min_coverage {cov}): {total} claims, {answered} answered, {hits} quote a rationale sentence \
         ({:.1}% of claims, {:.1}% of answers); off-topic sources answered anyway: {off_topic_answered}/{}",
        r * 100.0,
        hits as f64 * 100.0 / answered.max(1) as f64,
        total.saturating_sub(37)
    );
        assert!(total >= 100);
        if cov == default_cov {
            rate = r;
            assert!(
                off_topic_answered * 20 <= total,
                "answers from off-topic sources: {off_topic_answered}"
            );
        }
    }
    assert!(rate >= 0.4, "rationale hit rate {rate:.3} too low");
}
