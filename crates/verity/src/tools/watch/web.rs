//! `web_search`, `crawl_url`, `verify_fact`.

use super::{json_text, WEB};
use crate::tools::{Tool, ToolOptions};
use crate::watch::{
    CrawlRequest, CrawlResponse, VerifyFactRequest, VerifyFactResponse, WebSearchRequest,
    WebSearchResponse,
};

/// `web_search`.
pub(crate) fn web_search(_: &ToolOptions) -> Tool {
    Tool::new(
        "web_search",
        "Web search",
        "Searches the web. Use it to check facts or find further sources.",
        json_text::<WebSearchResponse>,
        |verity, req: WebSearchRequest| {
            Box::pin(async move { verity.watch().await?.web_search(&req).await })
        },
    )
    .hints(WEB)
}

/// `crawl_url`.
pub(crate) fn crawl_url(_: &ToolOptions) -> Tool {
    Tool::new(
        "crawl_url",
        "Extract a web page",
        "Extracts the clean text of a web page. Use it to get an article's full text.",
        json_text::<CrawlResponse>,
        |verity, req: CrawlRequest| {
            Box::pin(async move { verity.watch().await?.crawl_url(&req).await })
        },
    )
    .hints(WEB)
}

/// `verify_fact`.
pub(crate) fn verify_fact(_: &ToolOptions) -> Tool {
    Tool::new(
        "verify_fact",
        "Verify a factual claim",
        "Checks whether a claim is true by searching and reading sources. Use it to avoid spreading incorrect information.",
        json_text::<VerifyFactResponse>,
        |verity, req: VerifyFactRequest| {
            Box::pin(async move { verity.watch().await?.verify_fact(&req).await })
        },
    )
    .hints(WEB)
}
