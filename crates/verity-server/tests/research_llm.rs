//! The research pipeline's LLM path through `POST /v1/research`, with the
//! real OpenAI-compatible client (`verity-llm`) talking to an in-process
//! fake `/v1/chat/completions` on loopback: the planner's XML plan is used,
//! the writer's numbered citations resolve, the LLM judge's verdicts are
//! recorded; and a model that keeps returning invalid plans falls back to
//! the deterministic planner, which the report says.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::common;
use crate::research::{run, setup, web};

/// What the fake model is asked, by kind.
#[derive(Default)]
struct Calls {
    kinds: Mutex<Vec<&'static str>>,
}

struct Fake {
    /// Base URL of the fixture's web pages (for the plan's URLs).
    web: String,
    /// Return an invalid plan every time.
    bad_plans: bool,
    calls: Calls,
}

/// The citation number the Writer prompt gives to the source titled `title`.
fn number_of(prompt: &str, title: &str) -> Option<usize> {
    prompt.lines().find_map(|l| {
        let rest = l.strip_prefix('[')?;
        let (n, t) = rest.split_once("] ")?;
        (t.trim() == title).then(|| n.parse().ok()).flatten()
    })
}

fn plan(base: &str) -> String {
    format!(
        r##"I will cover each module with the internal notes and the references.
```xml
<plan>
  <task id="E1" agent="Documentalist"><arg name="name">Prompt_Engineering_for_Developers.md</arg></task>
  <task id="E2" agent="Documentalist"><arg name="url">{base}/agents.html</arg><arg name="title">Agents</arg></task>
  <task id="E3" agent="Documentalist"><arg name="url">{base}/rag.html</arg></task>
  <task id="E4" agent="FileSearch" theme="T1"><arg name="query">few-shot and chain-of-thought prompting</arg><arg name="files">#E1</arg></task>
  <task id="E5" agent="FileSearch" theme="T2"><arg name="query">retrieval chunking citations</arg><arg name="files">#E3</arg></task>
  <task id="E6" agent="FileSearch" theme="T3"><arg name="query">agents planning tools orchestration</arg><arg name="files">#E2</arg></task>
  <task id="E7" agent="WebSearch" theme="T3"><arg name="query">multi-agent orchestration takeaways</arg><arg name="url">{base}/blog/orchestration.html</arg></task>
  <task id="E8" agent="Writer"><arg name="inputs">#E4 #E5 #E6 #E7</arg></task>
</plan>
```"##
    )
}

impl Fake {
    fn answer(&self, system: &str, prompt: &str) -> String {
        let kind = |k| self.calls.kinds.lock().unwrap().push(k);
        if system.contains("LeadResearcher") {
            kind("planner");
            if self.bad_plans {
                // A cycle and a reference to a task nobody defines.
                return r##"<plan><task id="E1" agent="FileSearch" theme="T1"><arg name="query">#E2</arg></task>
                    <task id="E2" agent="FileSearch" theme="T2"><arg name="query">#E1 #E9</arg></task></plan>"##
                    .into();
            }
            return plan(&self.web);
        }
        if system.contains("summarise documents") {
            kind("summary");
            return "A document about building applications on language models.\n\
                    Keywords: llm, prompting, agents"
                .into();
        }
        if system.contains("source passages support a claim") {
            kind("judge");
            let (verdict, why) = if prompt.contains("guarantees") {
                (
                    "NOT_SUPPORTED",
                    "The source says it often helps, not that it guarantees correct answers.",
                )
            } else {
                ("SUPPORTED", "The passage states it.")
            };
            // As a model does: quote the passage sentence closest to the claim.
            let (quote, passage) = closest_sentence(prompt);
            return json!({"verdict": verdict, "confidence": 0.9, "explanation": why,
                          "source_quote": quote, "passage": passage})
            .to_string();
        }
        let (Some(pe), Some(rag), Some(ag)) = (
            number_of(prompt, "Prompt Engineering for Developers"),
            number_of(prompt, "Retrieval-Augmented Generation in practice"),
            number_of(prompt, "Agents"),
        ) else {
            kind("other");
            return "I do not know.".into();
        };
        kind("writer");
        format!(
            "# Research note: AI Engineer Basic Course\n\n\
             ## Module 1: Prompt Engineering\n\n\
             Few-shot prompting places a handful of worked examples in the prompt before the real input [{pe}]. \
             Chain-of-thought prompting guarantees correct answers on every problem [{pe}].\n\n\
             ## Module 2: Retrieval-Augmented Generation\n\n\
             Chunking splits long documents into passages small enough to be embedded and retrieved on their own [{rag}].\n\n\
             ## Module 3: Agents and Planning\n\n\
             Planning lets an agent break a complex task into smaller steps before it acts on any of them [{ag}].\n"
        )
    }
}

/// The sentence of the judge prompt's passages (`[n] text` lines) sharing
/// the most words with its `Claim:` line, and its passage number.
fn closest_sentence(prompt: &str) -> (Option<String>, Option<usize>) {
    let words = |t: &str| -> std::collections::HashSet<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3)
            .map(str::to_lowercase)
            .collect()
    };
    let claim = prompt
        .lines()
        .find_map(|l| l.strip_prefix("Claim: "))
        .unwrap_or("");
    let want = words(claim);
    let mut best: Option<(usize, String, usize)> = None;
    for line in prompt.lines() {
        let Some((n, text)) = line
            .strip_prefix('[')
            .and_then(|l| l.split_once("] "))
            .and_then(|(n, t)| Some((n.parse::<usize>().ok()?, t)))
        else {
            continue;
        };
        for sentence in text.split_inclusive(". ") {
            let sentence = sentence.trim();
            let shared = words(sentence).intersection(&want).count();
            if best.as_ref().is_none_or(|(b, _, _)| shared > *b) {
                best = Some((shared, sentence.to_string(), n));
            }
        }
    }
    match best {
        Some((shared, sentence, n)) if shared > 0 => (Some(sentence), Some(n)),
        _ => (None, None),
    }
}

/// Chat completions as OpenAI answers them: one JSON body, or with
/// `stream: true` server-sent events ending in `data: [DONE]`.
async fn chat(State(f): State<Arc<Fake>>, Json(body): Json<Value>) -> Response {
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    let text = |role: &str| {
        msgs.iter()
            .filter(|m| m["role"] == role)
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let content = f.answer(&text("system"), &text("user"));
    if body["stream"] == true {
        let chunk = |delta: Value, finish: Value| {
            format!(
                "data: {}\n\n",
                json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                       "created": 1_790_000_000, "model": body["model"],
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            )
        };
        let mut sse = chunk(
            json!({"role": "assistant", "content": content}),
            Value::Null,
        );
        sse.push_str(&chunk(json!({}), json!("stop")));
        sse.push_str("data: [DONE]\n\n");
        return (
            [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
            sse,
        )
            .into_response();
    }
    Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1_790_000_000,
        "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 60, "total_tokens": 260}
    }))
    .into_response()
}

async fn models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": "fake-model", "object": "model"}]}))
}

/// The fake OpenAI-compatible server; its base URL.
async fn fake_openai(fake: Arc<Fake>) -> String {
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    base
}

async fn llm_server(root: &std::path::Path, openai: &str) -> common::TestServer {
    let root = root.to_path_buf();
    let openai = openai.to_string();
    common::start(move |c| {
        c.roots = vec![root];
        c.allow_private = true;
        c.verity.generator = Some("openai:fake-model".into());
        c.verity.openai_url = Some(openai);
    })
    .await
}

/// The fake web and model, a server using the model, and the fixture
/// syllabus under its root (kept alive by the returned directory).
async fn started(bad_plans: bool) -> (Arc<Fake>, common::TestServer, tempfile::TempDir) {
    let (base, _hits) = web().await;
    let fake = Arc::new(Fake {
        web: base.clone(),
        bad_plans,
        calls: Calls::default(),
    });
    let openai = fake_openai(fake.clone()).await;
    let root = tempfile::tempdir().unwrap();
    let s = llm_server(root.path(), &openai).await;
    setup(root.path(), s.home.path(), &base);
    (fake, s, root)
}

#[tokio::test]
async fn the_llm_plan_is_used_and_the_draft_checked_by_the_llm_judge() {
    let (fake, s, _root) = started(false).await;

    let (job, _) = run(&s, "syllabus.md").await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let r = &job["report"];
    // The model's plan ran, first time.
    assert_eq!(r["planner"], "llm", "{r}");
    assert_eq!(r["plan_attempts"], 1, "{r}");
    let run_dir = std::path::PathBuf::from(r["run_dir"].as_str().unwrap());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("result.json")).unwrap())
            .unwrap();
    assert_eq!(
        result["plan_source"]["kind"], "llm",
        "{}",
        result["plan_source"]
    );
    let plan_xml = std::fs::read_to_string(run_dir.join("plan.xml")).unwrap();
    assert!(
        plan_xml.contains("multi-agent orchestration takeaways"),
        "{plan_xml}"
    );
    let trace = std::fs::read_to_string(run_dir.join("trace.jsonl")).unwrap();
    assert!(
        trace.contains("blog/orchestration.html"),
        "the planned WebSearch ran"
    );
    // The model wrote the draft; every citation resolves to a retrieved source.
    assert_eq!(r["writer"], "llm:fake-model", "{r}");
    assert_eq!(r["unresolved_citations"], 0, "{r}");
    assert_eq!(r["cited_sentences"], 4, "{r}");
    // Each `[n]` of the text is listed in the references, with its source.
    let md = r["markdown"].as_str().unwrap();
    let refs = r["references"].as_array().unwrap();
    assert_eq!(refs.len(), 3, "{refs:?}");
    for x in refs {
        assert!(md.contains(&format!("[{}]", x["n"])), "{x} cited");
    }
    assert!(refs
        .iter()
        .any(|x| x["url"] == format!("{}/agents.html", fake.web).as_str()));
    // The LLM judge checked each cited sentence; its verdicts are recorded.
    assert!(r["judge"].as_str().unwrap().contains("fake-model"), "{r}");
    assert_eq!(r["supported_sentences"], 3, "{r}");
    let sentences = result["report"]["sentences"].as_array().unwrap();
    let flagged = sentences
        .iter()
        .find(|x| x["text"].as_str().unwrap().contains("guarantees"))
        .unwrap();
    assert_eq!(flagged["verdict"], "NOT_SUPPORTED", "{flagged}");
    assert!(flagged["explanation"]
        .as_str()
        .unwrap()
        .contains("often helps"));
    assert!(
        r["markdown"].as_str().unwrap().contains("[unsupported"),
        "{r}"
    );
    assert_eq!(r["coverage"], 1.0, "{r}");
    let kinds = fake.calls.kinds.lock().unwrap().clone();
    assert_eq!(
        kinds.iter().filter(|k| **k == "planner").count(),
        1,
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"writer") && kinds.contains(&"judge"),
        "{kinds:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn invalid_plans_fall_back_to_the_deterministic_planner_and_say_so() {
    let (fake, s, _root) = started(true).await;

    let (job, _) = run(&s, "syllabus.md").await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let r = &job["report"];
    assert_eq!(r["planner"], "llm_fell_back", "{r}");
    let planner_calls = fake
        .calls
        .kinds
        .lock()
        .unwrap()
        .iter()
        .filter(|k| **k == "planner")
        .count();
    assert!(planner_calls >= 2, "retried: {planner_calls}");
    assert_eq!(r["plan_attempts"], planner_calls, "{r}");
    let notes = r["notes"].to_string();
    assert!(notes.contains("deterministic plan ran"), "{notes}");
    // The deterministic plan still produced a checked report.
    assert_eq!(r["coverage"], 1.0, "{r}");
    assert_eq!(r["unresolved_citations"], 0, "{r}");
    s.shutdown().await;
}
