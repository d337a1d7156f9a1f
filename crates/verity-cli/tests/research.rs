//! `verity research`: the fixture syllabus of `verity-research`, its pages
//! served on loopback, the report on stdout and the run directory replayed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../verity-research/tests/fixtures")
}

/// Serve `fixtures/web/` on loopback (404 for anything else).
pub(crate) fn serve() -> String {
    verity_testkit::serve(verity_testkit::files(fixtures().join("web"))).unwrap()
}

fn verity(home: &Path) -> Command {
    let mut c = Command::cargo_bin("verity").unwrap();
    c.env("VERITY_HOME", home)
        .env("VERITY_EMBEDDER", "none")
        .env_remove("VERITY_GENERATOR")
        .env_remove("VERITY_SEARXNG_URL")
        .env_remove("VERITY_KNOWLEDGE_DIR")
        .arg("--quiet");
    c
}

fn setup(dir: &Path, base: &str) -> (PathBuf, PathBuf) {
    let syllabus = dir.join("syllabus.md");
    let text = std::fs::read_to_string(fixtures().join("syllabus.md"))
        .unwrap()
        .replace("{BASE}", base);
    std::fs::write(&syllabus, text).unwrap();
    let kb = dir.join("kb");
    std::fs::create_dir_all(&kb).unwrap();
    std::fs::copy(
        fixtures().join("kb/Prompt_Engineering_for_Developers.md"),
        kb.join("Prompt_Engineering_for_Developers.md"),
    )
    .unwrap();
    (syllabus, kb)
}

#[test]
fn research_writes_a_checked_report_and_replays_it() {
    let base = serve();
    let dir = tempfile::tempdir().unwrap();
    let (syllabus, kb) = setup(dir.path(), &base);
    let run = dir.path().join("run");
    let out = verity(&dir.path().join("home"))
        .arg("research")
        .arg(&syllabus)
        .arg("-o")
        .arg(&run)
        .arg("--knowledge")
        .arg(&kb)
        .arg("--allow-private")
        .args(["--budget", "120"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refs = stdout.split("## References").nth(1).unwrap();
    assert!(refs.contains(&format!("{base}/agents.html")), "{refs}");
    assert!(
        refs.contains("Prompt_Engineering_for_Developers.md"),
        "{refs}"
    );
    assert!(!stdout.contains("[unsupported"), "{stdout}");
    assert!(run.join("trace.jsonl").exists() && kb.join("knowledge_db.json").exists());
    // The brief shows the query of each module and of each of its topics.
    let brief = std::fs::read_to_string(run.join("brief.md")).unwrap();
    assert!(brief.contains("Query: "), "{brief}");
    assert!(brief.contains("- Few-shot prompting — query: "), "{brief}");

    let replay = verity(&dir.path().join("home"))
        .args(["--json", "research", "--replay"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(v["report"]["coverage"], 1.0);
    assert!(v["notes"][0].as_str().unwrap().contains("replayed"));
}

#[test]
fn loopback_references_need_allow_private_and_the_report_says_so() {
    let base = serve();
    let dir = tempfile::tempdir().unwrap();
    let (syllabus, kb) = setup(dir.path(), &base);
    let out = verity(&dir.path().join("home"))
        .arg("research")
        .arg(&syllabus)
        .arg("-o")
        .arg(dir.path().join("run"))
        .arg("--knowledge")
        .arg(&kb)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(7), "{stdout}");
    let missing = stdout.split("## What is missing").nth(1).unwrap();
    assert!(missing.contains("/agents.html"), "{missing}");
}

#[test]
fn the_knowledge_dir_comes_from_the_environment_unless_the_option_is_given() {
    let base = serve();
    let dir = tempfile::tempdir().unwrap();
    let (syllabus, kb) = setup(dir.path(), &base);
    let home = dir.path().join("home");
    // VERITY_KNOWLEDGE_DIR, read once by the facade's configuration.
    let out = verity(&home)
        .env("VERITY_KNOWLEDGE_DIR", &kb)
        .arg("research")
        .arg(&syllabus)
        .arg("-o")
        .arg(dir.path().join("run"))
        .arg("--allow-private")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = std::fs::read_to_string(kb.join("knowledge_db.json")).unwrap();
    assert!(db.contains("agents.html"), "{db}");
    assert!(!home.join("knowledge").exists());
    // `--knowledge-dir` wins over the environment.
    let other = dir.path().join("other-kb");
    let out = verity(&home)
        .env("VERITY_KNOWLEDGE_DIR", &kb)
        .arg("research")
        .arg(&syllabus)
        .arg("-o")
        .arg(dir.path().join("run2"))
        .arg("--knowledge-dir")
        .arg(&other)
        .arg("--allow-private")
        .output()
        .unwrap();
    // The internal file is not in `other`: partial, but the KB is there.
    assert_eq!(out.status.code(), Some(7));
    assert!(other.join("knowledge_db.json").is_file());
}

#[test]
fn a_budget_of_zero_seconds_is_refused_with_the_flag_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = verity(&dir.path().join("home"))
        .args(["research", "syllabus.md", "--budget", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--budget"), "{err}");
}
