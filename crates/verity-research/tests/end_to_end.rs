//! The whole research run, offline: fixture syllabus, internal files,
//! References and ephemeral URLs on a loopback server, in-memory store,
//! local judge.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Mutex;

use verity_research::{
    KnowledgeBase, PlanSource, Progress, SourceKind, Syllabus, TaskStatus, UnsupportedPolicy,
};

use crate::common;

fn quiet(_: &Progress) {}

#[tokio::test]
async fn offline_run_writes_a_checked_sourced_report() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let syl_path = dir.path().join("syllabus.md");
    std::fs::write(&syl_path, common::syllabus_text(&server.base)).unwrap();
    let run_dir = dir.path().join("run");
    let p = common::pipeline(common::store(), &kb_dir).build().unwrap();
    let steps = Mutex::new(Vec::new());
    let progress = |e: &Progress| {
        if let Progress::Step(s) = e {
            steps.lock().unwrap().push(s.step.clone());
        }
    };
    let out = p.run_file(&syl_path, &run_dir, &progress).await.unwrap();
    let r = &out.report;
    eprintln!("{}", r.markdown);
    for s in &r.sentences {
        eprintln!("{:?} {:?} | {}", s.verdict, s.explanation, s.text);
    }
    eprintln!(
        "coverage {:.2}, supported {}/{} = {:.3}, timings {:?}",
        r.coverage, r.supported_sentences, r.cited_sentences, r.supported_share, out.timings
    );
    assert_eq!(out.plan_source, PlanSource::Deterministic);
    assert_eq!(out.tasks_failed, 0, "{:?}", out.missing);
    assert!(!out.degraded, "{:?}", out.missing);
    assert_eq!(r.coverage, 1.0, "{:?}", r.themes);
    assert!(r.cited_sentences >= 9, "{}", r.cited_sentences);
    assert!(r.supported_share >= 0.95, "{:?}", r.sentences);
    assert_eq!(r.unresolved_citations, 0);
    assert_eq!(r.uncited_sentences, 0);
    // Every theme has a section; the report ends with the references list.
    for t in [
        "Prompt Engineering",
        "Retrieval-Augmented Generation",
        "Agents and Planning",
    ] {
        assert!(r.markdown.contains(t), "{t}");
    }
    let refs = r.markdown.split("## References").nth(1).unwrap();
    assert!(
        refs.contains("Prompt_Engineering_for_Developers.md"),
        "{refs}"
    );
    assert!(
        refs.contains(&format!("{}/agents.html", server.base)),
        "{refs}"
    );
    assert!(
        refs.contains(&format!("{}/rag.html", server.base)),
        "{refs}"
    );
    assert!(refs.contains("/blog/orchestration.html"), "{refs}");
    // Citation numbers are dense: 1..=n, every one listed.
    let listed: Vec<usize> = refs
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.split_once(']')?.0.parse().ok())
        .collect();
    assert_eq!(listed, (1..=listed.len()).collect::<Vec<_>>(), "{refs}");
    // No fragment: a sentence leaning on the one before it ("Because …",
    // "This …") never opens a paragraph of the note.
    let body = r.markdown.split("## What is missing").next().unwrap();
    let body = body.split("## References").next().unwrap();
    for para in body
        .split("\n\n")
        .filter(|p| !p.trim_start().starts_with(['#', '_', '-']))
    {
        let first = verity_verify::text::sentence_spans(para)
            .into_iter()
            .next()
            .map(|r| para[r].to_string())
            .unwrap_or_default();
        assert!(
            !verity_research::writer::sentences::leans_on_previous(&first),
            "fragment opening a paragraph: {first}\n{}",
            r.markdown
        );
    }
    // Knowledge base: the internal file and the two References, indexed; not the ephemeral URL.
    let kb = KnowledgeBase::open(&kb_dir).unwrap();
    let entries = kb.entries().unwrap();
    assert_eq!(entries.len(), 3, "{entries:?}");
    assert!(entries
        .iter()
        .all(|e| e.file_id.is_some() && !e.summary.is_empty()));
    let agents = kb.find_by_name("Agents.md").unwrap().unwrap();
    assert_eq!(agents.keywords, vec!["agents", "planning", "tools"]);
    assert!(entries
        .iter()
        .all(|e| !e.url.as_deref().unwrap_or("").contains("/blog/")));
    assert!(kb_dir.join("Agents.md").exists());
    // Run directory: brief, plan, trace, report.
    for f in [
        "brief.json",
        "brief.md",
        "plan.xml",
        "trace.jsonl",
        "report.md",
        "result.json",
    ] {
        assert!(run_dir.join(f).exists(), "{f}");
    }
    let trace = std::fs::read_to_string(run_dir.join("trace.jsonl")).unwrap();
    let agents: Vec<String> = trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["agent"].to_string())
        .collect();
    let count = |a: &str| agents.iter().filter(|x| x.trim_matches('"') == a).count();
    // 3 Documentalist; a FileSearch per module, one per sub-theme (2 each)
    // and one for the internal notes module 1 names; 1 WebSearch.
    assert_eq!(
        (
            count("Documentalist"),
            count("FileSearch"),
            count("WebSearch")
        ),
        (3, 10, 1),
        "{agents:?}"
    );
    // Each sub-theme's search asks for that sub-theme.
    assert!(
        trace.contains(r#"["topic","Few-shot prompting"]"#),
        "{trace}"
    );
    let web: Vec<serde_json::Value> = trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["agent"] == "WebSearch")
        .collect();
    assert_eq!(web[0]["excerpts"][0]["kind"], "web");
    // FileSearch got the Documentalist's file names through #E{n}.
    let plan = std::fs::read_to_string(run_dir.join("plan.xml")).unwrap();
    assert!(plan.contains("#E1 #E2 #E3"), "{plan}");
    assert!(
        trace.contains("Prompt_Engineering_for_Developers.md Agents.md"),
        "{trace}"
    );
    let steps = steps.lock().unwrap().clone();
    assert_eq!(
        steps,
        ["syllabus", "brief", "plan", "execute", "write", "check"]
    );
    let _ = SourceKind::Web;
}

#[tokio::test]
async fn a_second_run_downloads_and_indexes_nothing_again() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let store = common::store();
    let p = common::pipeline(store.clone(), &kb_dir).build().unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    p.run(syl.clone(), &dir.path().join("run1"), &quiet)
        .await
        .unwrap();
    let docs = store.stats().await.unwrap().documents;
    let out = p.run(syl, &dir.path().join("run2"), &quiet).await.unwrap();
    assert_eq!(server.hits("/agents.html"), 1);
    assert_eq!(server.hits("/rag.html"), 1);
    assert_eq!(store.stats().await.unwrap().documents, docs);
    assert_eq!(
        KnowledgeBase::open(&kb_dir)
            .unwrap()
            .entries()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(out.report.coverage, 1.0);
    // The ephemeral URL is looked up again on every run (never stored; the
    // fetcher's own response cache may answer it).
    let trace = verity_research::trace::read_trace(&dir.path().join("run2")).unwrap();
    let web = trace.iter().find(|r| r.agent == "WebSearch").unwrap();
    assert_eq!(web.status, TaskStatus::Ok);
    assert!(!web.excerpts.is_empty());
}

#[tokio::test]
async fn replay_rewrites_the_report_from_the_trace_with_no_network() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let run_dir = dir.path().join("run");
    let p = common::pipeline(common::store(), &kb_dir).build().unwrap();
    let syl = Syllabus::parse_markdown(&common::syllabus_text(&server.base)).unwrap();
    let first = p.run(syl, &run_dir, &quiet).await.unwrap();
    // No fetcher, an empty store, another knowledge base: only the run directory.
    let offline =
        verity_research::ResearchPipeline::builder(common::store(), dir.path().join("empty-kb"))
            .build()
            .unwrap();
    let replayed = offline.replay(&run_dir, &quiet).await.unwrap();
    assert_eq!(replayed.report.markdown, first.report.markdown);
    assert!(replayed.notes[0].contains("replayed"));
}

#[tokio::test]
async fn dead_urls_missing_files_and_duplicates_degrade_and_say_what_is_missing() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let text = common::syllabus_text(&server.base)
        .replace(
            "cover the basics.",
            "cover the basics, with `Missing_Notes.md`; see `Prompt_Engineering_for_Developers.md` again.",
        )
        .replace("/rag.html", "/gone.html");
    let syl = Syllabus::parse_markdown(&text).unwrap();
    assert!(
        syl.warnings.iter().any(|w| w.contains("more than once")),
        "{:?}",
        syl.warnings
    );
    let p = common::pipeline(common::store(), &kb_dir)
        .unsupported(UnsupportedPolicy::Remove)
        .build()
        .unwrap();
    let run_dir = dir.path().join("run");
    let out = p.run(syl, &run_dir, &quiet).await.unwrap();
    assert!(out.degraded);
    assert_eq!(out.tasks_failed, 2, "{:?}", out.missing);
    let md = &out.report.markdown;
    let missing = md.split("## What is missing").nth(1).unwrap();
    assert!(missing.contains("Missing_Notes.md"), "{missing}");
    assert!(missing.contains("/gone.html"), "{missing}");
    assert!(md.contains("## References"));
    let trace = verity_research::trace::read_trace(&run_dir).unwrap();
    let failed: Vec<_> = trace
        .iter()
        .filter(|r| r.status == TaskStatus::Failed)
        .collect();
    assert_eq!(failed.len(), 2);
    assert!(failed
        .iter()
        .all(|r| r.error.as_deref().unwrap().contains("source_unavailable")));
    // The other themes are still researched.
    assert!(
        out.report.themes.iter().filter(|t| t.covered).count() >= 2,
        "{:?}",
        out.report.themes
    );
    assert!(out.report.sentences.iter().all(|s| s.kept
        == (s.verdict == Some(verity_core::Verdict::Supported))
        || s.verdict.is_none()));
}

#[tokio::test]
async fn a_syllabus_with_no_references_still_returns_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let p = common::pipeline(common::store(), &dir.path().join("kb"))
        .build()
        .unwrap();
    let syl =
        Syllabus::parse_markdown("# Course\n\n## Quantum networking\n\nEntanglement.\n").unwrap();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    assert!(out.degraded);
    assert_eq!(out.report.coverage, 0.0);
    assert!(
        out.notes.iter().any(|n| n.contains("names no reference")),
        "{:?}",
        out.notes
    );
    assert!(out.report.markdown.contains("## What is missing"));
    assert!(out.report.markdown.contains("Quantum networking"));
    assert!(out.report.markdown.contains("_No source is cited._"));
}

#[tokio::test]
async fn a_syllabus_with_no_module_heading_is_read_as_one_module_and_says_so() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let p = common::pipeline(common::store(), &dir.path().join("kb"))
        .build()
        .unwrap();
    let text = format!(
        "# Agents\n\nHow agents plan and call tools: {}/agents.html\n",
        server.base
    );
    let syl = Syllabus::parse_markdown(&text).unwrap();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    let md = &out.report.markdown;
    assert!(out.degraded);
    let missing = md.split("## What is missing").nth(1).unwrap_or_default();
    assert!(missing.contains("no module heading"), "{md}");
    assert_eq!(out.report.themes.len(), 1);
}

/// A syllabus a user gets wrong in every way at once: a dead link, a page
/// with no text, a 5 MB page, a duplicate, two local paths outside the
/// knowledge base, a module no reference treats.
/// The run ends, says what is missing, and never panics.
#[tokio::test]
async fn bad_references_are_reported_in_what_is_missing() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = common::knowledge_dir(dir.path());
    let b = &server.base;
    let text = format!(
        "# Bad input\n\n## Module 1: Agents\n\nAgents that plan and call tools.\n\n\
         ## Module 2: Quantum networking\n\nEntanglement across cities.\n\n\
         ## References\n\n\
         - Agents — {b}/agents.html (keywords: agents, planning)\n\
         - Agents again — {b}/agents.html\n\
         - Gone — {b}/gone.html\n\
         - Empty page — <{b}/empty.html>\n\
         - [Huge page]({b}/huge.html)\n\
         - ../notes/secret.md\n\
         - file:///etc/passwd\n"
    );
    let syl = Syllabus::parse_markdown(&text).unwrap();
    let p = common::pipeline(common::store(), &kb_dir).build().unwrap();
    let run_dir = dir.path().join("run");
    let run = p.run(syl, &run_dir, &quiet);
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), run)
        .await
        .expect("the run ends")
        .unwrap();
    let md = &out.report.markdown;
    assert!(out.degraded);
    let missing = md.split("## What is missing").nth(1).unwrap_or_default();
    assert!(missing.contains("/gone.html"), "{md}");
    assert!(missing.contains("/empty.html"), "{md}");
    assert!(missing.contains("Quantum networking"), "{md}");
    // Local paths outside the knowledge base are never read, and said so;
    // so is the duplicate.
    assert!(
        missing.contains("`../notes/secret.md` is a local path"),
        "{md}"
    );
    assert!(missing.contains("`/etc/passwd` is a local path"), "{md}");
    assert!(missing.contains("listed more than once"), "{md}");
    assert!(!md.contains("root:"), "{md}");
    // The module with material is covered; the other says so.
    let agents = md.split("## Module 2").next().unwrap();
    assert!(agents.contains("[1]"), "{md}");
    let quantum = md
        .split("## Module 2")
        .nth(1)
        .unwrap()
        .split("## What is missing")
        .next()
        .unwrap();
    assert!(quantum.contains("No source material"), "{md}");
    // The duplicate was read once and said so.
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("listed more than once")),
        "{:?}",
        out.notes
    );
    eprintln!("{md}\n{:?}", out.notes);
}
