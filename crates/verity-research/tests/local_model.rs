//! The local SmolLM2-135M-Instruct path (the default `VERITY_GENERATOR=local`
//! model) on the fixture syllabus: a 135M model rarely writes a valid plan
//! or a supported draft, and the run must still return a checked report —
//! the model's plan validated, or the deterministic planner ran and the
//! notes say so. Skipped (loudly) when the model file is absent: run
//! `scripts/fetch-models.sh smollm2`.
//!
//! Bounded for CI (2 cores, no GPU, SmolLM2 reads ~40 prompt tokens/s
//! there): one planner attempt, 64 tokens and at most 8 s per generation
//! (the `plan_attempts`, `max_tokens` and `generation_timeout` knobs; the
//! facade passes `RAG_TIMEOUT_SECS` as the deadline), and the local judge —
//! SmolLM2 as the judge of ~20 sentences takes minutes. A generation past
//! its deadline is cancelled and the run degrades: deterministic plan,
//! extractive summary, extractive writer, each said so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use verity_core::Generator;
use verity_llm::{LocalGgufConfig, LocalGgufGenerator};
use verity_research::{PlanSource, Progress, Syllabus};

use crate::common;

fn local_model() -> Option<Arc<dyn Generator>> {
    let path = LocalGgufGenerator::default_model_path();
    if !path.is_file() {
        verity_testkit::skip(&format!("local GGUF model not found at {} — run scripts/fetch-models.sh smollm2 (or set VERITY_MODEL_DIR)",
            path.display()));
        return None;
    }
    Some(Arc::new(
        LocalGgufGenerator::new(LocalGgufConfig::new(path)).expect("model loads"),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_small_model_does_not_break_the_run() {
    let Some(model) = local_model() else { return };
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let p = common::pipeline(common::store(), &kb_dir)
        .generator(Some(model))
        .plan_attempts(1)
        .max_tokens(64)
        .generation_timeout(Some(Duration::from_secs(8)))
        .build()
        .unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    let started = Instant::now();
    let out = p
        .run(syl, &dir.path().join("run"), &|p: &Progress| {
            if let Progress::Step(s) = p {
                eprintln!("step {}: {} ms", s.step, s.ms);
            }
        })
        .await
        .unwrap();
    eprintln!(
        "total {} ms; plan {:?}; writer {}; judge {}; coverage {:.2}; {} / {} cited sentences supported; notes {:?}",
        started.elapsed().as_millis(),
        out.plan_source,
        out.report.writer,
        out.report.judge,
        out.report.coverage,
        out.report.supported_sentences,
        out.report.cited_sentences,
        out.notes
    );

    // The plan: the model's, validated, or the deterministic one, said so.
    match &out.plan_source {
        PlanSource::Llm { attempts } => assert_eq!(*attempts, 1),
        // A timeout or an invalid answer: one attempt, recorded, then the
        // deterministic plan.
        PlanSource::LlmFellBack { problems } => {
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(
                out.notes
                    .iter()
                    .any(|n| n.contains("the deterministic plan ran")),
                "{:?}",
                out.notes
            );
        }
        PlanSource::Deterministic => panic!("a generator was configured"),
    }
    let plan = std::fs::read_to_string(out.run_dir.join("plan.xml")).unwrap();
    assert!(plan.contains("agent=\"Writer\""), "{plan}");
    let trace = std::fs::read_to_string(out.run_dir.join("trace.jsonl")).unwrap();
    assert!(!trace.trim().is_empty());
    assert!(out.tasks_ok > 0, "{:?}", out.missing);

    // The report: written (by the model or, when its draft cites nothing
    // supported, by the extractive writer, said so) and checked.
    let r = &out.report;
    assert!(r.markdown.starts_with("# "), "{}", r.markdown);
    assert!(r.markdown.contains("References"), "{}", r.markdown);
    assert_eq!(r.themes.len(), 3, "{:?}", r.themes);
    assert!(r.coverage > 0.0);
    assert!(r.cited_sentences > 0, "{}", r.markdown);
    assert!(r.sentences.iter().any(|s| s.verdict.is_some()));
    if r.writer == "extractive" {
        assert!(
            out.notes.iter().any(|n| n.contains("extractive writer")),
            "{:?}",
            out.notes
        );
    } else {
        assert!(r.writer.starts_with("llm:"), "{}", r.writer);
    }
    // Every task ran or says why not.
    assert!(out
        .missing
        .iter()
        .all(|m| m.contains("failed") || m.contains("skipped") || m.contains("warning")));
}
