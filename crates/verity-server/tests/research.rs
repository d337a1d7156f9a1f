//! `POST /v1/research`: the fixture syllabus of `verity-research` under the
//! server's roots, its pages on a loopback web server; the job's progress,
//! then the checked report; the SSRF guard unless the operator set
//! `allow_private`; client paths that never leave the roots.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::common::{self, assert_error, TestServer};

pub(crate) fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../verity-research/tests/fixtures")
}

pub(crate) type Hits = Arc<Mutex<HashMap<String, usize>>>;

async fn page(State(hits): State<Hits>, uri: Uri) -> Response {
    let path = uri.path().to_string();
    *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let file = fixtures().join("web").join(path.trim_start_matches('/'));
    match std::fs::read_to_string(&file) {
        Ok(body) if !path.contains("..") => {
            ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
        }
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// The fixture's web pages on a loopback port; base URL and hit counts.
pub(crate) async fn web() -> (String, Hits) {
    let hits = Hits::default();
    let app = axum::Router::new().fallback(page).with_state(hits.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (base, hits)
}

/// A root holding the syllabus (URLs on `base`); the server's knowledge
/// base holding the internal file.
pub(crate) fn setup(root: &Path, home: &Path, base: &str) {
    let text = std::fs::read_to_string(fixtures().join("syllabus.md"))
        .unwrap()
        .replace("{BASE}", base);
    std::fs::write(root.join("syllabus.md"), text).unwrap();
    let kb = home.join("store/knowledge");
    std::fs::create_dir_all(&kb).unwrap();
    std::fs::copy(
        fixtures().join("kb/Prompt_Engineering_for_Developers.md"),
        kb.join("Prompt_Engineering_for_Developers.md"),
    )
    .unwrap();
}

async fn server(root: &Path, allow_private_fetch: bool) -> TestServer {
    let root = root.to_path_buf();
    common::start(move |c| {
        c.roots = vec![root];
        c.allow_private = allow_private_fetch;
    })
    .await
}

/// Start a run and poll its job until it ends; the final status and every
/// `phase` seen while it ran.
pub(crate) async fn run(s: &TestServer, syllabus: &str) -> (Value, Vec<String>) {
    let r = s
        .req(reqwest::Method::POST, "/v1/research")
        .json(&json!({ "syllabus": syllabus }))
        .send()
        .await
        .unwrap();
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    let (status, first) = common::status_json(r).await;
    assert_eq!(status, 202, "{first}");
    assert_eq!(first["kind"], "research", "{first}");
    let id = first["id"].as_str().unwrap();
    assert_eq!(location.as_deref(), Some(format!("/v1/jobs/{id}").as_str()));
    let mut phases = Vec::new();
    for _ in 0..1200 {
        let (code, job) = s.get(&format!("/v1/jobs/{id}")).await;
        assert_eq!(code, 200, "{job}");
        phases.push(job["phase"].as_str().unwrap_or_default().to_string());
        if matches!(job["state"].as_str(), Some("succeeded" | "failed")) {
            return (job, phases);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("research job {id} did not finish");
}

#[tokio::test]
async fn research_is_a_job_with_progress_per_step_then_the_checked_report() {
    let (base, hits) = web().await;
    let root = tempfile::tempdir().unwrap();
    let s = server(root.path(), true).await;
    setup(root.path(), s.home.path(), &base);

    let (job, _) = run(&s, "syllabus.md").await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let steps: Vec<&str> = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|st| st["name"].as_str().unwrap())
        .collect();
    for want in ["brief", "plan", "execute", "write", "check"] {
        assert!(steps.contains(&want), "{steps:?}");
    }
    assert!(
        job["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|st| st["status"] == "ok" && st["name"].as_str().unwrap().starts_with('E')),
        "plan tasks are reported: {steps:?}"
    );
    let report = &job["report"];
    assert_eq!(report["planner"], "deterministic", "{report}");
    assert_eq!(report["coverage"], 1.0, "{report}");
    assert_eq!(report["unresolved_citations"], 0, "{report}");
    assert_eq!(report["degraded"], false, "{report}");
    let md = report["markdown"].as_str().unwrap();
    let refs = md.split("## References").nth(1).unwrap();
    assert!(refs.contains(&format!("{base}/agents.html")), "{refs}");
    assert!(
        refs.contains("Prompt_Engineering_for_Developers.md"),
        "{refs}"
    );
    let listed = report["references"].as_array().unwrap();
    assert!(listed
        .iter()
        .any(|r| r["filename"] == "Prompt_Engineering_for_Developers.md"));
    assert!(hits.lock().unwrap().get("/agents.html").copied() >= Some(1));
    assert!(report["timings"].as_array().unwrap().len() >= 5, "{report}");
    // The run directory is the server's, under its home.
    let run_dir = report["run_dir"].as_str().unwrap();
    assert!(Path::new(run_dir).join("trace.jsonl").exists(), "{run_dir}");

    // Re-running does not download or index the references again.
    let (again, _) = run(&s, "syllabus.md").await;
    assert_eq!(again["state"], "succeeded", "{again}");
    assert_eq!(hits.lock().unwrap().get("/agents.html").copied(), Some(1));
    s.shutdown().await;
}

#[tokio::test]
async fn private_references_are_refused_unless_the_operator_allows_them() {
    let (base, hits) = web().await;
    let root = tempfile::tempdir().unwrap();
    let s = server(root.path(), false).await;
    setup(root.path(), s.home.path(), &base);

    let (job, _) = run(&s, "syllabus.md").await;
    // The run still returns a report, saying what is missing and why.
    assert_eq!(job["state"], "succeeded", "{job}");
    let report = &job["report"];
    assert_eq!(report["degraded"], true, "{report}");
    let missing = report["missing"].to_string();
    assert!(missing.contains("/agents.html"), "{missing}");
    let failed: Vec<&Value> = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|st| st["status"] == "failed")
        .collect();
    assert!(
        failed.iter().any(
            |st| st["error"].to_string().to_lowercase().contains("private")
                || st["error"].to_string().to_lowercase().contains("loopback")
        ),
        "the SSRF guard is named: {failed:?}"
    );
    // Nothing was fetched from the loopback server; the internal file was used.
    assert!(
        hits.lock().unwrap().is_empty(),
        "{:?}",
        hits.lock().unwrap()
    );
    let md = report["markdown"].as_str().unwrap();
    assert!(md.contains("Prompt_Engineering_for_Developers.md"), "{md}");
    s.shutdown().await;
}

#[tokio::test]
async fn syllabus_paths_never_leave_the_roots() {
    // No roots configured: refused at once, before any job.
    let none = common::start(|_| {}).await;
    let (st, e) = none
        .post("/v1/research", json!({"syllabus": "syllabus.md"}))
        .await;
    assert_error(st, &e, 400, "invalid_input");
    assert!(
        e["message"].as_str().unwrap().contains("no file roots"),
        "{e}"
    );
    none.shutdown().await;

    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("syllabus.md"), "# S\n\n## M\n").unwrap();
    std::fs::create_dir_all(root.path().join("dir")).unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, "# Secret\n\n## Module\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, root.path().join("link.md")).unwrap();
    let s = server(root.path(), false).await;
    let mut cases = vec![
        ("../syllabus.md".to_string(), ".."),
        ("dir/../../etc/passwd".to_string(), ".."),
        (secret.display().to_string(), "outside"),
        ("/etc/passwd".to_string(), "outside"),
        ("dir".to_string(), "directory"),
        ("nope.md".to_string(), "nope.md"),
        (String::new(), "empty"),
    ];
    if cfg!(unix) {
        cases.push(("link.md".to_string(), "outside"));
    }
    for (path, says) in cases {
        let (st, e) = s.post("/v1/research", json!({"syllabus": path})).await;
        assert_error(st, &e, 400, "invalid_input");
        assert!(e["message"].as_str().unwrap().contains(says), "{path}: {e}");
    }
    // Bodies that do not match the schema: 422, never 500.
    for body in [
        json!({}),
        json!({"syllabus": 5}),
        json!({"syllabus": "syllabus.md", "run_dir": "/tmp"}),
    ] {
        let (st, e) = s.post("/v1/research", body.clone()).await;
        assert!(st == 422 || st == 400, "{body}: {st} {e}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn the_route_is_in_the_openapi_document() {
    let s = common::start(|_| {}).await;
    let (st, doc) = s.get("/v1/openapi.json").await;
    assert_eq!(st, 200);
    let op = &doc["paths"]["/v1/research"]["post"];
    assert_eq!(op["operationId"], "research", "{op}");
    assert!(op["responses"]["202"].is_object(), "{op}");
    s.shutdown().await;
}

#[tokio::test]
async fn add_reference_tool_follows_the_operator_switch() {
    let (base, hits) = web().await;
    let root = tempfile::tempdir().unwrap();
    let url = format!("{base}/rag.html");
    // Off: the SSRF guard refuses the loopback URL, a typed 4xx/5xx, never 500.
    let off = server(root.path(), false).await;
    let (st, e) = off
        .post("/api/tools/add_reference", json!({ "url": url }))
        .await;
    assert!(st != 500 && st >= 400, "{st} {e}");
    assert!(hits.lock().unwrap().is_empty());
    off.shutdown().await;
    // On: downloaded, registered, indexed.
    let on = server(root.path(), true).await;
    let (st, r) = on
        .post("/api/tools/add_reference", json!({ "url": url }))
        .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["downloaded"], true, "{r}");
    assert_eq!(r["indexed"], true, "{r}");
    let (st, found) = on
        .post(
            "/api/tools/find_by_name",
            json!({ "filename": r["entry"]["filename"] }),
        )
        .await;
    assert_eq!(st, 200, "{found}");
    assert_eq!(found["found"], true, "{found}");
    on.shutdown().await;
}

/// A web server that accepts connections and never answers.
async fn silent() -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((sock, _)) = listener.accept().await {
            held.push(sock);
        }
    });
    (base, task)
}

#[tokio::test]
async fn a_research_tool_call_past_the_request_timeout_is_a_typed_error_naming_the_job_route() {
    let (base, task) = silent().await;
    let root = tempfile::tempdir().unwrap();
    let r = root.path().to_path_buf();
    let s = common::start(move |c| {
        c.roots = vec![r];
        c.allow_private = true;
        c.request_timeout_secs = 1.0;
    })
    .await;
    std::fs::write(
        root.path().join("slow.md"),
        format!(
            "# Slow course\n\n## Module 1: Waiting\n\nA reference that never answers.\n\n\
             ## References\n\n- [Never]({base}/never.html)\n"
        ),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (status, body) = s
        .post("/api/tools/research", json!({ "syllabus": "slow.md" }))
        .await;
    // The tool's own limit (under the request timeout) answered, not the
    // timeout layer: a typed, transient error that says what to do.
    assert_error(status, &body, 503, "unavailable");
    assert_eq!(body["transient"], true, "{body}");
    let msg = body["message"].as_str().unwrap();
    assert!(msg.contains("POST /v1/research"), "{msg}");
    assert!(started.elapsed() < Duration::from_secs(5));
    task.abort();
    s.shutdown().await;
}

#[tokio::test]
async fn the_configured_knowledge_dir_holds_the_knowledge_base() {
    let (base, _) = web().await;
    let root = tempfile::tempdir().unwrap();
    let kb = tempfile::tempdir().unwrap();
    let (r, k) = (root.path().to_path_buf(), kb.path().join("kb"));
    let k2 = k.clone();
    let s = common::start(move |c| {
        c.roots = vec![r];
        c.allow_private = true;
        c.verity.knowledge_dir = Some(k2.to_string_lossy().into_owned());
    })
    .await;
    setup(root.path(), s.home.path(), &base);
    std::fs::create_dir_all(&k).unwrap();
    std::fs::copy(
        fixtures().join("kb/Prompt_Engineering_for_Developers.md"),
        k.join("Prompt_Engineering_for_Developers.md"),
    )
    .unwrap();
    let (job, _) = run(&s, "syllabus.md").await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let db = std::fs::read_to_string(k.join("knowledge_db.json")).unwrap();
    assert!(db.contains("agents.html"), "{db}");
    assert!(
        !s.home
            .path()
            .join("store/knowledge/knowledge_db.json")
            .exists(),
        "the default directory is not used"
    );
    // `find_by_name` reads the same directory.
    let (status, found) = s
        .post(
            "/api/tools/find_by_name",
            json!({ "filename": "Prompt_Engineering_for_Developers.md" }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["found"], true, "{found}");
    s.shutdown().await;
}
