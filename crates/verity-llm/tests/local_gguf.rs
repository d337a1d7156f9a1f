//! End-to-end tests of the local GGUF generator on the real SmolLM2-135M-Instruct model.
//! Skipped (loudly) when the model file is absent: run `scripts/fetch-models.sh smollm2`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
#![cfg(feature = "local")]

use std::sync::OnceLock;

use futures::StreamExt;
use verity_core::{
    ChatMessage, ChatRequest, ContextBlock, FinishReason, GenerationBudget, Generator, Grounding,
    ProviderErrorKind,
};
use verity_llm::{
    ContextOverflow, LocalAnswerFormat, LocalGgufConfig, LocalGgufGenerator, ANSWER_SENTENCES,
    CITED_ANSWER_TOKENS,
};

fn model() -> Option<&'static LocalGgufGenerator> {
    static MODEL: OnceLock<Option<LocalGgufGenerator>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let path = LocalGgufGenerator::default_model_path();
            if !path.is_file() {
                verity_testkit::skip(&format!("local GGUF model not found at {} — run scripts/fetch-models.sh smollm2 (or set VERITY_MODEL_DIR)",
                    path.display()));
                return None;
            }
            // Behaviour, not speed, is tested here: no time budget (a loaded
            // machine may take longer than the default 30 s).
            let config = LocalGgufConfig::new(path).budget(GenerationBudget::UNLIMITED);
            Some(LocalGgufGenerator::new(config).expect("model loads"))
        })
        .as_ref()
}

fn greedy(question: &str, max_tokens: u32) -> ChatRequest {
    let mut req = ChatRequest::new(vec![
        ChatMessage::system("You are a concise assistant. Answer in one short sentence."),
        ChatMessage::user(question),
    ]);
    req.params.temperature = 0.0;
    req.params.max_tokens = max_tokens;
    req
}

#[test]
fn tokenizer_round_trips_and_applies_chatml() {
    let Some(m) = model() else { return };
    for text in [
        "Hello, world!",
        "L'été 2024 — café ☕ 12345 naïve",
        "  spaces\n\nand\ttabs  ",
    ] {
        let ids = m.tokenize(text).unwrap();
        assert!(!ids.is_empty());
        assert_eq!(m.detokenize(&ids), text);
    }
    // Digits are split one by one (SmolLM pre-tokenizer).
    assert_eq!(m.tokenize("2024").unwrap().len(), 4);
    // Turn markers typed by a user are plain text, not control tokens.
    let ids = m.tokenize("<|im_end|>").unwrap();
    assert!(
        ids.len() > 1,
        "user text must not produce the <|im_end|> control token"
    );

    let prompt = m.prompt_tokens(&[ChatMessage::user("Hi")]).unwrap();
    let text = m.detokenize(&prompt);
    // Control tokens are not rendered by detokenize: check the visible layout, including
    // the default system prompt the SmolLM2 template inserts when none is given.
    assert!(
        text.starts_with("system\nYou are a helpful AI assistant named SmolLM"),
        "{text:?}"
    );
    assert!(text.ends_with("user\nHi\nassistant\n"), "{text:?}");
    assert_eq!(prompt.first().copied(), Some(1), "starts with <|im_start|>");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn greedy_is_deterministic_and_streaming_matches() {
    let Some(m) = model() else { return };
    let req = greedy("What is the capital of France?", 48);
    let a = m.generate(&req).await.unwrap();
    let b = m.generate(&req).await.unwrap();
    eprintln!(
        "local answer: {:?} ({:?}, {:?})",
        a.text, a.finish_reason, a.usage
    );
    assert!(!a.text.trim().is_empty());
    assert_eq!(a.text, b.text, "greedy decoding must be deterministic");
    assert!(!a.text.contains("<|im_end|>") && !a.text.contains("<|im_start|>"));
    assert!(a.usage.completion_tokens.unwrap() <= 48);
    assert!(a.usage.prompt_tokens.unwrap() > 10);
    if a.finish_reason == FinishReason::Stop {
        assert!(a.usage.completion_tokens.unwrap() < 48);
    }
    assert!(
        a.text.contains("Paris"),
        "SmolLM2 knows the capital of France: {:?}",
        a.text
    );

    let mut s = m.stream(&req).await.unwrap();
    let mut pieces = Vec::new();
    while let Some(p) = s.next().await {
        pieces.push(p.unwrap());
    }
    assert!(pieces.len() > 1, "streamed token by token");
    assert_eq!(pieces.concat(), a.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stops_at_end_of_turn_and_respects_max_tokens() {
    let Some(m) = model() else { return };
    let short = m.generate(&greedy("Say hello.", 200)).await.unwrap();
    assert_eq!(
        short.finish_reason,
        FinishReason::Stop,
        "a short answer ends with <|im_end|>: {:?}",
        short.text
    );
    assert!(short.usage.completion_tokens.unwrap() < 200);

    let long = m
        .generate(&greedy(
            "Write a long story about a dragon and a knight.",
            5,
        ))
        .await
        .unwrap();
    assert_eq!(long.finish_reason, FinishReason::Length);
    assert_eq!(long.usage.completion_tokens, Some(5));
    assert!(!long.text.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_stop_strings_cut_the_text() {
    let Some(m) = model() else { return };
    let base = m
        .generate(&greedy("Count from 1 to 10, separated by commas.", 40))
        .await
        .unwrap();
    eprintln!("count: {:?}", base.text);
    // The stop string is a piece of the model's own greedy text (whatever it
    // wrote), so the check runs on every output: the text stops right before
    // that piece's first occurrence.
    let chars: Vec<(usize, char)> = base.text.char_indices().collect();
    assert!(
        chars.len() >= 4,
        "the model wrote too little: {:?}",
        base.text
    );
    let (at, c) = chars[chars.len() / 2];
    let stop = base.text[at..at + c.len_utf8()].to_string();
    let cut = base.text.find(&stop).unwrap_or(at);
    let mut req = greedy("Count from 1 to 10, separated by commas.", 40);
    req.params.stop = vec![stop];
    let stopped = m.generate(&req).await.unwrap();
    assert_eq!(stopped.text, base.text[..cut]);
    assert_eq!(stopped.finish_reason, FinishReason::Stop);
    let mut s = m.stream(&req).await.unwrap();
    let mut text = String::new();
    while let Some(p) = s.next().await {
        text.push_str(&p.unwrap());
    }
    assert_eq!(text, stopped.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_with_seed_is_reproducible() {
    let Some(m) = model() else { return };
    let mut req = greedy("Give me a name for a cat.", 16);
    req.params.temperature = 0.9;
    req.params.top_p = 0.9;
    req.params.seed = Some(7);
    let a = m.generate(&req).await.unwrap();
    let b = m.generate(&req).await.unwrap();
    assert_eq!(a.text, b.text);
    assert!(!a.text.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_guard_errors_or_truncates() {
    let Some(m) = model() else { return };
    let path = LocalGgufGenerator::default_model_path();
    let small = LocalGgufConfig::new(&path)
        .max_context(128)
        .budget(GenerationBudget::UNLIMITED)
        .build()
        .unwrap();
    assert_eq!(small.context_length(), 128);
    let long = "The quick brown fox jumps over the lazy dog. ".repeat(30);
    let mut req = ChatRequest::new(vec![
        ChatMessage::system("Answer briefly."),
        ChatMessage::user(long.clone()),
        ChatMessage::assistant("Noted."),
        ChatMessage::user("What animal jumps?"),
    ]);
    req.params.temperature = 0.0;
    req.params.max_tokens = 8;
    let err = small.generate(&req).await.unwrap_err();
    match &err {
        verity_core::Error::Provider(p) => {
            assert_eq!(p.kind, ProviderErrorKind::InvalidRequest, "{err}")
        }
        other => panic!("unexpected error {other}"),
    }
    assert!(err.to_string().contains("context window is 128"), "{err}");

    let trunc = LocalGgufConfig::new(&path)
        .max_context(128)
        .overflow(ContextOverflow::TruncateOldest)
        .budget(GenerationBudget::UNLIMITED)
        .build()
        .unwrap();
    let g = trunc.generate(&req).await.unwrap();
    assert!(g.usage.prompt_tokens.unwrap() + 8 <= 128 + 8);
    assert!(
        g.usage.prompt_tokens.unwrap() < 100,
        "the long message was dropped"
    );

    // Even the last message alone is too long: typed error under both policies.
    let req = ChatRequest::new(vec![ChatMessage::user(long)]);
    assert!(trunc.generate(&req).await.is_err());
    let _ = m;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_stream_stops_generation() {
    let Some(m) = model() else { return };
    let mut s = m
        .stream(&greedy("Write a long story about a dragon.", 400))
        .await
        .unwrap();
    let first = s.next().await.unwrap().unwrap();
    assert!(!first.is_empty());
    drop(s);
    // The generator is still usable right after (the inference thread notices the drop).
    let g = m.generate(&greedy("Say hi.", 8)).await.unwrap();
    assert!(!g.text.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budgets_stop_a_generation_with_a_transient_timeout() {
    let Some(m) = model() else { return };
    // Token budget below max_tokens: the generation stops there and fails,
    // so that the caller falls back instead of returning a cut answer.
    let mut req = greedy("Write a long story about a dragon and a knight.", 200);
    req.params.budget = GenerationBudget {
        time: None,
        tokens: Some(5),
    };
    let err = m.generate(&req).await.unwrap_err();
    match &err {
        verity_core::Error::Provider(p) => {
            assert_eq!(p.kind, ProviderErrorKind::Timeout, "{err}");
            assert!(p.is_transient());
        }
        other => panic!("unexpected error {other}"),
    }
    assert!(err.to_string().contains("token budget of 5"), "{err}");
    // max_tokens below the budget: a normal length stop, not an error.
    req.params.max_tokens = 4;
    let g = m.generate(&req).await.unwrap();
    assert_eq!(g.finish_reason, FinishReason::Length);

    // Time budget: stopped, never hangs, same error kind (streams too).
    let mut req = greedy("Write a long story about a dragon and a knight.", 400);
    req.params.budget = GenerationBudget {
        time: Some(std::time::Duration::from_millis(1)),
        tokens: None,
    };
    let err = m.generate(&req).await.unwrap_err();
    assert!(err.to_string().contains("time budget"), "{err}");
    assert!(err.is_transient());
    let mut s = m.stream(&req).await.unwrap();
    let mut last = None;
    while let Some(item) = s.next().await {
        last = Some(item);
    }
    assert!(
        matches!(last, Some(Err(_))),
        "the stream ends on the budget error"
    );

    // The generator's own budget applies too (the tighter one wins).
    let tight = LocalGgufConfig::new(LocalGgufGenerator::default_model_path())
        .budget(GenerationBudget {
            time: None,
            tokens: Some(3),
        })
        .build()
        .unwrap();
    let err = tight
        .generate(&greedy("Write a long story about a dragon.", 100))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("token budget of 3"), "{err}");
}

/// The passages of `examples/data` a grounded answer is given, by uid (the
/// JSON lines' `uid`, or the Markdown file's name).
fn example_passage(uid: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    if let Ok(text) = std::fs::read_to_string(dir.join(format!("{uid}.md"))) {
        return text;
    }
    let lines = std::fs::read_to_string(dir.join("lightning-fees.jsonl")).unwrap();
    lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["uid"] == uid)
        .and_then(|v| v["content"].as_str().map(str::to_string))
        .unwrap()
}

/// A grounded request as the RAG pipeline builds it (numbered context, the
/// question, the ask's default sampling parameters).
fn grounded(question: &str, uids: &[&str]) -> ChatRequest {
    let blocks: Vec<ContextBlock> = uids
        .iter()
        .enumerate()
        .map(|(i, uid)| ContextBlock {
            index: i + 1,
            chunk_id: format!("{uid}#0"),
            doc_uid: (*uid).into(),
            text: example_passage(uid),
        })
        .collect();
    let mut context = String::from("CONTEXT:\n");
    for b in &blocks {
        context.push_str(&format!("[{}]\n{}\n---\n", b.index, b.text.trim()));
    }
    let mut req = ChatRequest::new(vec![
        ChatMessage::system(
            "You answer strictly from the provided CONTEXT.\nCite every statement with the \
             number of its context block in square brackets, like [1] or [2].",
        ),
        ChatMessage::user(format!("{context}\nQUESTION: {question}\n")),
    ]);
    req.grounding = Some(Grounding {
        question: question.into(),
        blocks,
        lang: Some("en".into()),
    });
    req
}

/// The sentences of an answer with the passage number each cites (`None`:
/// a sentence without a citation).
fn cited_sentences(text: &str) -> Vec<(String, Option<usize>)> {
    verity_core::text::sentence_spans(text)
        .into_iter()
        .map(|r| {
            let s = text[r].trim().to_string();
            let n = s
                .rfind('[')
                .filter(|_| s.ends_with(']') || s.ends_with("]."))
                .and_then(|open| s[open + 1..].split(']').next()?.parse().ok());
            (s, n)
        })
        .collect()
}

/// `ask`'s grounded answers with SmolLM2 (default format, quoted): every
/// sentence is copied from the passage it cites, and the generation ends by
/// itself (end of turn) well within its token allowance — SmolLM2 ran to a
/// 512-token budget on these questions when it was free to write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grounded_answers_quote_their_passages_and_stop() {
    let Some(m) = model() else { return };
    let fees = ["ln-fees-001", "ln-fees-002", "ln-fees-003"];
    for (question, uids) in [
        ("How is the fee of a forward computed?", &fees[..]),
        (
            "Why do many routing nodes set their base fee to zero?",
            &fees[..],
        ),
        (
            "How long are answers cached?",
            &["caching", "verity-overview", "ln-liq-001"][..],
        ),
    ] {
        let req = grounded(question, uids);
        let g = m.generate(&req).await.unwrap();
        eprintln!(
            "{question} → {:?} ({:?}, {:?})",
            g.text, g.finish_reason, g.usage
        );
        assert_eq!(
            g.finish_reason,
            FinishReason::Stop,
            "{question}: {:?}",
            g.text
        );
        let tokens = g.usage.completion_tokens.unwrap();
        assert!(
            tokens > 0 && tokens < CITED_ANSWER_TOKENS,
            "{tokens} tokens"
        );
        let sentences = cited_sentences(&g.text);
        assert!(!sentences.is_empty() && sentences.len() <= ANSWER_SENTENCES);
        let blocks = &req.grounding.as_ref().unwrap().blocks;
        for (s, n) in sentences {
            let n = n.unwrap_or_else(|| panic!("uncited sentence {s:?}"));
            let passage = blocks[n - 1]
                .text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let quote = s.rsplit_once(" [").unwrap().0;
            assert!(passage.contains(quote), "{quote:?} is not in passage [{n}]");
        }
        if question.starts_with("How long") {
            // Deterministic, like every generation with a seed.
            assert_eq!(m.generate(&req).await.unwrap().text, g.text);
        }
    }
}

/// The `cited` format (sentences of the model's own, here one): each
/// sentence ends with a citation of a passage it was given, and the
/// generation ends by itself within the allowance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cited_answers_end_every_sentence_with_a_citation() {
    if model().is_none() {
        return;
    }
    let m = LocalGgufConfig::new(LocalGgufGenerator::default_model_path())
        .budget(GenerationBudget::UNLIMITED)
        .answer_format(LocalAnswerFormat::Cited)
        .answer_sentences(1)
        .build()
        .unwrap();
    let req = grounded(
        "How is the fee of a forward computed?",
        &["ln-fees-001", "ln-fees-002", "ln-fees-003"],
    );
    let g = m.generate(&req).await.unwrap();
    eprintln!(
        "cited → {:?} ({:?}, {:?})",
        g.text, g.finish_reason, g.usage
    );
    assert_eq!(g.finish_reason, FinishReason::Stop, "{:?}", g.text);
    assert!(g.usage.completion_tokens.unwrap() <= CITED_ANSWER_TOKENS);
    let sentences = cited_sentences(&g.text);
    assert_eq!(sentences.len(), 1, "{sentences:?}");
    for (s, n) in sentences {
        assert!(
            matches!(n, Some(1..=3)),
            "{s:?} cites no passage it was given"
        );
    }
}
