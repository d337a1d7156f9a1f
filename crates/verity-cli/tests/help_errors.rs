//! What a new user meets first: every `--help` has examples and lists the
//! global options once; old switch names still work with a note; and each
//! mistake a first try makes gets a message that says what to type next,
//! with the exit status the README gives.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

fn verity(home: &Path) -> Command {
    let mut c = Command::cargo_bin("verity").unwrap();
    c.env("VERITY_HOME", home)
        .env("VERITY_EMBEDDER", "none")
        .env_remove("VERITY_GENERATOR")
        .env_remove("GEN_MODEL")
        .env_remove("EMBED_MODEL")
        .env_remove("REDIS_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .arg("--quiet");
    c
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

const SUBCOMMANDS: &[&[&str]] = &[
    &["ingest"],
    &["search"],
    &["ask"],
    &["stats"],
    &["delete"],
    &["fetch"],
    &["check"],
    &["research"],
    &["eval", "beir"],
    &["eval", "extraction"],
    &["eval", "verify"],
    &["models"],
    &["reindex"],
    &["mcp"],
    &["serve"],
];

#[test]
fn every_help_has_examples_and_the_global_options_once() {
    let top = Command::cargo_bin("verity")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    let top = String::from_utf8_lossy(&top.stdout).into_owned();
    assert!(
        top.contains("Global options:") && top.contains("--redis"),
        "{top}"
    );
    assert!(top.contains("Examples:"), "{top}");
    for args in SUBCOMMANDS {
        let out = Command::cargo_bin("verity")
            .unwrap()
            .args(*args)
            .arg("--help")
            .output()
            .unwrap();
        assert_eq!(code(&out), 0, "{args:?}");
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(help.contains("Example"), "{args:?} has no example:\n{help}");
        assert!(
            !help.contains("--redis <URL>") && !help.contains("--index <INDEX>"),
            "{args:?} repeats the global options:\n{help}"
        );
        assert!(help.contains("see verity --help"), "{args:?}:\n{help}");
        let lower = help.to_lowercase();
        assert!(
            !lower.contains("seed"),
            "{args:?} speaks internal jargon:\n{help}"
        );
    }
    assert!(!top.to_lowercase().contains("seed"), "{top}");
    let serve = Command::cargo_bin("verity")
        .unwrap()
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let serve = String::from_utf8_lossy(&serve.stdout).into_owned();
    assert!(
        serve.contains("VERITY_ADDR") && serve.contains("AURACORE_PORT"),
        "{serve}"
    );
}

#[test]
fn global_options_still_work_after_the_command() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("after");
    let out = Command::cargo_bin("verity")
        .unwrap()
        .env_remove("VERITY_HOME")
        .env("VERITY_EMBEDDER", "none")
        .args(["stats", "--json", "--home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["home"], home.display().to_string(), "{v}");
}

#[test]
fn version_is_not_shadowed_and_old_names_still_work() {
    let out = Command::cargo_bin("verity")
        .unwrap()
        .args(["reindex", "--version"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));

    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("d.md");
    std::fs::write(&docs, "# Fees\n\nThe base fee is paid per forward.\n").unwrap();
    let out = verity(&tmp.path().join("store"))
        .args(["--json", "reindex", "--version", "7", "--dry-run"])
        .arg(&docs)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("use `--embed-version"),
        "{}",
        stderr(&out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["shadow"], "default:v7", "{v}");

    // `md` and `markdown` name the same format in `fetch` and `check`.
    for format in ["md", "markdown"] {
        let out = verity(&tmp.path().join("store"))
            .args(["fetch", "--format", format])
            .arg(&docs)
            .output()
            .unwrap();
        assert_eq!(code(&out), 0, "{format}: {}", stderr(&out));
    }
}

#[test]
fn ingesting_a_missing_path_says_so_once_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let out = verity(&tmp.path().join("store"))
        .args(["ingest", "nonexist/"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 3, "{err}");
    assert!(
        err.contains("nonexist/") && err.contains("check the path"),
        "{err}"
    );
    assert!(!err.contains("unsupported type"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ingested 0"));
}

#[test]
fn an_unsupported_file_type_lists_the_supported_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = tmp.path().join("doc.docx");
    std::fs::write(&doc, "PK\u{3}\u{4}").unwrap();
    let out = verity(&tmp.path().join("store"))
        .arg("ingest")
        .arg(&doc)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 7, "{err}");
    assert!(err.contains("doc.docx"), "{err}");
    for ext in [".md", ".jsonl", ".html", ".pdf", ".txt"] {
        assert!(err.contains(ext), "{ext} not listed: {err}");
    }
}

#[test]
fn searching_an_empty_store_says_to_ingest_first() {
    let tmp = tempfile::tempdir().unwrap();
    let out = verity(&tmp.path().join("store"))
        .args(["search", "routing fees"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert!(
        err.contains("store is empty") && err.contains("verity ingest"),
        "{err}"
    );
    assert!(!err.contains("Re-ingest"), "{err}");
}

#[test]
fn a_store_without_vectors_says_how_to_get_dense_search() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let doc = tmp.path().join("fees.md");
    std::fs::write(
        &doc,
        "# Fees\n\nThe base fee is paid per forwarded payment.\n",
    )
    .unwrap();
    let out = verity(&home).arg("ingest").arg(&doc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The local model is installed by scripts/fetch-models.sh (scripts/test.sh runs it).
    let out = verity(&home)
        .env("VERITY_EMBEDDER", "local")
        .args(["search", "base fee"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert!(err.contains("ingested without an embedder"), "{err}");
    assert!(err.contains("verity ingest PATH --embedder local"), "{err}");
}

#[test]
fn misconfigured_providers_are_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let cases: &[(&[&str], &[&str])] = &[
        // No tag: the CLI user is told the flag and an example, not a Rust call.
        (
            &["ask", "q", "--generator", "ollama:llama3.1"],
            &["ollama:llama3.1:", "--generator"],
        ),
        (
            &["--embedder", "ollama:nomic-embed-text", "search", "q"],
            &["--embedder", "EMBED_MODEL"],
        ),
        // OpenAI without a key: the variable to set.
        (
            &["--embedder", "openai:text-embedding-3-small", "search", "q"],
            &["OPENAI_API_KEY"],
        ),
        (
            &["ask", "q", "--generator", "openai:gpt-4o-mini"],
            &["OPENAI_API_KEY"],
        ),
        // An unknown form: the forms that exist.
        (
            &["ask", "q", "--generator", "gpt4"],
            &["ollama:MODEL:TAG", "openai:MODEL"],
        ),
    ];
    for (args, wants) in cases {
        let out = verity(&home).args(*args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(code(&out), 6, "{args:?}: {err}");
        for w in *wants {
            assert!(err.contains(w), "{args:?}: `{w}` missing from {err}");
        }
        assert!(!err.contains("allow_latest"), "{err}");
        assert!(!home.exists(), "{args:?} did work before refusing");
    }
}

#[test]
fn ollama_down_suggests_starting_it_or_setting_ollama_url() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let doc = tmp.path().join("fees.md");
    std::fs::write(
        &doc,
        "# Fees\n\nThe fee of a forward is the base fee plus a proportional fee.\n",
    )
    .unwrap();
    assert_eq!(
        code(&verity(&home).arg("ingest").arg(&doc).output().unwrap()),
        0
    );
    let dead = verity_testkit::dead_url().unwrap();
    let out = verity(&home)
        .env("OLLAMA_URL", &dead)
        .env("RAG_MIN_SCORE", "0")
        .args([
            "ask",
            "How is the fee of a forward computed?",
            "--generator",
            "ollama:llama3.1:8b",
        ])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 5, "{err}");
    assert!(
        err.contains("ollama serve") && err.contains("OLLAMA_URL"),
        "{err}"
    );
}

#[test]
fn redis_refused_exits_5_naming_the_setting() {
    let tmp = tempfile::tempdir().unwrap();
    let dead = verity_testkit::dead_url()
        .unwrap()
        .replace("http://", "redis://");
    let out = verity(&tmp.path().join("store"))
        .args(["--redis", &dead, "stats"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 5, "{err}");
    assert!(
        err.contains("REDIS_URL") && err.contains("--redis"),
        "{err}"
    );
}

#[test]
fn sources_refused_as_private_point_at_allow_private() {
    let tmp = tempfile::tempdir().unwrap();
    let web =
        verity_testkit::serve(|_, _| verity_testkit::Reply::html("<p>The base fee is 1 sat.</p>"))
            .unwrap();
    let doc = tmp.path().join("notes.md");
    std::fs::write(
        &doc,
        format!("# Fees\n\nThe base fee of this node is 1 sat per forward [1].\n\n## References\n1. Fee notes. {web}/fees\n"),
    )
    .unwrap();
    let out = verity(&tmp.path().join("store"))
        .args(["check", "--format", "json"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = report["summary"]["message"].as_str().unwrap();
    assert!(message.contains("--allow-private"), "{message}");
}

#[test]
fn a_missing_mcp_root_is_refused_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("notes");
    let out = verity(&tmp.path().join("store"))
        .args(["mcp", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 3, "{err}");
    assert!(
        err.contains("does not exist") && err.contains("mkdir -p"),
        "{err}"
    );
}

#[test]
fn serve_logs_are_plain_text_and_name_the_store() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let doc = tmp.path().join("fees.md");
    std::fs::write(
        &doc,
        "# Fees\n\nThe base fee is paid per forwarded payment.\n",
    )
    .unwrap();
    // Vectors in the store: opening it loads the HNSW index, whose INFO lines are noise.
    let out = verity(&home)
        .env("VERITY_EMBEDDER", "local")
        .arg("ingest")
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("verity"))
        .current_dir(tmp.path())
        .env_remove("VERITY_HOME")
        .env_remove("RUST_LOG")
        .env_remove("LOG_LEVEL")
        .env("VERITY_EMBEDDER", "local")
        .args(["--home", "store", "serve", "--addr", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        let done = line.contains("listening on");
        lines.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let log = lines.join("\n");
    assert!(log.contains("listening on"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a piped log:\n{log}"
    );
    assert!(!log.contains("hnsw"), "third-party INFO lines:\n{log}");
    let store = std::fs::canonicalize(&home).unwrap();
    assert!(
        log.contains(&format!("store {}", store.display())),
        "the absolute store path is printed:\n{log}"
    );
}
