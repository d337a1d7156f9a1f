//! [`OpenAiGenerator`]: any OpenAI-compatible `/v1/chat/completions` server
//! (OpenAI, vLLM, llama.cpp server, LM Studio, Ollama's `/v1`, …), SSE streaming.

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

const PROVIDER: &str = "openai";

/// A generator backed by an OpenAI-compatible chat-completions server.
#[derive(Debug, Clone)]
pub struct OpenAiGenerator {
    endpoint: RemoteEndpoint,
    model: String,
    timeouts: Timeouts,
}

/// Builder of [`OpenAiGenerator`].
#[derive(Debug, Clone)]
pub struct OpenAiGeneratorBuilder {
    opts: RemoteProviderOptions,
    model: String,
    timeouts: Timeouts,
}

impl OpenAiGeneratorBuilder {
    verity_net::remote_provider_setters!(opts);

    /// All timeouts at once.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Time allowed until the first streamed token (default 120 s).
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
    pub fn build(mut self) -> Result<OpenAiGenerator> {
        if self.model.trim().is_empty() {
            return Err(ConfigError::Invalid {
                key: "openai.model".into(),
                message: "empty model name".into(),
            }
            .into());
        }
        self.opts.timeout = self.timeouts.total;
        Ok(OpenAiGenerator {
            endpoint: self.opts.build(PROVIDER, "openai")?,
            model: self.model,
            timeouts: self.timeouts,
        })
    }
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    temperature: f64,
    top_p: f64,
    max_tokens: u32,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    stream: bool,
}

#[derive(Deserialize, Default)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<Message>,
    #[serde(default)]
    delta: Option<Message>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct ApiUsage {
    #[serde(default)]
    prompt_tokens: Option<u32>,
    #[serde(default)]
    completion_tokens: Option<u32>,
}

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ApiUsage>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    error: Option<Value>,
}

fn finish_reason(r: Option<&str>) -> FinishReason {
    match r {
        None | Some("stop") | Some("eos") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some(_) => FinishReason::Other,
    }
}

impl OpenAiGenerator {
    /// Start building a generator for `model` served at `base_url`
    /// (e.g. `https://api.openai.com` or `http://localhost:8080`; a trailing
    /// `/v1` is accepted and not doubled).
    pub fn builder(
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> OpenAiGeneratorBuilder {
        let timeouts = Timeouts::default();
        OpenAiGeneratorBuilder {
            opts: RemoteProviderOptions::new(base_url, timeouts.total)
                .with_api_key_var("OPENAI_API_KEY"),
            model: model.into(),
            timeouts,
        }
    }

    fn url(&self) -> String {
        self.endpoint.v1_url("chat/completions")
    }

    /// The JSON body sent to `/v1/chat/completions` for `req` (exposed for inspection and tests).
    pub fn request_body(&self, req: &ChatRequest, stream: bool) -> Value {
        let p = &req.params;
        let body = ChatBody {
            model: &self.model,
            messages: &req.messages,
            temperature: crate::json_f32(p.temperature),
            top_p: crate::json_f32(p.top_p),
            max_tokens: p.max_tokens,
            stop: &p.stop,
            seed: p.seed,
            stream,
        };
        serde_json::to_value(&body).unwrap_or(Value::Null)
    }

    async fn complete_once(&self, body: &Value) -> std::result::Result<Generation, CallError> {
        let url = self.url();
        let call = async {
            let resp = self.endpoint.post_json(&url, body).await?;
            let c: Completion = self
                .endpoint
                .read_json(&url, resp, "chat completion")
                .await?;
            if let Some(err) = &c.error {
                return Err(self
                    .endpoint
                    .body_error(&url, &ProviderErrorBody::from_error(err)));
            }
            let Some(choice) = c.choices.into_iter().next() else {
                return Err(perr(
                    PROVIDER,
                    ProviderErrorKind::BadResponse,
                    format!("{url}: response without choices"),
                ));
            };
            let usage = c.usage.unwrap_or_default();
            Ok(Generation {
                text: choice.message.and_then(|m| m.content).unwrap_or_default(),
                model: c
                    .model
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| self.model.clone()),
                finish_reason: finish_reason(choice.finish_reason.as_deref()),
                usage: Usage {
                    prompt_tokens: usage.prompt_tokens,
                    completion_tokens: usage.completion_tokens,
                },
            })
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
}

/// Streaming state of one SSE body.
struct SseState {
    lines: StreamedLines,
    /// `data:` lines of the event being assembled.
    data: Vec<String>,
    saw_finish: bool,
    finished: bool,
}

enum Event {
    Text(String),
    Done,
}

/// Interpret one complete SSE event's data.
fn parse_event(url: &str, data: &str, saw_finish: &mut bool) -> Result<Option<Event>> {
    let data = data.trim();
    if data.is_empty() {
        return Ok(None);
    }
    if data == "[DONE]" {
        return Ok(Some(Event::Done));
    }
    let v: Value = serde_json::from_str(data).map_err(|e| {
        let shown: String = data.chars().take(200).collect();
        perr(
            PROVIDER,
            ProviderErrorKind::BadResponse,
            format!("{url}: malformed SSE event `{shown}`: {e}"),
        )
    })?;
    if let Some(err) = v.get("error") {
        return Err(status::body_error(
            PROVIDER,
            &format!("{url}: error mid-stream"),
            &ProviderErrorBody::from_error(err),
            &Remedies::default(),
        )
        .into());
    }
    let c: Completion = serde_json::from_value(v).map_err(|e| {
        perr(
            PROVIDER,
            ProviderErrorKind::BadResponse,
            format!("{url}: unexpected SSE chunk shape: {e}"),
        )
    })?;
    let mut text = String::new();
    if let Some(choice) = c.choices.into_iter().next() {
        if let Some(reason) = choice.finish_reason.as_deref() {
            *saw_finish = true;
            tracing::debug!(finish_reason = reason, "openai stream finish");
        }
        if let Some(t) = choice.delta.and_then(|d| d.content) {
            text = t;
        }
    }
    Ok(Some(Event::Text(text)))
}

async fn next_item(st: &mut SseState) -> Option<Result<String>> {
    loop {
        if st.finished {
            return None;
        }
        let line = match st.lines.next_line().await {
            Ok(Some(line)) => line,
            // Dispatch a final event that lacked its blank line.
            Ok(None) if !st.data.is_empty() => String::new(),
            Ok(None) => {
                st.finished = true;
                // Lenient: a server that reported finish_reason then closed without `[DONE]` is complete.
                if st.saw_finish {
                    return None;
                }
                return Some(Err(perr(
                    PROVIDER,
                    ProviderErrorKind::Unavailable,
                    format!(
                        "{}: stream ended before `data: [DONE]` (connection dropped?)",
                        st.lines.url
                    ),
                )));
            }
            Err(e) => {
                st.finished = true;
                return Some(Err(e));
            }
        };
        if line.is_empty() {
            // Event boundary: dispatch the accumulated data.
            if st.data.is_empty() {
                continue;
            }
            let data = std::mem::take(&mut st.data).join("\n");
            match parse_event(&st.lines.url, &data, &mut st.saw_finish) {
                Ok(None) => continue,
                Ok(Some(Event::Done)) => {
                    st.finished = true;
                    return None;
                }
                Ok(Some(Event::Text(t))) => {
                    st.lines.started = true;
                    if t.is_empty() {
                        continue;
                    }
                    return Some(Ok(t));
                }
                Err(e) => {
                    st.finished = true;
                    return Some(Err(e));
                }
            }
        } else if line.starts_with(':') {
            continue; // comment / keep-alive
        } else if let Some(rest) = line.strip_prefix("data") {
            if rest.is_empty() {
                st.data.push(String::new());
            } else if let Some(value) = rest.strip_prefix(':') {
                st.data
                    .push(value.strip_prefix(' ').unwrap_or(value).to_string());
            }
            // `dataX:` is another field name: ignored.
        }
        // `event:`, `id:`, `retry:` and unknown fields are ignored.
    }
}

#[async_trait]
impl Generator for OpenAiGenerator {
    fn model(&self) -> &str {
        &self.model
    }

    async fn generate(&self, req: &ChatRequest) -> Result<Generation> {
        crate::validate_params(PROVIDER, &req.params)?;
        let body = self.request_body(req, false);
        self.endpoint
            .retry()
            .run(|_| self.complete_once(&body))
            .await
    }

    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream> {
        crate::validate_params(PROVIDER, &req.params)?;
        let body = self.request_body(req, true);
        let url = self.url();
        let (resp, start) = http::open_stream(&self.endpoint, self.timeouts, || {
            self.endpoint.post_json(&url, &body)
        })
        .await?;
        let state = SseState {
            lines: StreamedLines::new(PROVIDER, url, resp, start, self.timeouts),
            data: Vec::new(),
            saw_finish: false,
            finished: false,
        };
        let s = futures::stream::unfold(state, |mut st| async move {
            next_item(&mut st).await.map(|item| (item, st))
        });
        Ok(Box::pin(s))
    }

    /// `GET {base}/v1/models` answers and, when it lists models, lists this one
    /// (a server without that endpoint, 404, only proves reachability).
    async fn health(&self) -> Result<()> {
        let url = self.endpoint.v1_url("models");
        let budget = self.timeouts.total.min(Duration::from_secs(10));
        let call = async {
            let resp = self
                .endpoint
                .request(Method::GET, &url)
                .send()
                .await
                .map_err(|e| self.endpoint.transport_error(&url, &e))?;
            if resp.status().as_u16() == 404 {
                // The server answers but lists no models: reachable, model unverifiable.
                return Ok(());
            }
            if !resp.status().is_success() {
                return Err(self.endpoint.response_error(&url, resp).await);
            }
            let v: Value = resp.json().await.map_err(|e| {
                perr(
                    PROVIDER,
                    ProviderErrorKind::BadResponse,
                    format!("{url}: unparseable model list: {e}"),
                )
            })?;
            let ids: Vec<&str> = v
                .get("data")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.get("id").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            if ids.is_empty() || ids.contains(&self.model.as_str()) {
                Ok(())
            } else {
                Err(perr(
                    PROVIDER,
                    ProviderErrorKind::ModelNotFound,
                    format!(
                        "model `{}` is not served by {}",
                        self.model,
                        self.endpoint.base_url()
                    ),
                ))
            }
        };
        match tokio::time::timeout(budget, call).await {
            Ok(r) => r,
            Err(_) => Err(http::timeout(PROVIDER, "/v1/models answer", budget)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_stream_errors_are_typed() {
        let mut fin = false;
        let e = parse_event(
            "u",
            r#"{"error":{"message":"slow down","type":"rate_limit_exceeded"}}"#,
            &mut fin,
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            e.contains("RateLimited") && e.contains("error mid-stream: slow down"),
            "{e}"
        );
    }

    #[test]
    fn sse_events() {
        let mut fin = false;
        match parse_event("u", r#"{"choices":[{"delta":{"content":"Hi"}}]}"#, &mut fin) {
            Ok(Some(Event::Text(t))) => assert_eq!(t, "Hi"),
            _ => panic!("expected text"),
        }
        assert!(!fin);
        assert!(matches!(
            parse_event("u", "[DONE]", &mut fin),
            Ok(Some(Event::Done))
        ));
        assert!(parse_event(
            "u",
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            &mut fin
        )
        .is_ok());
        assert!(fin);
        assert!(parse_event("u", "{not json", &mut fin).is_err());
    }
}
