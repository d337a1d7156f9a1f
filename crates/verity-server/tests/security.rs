//! Version header, authentication, rate limit, body limit, CORS, roots and
//! start-up refusals, against a real server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn version_header_required_echoed_and_checked() {
    let s = start(|_| {}).await;
    let r = s.req(Method::GET, "/v1/stats").send().await.unwrap();
    assert_eq!(r.headers()["x-api-version"], VERSION);
    let r = s
        .bare(Method::GET, "/v1/stats")
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 400, "missing_api_version");
    assert_eq!(e["supported_versions"], json!([VERSION]));
    assert!(e["message"].as_str().unwrap().contains(VERSION));
    let r = s
        .bare(Method::POST, "/v1/retrieve")
        .bearer_auth(TOKEN)
        .header("x-api-version", "2024-01-01")
        .json(&json!({"query": "x"}))
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 400, "unsupported_api_version");
    assert!(e["message"].as_str().unwrap().contains("2024-01-01"));
    s.shutdown().await;
}

#[tokio::test]
async fn bearer_tokens() {
    let s = start(|_| {}).await;
    let url = format!("{}/v1/stats", s.url);
    let cases: Vec<(&str, Option<String>)> = vec![
        ("missing", None),
        ("wrong", Some("Bearer not-the-right-token-xxxx".into())),
        ("basic scheme", Some(format!("Basic {TOKEN}"))),
        ("no token", Some("Bearer".into())),
        ("empty token", Some("Bearer ".into())),
        ("two tokens", Some(format!("Bearer {TOKEN} {TOKEN}"))),
    ];
    for (what, header) in cases {
        let mut rb = s.client.get(&url).header("x-api-version", VERSION);
        if let Some(h) = header {
            rb = rb.header("authorization", h);
        }
        let r = rb.send().await.unwrap();
        assert!(r.headers().contains_key("www-authenticate"), "{what}");
        let (st, e) = status_json(r).await;
        assert_error(st, &e, 401, "unauthorized_client");
    }
    // Tokens in the query string are refused, even the right one.
    for q in [
        format!("access_token={TOKEN}"),
        format!("token={TOKEN}"),
        "api_key=x".into(),
    ] {
        let r = s
            .req(Method::GET, &format!("/v1/stats?{q}"))
            .send()
            .await
            .unwrap();
        let (st, e) = status_json(r).await;
        assert_error(st, &e, 400, "invalid_input");
        assert!(
            e["message"].as_str().unwrap().contains("Authorization"),
            "{e}"
        );
    }
    let (st, _) = s.get("/v1/stats").await;
    assert_eq!(st, 200);
    s.shutdown().await;
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let s = start(|c| {
        c.rate_limit.per_second = 1;
        c.rate_limit.burst = 3;
    })
    .await;
    let mut limited = None;
    for _ in 0..10 {
        let r = s.req(Method::GET, "/v1/stats").send().await.unwrap();
        if r.status() == 429 {
            limited = Some(r);
            break;
        }
    }
    let r = limited.expect("a 429 within 10 requests at 1 req/s, burst 3");
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1, "{retry}");
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 429, "rate_limited");
    assert!(e["transient"].as_bool().unwrap());
    // Made-up tokens share the IP's anonymous bucket: no fresh quota.
    let r = s
        .bare(Method::GET, "/v1/stats")
        .bearer_auth("made-up-token-000000000001")
        .header("x-api-version", VERSION)
        .send()
        .await
        .unwrap();
    assert!(r.status() == 401 || r.status() == 429, "{}", r.status());
    s.shutdown().await;
}

#[tokio::test]
async fn body_limit_is_413_json() {
    let s = start(|c| c.body_limit = 4096).await;
    let big = "x".repeat(10_000);
    let (st, e) = s
        .post(
            "/v1/ingest",
            json!({"documents": [{"uid": "a", "content": big}]}),
        )
        .await;
    assert_error(st, &e, 413, "payload_too_large");
    // Chunked body without Content-Length: refused as well.
    let body = reqwest::Body::wrap_stream(futures::stream::iter(vec![Ok::<_, std::io::Error>(
        format!("{{\"query\": \"{big}\"}}").into_bytes(),
    )]));
    let r = s
        .req(Method::POST, "/v1/retrieve")
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 413, "payload_too_large");
    s.shutdown().await;
}

#[tokio::test]
async fn cors_closed_by_default_open_to_the_allow_list() {
    let s = start(|_| {}).await;
    let r = s
        .bare(Method::OPTIONS, "/v1/retrieve")
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(!r.headers().contains_key("access-control-allow-origin"));
    s.shutdown().await;

    let s = start(|c| c.cors_origins = vec!["https://app.example".into()]).await;
    let preflight = |origin: &'static str| {
        s.bare(Method::OPTIONS, "/v1/retrieve")
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization,x-api-version,content-type",
            )
            .send()
    };
    let r = preflight("https://app.example").await.unwrap();
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    let r = preflight("https://evil.example").await.unwrap();
    assert!(!r.headers().contains_key("access-control-allow-origin"));
    s.shutdown().await;
}

#[tokio::test]
async fn refuses_to_start_unsafe() {
    let home = tempfile::tempdir().unwrap();
    let mut c = config(home.path());
    c.addr = "0.0.0.0:0".parse().unwrap();
    c.tokens.clear();
    let e = verity_server::Server::open(c).await.err().expect("refused");
    assert!(e.to_string().contains("without a bearer token"), "{e}");
}

#[tokio::test]
async fn client_paths_stay_under_roots_and_urls_pass_the_ssrf_guard() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "# Secret\n\nroot password",
    )
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("notes.md"),
        "# Fees\n\nRouting fees are set per channel.",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        root.path().join("link.md"),
    )
    .unwrap();
    let root_path = root.path().to_path_buf();
    let s = start(move |c| {
        c.roots = vec![root_path];
        c.sync_ingest_max = 1;
    })
    .await;
    let secret = outside
        .path()
        .join("secret.md")
        .to_string_lossy()
        .into_owned();
    for bad in ["../secret.md", secret.as_str(), "sub/../../x.md", "link.md"] {
        let (st, e) = s.post("/v1/ingest", json!({"paths": [bad]})).await;
        assert_error(st, &e, 400, "invalid_input");
    }
    let (st, j) = s.post("/v1/ingest", json!({"paths": ["notes.md"]})).await;
    assert_eq!(st, 202, "{j}");
    let job = wait_job(&s, j["id"].as_str().unwrap()).await;
    assert_eq!(job["outcome"]["inserted"], 1, "{job}");

    // A whole root: its files are read, the symlink leading outside is left
    // out and reported, never followed.
    let (st, j) = s.post("/v1/ingest", json!({"paths": ["."]})).await;
    assert_eq!(st, 202, "{j}");
    let job = wait_job(&s, j["id"].as_str().unwrap()).await;
    assert_eq!(job["outcome"]["unchanged"], 1, "{job}");
    assert_eq!(job["outcome"]["inserted"], 0, "{job}");
    #[cfg(unix)]
    assert!(
        job["outcome"]["read_errors"]
            .to_string()
            .contains("link.md"),
        "{job}"
    );

    // A URL to a private address is refused by the fetcher's guard.
    let (st, j) = s
        .post("/v1/ingest", json!({"paths": ["http://127.0.0.1:9/admin", "http://169.254.169.254/latest/meta-data"]}))
        .await;
    assert_eq!(st, 202, "{j}");
    let job = wait_job(&s, j["id"].as_str().unwrap()).await;
    let text = job.to_string();
    assert!(
        text.contains("guard") || text.contains("private") || text.contains("loopback"),
        "{job}"
    );
    assert_eq!(job["outcome"]["inserted"].as_u64().unwrap_or(0), 0, "{job}");
    s.shutdown().await;

    // No roots configured: no file is read at all.
    let s = start(|_| {}).await;
    let (st, e) = s.post("/v1/ingest", json!({"paths": ["notes.md"]})).await;
    assert_error(st, &e, 400, "invalid_input");
    assert!(
        e["message"].as_str().unwrap().contains("no file roots"),
        "{e}"
    );
    s.shutdown().await;
}

async fn wait_job(s: &TestServer, id: &str) -> serde_json::Value {
    // Up to 2 minutes: the CI machine may be busy.
    for _ in 0..2_400 {
        let (_, j) = s.get(&format!("/v1/jobs/{id}")).await;
        if j["state"] == "succeeded" || j["state"] == "failed" {
            return j;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("job {id} did not finish");
}

/// A file swapped for a symlink after the job was accepted (its paths
/// already checked) is refused when opened; the outside text never reaches
/// the store.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_after_the_check_is_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "# Secret\n\nThe vault combination is swordfish.",
    )
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    let t = root.path().join("t");
    std::fs::create_dir(&t).unwrap();
    for i in 0..1_500 {
        std::fs::write(
            t.join(format!("f{i:04}.md")),
            format!("# Note {i}\n\nRouting fees note number {i}."),
        )
        .unwrap();
    }
    std::fs::write(t.join("zzzz.md"), "# Last\n\nThe last routing note.").unwrap();
    let root_path = root.path().to_path_buf();
    let s = start(move |c| c.roots = vec![root_path]).await;
    let (st, j) = s.post("/v1/ingest", json!({"paths": ["t"]})).await;
    assert_eq!(st, 202, "{j}");
    // 0.2 s later, as in the report: the last file becomes a link outside.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    std::fs::remove_file(t.join("zzzz.md")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), t.join("zzzz.md")).unwrap();
    let job = wait_job(&s, j["id"].as_str().unwrap()).await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let (st, r) = s
        .post(
            "/v1/retrieve",
            json!({"query": "vault combination swordfish"}),
        )
        .await;
    assert_eq!(st, 200, "{r}");
    assert!(
        !r.to_string().contains("swordfish"),
        "outside text ingested: {r}"
    );
    let inserted = job["outcome"]["inserted"].as_u64().unwrap();
    let errors = job["outcome"]["read_errors"].to_string();
    // Either the file was read before the swap, or the link was refused.
    assert!(
        inserted == 1_501 || (inserted == 1_500 && errors.contains("zzzz.md")),
        "{inserted} inserted; {errors}"
    );
    s.shutdown().await;
}
