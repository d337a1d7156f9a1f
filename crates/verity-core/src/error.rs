//! Typed errors: one enum per concern, folded into [`Error`].
//!
//! Every error can say whether it is worth retrying ([`Error::is_transient`])
//! and gives a stable machine-readable [`Error::code`] that the CLI, the REST
//! server and the Python/Node bindings map to exit codes, HTTP statuses and
//! exception classes.

use std::path::PathBuf;

/// Result alias used across Verity.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The top-level error of every Verity API.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller's input is wrong (malformed document, bad argument, …).
    #[error(transparent)]
    Input(#[from] InputError),
    /// A storage backend failed or refused an operation.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A model or service provider (embedder, generator, search engine) failed.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// Fetching a remote source failed.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// A document could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Configuration is invalid or incomplete.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The caller cancelled or a deadline elapsed.
    #[error("operation timed out after {0:?}")]
    Timeout(std::time::Duration),
    /// Verity itself failed on this input (a panic caught at a host boundary:
    /// a bug). The same call fails again; it is reported, never retried.
    #[error("Verity failed while handling this {during} (an internal fault, please report it: {message})")]
    Fault {
        /// What was being handled (`request`, `tool call`, …).
        during: String,
        /// The panic message.
        message: String,
    },
}

impl Error {
    /// `true` when retrying the same call later may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Provider(e) => e.is_transient(),
            Error::Fetch(e) => e.is_transient(),
            Error::Store(e) => e.is_transient(),
            Error::Timeout(_) => true,
            Error::Input(_) | Error::Parse(_) | Error::Config(_) | Error::Fault { .. } => false,
        }
    }

    /// The delay the server asked for before a retry (`Retry-After`), if any.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            Error::Provider(e) => e.retry_after,
            Error::Fetch(FetchError::Http { retry_after, .. }) => *retry_after,
            _ => None,
        }
    }

    /// Stable, machine-readable error code (`snake_case`), used by bindings
    /// (`err.code` in JS, exception class in Python) and the REST server.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Input(InputError::UnknownTool { .. }) => "unknown_tool",
            Error::Input(InputError::InvalidArguments { .. }) => "invalid_arguments",
            Error::Input(_) => "invalid_input",
            Error::Store(StoreError::NotFound { .. }) => "not_found",
            Error::Store(StoreError::EmbedderMismatch { .. }) => "embedder_mismatch",
            Error::Store(StoreError::ReindexRequired { .. }) => "reindex_required",
            // A store that cannot be reached (Redis down) is a service being
            // unavailable, like a provider: exit 5, HTTP 503, transient.
            Error::Store(StoreError::Unavailable(_)) => "unavailable",
            Error::Store(_) => "store_error",
            Error::Provider(e) => match e.kind {
                ProviderErrorKind::Unavailable
                | ProviderErrorKind::Timeout
                | ProviderErrorKind::RateLimited => "unavailable",
                ProviderErrorKind::ModelNotFound => "model_not_found",
                ProviderErrorKind::Auth => "unauthorized",
                ProviderErrorKind::InvalidRequest => "invalid_input",
                ProviderErrorKind::BadResponse => "bad_response",
            },
            // The address was refused before any connection: the same URL
            // is refused again, whoever asks (a client mistake, not a 502).
            Error::Fetch(FetchError::Blocked { .. }) => "fetch_refused",
            Error::Fetch(_) => "fetch_failed",
            Error::Parse(ParseError::NoTextLayer { .. }) => "no_text_layer",
            Error::Parse(_) => "parse_error",
            Error::Config(_) => "config_error",
            Error::Timeout(_) => "timeout",
            Error::Fault { .. } => "internal_fault",
        }
    }

    /// The typed error of a caught panic (`payload` from
    /// `std::panic::catch_unwind` or a task's `JoinError::into_panic`).
    pub fn from_panic(during: &str, payload: &(dyn std::any::Any + Send)) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic without a message".into());
        // Keep the message short: it may quote user text.
        let message: String = message.chars().take(300).collect();
        Error::Fault {
            during: during.into(),
            message,
        }
    }

    /// Shorthand for an [`InputError::Invalid`].
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Error::Input(InputError::Invalid(message.into()))
    }
}

/// Problems with what the caller handed in.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A JSONL line could not be decoded into a document.
    #[error("{path}:{line}: malformed JSONL record: {message}")]
    MalformedRecord {
        /// File the record came from.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {message}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The underlying reason.
        message: String,
    },
    /// A file is binary or in a format Verity does not read.
    #[error("{path}: unsupported or binary content ({detail})")]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What was detected.
        detail: String,
    },
    /// Text is not valid UTF-8 where UTF-8 is required.
    #[error("invalid UTF-8: {0}")]
    InvalidUtf8(String),
    /// A document handed to a store is inconsistent (empty uid, chunks out
    /// of order, vectors not matching its chunks, non-finite vectors, …); see
    /// [`crate::validate::validate_batch`].
    #[error("invalid document `{uid}`: {reason}")]
    InvalidDocument {
        /// The document's uid.
        uid: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other invalid argument or value.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A tool was called by a name no registry entry has (code `unknown_tool`).
    #[error("unknown tool `{name}`; available: {available}")]
    UnknownTool {
        /// The name asked for (cut to 80 characters).
        name: String,
        /// The registered names, comma-separated.
        available: String,
    },
    /// A tool's arguments do not match its input schema (code `invalid_arguments`).
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, as serde reports it (field, expected type, unknown field).
        message: String,
    },
    /// One named field of a request is invalid (hosts report `field` as the
    /// error location: REST `loc`, MCP argument, binding attribute).
    #[error("invalid `{field}`: {message}")]
    Field {
        /// The field, as the caller spelled it (`filter_metadata`, `embedding`, …).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl InputError {
    /// Shorthand for [`InputError::Field`].
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Field {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The field this error names, when it names one.
    pub fn field_name(&self) -> Option<&str> {
        match self {
            InputError::Field { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// Storage backend errors.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The index was built with another embedder; mixing vectors is refused.
    #[error("embedder mismatch: the index was built with `{expected}`, got `{found}` (re-index to switch embedders)")]
    EmbedderMismatch {
        /// Embedder recorded in the index.
        expected: String,
        /// Embedder offered by the caller.
        found: String,
    },
    /// Content was indexed with another `embed_version` or chunking: a full re-index is needed.
    #[error("re-index required: {reason}")]
    ReindexRequired {
        /// Why.
        reason: String,
    },
    /// The requested item does not exist.
    #[error("{what} not found: {id}")]
    NotFound {
        /// Kind of item (`document`, `index`, `alias`, …).
        what: &'static str,
        /// Its identifier.
        id: String,
    },
    /// Stored data is damaged (a dump that does not load, a bad blob, …).
    #[error("corrupt store data: {0}")]
    Corrupt(String),
    /// The backend is temporarily unreachable or busy (retry may help).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Any other backend failure.
    #[error("store error: {0}")]
    Backend(String),
}

impl StoreError {
    /// `true` when the failure is temporary.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

/// What went wrong with a provider call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderErrorKind {
    /// Server unreachable, connection refused or dropped, 5xx.
    Unavailable,
    /// The call exceeded its deadline.
    Timeout,
    /// The server asked us to slow down (429).
    RateLimited,
    /// The requested model is not installed / not served.
    ModelNotFound,
    /// Credentials missing or refused (401/403).
    Auth,
    /// The request itself was rejected (400, unsupported option, too long).
    InvalidRequest,
    /// The server answered something that violates the protocol or the
    /// contract (wrong dimension, NaN, unparseable JSON).
    BadResponse,
}

impl ProviderErrorKind {
    /// Whether this kind of failure is worth retrying.
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            ProviderErrorKind::Unavailable
                | ProviderErrorKind::Timeout
                | ProviderErrorKind::RateLimited
        )
    }
}

/// An embedder, generator or search provider failed.
#[derive(Debug, thiserror::Error)]
#[error("{provider}: {kind:?}: {message}")]
pub struct ProviderError {
    /// Provider name (`ollama`, `openai`, `local`, `searxng`, …).
    pub provider: String,
    /// Failure class.
    pub kind: ProviderErrorKind,
    /// Human-readable detail.
    pub message: String,
    /// The delay the server asked for (`Retry-After`), honoured by
    /// [`RetryPolicy`](crate::RetryPolicy) up to its cap.
    pub retry_after: Option<std::time::Duration>,
}

impl ProviderError {
    /// Build a provider error.
    pub fn new(
        provider: impl Into<String>,
        kind: ProviderErrorKind,
        message: impl Into<String>,
    ) -> Self {
        Self {
            provider: provider.into(),
            kind,
            message: message.into(),
            retry_after: None,
        }
    }

    /// Attach the server's `Retry-After` hint.
    pub fn with_retry_after(mut self, after: Option<std::time::Duration>) -> Self {
        self.retry_after = after;
        self
    }

    /// Whether a retry may succeed.
    pub fn is_transient(&self) -> bool {
        self.kind.is_transient()
    }
}

/// Fetching a source failed before any content could be used.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL is malformed or uses an unsupported scheme.
    #[error("invalid URL `{url}`: {message}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it is refused.
        message: String,
    },
    /// The SSRF guard refused the target (private, loopback, link-local, metadata …).
    #[error("refused by the network guard: {url} resolves to {addr} ({reason})")]
    Blocked {
        /// The URL.
        url: String,
        /// The address that was refused.
        addr: String,
        /// Which rule refused it.
        reason: String,
    },
    /// robots.txt disallows the URL.
    #[error("disallowed by robots.txt: {0}")]
    RobotsDisallowed(String),
    /// Network-level failure (DNS, connect, reset).
    #[error("network error fetching {url}: {message}")]
    Network {
        /// The URL.
        url: String,
        /// Detail.
        message: String,
    },
    /// The deadline elapsed.
    #[error("timed out fetching {0}")]
    Timeout(String),
    /// The body exceeded the configured size cap.
    #[error("{url}: body larger than {limit} bytes")]
    TooLarge {
        /// The URL.
        url: String,
        /// Cap in bytes.
        limit: u64,
    },
    /// The server answered with an HTTP error status.
    #[error("{url}: HTTP {status}")]
    Http {
        /// The URL.
        url: String,
        /// HTTP status code.
        status: u16,
        /// The server's `Retry-After` hint (429, 503), if any.
        retry_after: Option<std::time::Duration>,
    },
    /// Too many redirects.
    #[error("{0}: too many redirects")]
    TooManyRedirects(String),
}

impl FetchError {
    /// Whether a retry may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            FetchError::Network { .. } | FetchError::Timeout(_) => true,
            FetchError::Http { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }
}

/// A document could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The PDF has no extractable text layer (image-only or encrypted).
    #[error("no text layer: {reason}")]
    NoTextLayer {
        /// Why (encrypted, scanned, …).
        reason: String,
    },
    /// The document is damaged or not in the declared format.
    #[error("malformed {format}: {message}")]
    Malformed {
        /// Format name (`pdf`, `html`, …).
        format: &'static str,
        /// Detail.
        message: String,
    },
    /// The format is not supported.
    #[error("unsupported format: {0}")]
    Unsupported(String),
}

/// Invalid or missing configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A setting has an invalid value.
    #[error("invalid setting `{key}`: {message}")]
    Invalid {
        /// Setting name.
        key: String,
        /// Why.
        message: String,
    },
    /// A required resource (model file, directory) is missing.
    #[error("missing {what}: {detail}")]
    Missing {
        /// What is missing.
        what: String,
        /// Where it was looked for / how to get it.
        detail: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_classification() {
        let e: Error =
            ProviderError::new("ollama", ProviderErrorKind::Unavailable, "refused").into();
        assert!(e.is_transient());
        assert_eq!(e.code(), "unavailable");
        let e: Error = ProviderError::new("ollama", ProviderErrorKind::ModelNotFound, "x").into();
        assert!(!e.is_transient());
        assert_eq!(e.code(), "model_not_found");
        let e: Error = FetchError::Http {
            url: "u".into(),
            status: 503,
            retry_after: None,
        }
        .into();
        assert!(e.is_transient());
        let e: Error = FetchError::Http {
            url: "u".into(),
            status: 404,
            retry_after: None,
        }
        .into();
        assert!(!e.is_transient());
        let e: Error = StoreError::EmbedderMismatch {
            expected: "a".into(),
            found: "b".into(),
        }
        .into();
        assert_eq!(e.code(), "embedder_mismatch");
        assert!(e.to_string().contains("re-index"));
    }
}
