//! `fetch_url`: fetch a web page through the guarded fetcher and extract its main content.

use super::wire::{FetchArgs, FetchOut};
use super::{Tool, ToolHints, ToolOptions};
use crate::core::{FetchError, FetchStatus, FetchedSource};
use crate::Error;

/// The `fetch_url` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "fetch_url",
        "Fetch a web page",
        "Fetch an http(s) URL and return its main content as Markdown (boilerplate removed). \
         Private, loopback and metadata addresses are refused; robots.txt is honoured.",
        |f: &FetchOut| f.content.clone(),
        |_verity, args: FetchArgs| {
            Box::pin(async move {
                if !crate::sources::is_url(&args.url) {
                    return Err(Error::invalid_input(format!(
                        "`{}` is not an http(s) URL",
                        args.url
                    )));
                }
                let f = crate::sources::fetch(&args.url, false).await?;
                refuse_unfetched(&args.url, &f)?;
                let (title, content) = match f.parsed {
                    Some(p) => (p.document.title, p.document.content),
                    None => (None, String::new()),
                };
                Ok(FetchOut {
                    url: f.final_url.to_string(),
                    status: format!("{:?}", f.status).to_lowercase(),
                    title,
                    content,
                })
            })
        },
    )
    .hints(ToolHints {
        read_only: true,
        open_world: true,
        ..ToolHints::default()
    })
}

/// A fetch that produced no usable content is a failed call, with the reason.
fn refuse_unfetched(url: &str, f: &FetchedSource) -> crate::Result<()> {
    let detail = f.detail.clone().unwrap_or_default();
    let url = url.to_string();
    let e = match f.status {
        FetchStatus::Fetched | FetchStatus::Paywalled => return Ok(()),
        FetchStatus::Blocked => FetchError::Blocked {
            url,
            addr: f.final_url.host_str().unwrap_or_default().to_string(),
            reason: detail,
        },
        FetchStatus::Timeout => FetchError::Timeout(url),
        FetchStatus::NotFound | FetchStatus::RateLimited if f.http_status.is_some() => {
            FetchError::Http {
                url,
                status: f.http_status.unwrap_or_default(),
            }
        }
        _ => FetchError::Network {
            url,
            message: format!("{:?} {detail}", f.status),
        },
    };
    Err(e.into())
}
