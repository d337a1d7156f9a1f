//! The LLM judge against in-process fake OpenAI-compatible and Ollama servers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::sync::{Arc, Mutex};

use crate::common;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use verity_core::{Generator, Judge, Passage, RetryPolicy, Verdict};
use verity_llm::{OllamaGenerator, OpenAiGenerator};
use verity_verify::{LlmJudge, Verifier};

/// Scripted answers, served in order (the last one repeats); request bodies recorded.
#[derive(Default)]
struct Script {
    answers: Mutex<Vec<String>>,
    bodies: Mutex<Vec<Value>>,
}

impl Script {
    fn next(&self, body: Value) -> String {
        self.bodies.lock().unwrap().push(body);
        let mut a = self.answers.lock().unwrap();
        if a.len() > 1 {
            a.remove(0)
        } else {
            a[0].clone()
        }
    }
}

async fn openai(State(s): State<Arc<Script>>, Json(body): Json<Value>) -> Json<Value> {
    let model = body["model"].clone();
    let content = s.next(body);
    Json(
        json!({"id": "c1", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
    )
}

async fn ollama(State(s): State<Arc<Script>>, Json(body): Json<Value>) -> Json<Value> {
    let model = body["model"].clone();
    let content = s.next(body);
    Json(json!({"model": model, "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": content}, "done": true, "done_reason": "stop",
        "prompt_eval_count": 90, "eval_count": 15}))
}

async fn serve(answers: &[&str]) -> (String, Arc<Script>) {
    let s = Arc::new(Script {
        answers: Mutex::new(answers.iter().map(|a| a.to_string()).collect()),
        bodies: Mutex::new(Vec::new()),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(openai))
        .route("/api/chat", post(ollama))
        .with_state(s.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), s)
}

fn openai_judge(base: &str) -> LlmJudge {
    let g: Arc<dyn Generator> = Arc::new(
        OpenAiGenerator::builder(base, "judge-model")
            .retry(RetryPolicy::none())
            .build()
            .unwrap(),
    );
    LlmJudge::new(g)
}

const SOURCE: &str = "The survey covered 1,500 firms. In 2023, 78 % of companies had adopted AI in at least one function. Adoption was highest in tech.";

fn passages() -> Vec<Passage> {
    vec![Passage::new(
        "In 2023, 78 % of companies had adopted AI in at least one function.",
    )]
}

const PARTIAL: &str = r#"{"verdict": "PARTIAL", "confidence": 0.9, "explanation": "The source says 78 %, not 85 %.", "source_quote": "In 2023, 78 % of companies had adopted AI in at least one function.", "passage": 1}"#;

#[tokio::test]
async fn strict_json_at_temperature_zero() {
    let (base, script) = serve(&[PARTIAL]).await;
    let j = openai_judge(&base)
        .judge("85 % of companies use AI", &passages())
        .await
        .unwrap();
    assert_eq!(j.verdict, Verdict::Partial);
    assert_eq!(j.judge, "llm:judge-model");
    assert_eq!(j.tokens, Some(120));
    assert_eq!(j.passage, Some(0));
    let bodies = script.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["temperature"], 0.0);
    let prompt = bodies[0]["messages"].to_string();
    assert!(prompt.contains("85 % of companies use AI") && prompt.contains("[1] In 2023, 78 %"));
}

#[tokio::test]
async fn malformed_output_is_retried_once_then_reported() {
    let (base, script) = serve(&["Sure! The claim looks fine to me.", PARTIAL]).await;
    let j = openai_judge(&base)
        .judge("85 % of companies use AI", &passages())
        .await
        .unwrap();
    assert_eq!(j.verdict, Verdict::Partial);
    assert_eq!(script.bodies.lock().unwrap().len(), 2);
    assert!(script.bodies.lock().unwrap()[1]["messages"]
        .to_string()
        .contains("not valid"));

    let (base, script) =
        serve(&["{\"verdict\": \"PROBABLY\", \"confidence\": 0.5, \"explanation\": \"x\"}"]).await;
    let err = openai_judge(&base)
        .judge("85 % of companies use AI", &passages())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "bad_response", "{err}");
    assert_eq!(script.bodies.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn ollama_judge_and_checks_after_it() {
    // The model quotes a sentence that is not in the source and calls an
    // exaggerated claim SUPPORTED: the checks replace the quote and lower the verdict.
    let fabricated = r#"{"verdict": "SUPPORTED", "confidence": 0.95, "explanation": "Matches.", "source_quote": "In 2023, 85 % of all companies had adopted AI in at least one function", "passage": 1}"#;
    let (base, _script) = serve(&[fabricated]).await;
    let g: Arc<dyn Generator> = Arc::new(
        OllamaGenerator::builder("judge-model:1b")
            .base_url(&base)
            .retry(RetryPolicy::none())
            .build()
            .unwrap(),
    );
    let fetcher: Arc<dyn verity_core::Fetcher> =
        Arc::new(verity_fetch::HttpFetcher::with_defaults().unwrap());
    let v = Verifier::builder(fetcher)
        .judge(Arc::new(LlmJudge::new(g)))
        .build();
    let j = v
        .assess(
            "85 % of companies use AI",
            &verity_verify::SourceText::plain(SOURCE),
            None,
        )
        .await;
    assert!(!j.passages.is_empty());
    assert!(j.quote_replaced, "{j:?}");
    assert_eq!(
        j.source_quote.as_deref(),
        Some("In 2023, 78 % of companies had adopted AI in at least one function.")
    );
    assert_eq!(j.verdict, Verdict::Partial, "{}", j.explanation);
    assert!(
        j.explanation.contains("the source says 78 %"),
        "{}",
        j.explanation
    );
    assert_eq!(j.tokens, 105);
    common::assert_quotes_are_source_text(&j, SOURCE);
}

/// A source with no passage about the claim: no judge is asked (the LLM is not
/// billed) and none is named as the decider.
#[tokio::test]
async fn no_passage_asks_no_judge() {
    use verity_verify::assess::{Assessor, NO_PASSAGE_JUDGE};
    use verity_verify::reader::SourceText;
    let (base, script) = serve(&[PARTIAL]).await;
    let assessor = Assessor::builder()
        .judge(Arc::new(openai_judge(&base)))
        .build();
    let source = SourceText::plain("   ");
    let a = assessor
        .assess("Python 3.12 was released in 2023", &source, None)
        .await;
    assert_eq!(a.verdict, Verdict::Inconclusive);
    assert_eq!(a.judge, NO_PASSAGE_JUDGE);
    assert!(!a.fell_back, "no judge failed: {:?}", a.notes);
    assert_eq!(
        a.explanation,
        "No passage of the source speaks of this claim."
    );
    assert!(
        script.bodies.lock().unwrap().is_empty(),
        "the LLM was asked"
    );
}
