//! The research workflow (seed 003): `POST /v1/research` starts a run on a
//! syllabus under the server's roots as a job (202); `GET /v1/jobs/{id}`
//! reports each step and plan task as it finishes, then the checked report.

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use verity::api::research::ResearchRequest;
use verity::research::ResearchOptions;

use crate::error::{ApiError, ApiResult};
use crate::extract::ApiJson;
use crate::jobs::JobStatus;
use crate::openapi::{schema, Body, Operation, Verb};
use crate::server::AppState;

/// `POST /v1/research`. The syllabus is resolved under the roots before the
/// job is accepted (no roots, `..`, a path or symlink leading outside, a
/// directory: 400 at once); the knowledge base is the configured one
/// (`VERITY_KNOWLEDGE_DIR`, default `<home>/knowledge`), whose
/// files the syllabus names by plain file name only.
pub async fn research(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<ResearchRequest>,
) -> ApiResult<Response> {
    let syllabus = s
        .roots
        .resolve_file(&req.syllabus)
        .map_err(|e| ApiError::invalid(format!("`syllabus`: {e}")))?;
    let opts = ResearchOptions {
        allow_private: s.config.allow_private,
        remove_unsupported: req.remove_unsupported,
        ..ResearchOptions::default()
    };
    let status = s.jobs.submit_research(
        s.verity.clone(),
        syllabus,
        opts,
        s.config.research_timeout(),
    )?;
    let location = format!("/v1/jobs/{}", status.id);
    let mut resp = (StatusCode::ACCEPTED, Json(status)).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// The operation of this file.
pub fn operations() -> Vec<Operation> {
    vec![Operation {
        description: "Runs the research workflow on `syllabus`, a Markdown, PDF or \
            HTML file under the server's roots (`roots` / VERITY_ROOTS; none configured: 400). \
            Answers 202 with a job; `GET /v1/jobs/{id}` lists each finished step and plan \
            task in `steps`, then `report`: the Markdown note ending with its references, \
            theme coverage, the share of cited sentences the judge supports, what is missing. \
            References on private or loopback addresses are fetched only when the operator \
            set `allow_private`; otherwise the SSRF guard refuses them and the report \
            says they are missing. Runs are cut after `research_timeout_secs`.",
        request: Some(schema::<ResearchRequest>),
        success: vec![(
            202,
            "Run accepted as a job; poll `Location` (`/v1/jobs/{id}`)",
            Body::Json(schema::<JobStatus>),
        )],
        errors: &[503],
        ..Operation::new(
            Verb::Post,
            "/v1/research",
            "research",
            "Research a syllabus: brief, plan, sub-agents, a checked and sourced report (job)",
            research,
        )
    }]
}
