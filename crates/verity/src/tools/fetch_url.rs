//! `fetch_url`: fetch a web page through the shared guarded fetcher and extract its main content.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolHints, ToolOptions};
use crate::api::{FetchRequest, FetchResponse};
use crate::Error;

/// The client-facing part of [`FetchRequest`]: an http(s) URL only. Local
/// paths and `allow_private` (which disables the SSRF guard) are operator
/// choices a tool caller never gets.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct FetchUrlRequest {
    /// The http(s) URL to fetch.
    pub url: String,
}

/// The `fetch_url` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "fetch_url",
        "Fetch a web page",
        "Fetch an http(s) URL and return its main content as Markdown (boilerplate removed) \
         with its metadata. Private, loopback and metadata addresses are refused; \
         robots.txt and per-host rate limits are honoured.",
        |f: &FetchResponse| match &f.parsed {
            Some(p) => p.document.content.clone(),
            None => format!("{:?}: no content", f.status),
        },
        |verity, req: FetchUrlRequest| {
            Box::pin(async move {
                if !crate::config::is_url(&req.url) {
                    return Err(Error::invalid_input(format!(
                        "`{}` is not an http(s) URL",
                        req.url
                    )));
                }
                let f = verity
                    .fetch(&FetchRequest {
                        target: req.url.clone(),
                        allow_private: false,
                    })
                    .await?;
                // No usable content is a failed call, with the fetch's typed reason.
                match f.error() {
                    Some(e) => Err(e.into()),
                    None => Ok(f),
                }
            })
        },
    )
    .hints(ToolHints {
        read_only: true,
        open_world: true,
        ..ToolHints::default()
    })
}
