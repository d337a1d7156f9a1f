//! Citation verification (seed 002): [`CheckRequest`] in, [`CheckResponse`]
//! (the `verity-verify` [`Report`]) out, rendered by [`render`] in the
//! format a host asks for.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{Error, Result, Verdict};

pub use verity_verify::render::Format;
pub use verity_verify::{
    CheckResult, CitationType, Location, Progress, QuoteContext, Report, SourceStatus, Stage,
    Statistics, Summary, UnavailableSource,
};

/// Largest concurrency a request may ask for.
pub const MAX_CONCURRENCY: usize = 32;

/// Sources fetched (and claims judged) at once when a request does not say.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// CLI exit status of `verity check` when a claim has a `--fail-on` verdict.
pub const EXIT_FAIL_ON: u8 = 9;

/// Output format of a report (`verity check --format`, `format` of `POST /v1/verify`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    /// The report as JSON: the default of the APIs.
    #[default]
    Json,
    /// Markdown.
    Md,
    /// A self-contained HTML page (no network; verdict badges, quotes in context, filters).
    Html,
    /// Plain text for a terminal (a table per claim).
    Terminal,
}

impl std::str::FromStr for ReportFormat {
    type Err = Error;
    /// `json`, `md` (`markdown`), `html`, `terminal` (`text`).
    fn from_str(s: &str) -> Result<Self> {
        match Format::parse(s) {
            Some(Format::Json) => Ok(Self::Json),
            Some(Format::Markdown) => Ok(Self::Md),
            Some(Format::Html) => Ok(Self::Html),
            Some(Format::Terminal { .. }) => Ok(Self::Terminal),
            None => Err(Error::invalid_input(format!(
                "report format `{s}`: expected terminal, json, markdown (md) or html"
            ))),
        }
    }
}

impl ReportFormat {
    /// The MIME type of a report in this format.
    pub fn mime(self) -> &'static str {
        match self {
            Self::Json => "application/json",
            Self::Md => "text/markdown; charset=utf-8",
            Self::Html => "text/html; charset=utf-8",
            Self::Terminal => "text/plain; charset=utf-8",
        }
    }
}

/// Which judge decides (`auto`: the LLM judge over the configured generator
/// when it is a model, else the local judge).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JudgeChoice {
    /// The LLM judge when a model generator is configured, else the local one.
    #[default]
    Auto,
    /// The deterministic local judge (numbers, negation, coverage; no model).
    Local,
    /// The LLM judge over the configured generator (an error when it is `extractive`).
    Llm,
}

/// Check the citations of one document (`verity check`, `POST /v1/verify`,
/// `verity.check`). Exactly one of `content`, `content_base64`, `url` or
/// `path` is given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The document as text (Markdown, HTML or plain text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The document's bytes in base64 (PDF, or any format), e.g. an uploaded file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_base64: Option<String>,
    /// An http(s) URL of the document, fetched with the shared fetcher.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A local file (CLI and bindings; servers read files only under their roots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `markdown`, `html`, `text`, `pdf` or a MIME type; sniffed when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// File name of an uploaded document (helps sniffing its format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How hosts render the report (default `json`; the facade always returns the report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ReportFormat>,
    /// Sources fetched and claims judged at once (1–32, default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 32))]
    pub concurrency: Option<usize>,
    /// Which judge decides (default `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeChoice>,
    /// Let the document URL and the cited sources be on private or loopback
    /// addresses (disables the SSRF guard for this check; default `false`).
    /// For tests and intranets; servers accept it only when their operator allows it.
    #[serde(default)]
    pub allow_private: bool,
}

/// The report of a check: summary, one result per claim, statistics.
pub type CheckResponse = Report;

/// Where the document of a [`CheckRequest`] comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckInput<'a> {
    /// Text.
    Content(&'a str),
    /// Bytes (decoded from base64).
    Bytes(Vec<u8>),
    /// A URL.
    Url(url::Url),
    /// A local file.
    Path(&'a str),
}

impl CheckRequest {
    /// A request for a text document of `content_type` (`markdown`, `html`, `text`).
    pub fn content(content: impl Into<String>, content_type: Option<&str>) -> Self {
        Self {
            content: Some(content.into()),
            content_type: content_type.map(str::to_string),
            ..Self::default()
        }
    }

    /// A request for the document at `url`.
    pub fn url(url: impl Into<String>) -> Self {
        Self {
            url: Some(url.into()),
            ..Self::default()
        }
    }

    /// A request for a local file or an http(s) URL (what `verity check TARGET` takes).
    pub fn target(target: &str) -> Self {
        if crate::config::is_url(target) {
            Self::url(target)
        } else {
            Self {
                path: Some(target.to_string()),
                ..Self::default()
            }
        }
    }

    /// The concurrency to use (default 4), refused outside 1–32.
    pub fn concurrency(&self) -> Result<usize> {
        match self.concurrency {
            None => Ok(DEFAULT_CONCURRENCY),
            Some(n) if (1..=MAX_CONCURRENCY).contains(&n) => Ok(n),
            Some(n) => Err(Error::invalid_input(format!(
                "concurrency {n}: expected 1 to {MAX_CONCURRENCY}"
            ))),
        }
    }

    /// The one input the request names, checked (exactly one; a valid http(s) URL).
    pub fn input(&self) -> Result<CheckInput<'_>> {
        let given = [
            self.content.is_some(),
            self.content_base64.is_some(),
            self.url.is_some(),
            self.path.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        if given != 1 {
            return Err(Error::invalid_input(format!(
                "give exactly one of `content`, `content_base64`, `url` or `path` ({given} given)"
            )));
        }
        if let Some(c) = &self.content {
            return Ok(CheckInput::Content(c));
        }
        if let Some(b) = &self.content_base64 {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .map_err(|e| Error::invalid_input(format!("`content_base64`: {e}")))?;
            return Ok(CheckInput::Bytes(bytes));
        }
        if let Some(u) = &self.url {
            let parsed = url::Url::parse(u.trim())
                .map_err(|e| Error::invalid_input(format!("`url` `{u}`: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(Error::invalid_input(format!(
                    "`url` `{u}`: expected an http(s) URL"
                )));
            }
            return Ok(CheckInput::Url(parsed));
        }
        match &self.path {
            Some(p) if !p.trim().is_empty() => Ok(CheckInput::Path(p)),
            _ => Err(Error::invalid_input("`path` is empty")),
        }
    }
}

/// A progress callback that ignores progress (`verity.check(&req, &ignore_progress)`).
pub fn ignore_progress(_: Progress) {}

/// Render a report in `format` (terminal colours only when `color`).
pub fn render(report: &Report, format: ReportFormat, color: bool) -> String {
    use verity_verify::render as r;
    match format {
        ReportFormat::Json => r::json(report),
        ReportFormat::Md => r::markdown(report),
        ReportFormat::Html => r::html(report),
        ReportFormat::Terminal => r::terminal(report, color),
    }
}

/// Parse a `--fail-on` list (`not_supported,partial,…`; `none` for no verdict).
pub fn parse_verdicts(list: &[String]) -> Result<Vec<Verdict>> {
    let mut out = Vec::new();
    for item in list
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        if item.eq_ignore_ascii_case("none") {
            continue;
        }
        let v = Verdict::parse(item).or_else(|| {
            item.eq_ignore_ascii_case("unavailable")
                .then_some(Verdict::SourceUnavailable)
        });
        match v {
            Some(v) => out.push(v),
            None => {
                return Err(Error::invalid_input(format!(
                    "verdict `{item}`: expected supported, not_supported, partial, inconclusive or unavailable"
                )))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_input_and_valid_urls() {
        assert!(CheckRequest::default().input().is_err());
        let both = CheckRequest {
            content: Some("x".into()),
            url: Some("https://example.org".into()),
            ..CheckRequest::default()
        };
        assert_eq!(both.input().err().map(|e| e.code()), Some("invalid_input"));
        assert!(CheckRequest::url("ftp://example.org/x").input().is_err());
        assert!(CheckRequest::url("not a url").input().is_err());
        assert!(matches!(
            CheckRequest::url("https://example.org/a").input(),
            Ok(CheckInput::Url(_))
        ));
        let b64 = CheckRequest {
            content_base64: Some("aGVsbG8=".into()),
            ..CheckRequest::default()
        };
        assert_eq!(b64.input().ok(), Some(CheckInput::Bytes(b"hello".to_vec())));
        assert!(CheckRequest::target("notes.md").path.is_some());
    }

    #[test]
    fn unknown_fields_and_bad_concurrency_are_refused() {
        let r: std::result::Result<CheckRequest, _> =
            serde_json::from_value(serde_json::json!({"content": "x", "verbose": true}));
        assert!(r.is_err());
        let mut req = CheckRequest::content("x", None);
        assert_eq!(req.concurrency().ok(), Some(DEFAULT_CONCURRENCY));
        req.concurrency = Some(0);
        assert!(req.concurrency().is_err());
        req.concurrency = Some(33);
        assert!(req.concurrency().is_err());
    }

    #[test]
    fn verdict_lists_and_formats_parse() {
        let v = parse_verdicts(&["not_supported,partial".into(), "unavailable".into()]);
        assert_eq!(
            v.ok(),
            Some(vec![
                Verdict::NotSupported,
                Verdict::Partial,
                Verdict::SourceUnavailable
            ])
        );
        assert_eq!(parse_verdicts(&["none".into()]).ok(), Some(vec![]));
        assert!(parse_verdicts(&["maybe".into()]).is_err());
        assert_eq!("md".parse::<ReportFormat>().ok(), Some(ReportFormat::Md));
        assert!("pdf".parse::<ReportFormat>().is_err());
    }
}

pub use verity_verify::eval::{
    ConfusionRow, DistortionEval, EvalSet, SciFactEval, SpeedEval, VerifyEval,
};

/// `verity eval verify`: verification quality and speed on the evaluation
/// data (`dir` holds `scifact/` and `article-extraction/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalVerifyRequest {
    /// Data directory (`shared/data`).
    pub dir: std::path::PathBuf,
    /// Sets to run (default: all).
    pub sets: Vec<EvalSet>,
    /// SciFact: first N claims; distortion: first N pages.
    pub limit: Option<usize>,
    /// Citations in the speed document (default 200).
    pub citations: Option<usize>,
    /// Which judge (default: as `verity check`).
    pub judge: JudgeChoice,
}
