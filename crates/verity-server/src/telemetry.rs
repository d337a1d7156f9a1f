//! Logging: text or JSON lines on stderr, `RUST_LOG` filter (default
//! [`DEFAULT_FILTER`], or `LOG_LEVEL` as a level); colours only when stderr
//! is a terminal (a log file or `docker logs` gets plain text); with the
//! `otlp` feature and `OTEL_EXPORTER_OTLP_ENDPOINT` set, spans are also
//! exported over OTLP. All three are read by the configuration
//! ([`ServerConfig`]), not here.

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::{LogFormat, ServerConfig};

/// The filter without `RUST_LOG`: `info`, except third-party crates whose
/// INFO lines are noise to an operator (the HNSW index prints 16 at start).
pub const DEFAULT_FILTER: &str = "info,hnsw_rs=warn";

/// The filter: `directives` (the configuration's `RUST_LOG`) when set and
/// valid, else `level` (its `LOG_LEVEL`: `debug`, `info`, `warn`, …) with
/// the same third-party quieting, else [`DEFAULT_FILTER`].
fn filter(directives: Option<&str>, level: Option<&str>) -> EnvFilter {
    if let Some(f) = directives.and_then(|d| EnvFilter::try_new(d).ok()) {
        return f;
    }
    let level = level
        .map(|l| l.trim().to_ascii_lowercase())
        .filter(|l| matches!(l.as_str(), "trace" | "debug" | "info" | "warn" | "error"));
    match level {
        Some(l) => EnvFilter::new(format!("{l},hnsw_rs=warn")),
        None => EnvFilter::new(DEFAULT_FILTER),
    }
}

/// Install the global subscriber (once; later calls do nothing) with the
/// log settings of the configuration ([`ServerConfig::log_format`],
/// [`ServerConfig::log_filter`], [`ServerConfig::log_level`],
/// [`ServerConfig::otlp_endpoint`]).
pub fn init(config: &ServerConfig) {
    let filter = filter(config.log_filter.as_deref(), config.log_level.as_deref());
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = match config.log_format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(ansi)
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    let registry = tracing_subscriber::registry().with(filter).with(fmt);
    #[cfg(feature = "otlp")]
    let registry = registry.with(config.otlp_endpoint.as_deref().and_then(otlp::layer));
    let _ = registry.try_init();
}

#[cfg(feature = "otlp")]
mod otlp {
    use opentelemetry::trace::TracerProvider as _;
    use tracing_subscriber::Layer;

    /// An OTLP/HTTP export layer sending spans to `endpoint` (the full URL,
    /// [`ServerConfig::otlp_endpoint`](crate::config::ServerConfig::otlp_endpoint)).
    pub fn layer<S>(endpoint: &str) -> Option<Box<dyn Layer<S> + Send + Sync>>
    where
        S: tracing::Subscriber + Send + Sync + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        use opentelemetry_otlp::WithExportConfig;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_endpoint(endpoint)
            .build()
            .map_err(|e| eprintln!("OTLP export disabled: {e}"))
            .ok()?;
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .build();
        let tracer = provider.tracer("verity-server");
        opentelemetry::global::set_tracer_provider(provider);
        Some(tracing_opentelemetry::layer().with_tracer(tracer).boxed())
    }
}
