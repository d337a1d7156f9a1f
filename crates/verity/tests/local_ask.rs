//! `ask` with the local generator on `examples/data`, as `verity ask
//! --generator local` runs it (SmolLM2-135M-Instruct, the embedded store,
//! the local embedder when installed): an answer of the local model whose
//! every sentence cites a passage it was given and is supported by it, or
//! "not enough evidence" — never an uncited or unsupported text. A few asks
//! only (the CI machine has 2 cores); speed is measured by
//! scripts/bench/ask_local.sh, not here. Needs the GGUF model
//! (scripts/fetch-models.sh): without it the test fails under
//! VERITY_REQUIRE_DATA=1 and is reported SKIPPED otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verity::{AskRequest, GeneratorSpec, Verity, VerityConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_answers_on_the_examples_are_cited_and_supported() {
    let model = verity::llm::LocalGgufGenerator::default_model_path();
    if !model.is_file() {
        verity_testkit::skip(&format!(
            "local_ask: SmolLM2 GGUF not found at {} (scripts/fetch-models.sh)",
            model.display()
        ));
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let v = Verity::open(VerityConfig {
        home: home.path().to_path_buf(),
        generator: GeneratorSpec::Local(None),
        // Behaviour, not speed: no time limit on a test machine shared with
        // other tests (the token budget stays).
        local_budget: Some(verity::core::GenerationBudget {
            time: None,
            tokens: Some(512),
        }),
        ..VerityConfig::default()
    })
    .await
    .unwrap();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    v.ingest_paths(&[data], true, &|_| {}).await.unwrap();
    for question in [
        "How is the fee of a forward computed?",
        "How long are answers cached?",
        "What does a fee rate strategy for a routing node look like?",
    ] {
        let a = v
            .ask(&AskRequest {
                no_cache: true,
                ..AskRequest::new(question)
            })
            .await
            .unwrap();
        eprintln!("{question} → {:?} {:?}", a.text, a.notes);
        // The local model answered, by itself: a generation cut at its budget
        // or left incomplete would have fallen back to the extractive one.
        assert_eq!(a.model, "SmolLM2-135M-Instruct.Q4_1", "{a:?}");
        assert!(!a.degraded && !a.not_enough_evidence, "{a:?}");
        let spans = verity::core::text::sentence_spans(&a.text);
        assert!(!spans.is_empty(), "empty answer");
        for r in spans {
            let sentence = a.text[r].trim();
            let n: usize = sentence
                .rsplit_once('[')
                .and_then(|(_, m)| m.trim_end_matches(['.', ']']).parse().ok())
                .unwrap_or_else(|| panic!("{sentence:?} carries no citation"));
            let c = a
                .citations
                .iter()
                .find(|c| c.index == n)
                .unwrap_or_else(|| panic!("{sentence:?} cites [{n}], not a retrieved passage"));
            // A real document of the corpus, found again by its uid.
            let doc = v.get(&c.doc_uid).await.unwrap();
            assert!(doc.is_some(), "[{n}] cites {}, not in the index", c.doc_uid);
            assert!(c.chunk_id.starts_with(&c.doc_uid), "{c:?}");
        }
        let check = a.verification.as_ref().expect("answers are checked");
        assert!(
            check.checked > 0 && check.supported == check.checked,
            "{check:#?}"
        );
    }

    // Nothing in the corpus answers it: no generation, no citation.
    let a = v
        .ask(&AskRequest {
            no_cache: true,
            ..AskRequest::new("What is the boiling point of mercury in kelvin?")
        })
        .await
        .unwrap();
    assert!(a.not_enough_evidence && a.citations.is_empty(), "{a:?}");
}
