//! [`OllamaGenerator`]: Ollama's native `/api/chat` endpoint (NDJSON streaming).

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use verity_core::{
    ChatMessage, ChatRequest, ConfigError, FinishReason, Generation, Generator, ProviderErrorKind,
    Result, TokenStream, Usage,
};
use verity_net::reqwest::Method;
use verity_net::status::{self, ProviderErrorBody, Remedies};
use verity_net::{RemoteEndpoint, RemoteProviderOptions};

use crate::http::{self, perr, CallError, StreamedLines, Timeouts};

const PROVIDER: &str = "ollama";

/// Default Ollama address.
pub const DEFAULT_OLLAMA_URL: &str = "http://localhost:11434";

/// A generator backed by an Ollama server (`POST /api/chat`).
///
/// The model must carry a pinned tag (`qwen2.5:7b-instruct-q4_K_M`, or a
/// `@sha256:` digest): `latest` and untagged names are refused unless
/// [`OllamaGeneratorBuilder::allow_latest`] is set, because a moving tag makes
/// answers irreproducible.
#[derive(Debug, Clone)]
pub struct OllamaGenerator {
    endpoint: RemoteEndpoint,
    model: String,
    keep_alive: Option<Value>,
    timeouts: Timeouts,
}

/// Builder of [`OllamaGenerator`].
#[derive(Debug, Clone)]
pub struct OllamaGeneratorBuilder {
    opts: RemoteProviderOptions,
    model: String,
    allow_latest: bool,
    keep_alive: Option<Value>,
    timeouts: Timeouts,
}

impl OllamaGeneratorBuilder {
    verity_net::remote_provider_setters!(opts);

    /// Accept `latest` or untagged model names (off by default).
    pub fn allow_latest(mut self, allow: bool) -> Self {
        self.allow_latest = allow;
        self
    }

    /// How long Ollama keeps the model loaded after a call, as a Go duration
    /// string (`"5m"`, `"1h"`, `"0"` to unload at once). Default `"5m"`.
    pub fn keep_alive(mut self, duration: impl Into<String>) -> Self {
        self.keep_alive = Some(Value::String(duration.into()));
        self
    }

    /// Keep the model loaded indefinitely (`keep_alive: -1`).
    pub fn keep_alive_forever(mut self) -> Self {
        self.keep_alive = Some(Value::from(-1));
        self
    }

    /// Do not send `keep_alive` (the server's default applies).
    pub fn no_keep_alive(mut self) -> Self {
        self.keep_alive = None;
        self
    }

    /// All timeouts at once.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Time allowed until the first streamed token (default 120 s, model loading included).
    pub fn first_token_timeout(mut self, d: Duration) -> Self {
        self.timeouts.first_token = d;
        self
    }

    /// Time allowed for a whole call (default 600 s).
    pub fn total_timeout(mut self, d: Duration) -> Self {
        self.timeouts.total = d;
        self
    }

    /// Validate and build.
    pub fn build(mut self) -> Result<OllamaGenerator> {
        check_pinned(&self.model, self.allow_latest)?;
        self.opts.timeout = self.timeouts.total;
        let endpoint = self
            .opts
            .build(PROVIDER, "ollama")?
            .with_missing_model_advice(format!("run `ollama pull {}`", self.model.trim()));
        Ok(OllamaGenerator {
            endpoint,
            model: self.model,
            keep_alive: self.keep_alive,
            timeouts: self.timeouts,
        })
    }
}

/// Why an Ollama model name is not pinned to an immutable tag (no tag, an
/// empty one, or `latest`), or `None` when it is (a tag or a `@sha256:`
/// digest). Hosts use it to refuse such a model before any work.
pub fn unpinned_tag(model: &str) -> Option<&'static str> {
    let model = model.trim();
    if model.contains("@sha256:") {
        return None;
    }
    let last = model.rsplit('/').next().unwrap_or(model);
    match last.split_once(':') {
        None => Some("has no tag"),
        Some((_, tag)) if tag.is_empty() || tag.eq_ignore_ascii_case("latest") => {
            Some("uses the moving tag `latest`")
        }
        Some(_) => None,
    }
}

/// Refuse moving tags.
fn check_pinned(model: &str, allow_latest: bool) -> Result<()> {
    let model = model.trim();
    if model.is_empty() {
        return Err(ConfigError::Invalid {
            key: "ollama.model".into(),
            message: "empty model name".into(),
        }
        .into());
    }
    if allow_latest || model.contains("@sha256:") {
        return Ok(());
    }
    let problem = unpinned_tag(model);
    match problem {
        None => Ok(()),
        Some(p) => Err(ConfigError::Invalid {
            key: "ollama.model".into(),
            message: format!(
                "model `{model}` {p}: pin a tag (e.g. `qwen2.5:7b-instruct-q4_K_M`) for reproducible answers, \
                 or call .allow_latest(true)"
            ),
        }
        .into()),
    }
}

#[derive(Serialize)]
struct Options<'a> {
    temperature: f64,
    top_p: f64,
    num_ctx: u32,
    num_predict: u32,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<Options<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keep_alive: Option<&'a Value>,
}

#[derive(Deserialize, Default)]
struct ChunkMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct ChatChunk {
    #[serde(default)]
    message: Option<ChunkMessage>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    prompt_eval_count: Option<u32>,
    #[serde(default)]
    eval_count: Option<u32>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct TagsResponse {
    #[serde(default)]
    models: Vec<TagModel>,
}

#[derive(Deserialize)]
struct TagModel {
    #[serde(default)]
    name: String,
    #[serde(default)]
    model: String,
}

fn finish_reason(r: Option<&str>) -> FinishReason {
    match r {
        None | Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some(_) => FinishReason::Other,
    }
}

impl OllamaGenerator {
    /// Start building a generator for `model` (e.g. `qwen2.5:7b-instruct-q4_K_M`).
    pub fn builder(model: impl Into<String>) -> OllamaGeneratorBuilder {
        let timeouts = Timeouts::default();
        OllamaGeneratorBuilder {
            opts: RemoteProviderOptions::new(DEFAULT_OLLAMA_URL, timeouts.total),
            model: model.into(),
            allow_latest: false,
            keep_alive: Some(Value::String("5m".into())),
            timeouts,
        }
    }

    /// Server address.
    pub fn base_url(&self) -> &str {
        self.endpoint.base_url()
    }

    fn chat_url(&self) -> String {
        self.endpoint.url("api/chat")
    }

    /// The JSON body sent to `/api/chat` for `req` (exposed for inspection and tests).
    pub fn request_body(&self, req: &ChatRequest, stream: bool) -> Value {
        let p = &req.params;
        let body = ChatBody {
            model: &self.model,
            messages: &req.messages,
            stream,
            options: Some(Options {
                temperature: crate::json_f32(p.temperature),
                top_p: crate::json_f32(p.top_p),
                num_ctx: p.num_ctx,
                num_predict: p.max_tokens,
                stop: &p.stop,
                seed: p.seed,
            }),
            keep_alive: self.keep_alive.as_ref(),
        };
        serde_json::to_value(&body).unwrap_or(Value::Null)
    }

    /// One non-streaming call under the total timeout.
    async fn chat_once(&self, body: &Value) -> std::result::Result<ChatChunk, CallError> {
        let url = self.chat_url();
        let call = async {
            let resp = self.endpoint.post_json(&url, body).await?;
            let chunk: ChatChunk = self
                .endpoint
                .read_json(&url, resp, "/api/chat response")
                .await?;
            if let Some(err) = &chunk.error {
                return Err(self
                    .endpoint
                    .body_error(&url, &ProviderErrorBody::from_error(err)));
            }
            if !chunk.done {
                return Err(perr(
                    PROVIDER,
                    ProviderErrorKind::BadResponse,
                    format!("{url}: response without done:true"),
                ));
            }
            Ok(chunk)
        };
        match tokio::time::timeout(self.timeouts.total, call).await {
            Ok(r) => r,
            Err(_) => Err(http::timeout(
                PROVIDER,
                "complete answer",
                self.timeouts.total,
            )),
        }
    }

    /// Load the model into memory so that the first real request is fast
    /// (an empty-`messages` load request, as documented by Ollama).
    pub async fn warm_up(&self) -> Result<()> {
        let body = serde_json::to_value(ChatBody {
            model: &self.model,
            messages: &[],
            stream: false,
            options: None,
            keep_alive: self.keep_alive.as_ref(),
        })
        .unwrap_or(Value::Null);
        self.endpoint
            .retry()
            .run(|_| self.chat_once(&body))
            .await
            .map(|_| ())
    }
}

/// Streaming state of one `/api/chat` NDJSON body.
struct NdjsonState {
    lines: StreamedLines,
    finished: bool,
}

enum Parsed {
    Skip,
    Text(String),
    Done(String),
}

fn parse_line(url: &str, line: &str) -> Result<Parsed> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Parsed::Skip);
    }
    let chunk: ChatChunk = serde_json::from_str(line).map_err(|e| {
        let shown: String = line.chars().take(200).collect();
        perr(
            PROVIDER,
            ProviderErrorKind::BadResponse,
            format!("{url}: malformed stream line `{shown}`: {e}"),
        )
    })?;
    if let Some(err) = &chunk.error {
        return Err(status::body_error(
            PROVIDER,
            &format!("{url}: error mid-stream"),
            &ProviderErrorBody::from_error(err),
            &Remedies::default(),
        )
        .into());
    }
    let text = chunk.message.and_then(|m| m.content).unwrap_or_default();
    if chunk.done {
        tracing::debug!(
            done_reason = chunk.done_reason.as_deref().unwrap_or(""),
            prompt_tokens = chunk.prompt_eval_count,
            completion_tokens = chunk.eval_count,
            "ollama stream done"
        );
        return Ok(Parsed::Done(text));
    }
    Ok(Parsed::Text(text))
}

async fn next_item(st: &mut NdjsonState) -> Option<Result<String>> {
    loop {
        if st.finished {
            return None;
        }
        let line = match st.lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => {
                st.finished = true;
                return Some(Err(perr(
                    PROVIDER,
                    ProviderErrorKind::Unavailable,
                    format!(
                        "{}: stream ended before `done: true` (connection dropped?)",
                        st.lines.url
                    ),
                )));
            }
            Err(e) => {
                st.finished = true;
                return Some(Err(e));
            }
        };
        match parse_line(&st.lines.url, &line) {
            Ok(Parsed::Skip) => continue,
            Ok(Parsed::Text(t)) => {
                st.lines.started = true;
                if t.is_empty() {
                    continue;
                }
                return Some(Ok(t));
            }
            Ok(Parsed::Done(t)) => {
                st.finished = true;
                return if t.is_empty() { None } else { Some(Ok(t)) };
            }
            Err(e) => {
                st.finished = true;
                return Some(Err(e));
            }
        }
    }
}

#[async_trait]
impl Generator for OllamaGenerator {
    fn model(&self) -> &str {
        &self.model
    }

    async fn generate(&self, req: &ChatRequest) -> Result<Generation> {
        crate::validate_params(PROVIDER, &req.params)?;
        let body = self.request_body(req, false);
        let chunk = self.endpoint.retry().run(|_| self.chat_once(&body)).await?;
        Ok(Generation {
            text: chunk.message.and_then(|m| m.content).unwrap_or_default(),
            model: self.model.clone(),
            finish_reason: finish_reason(chunk.done_reason.as_deref()),
            usage: Usage {
                prompt_tokens: chunk.prompt_eval_count,
                completion_tokens: chunk.eval_count,
            },
        })
    }

    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream> {
        crate::validate_params(PROVIDER, &req.params)?;
        let body = self.request_body(req, true);
        let url = self.chat_url();
        let (resp, start) = http::open_stream(&self.endpoint, self.timeouts, || {
            self.endpoint.post_json(&url, &body)
        })
        .await?;
        let state = NdjsonState {
            lines: StreamedLines::new(PROVIDER, url, resp, start, self.timeouts),
            finished: false,
        };
        let s = futures::stream::unfold(state, |mut st| async move {
            next_item(&mut st).await.map(|item| (item, st))
        });
        Ok(Box::pin(s))
    }

    async fn health(&self) -> Result<()> {
        let url = self.endpoint.url("api/tags");
        let budget = self.timeouts.total.min(Duration::from_secs(10));
        let call = async {
            let resp = self
                .endpoint
                .request(Method::GET, &url)
                .send()
                .await
                .map_err(|e| self.endpoint.transport_error(&url, &e))?;
            if !resp.status().is_success() {
                return Err(self.endpoint.response_error(&url, resp).await);
            }
            let tags: TagsResponse = resp.json().await.map_err(|e| {
                perr(
                    PROVIDER,
                    ProviderErrorKind::BadResponse,
                    format!("{url}: unparseable /api/tags response: {e}"),
                )
            })?;
            let wanted = &self.model;
            let with_latest = format!("{wanted}:latest");
            let present = tags.models.iter().any(|m| {
                [&m.name, &m.model]
                    .iter()
                    .any(|n| *n == wanted || **n == with_latest)
            });
            if present {
                Ok(())
            } else {
                Err(perr(
                    PROVIDER,
                    ProviderErrorKind::ModelNotFound,
                    format!(
                        "model `{wanted}` is not installed on {} (run `ollama pull {wanted}`)",
                        self.endpoint.base_url()
                    ),
                ))
            }
        };
        match tokio::time::timeout(budget, call).await {
            Ok(r) => r,
            Err(_) => Err(http::timeout(PROVIDER, "/api/tags answer", budget)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_tags() {
        assert!(check_pinned("qwen2.5:7b-instruct", false).is_ok());
        assert!(check_pinned("library/qwen2.5:7b", false).is_ok());
        assert!(check_pinned("reg.example:5000/ns/m:v1", false).is_ok());
        assert!(check_pinned("m@sha256:abcdef", false).is_ok());
        assert!(check_pinned("qwen2.5", false).is_err());
        assert!(check_pinned("qwen2.5:latest", false).is_err());
        assert!(check_pinned("reg.example:5000/ns/m", false).is_err());
        assert!(check_pinned("", true).is_err());
        assert!(check_pinned("qwen2.5:latest", true).is_ok());
        assert!(check_pinned("qwen2.5", true).is_ok());
    }
}
