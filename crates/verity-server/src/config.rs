//! Server configuration: defaults, overridden by a TOML file, then by the
//! environment, then by command-line flags. Printed at start with secrets
//! masked ([`ServerConfig::masked`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use verity::api::ConfigOverrides;

use crate::ServerError;

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (with the request id of each request span).
    Json,
}

impl std::str::FromStr for LogFormat {
    type Err = ServerError;
    fn from_str(s: &str) -> Result<Self, ServerError> {
        match s {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            _ => Err(ServerError::Config(format!(
                "log format `{s}`: expected text or json"
            ))),
        }
    }
}

/// Rate limit per client IP and bearer token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitConfig {
    /// Off only when explicitly disabled.
    pub enabled: bool,
    /// Sustained requests per second per client.
    pub per_second: u32,
    /// Requests a client may send in a burst.
    pub burst: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            per_second: 50,
            burst: 100,
        }
    }
}

/// Everything `verity serve` needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Address to listen on (`VERITY_ADDR`).
    pub addr: SocketAddr,
    /// Accepted bearer tokens (`VERITY_API_TOKENS`, comma-separated). Required
    /// unless the server listens on a loopback address.
    pub tokens: Vec<String>,
    /// Origins allowed by CORS (`VERITY_CORS_ORIGINS`); empty: CORS closed.
    pub cors_origins: Vec<String>,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// Time allowed to produce a response head, in seconds (streams and jobs run on).
    pub request_timeout_secs: f64,
    /// Time in-flight requests and jobs get to finish on shutdown, in seconds.
    pub shutdown_grace_secs: f64,
    /// Ingest batches with more documents than this run as a job (202).
    pub sync_ingest_max: usize,
    /// Directories clients may name files under (`VERITY_ROOTS`, `:`-separated):
    /// ingest paths, `POST /v1/verify` paths, research syllabi. Empty: none.
    pub roots: Vec<PathBuf>,
    /// Longest a research run (`POST /v1/research`) may take, in seconds.
    pub research_timeout_secs: f64,
    /// `Host` values served on every route (DNS-rebinding protection):
    /// `name` (any port) or `name:port`; loopback names by default; `"*"`
    /// turns the check off (behind a proxy that checks Host itself).
    /// Also read under its former name `mcp_allowed_hosts`.
    #[serde(alias = "mcp_allowed_hosts")]
    pub allowed_hosts: Vec<String>,
    /// Rate limit.
    pub rate_limit: RateLimitConfig,
    /// Log format (`--log-format`).
    pub log_format: LogFormat,
    /// Log level when `RUST_LOG` is unset (`LOG_LEVEL`: `trace`, `debug`,
    /// `info`, `warn`, `error`; anything else keeps the default, `info`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    /// Log filter directives (`RUST_LOG`, e.g. `verity=debug,info`); when
    /// set, it wins over `log_level`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_filter: Option<String>,
    /// Export spans over OTLP/HTTP to this URL (feature `otlp`):
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` followed by `/v1/traces` (the
    /// OpenTelemetry convention); unset: no export.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otlp_endpoint: Option<String>,
    /// Private and loopback addresses (`VERITY_ALLOW_PRIVATE`,
    /// `--allow-private`; intranets and tests only): research runs and the
    /// `add_reference`, `crawl_url` and `verify_fact` tools (REST and MCP)
    /// may fetch them, and `POST /v1/verify` clients may set
    /// `allow_private`. Off: the SSRF guard refuses them.
    pub allow_private: bool,
    /// Deprecated name of [`Self::allow_private`] (its research half).
    #[serde(default, skip_serializing)]
    pub allow_private_fetch: Option<bool>,
    /// Deprecated name of [`Self::allow_private`] (its `POST /v1/verify` half).
    #[serde(default, skip_serializing)]
    pub allow_private_sources: Option<bool>,
    /// Deprecation notes gathered while loading (an old key or variable
    /// name that still works); printed at start.
    #[serde(skip)]
    pub notes: Vec<String>,
    /// What the facade opens (the `[verity]` table: home, redis_url, index,
    /// embedder, generator, fallback, k, …), over the facade's environment.
    pub verity: ConfigOverrides,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            tokens: Vec::new(),
            cors_origins: Vec::new(),
            body_limit: 8 * 1024 * 1024,
            request_timeout_secs: 60.0,
            shutdown_grace_secs: 30.0,
            sync_ingest_max: 100,
            roots: Vec::new(),
            research_timeout_secs: 1800.0,
            allowed_hosts: crate::guard::LOOPBACK_HOSTS
                .iter()
                .map(|h| h.to_string())
                .collect(),
            rate_limit: RateLimitConfig::default(),
            log_format: LogFormat::Text,
            log_level: None,
            log_filter: None,
            otlp_endpoint: None,
            allow_private: false,
            allow_private_fetch: None,
            allow_private_sources: None,
            notes: Vec::new(),
            verity: ConfigOverrides::default(),
        }
    }
}

fn list(v: &str, sep: char) -> Vec<String> {
    v.split(sep)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

impl ServerConfig {
    /// Defaults, then the environment, then `file` (TOML) when given: the
    /// file wins, as the facade's [`ConfigOverrides`] win over its environment.
    pub fn load(file: Option<&Path>) -> Result<Self, ServerError> {
        let mut c = Self::default();
        c.apply_env()?;
        let env_notes = std::mem::take(&mut c.notes);
        let mut c = match file {
            None => c,
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| {
                    ServerError::Config(format!(
                        "cannot read the configuration file {}: {e} (check --config / \
                         VERITY_CONFIG; examples/deploy/verity.toml is a commented example)",
                        p.display()
                    ))
                })?;
                c.merge_toml(&text)
                    .map_err(|e| ServerError::Config(format!("{}: {e}", p.display())))?
            }
        };
        c.notes.splice(0..0, env_notes);
        c.fold_deprecated();
        Ok(c)
    }

    /// Fold the deprecated keys into their current names, with a note each.
    pub fn fold_deprecated(&mut self) {
        for (key, value) in [
            ("allow_private_fetch", self.allow_private_fetch.take()),
            ("allow_private_sources", self.allow_private_sources.take()),
        ] {
            if let Some(v) = value {
                self.allow_private |= v;
                self.notes.push(format!(
                    "configuration key `{key}` is deprecated: use `allow_private`"
                ));
            }
        }
    }

    /// Parse a TOML document over the defaults (unknown keys are refused).
    pub fn from_toml(text: &str) -> Result<Self, ServerError> {
        Self::default().merge_toml(text)
    }

    /// This configuration with the keys of a TOML document replaced.
    pub fn merge_toml(&self, text: &str) -> Result<Self, ServerError> {
        let file: toml::Table =
            toml::from_str(text).map_err(|e| ServerError::Config(e.to_string()))?;
        let mut base =
            toml::Table::try_from(self).map_err(|e| ServerError::Config(e.to_string()))?;
        merge(&mut base, file);
        base.try_into()
            .map_err(|e: toml::de::Error| ServerError::Config(e.to_string()))
    }

    /// Override with `VERITY_ADDR`, `AURACORE_PORT` (the port, on the IP of
    /// `VERITY_ADDR` or the default 127.0.0.1), `VERITY_API_TOKENS`, `VERITY_CORS_ORIGINS`,
    /// `VERITY_ALLOWED_HOSTS`, `VERITY_ROOTS`, `VERITY_ALLOW_PRIVATE` (`true`/`1` or
    /// `false`/`0`; formerly `VERITY_ALLOW_PRIVATE_FETCH`), `VERITY_LOG_FORMAT` and `LOG_LEVEL`
    /// (the facade reads its own variables: `VERITY_HOME`, `REDIS_URL`,
    /// `VERITY_GENERATOR`, `SEARXNG_URL`, `JINA_READER_URL`, …).
    pub fn apply_env(&mut self) -> Result<(), ServerError> {
        self.apply_vars(&|k| std::env::var(k).ok())
    }

    /// [`Self::apply_env`] over any source of variables; blank values count as unset.
    pub fn apply_vars(&mut self, vars: &dyn Fn(&str) -> Option<String>) -> Result<(), ServerError> {
        let env = |k: &str| vars(k).filter(|v| !v.trim().is_empty());
        if let Some(v) = env("VERITY_ADDR") {
            self.addr = v.parse().map_err(|_| {
                ServerError::Config(format!(
                    "VERITY_ADDR `{v}`: expected IP:PORT, e.g. 127.0.0.1:8080 or 0.0.0.0:3100"
                ))
            })?;
        }
        if let Some(v) = env("AURACORE_PORT") {
            let port: u16 = v.trim().parse().map_err(|_| {
                ServerError::Config(format!(
                    "AURACORE_PORT `{v}`: expected a port number, e.g. 3100"
                ))
            })?;
            self.addr.set_port(port);
        }
        if let Some(v) = env("VERITY_API_TOKENS") {
            self.tokens = list(&v, ',');
        }
        if let Some(v) = env("VERITY_CORS_ORIGINS") {
            self.cors_origins = list(&v, ',');
        }
        if let Some(v) = env("VERITY_ALLOWED_HOSTS") {
            self.allowed_hosts = list(&v, ',');
        }
        if let Some(v) = env("VERITY_ROOTS") {
            self.roots = list(&v, ':').into_iter().map(PathBuf::from).collect();
        }
        if let Some(v) = env("VERITY_LOG_FORMAT") {
            self.log_format = v.parse()?;
        }
        if let Some(v) = env("LOG_LEVEL") {
            self.log_level = Some(v);
        }
        if let Some(v) = env("RUST_LOG") {
            self.log_filter = Some(v);
        }
        if let Some(v) = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            self.otlp_endpoint = Some(v);
        } else if let Some(v) = env("OTEL_EXPORTER_OTLP_ENDPOINT") {
            self.otlp_endpoint = Some(format!("{}/v1/traces", v.trim_end_matches('/')));
        }
        if let Some(v) = env("VERITY_ALLOW_PRIVATE") {
            self.allow_private = parse_bool("VERITY_ALLOW_PRIVATE", &v)?;
        } else if let Some(v) = env("VERITY_ALLOW_PRIVATE_FETCH") {
            self.allow_private = parse_bool("VERITY_ALLOW_PRIVATE_FETCH", &v)?;
            self.notes
                .push("VERITY_ALLOW_PRIVATE_FETCH is deprecated: use VERITY_ALLOW_PRIVATE".into());
        }
        Ok(())
    }

    /// Refuse configurations that would be unsafe or unusable.
    pub fn validate(&self) -> Result<(), ServerError> {
        if !self.addr.ip().is_loopback() && self.tokens.is_empty() {
            return Err(ServerError::Config(format!(
                "refusing to listen on {} without a bearer token: set `tokens` in the config \
                 file or VERITY_API_TOKENS (or listen on 127.0.0.1)",
                self.addr
            )));
        }
        if let Some(t) = self.tokens.iter().find(|t| !valid_token(t)) {
            return Err(ServerError::Config(format!(
                "token of {} characters refused: tokens need at least 16 visible ASCII characters \
                 and no spaces",
                t.len()
            )));
        }
        if self.body_limit < 1024 {
            return Err(ServerError::Config(
                "body_limit must be at least 1024 bytes".into(),
            ));
        }
        // Written to refuse NaN as well as out-of-range values.
        let timeout_ok = self.request_timeout_secs.is_finite()
            && self.request_timeout_secs > 0.0
            && self.research_timeout_secs.is_finite()
            && self.research_timeout_secs > 0.0;
        let grace_ok = self.shutdown_grace_secs.is_finite() && self.shutdown_grace_secs >= 0.0;
        if !timeout_ok || !grace_ok {
            return Err(ServerError::Config(
                "request_timeout_secs and research_timeout_secs must be > 0 and \
                 shutdown_grace_secs >= 0"
                    .into(),
            ));
        }
        if self.rate_limit.enabled
            && (self.rate_limit.per_second == 0 || self.rate_limit.burst == 0)
        {
            return Err(ServerError::Config(
                "rate_limit.per_second and rate_limit.burst must be > 0 (or enabled = false)"
                    .into(),
            ));
        }
        if self.allowed_hosts.is_empty() {
            return Err(ServerError::Config(
                "allowed_hosts is empty: list the host names clients use (or [\"*\"] to \
                 accept any, behind a proxy that checks Host)"
                    .into(),
            ));
        }
        for o in &self.cors_origins {
            if o == "*" || axum::http::HeaderValue::from_str(o).is_err() || !o.contains("://") {
                return Err(ServerError::Config(format!(
                    "CORS origin `{o}`: expected an origin such as https://app.example.com \
                     (wildcards are refused)"
                )));
            }
        }
        Ok(())
    }

    /// Request timeout.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.request_timeout_secs)
    }

    /// Longest the `research` tool (`/api/tools/research`, MCP) may run:
    /// the request timeout less a margin, so the call ends with a typed
    /// error pointing at `POST /v1/research` rather than the bare timeout.
    pub fn tool_research_limit(&self) -> Duration {
        let t = self.request_timeout();
        t.saturating_sub(Duration::from_secs(2)).max(t / 2)
    }

    /// Longest a research run may take.
    pub fn research_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.research_timeout_secs)
    }

    /// Shutdown grace period.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs_f64(self.shutdown_grace_secs)
    }

    /// The configuration as TOML with every secret masked, for printing at start.
    pub fn masked(&self) -> String {
        let mut c = self.clone();
        c.tokens = c.tokens.iter().map(|t| mask(t)).collect();
        c.verity.redis_url = c.verity.redis_url.as_deref().map(mask_url);
        c.verity.home = c.verity.home.as_deref().map(mask_url);
        c.verity.ollama_url = c.verity.ollama_url.as_deref().map(mask_url);
        c.verity.openai_url = c.verity.openai_url.as_deref().map(mask_url);
        toml::to_string(&c).unwrap_or_else(|e| format!("(configuration not printable: {e})"))
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool, ServerError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ServerError::Config(format!(
            "{key} `{v}`: expected true or false"
        ))),
    }
}

/// Deep merge: tables merge key by key, anything else is replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Tokens are opaque: at least 16 visible ASCII characters.
fn valid_token(t: &str) -> bool {
    t.len() >= 16 && t.bytes().all(|b| b.is_ascii_graphic())
}

/// A secret shown as `***` plus its length.
fn mask(secret: &str) -> String {
    format!("***({} chars)", secret.chars().count())
}

/// A URL with its password (and user) masked.
fn mask_url(u: &str) -> String {
    match url::Url::parse(u) {
        Ok(mut p) if p.password().is_some() => {
            let _ = p.set_password(Some("***"));
            p.to_string()
        }
        Ok(_) => u.to_string(),
        // Not a URL (a directory): nothing secret in it.
        Err(_) => u.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_overrides_and_unknown_keys() {
        let c = ServerConfig::from_toml(
            "addr = \"0.0.0.0:9000\"\ntokens = [\"0123456789abcdef\"]\n[rate_limit]\nper_second = 5\n[verity]\nredis_url = \"redis://:hunter2@localhost:6379\"\n",
        )
        .unwrap_or_default();
        assert_eq!(c.addr.port(), 9000);
        assert_eq!(c.rate_limit.per_second, 5);
        assert!(c.rate_limit.enabled);
        assert!(c.validate().is_ok());
        let printed = c.masked();
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(!printed.contains("0123456789abcdef"), "{printed}");
        assert!(printed.contains("***"), "{printed}");
        let err = ServerConfig::from_toml("adr = \"x\"")
            .err()
            .map(|e| e.to_string());
        assert!(err.unwrap_or_default().contains("adr"));
    }

    #[test]
    fn research_keys_read_from_toml_and_checked() {
        let c = ServerConfig::from_toml(
            "roots = [\"/srv/syllabi\"]\nallow_private = true\nresearch_timeout_secs = 60\n",
        )
        .unwrap_or_default();
        assert!(c.allow_private);
        assert_eq!(c.roots, vec![PathBuf::from("/srv/syllabi")]);
        assert_eq!(c.research_timeout(), Duration::from_secs(60));
        assert!(c.masked().contains("allow_private = true"));
        assert!(!ServerConfig::default().allow_private);
        // The old keys still work, with a note naming the new one.
        for old in ["allow_private_fetch", "allow_private_sources"] {
            let mut c = ServerConfig::from_toml(&format!("{old} = true")).unwrap_or_default();
            c.fold_deprecated();
            assert!(c.allow_private, "{old}");
            assert!(
                c.notes.iter().any(|n| n.contains("use `allow_private`")),
                "{:?}",
                c.notes
            );
            assert!(!c.masked().contains(old));
        }
        let zero = ServerConfig {
            research_timeout_secs: 0.0,
            ..ServerConfig::default()
        };
        assert!(zero.validate().is_err());
        assert!(matches!(parse_bool("K", "TRUE"), Ok(true)));
        assert!(matches!(parse_bool("K", "0"), Ok(false)));
        assert!(parse_bool("K", "maybe").is_err());
    }

    fn vars(pairs: &[(&str, &str)]) -> Result<ServerConfig, ServerError> {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut c = ServerConfig::default();
        c.apply_vars(&|k| map.get(k).cloned())?;
        Ok(c)
    }

    #[test]
    fn the_stacks_port_and_the_private_switch() {
        // AURACORE_PORT: the port of seed deployments, on VERITY_ADDR's IP.
        let c = vars(&[("AURACORE_PORT", "3100")]).unwrap();
        assert_eq!(c.addr, "127.0.0.1:3100".parse().unwrap());
        let c = vars(&[("VERITY_ADDR", "0.0.0.0:8080"), ("AURACORE_PORT", "3100")]).unwrap();
        assert_eq!(c.addr, "0.0.0.0:3100".parse().unwrap());
        let e = vars(&[("AURACORE_PORT", "port")]).unwrap_err().to_string();
        assert!(e.contains("AURACORE_PORT") && e.contains("3100"), "{e}");
        let e = vars(&[("VERITY_ADDR", "3100")]).unwrap_err().to_string();
        assert!(e.contains("0.0.0.0:3100"), "{e}");
        // One switch for private addresses; the old variable works with a note.
        assert!(
            vars(&[("VERITY_ALLOW_PRIVATE", "true")])
                .unwrap()
                .allow_private
        );
        let old = vars(&[("VERITY_ALLOW_PRIVATE_FETCH", "1")]).unwrap();
        assert!(old.allow_private);
        assert!(old.notes.iter().any(|n| n.contains("VERITY_ALLOW_PRIVATE")));
        // The log level is read here with the rest, not by the logger.
        assert_eq!(
            vars(&[("LOG_LEVEL", "debug")])
                .unwrap()
                .log_level
                .as_deref(),
            Some("debug")
        );
        assert_eq!(vars(&[("LOG_LEVEL", " ")]).unwrap().log_level, None);
    }

    #[test]
    fn the_log_filter_and_the_otlp_collector_are_read_here() {
        let c = vars(&[("RUST_LOG", "verity=debug,info")]).unwrap();
        assert_eq!(c.log_filter.as_deref(), Some("verity=debug,info"));
        assert_eq!(vars(&[]).unwrap().otlp_endpoint, None);
        // The base URL gets the traces path; the per-signal URL is used as given.
        let base = vars(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")]).unwrap();
        assert_eq!(
            base.otlp_endpoint.as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        let both = vars(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://traces:4318/custom",
            ),
        ])
        .unwrap();
        assert_eq!(
            both.otlp_endpoint.as_deref(),
            Some("http://traces:4318/custom")
        );
    }

    #[test]
    fn the_example_configuration_file_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/deploy/verity.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let c = ServerConfig::from_toml(&text).unwrap();
        assert_eq!(c.addr.port(), 3100);
        assert!(c.validate().is_ok());
        assert_eq!(c.verity.home.as_deref(), Some("/var/lib/verity"));
    }

    #[test]
    fn public_bind_without_token_is_refused() {
        let c = ServerConfig {
            addr: "0.0.0.0:8080"
                .parse()
                .unwrap_or(ServerConfig::default().addr),
            ..ServerConfig::default()
        };
        let e = c
            .validate()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("without a bearer token"), "{e}");
        assert!(ServerConfig::default().validate().is_ok());
        let short = ServerConfig {
            tokens: vec!["short".into()],
            ..ServerConfig::default()
        };
        assert!(short.validate().is_err());
        let star = ServerConfig {
            cors_origins: vec!["*".into()],
            ..ServerConfig::default()
        };
        assert!(star.validate().is_err());
    }
}
