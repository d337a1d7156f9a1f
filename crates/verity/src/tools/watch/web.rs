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
        "Recherche des informations sur le web. Utiliser pour vérifier des faits ou trouver des sources complémentaires.",
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
        "Extrait le contenu textuel propre d'une page web. Utiliser pour obtenir le texte complet d'un article.",
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
        "Vérifie si une affirmation est vraie en recherchant des sources. Utiliser pour éviter de propager des informations incorrectes.",
        json_text::<VerifyFactResponse>,
        |verity, req: VerifyFactRequest| {
            Box::pin(async move { verity.watch().await?.verify_fact(&req).await })
        },
    )
    .hints(WEB)
}
