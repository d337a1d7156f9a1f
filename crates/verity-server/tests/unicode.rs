//! Ordinary non-ASCII text (a French non-breaking space before a word ending
//! in a period) on every route that checks citations: a report, never a 5xx.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use serde_json::json;

/// The document of the report that found the crash, exactly as sent.
const NBSP_BODY: &str =
    r#"{"content":"A\u00a0x. B [1]\n\n## References\n1. https://example.org/a\n"}"#;

#[tokio::test]
async fn nbsp_before_a_period_is_checked_not_crashed() {
    let s = start(|c| c.tokens.clear()).await;
    for path in ["/v1/verify", "/verify", "/api/tools/verify_citations"] {
        let r = s
            .req(reqwest::Method::POST, path)
            .header("content-type", "application/json")
            .body(NBSP_BODY)
            .send()
            .await
            .unwrap();
        let (st, report) = status_json(r).await;
        assert_eq!(st, 200, "{path}: {report}");
        assert!(report["summary"].is_object(), "{path}: {report}");
    }
    // Every kind of wide space, and lone surrogates as a lenient client
    // decodes them (serde refuses the escapes themselves: 400, not 500).
    for sp in ["\u{2003}", "\u{2009}", "\u{3000}", "\u{202f}", "\u{85}"] {
        let content = format!(
            "Le taux{sp}x. Il atteint 80{sp}% [1]\n\n## Références\n1. https://example.org/a\n"
        );
        let (st, report) = s.post("/v1/verify", json!({ "content": content })).await;
        assert_eq!(st, 200, "{sp:?}: {report}");
    }
    let r = s
        .req(reqwest::Method::POST, "/v1/verify")
        .header("content-type", "application/json")
        .body(r#"{"content":"A\ud800x. B [1]"}"#)
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert!(st == 400 || st == 422, "{st} {e}");
    s.shutdown().await;
}
