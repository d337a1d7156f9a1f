//! Sources: each distinct URL fetched once per run through the [`Fetcher`],
//! concurrently within a bound; arXiv abstract pages fall back to the PDF.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use futures::stream::{self, StreamExt};
use url::Url;
use verity_core::{FetchStatus, FetchedSource, Fetcher, SourceFormat};
use verity_fetch::{resolve_reference_with, ReferenceKind, ResolverConfig};

use crate::reader::SourceText;
use crate::types::{SourceContent, SourceStatus};

fn format_name(f: SourceFormat) -> &'static str {
    match f {
        SourceFormat::Pdf => "pdf",
        SourceFormat::Html => "html",
        SourceFormat::Markdown => "markdown",
        SourceFormat::Text => "text",
        SourceFormat::Json => "json",
    }
}

fn status_name(s: FetchStatus) -> &'static str {
    match s {
        FetchStatus::Fetched => "fetched",
        FetchStatus::Failed => "failed",
        FetchStatus::Paywalled => "paywalled",
        FetchStatus::NotFound => "not found",
        FetchStatus::Timeout => "timed out",
        FetchStatus::RateLimited => "rate limited",
        FetchStatus::Blocked => "blocked",
    }
}

/// The text of a parsed source as a reader sees it: HTML (rendered to
/// Markdown by the parser) and Markdown without their markup, plain text
/// and PDF text as they are ([`crate::reader`]).
pub fn reader_text_of(p: &verity_core::ParsedDocument) -> SourceText {
    let text = match p.format {
        SourceFormat::Html | SourceFormat::Markdown => {
            SourceText::from_markdown(&p.document.content)
        }
        SourceFormat::Pdf | SourceFormat::Text | SourceFormat::Json => {
            SourceText::plain(p.document.content.clone())
        }
    };
    text.titled(p.document.title.as_deref())
}

/// Turn a fetch outcome into the seed's `SourceContent`; `content` is the
/// source's text as a reader sees it ([`reader_text_of`]). A paywalled page
/// keeps the text it served: the verifier judges it when the passage is
/// there and calls it unavailable when it is only a teaser.
pub fn to_content(url: &str, f: &FetchedSource, fetch_ms: u64) -> SourceContent {
    let text = f
        .parsed
        .as_ref()
        .map(|p| reader_text_of(p).into_string())
        .filter(|c| !c.trim().is_empty());
    let content_type = f
        .parsed
        .as_ref()
        .map_or("unknown", |p| format_name(p.format))
        .to_string();
    let title = f.parsed.as_ref().and_then(|p| p.document.title.clone());
    let final_url = (f.final_url.as_str() != url).then(|| f.final_url.to_string());
    let http = f
        .http_status
        .map(|s| format!("HTTP {s}, "))
        .unwrap_or_default();
    let detail = |what: &str| {
        Some(format!(
            "{http}{what}{}",
            f.detail
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        ))
    };
    match (f.status, text) {
        (FetchStatus::Fetched, Some(t)) => SourceContent {
            url: url.to_string(),
            final_url,
            content: Some(t),
            fetch_status: SourceStatus::Success,
            content_type,
            detail: None,
            title,
            fetch_ms,
        },
        (FetchStatus::Fetched, None) => SourceContent {
            url: url.to_string(),
            final_url,
            content: None,
            fetch_status: SourceStatus::Failed,
            content_type,
            detail: detail("no text could be extracted"),
            title,
            fetch_ms,
        },
        (FetchStatus::Paywalled, text) => SourceContent {
            url: url.to_string(),
            final_url,
            content: text,
            fetch_status: SourceStatus::Paywalled,
            content_type,
            detail: detail("paywalled"),
            title,
            fetch_ms,
        },
        (s, _) => SourceContent {
            url: url.to_string(),
            final_url,
            content: None,
            fetch_status: SourceStatus::Failed,
            content_type,
            detail: detail(status_name(s)),
            title,
            fetch_ms,
        },
    }
}

fn failed(url: &str, detail: String, fetch_ms: u64) -> SourceContent {
    SourceContent {
        url: url.to_string(),
        final_url: None,
        content: None,
        fetch_status: SourceStatus::Failed,
        content_type: "unknown".into(),
        detail: Some(detail),
        title: None,
        fetch_ms,
    }
}

async fn fetch_one(fetcher: &dyn Fetcher, url: &str, resolver: &ResolverConfig) -> SourceContent {
    let t0 = Instant::now();
    let ms = |t0: Instant| t0.elapsed().as_millis() as u64;
    let parsed = match Url::parse(url) {
        Ok(u) => u,
        Err(e) => return failed(url, format!("invalid URL: {e}"), 0),
    };
    let first = match fetcher.fetch(&parsed).await {
        Ok(f) => f,
        Err(e) => return failed(url, e.to_string(), ms(t0)),
    };
    if first.status != FetchStatus::Fetched {
        // arXiv: the PDF when the abstract page is unavailable.
        if let Some(pdf) = resolve_reference_with(url, resolver)
            .filter(|r| r.kind == ReferenceKind::Arxiv)
            .and_then(|r| r.pdf_url)
        {
            if let Ok(alt) = fetcher.fetch(&pdf).await {
                if alt.status == FetchStatus::Fetched {
                    return to_content(url, &alt, ms(t0));
                }
            }
        }
    }
    to_content(url, &first, ms(t0))
}

/// Fetch every distinct URL of `urls` once, at most `concurrency` at a time.
/// `on_done(done, total)` is called after each fetch (for progress bars).
pub async fn fetch_all(
    fetcher: Arc<dyn Fetcher>,
    urls: Vec<String>,
    resolver: &ResolverConfig,
    concurrency: usize,
    on_done: &(dyn Fn(usize, usize) + Send + Sync),
) -> HashMap<String, SourceContent> {
    let mut distinct = urls;
    distinct.sort();
    distinct.dedup();
    let total = distinct.len();
    let mut out = HashMap::with_capacity(total);
    // `move` closures over owned values: the future stays `Send` for callers
    // that spawn it (no higher-ranked borrow of `fetcher`).
    let mut results = stream::iter(distinct.into_iter().map(move |u| {
        let f = fetcher.clone();
        async move {
            let c = fetch_one(f.as_ref(), &u, resolver).await;
            (u, c)
        }
    }))
    .buffer_unordered(concurrency.max(1));
    while let Some((u, c)) = results.next().await {
        out.insert(u, c);
        on_done(out.len(), total);
    }
    out
}
