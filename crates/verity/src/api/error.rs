//! One table from error kinds to what each host reports.
//!
//! Every [`Error`] has a stable [`Error::code`]. [`ErrorMapping::for_code`]
//! gives, for each code, the CLI exit status, the HTTP status, the Python
//! exception class (in `verity.errors`), the JS `code` and the JSON-RPC (MCP)
//! error code. Hosts never write their own `match` on codes: they read this
//! table, and their tests check it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::ToolError;
use crate::Error;

/// CLI exit statuses that are not errors of the library.
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// Any failure without a more precise status.
    pub const FAILURE: u8 = 1;
    /// The command ran but left something out (a file, a record, a URL).
    pub const PARTIAL: u8 = 7;
    /// A re-index was refused by its evaluation gate.
    pub const GATE_FAILED: u8 = 8;
}

/// How one error code is reported by each host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ErrorMapping {
    /// The [`Error::code`].
    pub code: &'static str,
    /// The JS `err.code` (the error code itself).
    pub js_code: &'static str,
    /// CLI exit status.
    pub exit_code: u8,
    /// HTTP status of the REST server (a client mistake is never a 5xx).
    pub http_status: u16,
    /// Exception class in the Python module `verity.errors`.
    pub python_class: &'static str,
    /// JSON-RPC error code of the MCP server.
    pub jsonrpc_code: i32,
}

impl ErrorMapping {
    /// The mapping of `code`; unknown codes map like [`INTERNAL`].
    pub fn for_code(code: &str) -> &'static ErrorMapping {
        TABLE.iter().find(|m| m.code == code).unwrap_or(&INTERNAL)
    }

    /// The mapping of an error.
    pub fn of(e: &Error) -> &'static ErrorMapping {
        Self::for_code(e.code())
    }

    /// The mapping of a tool call's error ([`ToolError::code`]).
    pub fn of_tool(e: &ToolError) -> &'static ErrorMapping {
        Self::for_code(e.code())
    }
}

const fn row(
    code: &'static str,
    exit_code: u8,
    http_status: u16,
    python_class: &'static str,
    jsonrpc_code: i32,
) -> ErrorMapping {
    ErrorMapping {
        code,
        js_code: code,
        exit_code,
        http_status,
        python_class,
        jsonrpc_code,
    }
}

/// JSON-RPC "invalid params".
const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC "internal error".
const INTERNAL_ERROR: i32 = -32603;

/// A failure inside Verity itself (a bug, a panic caught at the boundary).
pub const INTERNAL: ErrorMapping = row("internal", 1, 500, "VerityError", INTERNAL_ERROR);

/// Every code [`Error::code`] can return, plus `internal`.
pub const TABLE: &[ErrorMapping] = &[
    row("invalid_input", 3, 400, "InvalidInput", INVALID_PARAMS),
    row("parse_error", 3, 422, "InvalidInput", INVALID_PARAMS),
    row("no_text_layer", 3, 422, "InvalidInput", INVALID_PARAMS),
    // A tool called by a name the registry does not have, or with arguments
    // its input schema refuses: the call never ran. JSON-RPC "invalid params"
    // as the MCP specification asks; REST 404 (no such tool) and 422 (the
    // body does not match the schema, like any REST body).
    row("unknown_tool", 3, 404, "InvalidInput", INVALID_PARAMS),
    row("invalid_arguments", 3, 422, "InvalidInput", INVALID_PARAMS),
    row("not_found", 4, 404, "NotFound", -32004),
    row("model_not_found", 4, 503, "ConfigError", -32006),
    row("unavailable", 5, 503, "Unavailable", -32003),
    row("timeout", 5, 504, "Unavailable", -32008),
    row("fetch_failed", 5, 502, "Unavailable", -32002),
    // The SSRF guard refused the address (private, loopback, link-local,
    // metadata): the client named a URL this host never fetches.
    row("fetch_refused", 3, 400, "InvalidInput", INVALID_PARAMS),
    row("bad_response", 5, 502, "Unavailable", -32005),
    // At request time a configuration error means the server is not set up
    // for what was asked (no SearXNG for web search, no generator model):
    // 503 "unable to handle", not 500 "failed"; not transient either.
    row("config_error", 6, 503, "ConfigError", -32006),
    row("unauthorized", 6, 502, "ConfigError", -32001),
    row("embedder_mismatch", 6, 409, "EmbedderMismatch", -32009),
    row("reindex_required", 6, 409, "EmbedderMismatch", -32009),
    row("store_error", 1, 500, "VerityError", -32010),
    // A panic caught at a host boundary: the request failed inside Verity
    // and will fail again. 422, not 500: it is tied to this input, and a
    // client that retries 5xx would only repeat it.
    row("internal_fault", 1, 422, "VerityError", INTERNAL_ERROR),
    INTERNAL,
];

/// The serializable form of an error, as every host shows it
/// (`{"error": {"code", "message", "transient"}}` in JSON output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// Stable machine-readable code ([`Error::code`]).
    pub code: String,
    /// Human-readable message.
    pub message: String,
    /// Whether retrying the same call later may succeed.
    pub transient: bool,
}

impl ErrorBody {
    /// An error body for a failure caught outside the library (a panic, a task failure).
    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            code: INTERNAL.code.into(),
            message: message.into(),
            transient: false,
        }
    }

    /// How hosts report this error.
    pub fn mapping(&self) -> &'static ErrorMapping {
        ErrorMapping::for_code(&self.code)
    }
}

impl From<&Error> for ErrorBody {
    fn from(e: &Error) -> Self {
        let message = match hint(e) {
            Some(h) => format!("{e} — {h}"),
            None => e.to_string(),
        };
        Self {
            code: e.code().into(),
            message,
            transient: e.is_transient(),
        }
    }
}

/// What to do next about an error whose own message names what happened but
/// not the fix: a service that is down, a missing model, a refused private
/// address. Every host shows it after the message (through [`ErrorBody`]).
pub fn hint(e: &Error) -> Option<&'static str> {
    use crate::core::{FetchError, ProviderErrorKind as K, StoreError};
    match e {
        Error::Provider(p) => match (p.provider.as_str(), p.kind) {
            ("ollama", K::Unavailable | K::Timeout) => Some(
                "is Ollama running? Start it with `ollama serve`, or set OLLAMA_URL to the \
                 address it listens on",
            ),
            ("ollama", K::ModelNotFound) => Some(
                "pull the model first: `ollama pull MODEL:TAG` (`ollama list` shows the \
                 installed ones)",
            ),
            ("openai", K::Auth) => {
                Some("check OPENAI_API_KEY (and OPENAI_BASE_URL for a self-hosted server)")
            }
            ("openai", K::Unavailable | K::Timeout) => Some(
                "check that the server at OPENAI_BASE_URL is up (default https://api.openai.com)",
            ),
            ("searxng", K::Unavailable | K::Timeout | K::BadResponse) => Some(
                "check that SearXNG runs at VERITY_SEARXNG_URL (or SEARXNG_URL) with its JSON \
                 format enabled (`search: formats: [html, json]` in its settings.yml)",
            ),
            _ => None,
        },
        Error::Store(StoreError::Unavailable(m)) if m.contains("redis") => Some(
            "is Redis running? Start it (`docker compose up -d redis`, or `redis-stack-server`), \
             or point --redis / REDIS_URL at it",
        ),
        Error::Fetch(FetchError::Blocked { .. }) => Some(
            "private and loopback addresses are refused by default; for an intranet or a test, \
             allow them with --allow-private (CLI), `allow_private` (bindings, server \
             configuration) or VERITY_ALLOW_PRIVATE=true",
        ),
        _ => None,
    }
}

impl From<Error> for ErrorBody {
    fn from(e: Error) -> Self {
        Self::from(&e)
    }
}

impl From<&ToolError> for ErrorBody {
    fn from(e: &ToolError) -> Self {
        match e {
            ToolError::Failed(e) => Self::from(e),
            other => Self {
                code: other.code().into(),
                message: other.to_string(),
                transient: other.is_transient(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{
        ConfigError, FetchError, ParseError, ProviderError, ProviderErrorKind, StoreError,
    };

    /// One error of each kind `Error::code` distinguishes.
    fn samples() -> Vec<Error> {
        let p = |k| Error::from(ProviderError::new("p", k, "m"));
        vec![
            Error::invalid_input("x"),
            ParseError::Unsupported("x".into()).into(),
            ParseError::NoTextLayer { reason: "x".into() }.into(),
            StoreError::NotFound {
                what: "document",
                id: "x".into(),
            }
            .into(),
            p(ProviderErrorKind::ModelNotFound),
            p(ProviderErrorKind::Unavailable),
            p(ProviderErrorKind::RateLimited),
            Error::Timeout(std::time::Duration::from_secs(1)),
            FetchError::Timeout("u".into()).into(),
            FetchError::Blocked {
                url: "http://127.0.0.1/".into(),
                addr: "127.0.0.1".into(),
                reason: "loopback".into(),
            }
            .into(),
            p(ProviderErrorKind::BadResponse),
            ConfigError::Invalid {
                key: "k".into(),
                message: "m".into(),
            }
            .into(),
            p(ProviderErrorKind::Auth),
            p(ProviderErrorKind::InvalidRequest),
            StoreError::EmbedderMismatch {
                expected: "a".into(),
                found: "b".into(),
            }
            .into(),
            StoreError::ReindexRequired { reason: "r".into() }.into(),
            StoreError::Backend("b".into()).into(),
            Error::from_panic("request", &"boom"),
            ToolError::UnknownTool {
                name: "x".into(),
                available: "a".into(),
            }
            .into(),
            ToolError::InvalidArguments {
                tool: "t".into(),
                message: "m".into(),
            }
            .into(),
        ]
    }

    /// One error of each kind `ToolError::code` distinguishes.
    fn tool_samples() -> Vec<ToolError> {
        vec![
            ToolError::UnknownTool {
                name: "nope".into(),
                available: "search, ask".into(),
            },
            ToolError::InvalidArguments {
                tool: "search".into(),
                message: "query: invalid type".into(),
            },
            ToolError::Failed(Error::invalid_input("x")),
            ToolError::Failed(ProviderError::new("p", ProviderErrorKind::Timeout, "m").into()),
        ]
    }

    #[test]
    fn tool_errors_are_rows_of_the_table() {
        for e in tool_samples() {
            let m = ErrorMapping::of_tool(&e);
            assert_eq!(m.code, e.code(), "{e}: no row for `{}`", e.code());
            let body = ErrorBody::from(&e);
            assert_eq!(body.code, e.code());
            assert_eq!(body.transient, e.is_transient());
            // Into the facade's `Error` (what `call_tool` returns): same code,
            // same message, same row.
            let message = e.to_string();
            let code = e.code();
            let as_error = Error::from(e);
            assert_eq!(as_error.code(), code);
            assert_eq!(as_error.to_string(), message);
            assert_eq!(ErrorMapping::of(&as_error), m);
        }
        // A call that never ran is the caller's mistake: 4xx, "invalid
        // params" for MCP, `InvalidInput` in Python, never transient.
        for code in ["unknown_tool", "invalid_arguments"] {
            let m = ErrorMapping::for_code(code);
            assert!((400..500).contains(&m.http_status), "{code}");
            assert_eq!(m.jsonrpc_code, INVALID_PARAMS, "{code}");
            assert_eq!(m.python_class, "InvalidInput", "{code}");
        }
    }

    #[test]
    fn every_code_has_its_own_row() {
        for e in samples() {
            let m = ErrorMapping::of(&e);
            assert_eq!(m.code, e.code(), "{e}: no row for `{}`", e.code());
        }
        let mut codes: Vec<_> = TABLE.iter().map(|m| m.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), TABLE.len(), "duplicate rows");
    }

    #[test]
    fn client_mistakes_are_never_server_errors() {
        for code in [
            "invalid_input",
            "parse_error",
            "no_text_layer",
            "not_found",
            "fetch_refused",
            "unknown_tool",
            "invalid_arguments",
        ] {
            let m = ErrorMapping::for_code(code);
            assert!((400..500).contains(&m.http_status), "{code}");
            assert!(m.exit_code > 1, "{code}");
        }
        assert_eq!(ErrorMapping::for_code("nonsense"), &INTERNAL);
        // A caught panic is tied to its input: not a 5xx a client would retry.
        assert_eq!(ErrorMapping::for_code("internal_fault").http_status, 422);
    }

    #[test]
    fn hints_name_the_fix() {
        let ollama: Error =
            ProviderError::new("ollama", ProviderErrorKind::Unavailable, "refused").into();
        let m = ErrorBody::from(&ollama).message;
        assert!(
            m.contains("ollama serve") && m.contains("OLLAMA_URL"),
            "{m}"
        );
        let redis: Error =
            StoreError::Unavailable("connecting to redis://127.0.0.1:1: refused".into()).into();
        let b = ErrorBody::from(&redis);
        assert!(b.message.contains("REDIS_URL"), "{}", b.message);
        assert_eq!(b.code, "unavailable");
        assert_eq!(b.mapping().exit_code, 5);
        let blocked: Error = crate::core::FetchError::Blocked {
            url: "http://127.0.0.1/".into(),
            addr: "127.0.0.1".into(),
            reason: "loopback".into(),
        }
        .into();
        assert!(ErrorBody::from(&blocked)
            .message
            .contains("--allow-private"));
        let plain = Error::invalid_input("x");
        assert_eq!(ErrorBody::from(&plain).message, plain.to_string());
    }

    #[test]
    fn body_carries_code_and_transience() {
        let e: Error = ProviderError::new("p", ProviderErrorKind::Timeout, "slow").into();
        let b = ErrorBody::from(&e);
        assert_eq!(b.code, "unavailable");
        assert!(b.transient);
        assert_eq!(b.mapping().http_status, 503);
        let json = serde_json::to_value(&b).unwrap_or_default();
        assert_eq!(json["code"], "unavailable");
    }
}
