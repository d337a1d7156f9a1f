//! Work stops when its request is given up: after a 504 the server's CPU
//! returns to idle within a second, and the 504 is counted under its route.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use reqwest::Method;
use serde_json::json;
use std::time::Duration;

/// CPU time (user + system) this process has used, from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat (Linux)");
    // Fields after the command name, which is in parentheses and may hold spaces.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line (12 and 13 here),
    // in clock ticks of 1/100 s (USER_HZ on Linux).
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpu_returns_to_idle_after_a_504() {
    let model = verity::embed::LocalEmbedder::default_model_dir();
    assert!(
        model.join("model.safetensors").is_file(),
        "the local embedding model is needed at {} (scripts/fetch-models.sh)",
        model.display()
    );
    let s = start(|c| {
        c.verity.embedder = Some("local".into());
        c.request_timeout_secs = 0.5;
    })
    .await;
    // Two requests of 256 texts of 256 word pieces at once: tens of seconds
    // of model passes, each request cut after half a second.
    let batch = |r: usize| -> Vec<String> {
        (0..256)
            .map(|i| {
                // ~7 word pieces a word: 60 words fill the model's 256.
                (0..60)
                    .map(|w| format!("word{}x{}r{r}", (i * 7 + w) % 997, w % 13))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let requests = (0..2).map(|r| s.post("/v1/embed", json!({ "texts": batch(r) })));
    for (st, e) in futures::future::join_all(requests).await {
        assert_error(st, &e, 504, "request_timeout");
    }
    // CPU per quarter second for 3 s: the first second lets the work in
    // flight notice, the next two must be idle.
    let mut trace = Vec::new();
    let mut last = cpu_seconds();
    for _ in 0..12 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now = cpu_seconds();
        trace.push(now - last);
        last = now;
    }
    let used: f64 = trace[4..].iter().sum();
    assert!(
        used < 0.3,
        "the server kept working after the 504s: {used:.2} s of CPU in the 2 s after the \
         first second; per 250 ms: {trace:.2?}"
    );
    // The timeout is counted under the route it cut short.
    let r = s.req(Method::GET, "/v1/metrics").send().await.unwrap();
    let text = r.text().await.unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("http_requests_total{") && l.contains("status=\"504\""))
        .unwrap_or_else(|| panic!("no 504 counted: {text}"));
    assert!(line.contains("route=\"/v1/embed\""), "{line}");
    s.shutdown().await;
}
