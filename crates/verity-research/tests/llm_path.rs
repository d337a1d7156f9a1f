//! The LLM path with a scripted generator: a plan rejected by the
//! evaluator and corrected, a draft with numbered citations checked by the
//! judge; and a model answering nonsense (the small local model case),
//! which must not break the run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use verity_research::{LlmState, PlanSource, Progress, Syllabus};

use crate::common;

fn quiet(_: &Progress) {}

/// The citation number the Writer prompt gives to the source titled `title`.
fn number_of(prompt: &str, title: &str) -> usize {
    prompt
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix('[')?;
            let (n, t) = rest.split_once("] ")?;
            (t.trim() == title).then(|| n.parse().ok()).flatten()
        })
        .unwrap_or_else(|| panic!("{title} not numbered in {prompt}"))
}

fn plan(base: &str, bad_ref: bool) -> String {
    let writer_inputs = if bad_ref {
        "#E4 #E5 #E6 #E9"
    } else {
        "#E4 #E5 #E6 #E7"
    };
    format!(
        r##"Here is the plan.
```xml
<plan>
  <task id="E1" agent="Documentalist"><arg name="name">Prompt_Engineering_for_Developers.md</arg></task>
  <task id="E2" agent="Documentalist"><arg name="url">{base}/agents.html</arg><arg name="title">Agents</arg></task>
  <task id="E3" agent="Documentalist"><arg name="url">{base}/rag.html</arg></task>
  <task id="E4" agent="FileSearch" theme="T1"><arg name="query">few-shot and chain-of-thought prompting</arg><arg name="files">#E1</arg></task>
  <task id="E5" agent="FileSearch" theme="T2"><arg name="query">retrieval chunking citations</arg><arg name="files">#E3</arg></task>
  <task id="E6" agent="FileSearch" theme="T3"><arg name="query">agents planning tools orchestration</arg><arg name="files">#E2</arg></task>
  <task id="E7" agent="WebSearch" theme="T3"><arg name="query">multi-agent orchestration takeaways</arg><arg name="url">{base}/blog/orchestration.html</arg></task>
  <task id="E8" agent="Writer"><arg name="inputs">{writer_inputs}</arg></task>
</plan>
```"##
    )
}

#[tokio::test]
async fn llm_plan_is_validated_retried_and_its_draft_checked() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let base = server.base.clone();
    let planner_calls = Arc::new(AtomicUsize::new(0));
    let pc = planner_calls.clone();
    let g = common::Scripted::new(move |_, prompt| {
        if prompt.contains("LeadResearcher") {
            let n = pc.fetch_add(1, Ordering::SeqCst);
            return plan(&base, n == 0);
        }
        if prompt.contains("summarise documents") {
            return "A document about the course topic.\nKeywords: course, topic".into();
        }
        let pe = number_of(prompt, "Prompt Engineering for Developers");
        let rag = number_of(prompt, "Retrieval-Augmented Generation in practice");
        let ag = number_of(prompt, "Agents");
        format!(
            "# Research note: AI Engineer Basic Course\n\n\
             ## Module 1: Prompt Engineering\n\n\
             Few-shot prompting places a handful of worked examples in the prompt before the real input [{pe}]. \
             Chain-of-thought prompting guarantees correct answers on every problem [{pe}].\n\n\
             ## Module 2: Retrieval-Augmented Generation\n\n\
             Chunking splits long documents into passages small enough to be embedded and retrieved on their own [{rag}]. \
             Citations point each statement of a generated answer back to the passage that supports it [42].\n\n\
             ## Module 3: Agents and Planning\n\n\
             Planning lets an agent break a complex task into smaller steps before it acts on any of them [{ag}].\n"
        )
    });
    let gen: Arc<dyn verity_core::Generator> = g.clone();
    let p = common::pipeline(common::store(), &kb_dir)
        .generator(Some(gen))
        .build()
        .unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    let r = &out.report;
    eprintln!("{}", r.markdown);
    assert_eq!(out.plan_source, PlanSource::Llm { attempts: 2 });
    // The retry prompt named the problem.
    let prompts = g.prompts.lock().unwrap().clone();
    assert!(prompts
        .iter()
        .any(|p| p.contains("#E9, which no task defines")));
    assert_eq!(r.writer, "llm:scripted");
    assert_eq!(r.cited_sentences, 5);
    assert_eq!(r.supported_sentences, 3, "{:?}", r.sentences);
    assert_eq!(r.unresolved_citations, 1);
    assert!(r.markdown.contains("[unsupported:"), "{}", r.markdown);
    assert_eq!(r.coverage, 1.0, "{:?}", r.themes);
    // Summaries came from the generator; the syllabus' own keywords were kept.
    let kb = verity_research::KnowledgeBase::open(&kb_dir).unwrap();
    let rag = kb
        .find_by_name("Retrieval-Augmented_Generation_in_practice.md")
        .unwrap()
        .unwrap();
    assert_eq!(rag.keywords, vec!["course", "topic"]);
}

#[tokio::test]
async fn a_model_answering_nonsense_falls_back_to_the_deterministic_path() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let g = common::Scripted::new(|_, prompt| {
        if prompt.contains("LeadResearcher") {
            // Cyclic, then not XML at all.
            return r##"<plan><task id="E1" agent="FileSearch" theme="T1"><arg name="query">#E2</arg></task>
                <task id="E2" agent="FileSearch" theme="T2"><arg name="query">#E1</arg></task></plan>"##
                .into();
        }
        "The course is about many things and it is very good for everyone.".into()
    });
    let gen: Arc<dyn verity_core::Generator> = g;
    let p = common::pipeline(common::store(), &kb_dir)
        .generator(Some(gen))
        .plan_attempts(2)
        .build()
        .unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    match &out.plan_source {
        PlanSource::LlmFellBack { problems } => {
            assert_eq!(problems.len(), 2);
            assert!(problems[0].contains("cycle"), "{problems:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("deterministic plan ran")),
        "{:?}",
        out.notes
    );
    assert!(
        out.notes.iter().any(|n| n.contains("extractive writer")),
        "{:?}",
        out.notes
    );
    assert_eq!(out.report.writer, "extractive");
    assert_eq!(out.report.coverage, 1.0);
    assert!(out.report.supported_share >= 0.95);
}

/// A generator that never answers in time.
struct Stalled;

#[async_trait::async_trait]
impl verity_core::Generator for Stalled {
    fn model(&self) -> &str {
        "stalled"
    }
    async fn generate(
        &self,
        _: &verity_core::ChatRequest,
    ) -> verity_core::Result<verity_core::Generation> {
        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        Err(verity_core::Error::invalid_input("unreachable"))
    }
    async fn stream(
        &self,
        _: &verity_core::ChatRequest,
    ) -> verity_core::Result<verity_core::TokenStream> {
        Err(verity_core::Error::invalid_input("not streamed"))
    }
}

#[tokio::test]
async fn a_generation_past_its_deadline_degrades_the_run_said_so() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let p = common::pipeline(common::store(), &kb_dir)
        .generator(Some(Arc::new(Stalled)))
        .generation_timeout(Some(std::time::Duration::from_millis(50)))
        .plan_attempts(2)
        .build()
        .unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    let started = std::time::Instant::now();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    match &out.plan_source {
        PlanSource::LlmFellBack { problems } => {
            assert_eq!(problems.len(), 2, "a timeout is retried: {problems:?}");
            assert!(problems[0].contains("timed out"), "{problems:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        out.notes.iter().any(|n| n.contains("LLM writer failed")),
        "{:?}",
        out.notes
    );
    assert_eq!(out.report.writer, "extractive");
    assert_eq!(out.report.coverage, 1.0);
    // Summaries fell back to extraction.
    let kb = verity_research::KnowledgeBase::open(&kb_dir).unwrap();
    let e = kb
        .find_by_name("Retrieval-Augmented_Generation_in_practice.md")
        .unwrap()
        .unwrap();
    assert!(!e.summary.is_empty());
}

/// `verity research syllabus.md --generator local --budget 4` on a model
/// that never answers: the run ends soon after its budget with the offline
/// note, degraded, says so in the note, and reports each LLM call.
#[tokio::test]
async fn a_run_past_its_time_budget_finishes_with_what_it_has_and_says_so() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let p = common::pipeline(common::store(), &kb_dir)
        .generator(Some(Arc::new(Stalled)))
        .budget(Some(std::time::Duration::from_secs(4)))
        .plan_attempts(3)
        .build()
        .unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    let events = std::sync::Mutex::new(Vec::new());
    let progress = |p: &Progress| {
        if let Progress::Llm(l) = p {
            events.lock().unwrap().push(l.clone());
        }
    };
    let started = std::time::Instant::now();
    let out = p
        .run(syl, &dir.path().join("run"), &progress)
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    assert!(out.degraded);
    assert_eq!(out.report.writer, "extractive");
    // The offline note still covers every module.
    assert_eq!(out.report.coverage, 1.0, "{}", out.report.markdown);
    let md = &out.report.markdown;
    let missing = md.split("## What is missing").nth(1).unwrap_or_default();
    assert!(missing.contains("time budget (4 s) ran out"), "{md}");
    assert!(
        out.notes.iter().any(|n| n.contains("time budget")),
        "{:?}",
        out.notes
    );
    // Progress: the planner and the writer were reported, then stopped or refused for the budget.
    let events = events.into_inner().unwrap();
    assert!(events
        .iter()
        .any(|e| e.step == "plan" && e.state == LlmState::Running));
    assert!(
        events.iter().any(|e| e.state == LlmState::OverBudget),
        "{events:?}"
    );
    assert!(events.iter().any(|e| e.step == "write"), "{events:?}");
}
