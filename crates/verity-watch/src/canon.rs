//! Canonical article URLs: two URLs of the same article fold to one string.
//!
//! * scheme `http` → `https`, host lower-cased (IDNA), `www.` and `amp.`
//!   dropped, default port dropped;
//! * fragment removed; tracking parameters removed (`utm_*`, `fbclid`,
//!   `gclid`, `dclid`, `msclkid`, `mc_cid`, `mc_eid`, `igshid`, `yclid`,
//!   `_ga`, `_gl`, `_hsenc`, `_hsmi`, `ref`, `ref_src`, `spm`, `si`, …); the
//!   remaining parameters sorted;
//! * AMP variants folded: `/amp` and `/amp/` path segments, `.amp.html`,
//!   `?amp`, `?amp=1`, `?outputType=amp`, Google AMP viewer
//!   (`google.com/amp/s/<host>/<path>`) and AMP cache
//!   (`<x>.cdn.ampproject.org/c/s/<host>/<path>`) URLs;
//! * trailing slash and `index.html`/`index.php` dropped, duplicate slashes merged.

use url::Url;
use verity_core::{Error, Result};

/// Query parameters removed (exact names, compared lower-cased).
const TRACKING: &[&str] = &[
    "fbclid",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "igshid",
    "yclid",
    "twclid",
    "ttclid",
    "li_fat_id",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "__hssc",
    "__hstc",
    "__hsfp",
    "hsctatracking",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "vero_conv",
    "ref",
    "ref_src",
    "ref_url",
    "referrer",
    "source",
    "spm",
    "si",
    "cmpid",
    "wt_mc",
    "wt.mc_id",
    "s_cid",
    "icid",
    "ncid",
    "sr_share",
    "share",
    "feature",
    "amp",
    "outputtype",
    "amp_js_v",
    "usqp",
    "__twitter_impression",
    "at_medium",
    "at_campaign",
];

/// Query parameter prefixes removed.
const TRACKING_PREFIXES: &[&str] = &["utm_", "pk_", "mtm_", "hmb_", "at_"];

fn is_tracking(name: &str, value: &str) -> bool {
    let n = name.to_ascii_lowercase();
    if n == "outputtype" {
        return value.eq_ignore_ascii_case("amp");
    }
    if n == "source" || n == "feature" || n == "share" {
        // Only the well-known tracking values: `source` is a real parameter on many sites.
        let v = value.to_ascii_lowercase();
        return matches!(
            v.as_str(),
            "rss"
                | "twitter"
                | "facebook"
                | "linkedin"
                | "share"
                | "email"
                | "newsletter"
                | "feed"
                | "youtu.be"
                | "shared"
        );
    }
    TRACKING.contains(&n.as_str()) || TRACKING_PREFIXES.iter().any(|p| n.starts_with(p))
}

/// Parse a user-given URL, adding `https://` when the scheme is missing.
pub fn parse_url(input: &str) -> Result<Url> {
    let s = input.trim();
    if s.is_empty() {
        return Err(Error::invalid_input("`url` must not be empty"));
    }
    let parsed = match Url::parse(s) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            Url::parse(&format!("https://{s}")).map_err(|e| invalid(s, &e.to_string()))?
        }
        Err(e) => return Err(invalid(s, &e.to_string())),
    };
    match parsed.scheme() {
        "http" | "https" if parsed.host_str().is_some_and(|h| !h.is_empty()) => Ok(parsed),
        "http" | "https" => Err(invalid(s, "no host")),
        other => Err(invalid(
            s,
            &format!("scheme `{other}` is not http or https"),
        )),
    }
}

fn invalid(url: &str, message: &str) -> Error {
    Error::invalid_input(format!("invalid URL `{url}`: {message}"))
}

/// The canonical form of an article URL (see the module docs).
pub fn canonical_url(input: &str) -> Result<String> {
    let mut u = parse_url(input)?;
    // Unwrap AMP viewers and caches: the article lives at the embedded URL.
    if let Some(inner) = unwrap_amp_proxy(&u) {
        u = inner;
    }
    let host = u.host_str().unwrap_or("").to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    let host = host
        .strip_prefix("www.")
        .or_else(|| host.strip_prefix("amp."))
        .unwrap_or(host)
        .to_string();
    let port = u.port().filter(|p| *p != 80 && *p != 443);
    // Path: merge slashes, drop AMP segments and index pages, no trailing slash.
    let mut segs: Vec<String> = u
        .path()
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    segs.retain(|s| !s.eq_ignore_ascii_case("amp"));
    if let Some(last) = segs.last_mut() {
        let lower = last.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "index.html" | "index.htm" | "index.php" | "amp.html"
        ) {
            segs.pop();
        } else if let Some(stem) = lower.strip_suffix(".amp.html") {
            *last = format!("{}.html", &last[..stem.len()]);
        } else if let Some(stem) = lower.strip_suffix(".amp") {
            *last = last[..stem.len()].to_string();
        }
    }
    let mut params: Vec<(String, String)> = u
        .query_pairs()
        .filter(|(k, v)| !k.is_empty() && !is_tracking(k, v))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    params.sort();
    params.dedup();
    let mut out = String::with_capacity(input.len());
    out.push_str("https://");
    out.push_str(&host);
    if let Some(p) = port {
        out.push(':');
        out.push_str(&p.to_string());
    }
    out.push('/');
    out.push_str(&segs.join("/"));
    if !params.is_empty() {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter())
            .finish();
        out.push('?');
        out.push_str(&q);
    }
    Ok(out)
}

/// `google.com/amp/s/example.com/a` and `example-com.cdn.ampproject.org/c/s/example.com/a`
/// → `https://example.com/a`.
fn unwrap_amp_proxy(u: &Url) -> Option<Url> {
    let host = u.host_str()?.to_ascii_lowercase();
    let path = u.path();
    let rest = if host.ends_with(".cdn.ampproject.org") {
        path.strip_prefix("/c/s/")
            .map(|r| (r, "https"))
            .or_else(|| path.strip_prefix("/v/s/").map(|r| (r, "https")))
            .or_else(|| path.strip_prefix("/c/").map(|r| (r, "http")))
    } else if host == "google.com" || host == "www.google.com" {
        path.strip_prefix("/amp/s/")
            .map(|r| (r, "https"))
            .or_else(|| path.strip_prefix("/amp/").map(|r| (r, "http")))
    } else {
        None
    }?;
    let (rest, scheme) = rest;
    let mut inner = format!("{scheme}://{rest}");
    if let Some(q) = u.query() {
        inner.push('?');
        inner.push_str(q);
    }
    Url::parse(&inner).ok().filter(|i| i.host_str().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real-world variants → the canonical form they must fold to.
    const TABLE: &[(&str, &str)] = &[
        ("https://blog.ollama.com/ollama-0-5", "https://blog.ollama.com/ollama-0-5"),
        ("http://blog.ollama.com/ollama-0-5/", "https://blog.ollama.com/ollama-0-5"),
        ("HTTPS://Blog.Ollama.COM:443/ollama-0-5#performance", "https://blog.ollama.com/ollama-0-5"),
        ("https://blog.ollama.com/ollama-0-5?utm_source=twitter&utm_medium=social&utm_campaign=launch", "https://blog.ollama.com/ollama-0-5"),
        ("https://blog.ollama.com/ollama-0-5?fbclid=IwAR2x", "https://blog.ollama.com/ollama-0-5"),
        ("https://blog.ollama.com/ollama-0-5/?gclid=Cj0KCQ&_ga=2.1&mc_cid=9&mc_eid=1", "https://blog.ollama.com/ollama-0-5"),
        ("blog.ollama.com/ollama-0-5", "https://blog.ollama.com/ollama-0-5"),
        ("https://www.theverge.com/2024/12/5/ai-news", "https://theverge.com/2024/12/5/ai-news"),
        ("http://theverge.com:80//2024/12/5/ai-news/", "https://theverge.com/2024/12/5/ai-news"),
        ("https://www.theguardian.com/technology/2024/dec/05/ai-story/amp", "https://theguardian.com/technology/2024/dec/05/ai-story"),
        ("https://amp.theguardian.com/technology/2024/dec/05/ai-story", "https://theguardian.com/technology/2024/dec/05/ai-story"),
        ("https://www.bbc.co.uk/news/technology-12345.amp", "https://bbc.co.uk/news/technology-12345"),
        ("https://example.com/amp/2024/story.html", "https://example.com/2024/story.html"),
        ("https://example.com/2024/story.amp.html", "https://example.com/2024/story.html"),
        ("https://example.com/2024/story?amp=1", "https://example.com/2024/story"),
        ("https://example.com/2024/story?outputType=amp", "https://example.com/2024/story"),
        ("https://www.google.com/amp/s/example.com/2024/story/amp/", "https://example.com/2024/story"),
        ("https://example-com.cdn.ampproject.org/c/s/example.com/2024/story?amp", "https://example.com/2024/story"),
        ("https://example.com/blog/index.html", "https://example.com/blog"),
        ("https://example.com:8443/post/", "https://example.com:8443/post"),
        ("https://news.ycombinator.com/item?id=42345&utm_source=hn", "https://news.ycombinator.com/item?id=42345"),
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ&feature=youtu.be&si=abc", "https://youtube.com/watch?v=dQw4w9WgXcQ"),
        ("https://example.com/search?b=2&a=1", "https://example.com/search?a=1&b=2"),
        ("https://example.com/p?source=rss&id=3", "https://example.com/p?id=3"),
        ("https://example.com/p?source=docs", "https://example.com/p?source=docs"),
        ("https://www.reddit.com/r/LocalLLaMA/comments/abc123/ollama_05/?share_id=x&utm_content=1", "https://reddit.com/r/LocalLLaMA/comments/abc123/ollama_05?share_id=x"),
        ("https://BÜCHER.example/Ä", "https://xn--bcher-kva.example/%C3%84"),
    ];

    #[test]
    fn real_world_variants_fold() {
        for (input, want) in TABLE {
            assert_eq!(canonical_url(input).unwrap(), *want, "{input}");
        }
    }

    #[test]
    fn path_case_and_different_articles_stay_apart() {
        assert_ne!(
            canonical_url("https://example.com/Post").unwrap(),
            canonical_url("https://example.com/post").unwrap()
        );
        assert_ne!(
            canonical_url("https://example.com/item?id=1").unwrap(),
            canonical_url("https://example.com/item?id=2").unwrap()
        );
    }

    #[test]
    fn bad_urls_are_typed_errors() {
        for bad in [
            "",
            "   ",
            "ftp://example.com/x",
            "mailto:a@b.c",
            "https://",
            "http://[::1",
        ] {
            let e = canonical_url(bad).unwrap_err();
            assert_eq!(e.code(), "invalid_input", "{bad}: {e}");
        }
    }
}
