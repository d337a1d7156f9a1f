//! Citation verification (seed 002): `POST /v1/verify`, the seed's
//! `POST /verify`, and the web page at `GET /` that calls them.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use verity::api::verify::{ignore_progress, render, ReportFormat};
use verity::api::CheckRequest;

use crate::error::ApiResult;
use crate::extract::ApiJson;
use crate::openapi::{schema, Body, Operation, Verb, VersionHeader};
use crate::server::AppState;

/// Content-Security-Policy of the web page: nothing from the network but
/// this server's API; inline script and style only (the page is one file).
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// `POST /v1/verify` and `POST /verify`: the report as JSON, or rendered in
/// `format` (`md`, `html`, `terminal`) with its media type.
pub async fn verify(
    State(s): State<AppState>,
    ApiJson(mut req): ApiJson<CheckRequest>,
) -> ApiResult<Response> {
    // Client-named files only under the roots; the SSRF guard only off
    // when the operator said so.
    s.roots.confine_check(&mut req, s.config.allow_private)?;
    let report = s.verity.check(&req, &ignore_progress).await?;
    Ok(match req.format.unwrap_or_default() {
        ReportFormat::Json => Json(report).into_response(),
        f => (
            [(header::CONTENT_TYPE, f.mime())],
            render(&report, f, false),
        )
            .into_response(),
    })
}

/// `GET /`: a page to paste a document, give a URL or upload a file, and see
/// the report. Self-contained (inline script and style, no network but this API).
pub async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, PAGE_CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        include_str!("../../assets/verify.html"),
    )
        .into_response()
}

/// The operations of this file.
pub fn operations() -> Vec<Operation> {
    let check = |path, id, summary, version| Operation {
        description: "Finds every claim of the document that cites a source (links, URLs, DOIs, \
            arXiv ids, numbered references, footnotes, author–year), fetches each source once \
            (SSRF guard on; `allow_private` only when the server's operator set \
            `allow_private`), and judges each claim against the source's best \
            sentences: SUPPORTED, NOT_SUPPORTED, PARTIAL, INCONCLUSIVE or SOURCE_UNAVAILABLE, \
            with a quote that occurs verbatim in the fetched source. Give exactly one of \
            `content`, `content_base64`, `url` or `path` (a file under the server's roots). \
            The report is JSON unless `format` asks for `md`, `html` or `terminal` (then \
            text/markdown, text/html or text/plain). A document URL that cannot be fetched \
            is 502 `fetch_failed`; unavailable sources are reported per claim.",
        version,
        request: Some(schema::<CheckRequest>),
        success: vec![(
            200,
            "The verification report: summary, one result per claim, statistics",
            Body::JsonOrText(
                schema::<verity::api::CheckResponse>,
                &["text/markdown", "text/html", "text/plain"],
            ),
        )],
        errors: &[404, 502, 503, 504],
        ..Operation::new(Verb::Post, path, id, summary, verify)
    };
    vec![
        check(
            "/v1/verify",
            "verify",
            "Check that each cited source supports the claim citing it",
            VersionHeader::Required,
        ),
        check(
            "/verify",
            "verify_unversioned",
            "Check citations (unversioned route; same as /v1/verify)",
            VersionHeader::Ignored,
        ),
        Operation {
            description: "Self-contained page (no network but this API): paste text, give a URL \
                or upload a file and see the report. It posts to /v1/verify.",
            version: VersionHeader::Ignored,
            auth: false,
            success: vec![(200, "The page", Body::Html)],
            ..Operation::new(
                Verb::Get,
                "/",
                "verify_page",
                "Web page to check the citations of a document",
                page,
            )
        },
    ]
}
