//! [`OpenAiGenerator`]: any OpenAI-compatible `/v1/chat/completions` server
//! (OpenAI, vLLM, llama.cpp server, LM Studio, Ollama's `/v1`, …), SSE streaming.

use std::collections::VecDeque;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;
use verity_core::{
    ChatMessage, ConfigError, FinishReason, GenerateRequest, Generation, Generator, ProviderError,
    ProviderErrorKind, Result, RetryPolicy, TokenStream, Usage,
};

use verity_net::HttpClient;

use crate::http::{self, perr, ByteStream, CallError, LineSplitter, Timeouts};

const PROVIDER: &str = "openai";

/// A generator backed by an OpenAI-compatible chat-completions server.
#[derive(Clone)]
pub struct OpenAiGenerator {
    base_url: String,
    model: String,
    api_key: Option<String>,
    timeouts: Timeouts,
    retry: RetryPolicy,
    client: HttpClient,
}

impl std::fmt::Debug for OpenAiGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiGenerator")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeouts", &self.timeouts)
            .field("retry", &self.retry)
            .finish()
    }
}

/// Builder of [`OpenAiGenerator`].
#[derive(Clone)]
pub struct OpenAiGeneratorBuilder {
    base_url: String,
    model: String,
    api_key: Option<String>,
    timeouts: Timeouts,
    client: Option<HttpClient>,
    retry: Option<RetryPolicy>,
}

impl std::fmt::Debug for OpenAiGeneratorBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiGeneratorBuilder")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl OpenAiGeneratorBuilder {
    /// Bearer token sent as `Authorization: Bearer …` (none by default).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        let key = key.into();
        self.api_key = if key.trim().is_empty() {
            None
        } else {
            Some(key)
        };
        self
    }

    /// All timeouts at once.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Connection timeout (default 5 s).
    pub fn connect_timeout(mut self, d: Duration) -> Self {
        self.timeouts.connect = d;
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

    /// Retry policy for transient failures before any output was produced
    /// (default: 3 attempts; a `Retry-After` header lengthens the delay).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Send requests through the shared network layer (its connection pool,
    /// connect timeout, proxy and TLS settings, and its retry policy unless
    /// [`Self::retry`] is called). Default: the process-wide client.
    pub fn client(mut self, client: &HttpClient) -> Self {
        self.client = Some(client.clone());
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<OpenAiGenerator> {
        if self.model.trim().is_empty() {
            return Err(ConfigError::Invalid {
                key: "openai.model".into(),
                message: "empty model name".into(),
            }
            .into());
        }
        url::Url::parse(&self.base_url).map_err(|e| ConfigError::Invalid {
            key: "openai.base_url".into(),
            message: format!("`{}`: {e}", self.base_url),
        })?;
        let client = http::client(self.client, &self.timeouts)?;
        let retry = self.retry.unwrap_or_else(|| client.retry());
        Ok(OpenAiGenerator {
            base_url: self.base_url.trim_end_matches('/').to_string(),
            model: self.model,
            api_key: self.api_key,
            timeouts: self.timeouts,
            retry,
            client,
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

/// `(message, type, code)` of an OpenAI error envelope `{error:{message,type,code}}`
/// (also accepts `{error:"…"}` and `{message:"…"}` from looser servers).
fn envelope(v: &Value) -> Option<(String, Option<String>, Option<String>)> {
    let as_str = |v: Option<&Value>| {
        v.and_then(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
    };
    match v.get("error") {
        Some(Value::String(s)) => Some((s.clone(), None, None)),
        Some(e @ Value::Object(_)) => Some((
            as_str(e.get("message")).unwrap_or_else(|| e.to_string()),
            as_str(e.get("type")),
            as_str(e.get("code")),
        )),
        Some(other) => Some((other.to_string(), None, None)),
        None => as_str(v.get("message")).map(|m| (m, None, None)),
    }
}

/// Kind for an error status plus the envelope's `code`/`type`.
fn kind_for(status: Option<u16>, code: Option<&str>, typ: Option<&str>) -> ProviderErrorKind {
    let tagged = |s: &str| code == Some(s) || typ == Some(s);
    if tagged("model_not_found") {
        return ProviderErrorKind::ModelNotFound;
    }
    if tagged("invalid_api_key") || tagged("authentication_error") || tagged("permission_error") {
        return ProviderErrorKind::Auth;
    }
    match status {
        Some(s) => http::kind_for_status(s),
        None if tagged("rate_limit_exceeded") => ProviderErrorKind::RateLimited,
        None if tagged("invalid_request_error") => ProviderErrorKind::InvalidRequest,
        None => ProviderErrorKind::Unavailable,
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
        OpenAiGeneratorBuilder {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeouts: Timeouts::default(),
            client: None,
            retry: None,
        }
    }

    fn url(&self) -> String {
        if self.base_url.ends_with("/v1") {
            http::join(&self.base_url, "/chat/completions")
        } else {
            http::join(&self.base_url, "/v1/chat/completions")
        }
    }

    /// The JSON body sent to `/v1/chat/completions` for `req` (exposed for inspection and tests).
    pub fn request_body(&self, req: &GenerateRequest, stream: bool) -> Value {
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

    async fn status_error(&self, url: &str, resp: reqwest::Response) -> CallError {
        let status = resp.status().as_u16();
        let retry_after = verity_net::retry_after(resp.headers());
        let text = resp.text().await.unwrap_or_default();
        let (msg, typ, code) = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| envelope(&v))
            .unwrap_or_else(|| (text.trim().chars().take(500).collect(), None, None));
        let kind = kind_for(Some(status), code.as_deref(), typ.as_deref());
        let mut message = format!("{url}: HTTP {status}: {msg}");
        if let Some(c) = code.or(typ) {
            message.push_str(&format!(" ({c})"));
        }
        ProviderError::new(PROVIDER, kind, message)
            .with_retry_after(retry_after)
            .into()
    }

    async fn post(
        &self,
        url: &str,
        body: &Value,
    ) -> std::result::Result<reqwest::Response, CallError> {
        let mut rb = self.client.client().post(url).json(body);
        if let Some(key) = &self.api_key {
            rb = rb.bearer_auth(key);
        }
        let resp = rb
            .send()
            .await
            .map_err(|e| http::map_reqwest(PROVIDER, url, &e))?;
        if !resp.status().is_success() {
            return Err(self.status_error(url, resp).await);
        }
        Ok(resp)
    }

    async fn complete_once(&self, body: &Value) -> std::result::Result<Generation, CallError> {
        let url = self.url();
        let call = async {
            let resp = self.post(&url, body).await?;
            let bytes = resp
                .bytes()
                .await
                .map_err(|e| http::map_reqwest(PROVIDER, &url, &e))?;
            let c: Completion = serde_json::from_slice(&bytes).map_err(|e| {
                perr(
                    PROVIDER,
                    ProviderErrorKind::BadResponse,
                    format!("{url}: unparseable chat completion: {e}"),
                )
            })?;
            if let Some(err) = &c.error {
                let (msg, typ, code) =
                    envelope(&serde_json::json!({ "error": err })).unwrap_or_default();
                return Err(perr(
                    PROVIDER,
                    kind_for(None, code.as_deref(), typ.as_deref()),
                    format!("{url}: {msg}"),
                ));
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
    url: String,
    body: ByteStream,
    lines: LineSplitter,
    /// Complete lines not yet consumed.
    queue: VecDeque<String>,
    /// `data:` lines of the event being assembled.
    data: Vec<String>,
    first_deadline: Instant,
    total_deadline: Instant,
    timeouts: Timeouts,
    started: bool,
    saw_finish: bool,
    eof: bool,
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
    if v.get("error").is_some() {
        let (msg, typ, code) = envelope(&v).unwrap_or_default();
        return Err(perr(
            PROVIDER,
            kind_for(None, code.as_deref(), typ.as_deref()),
            format!("{url}: error mid-stream: {msg}"),
        ));
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
        while let Some(line) = st.queue.pop_front() {
            if line.is_empty() {
                // Event boundary: dispatch the accumulated data.
                if st.data.is_empty() {
                    continue;
                }
                let data = std::mem::take(&mut st.data).join("\n");
                match parse_event(&st.url, &data, &mut st.saw_finish) {
                    Ok(None) => continue,
                    Ok(Some(Event::Done)) => {
                        st.finished = true;
                        return None;
                    }
                    Ok(Some(Event::Text(t))) => {
                        st.started = true;
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
        if st.eof {
            st.finished = true;
            // Lenient: a server that reported finish_reason then closed without `[DONE]` is complete.
            if st.saw_finish && st.data.is_empty() {
                return None;
            }
            return Some(Err(perr(
                PROVIDER,
                ProviderErrorKind::Unavailable,
                format!(
                    "{}: stream ended before `data: [DONE]` (connection dropped?)",
                    st.url
                ),
            )));
        }
        let (deadline, what, budget) = if st.started {
            (st.total_deadline, "complete answer", st.timeouts.total)
        } else if st.first_deadline <= st.total_deadline {
            (st.first_deadline, "first token", st.timeouts.first_token)
        } else {
            (st.total_deadline, "complete answer", st.timeouts.total)
        };
        match http::next_chunk(PROVIDER, &st.url, &mut st.body, deadline, what, budget).await {
            Ok(Some(bytes)) => st.queue.extend(st.lines.push(&bytes)),
            Ok(None) => {
                st.eof = true;
                if let Some(rest) = st.lines.finish() {
                    st.queue.push_back(rest);
                }
                // Dispatch a final event that lacked its blank line.
                st.queue.push_back(String::new());
            }
            Err(e) => {
                st.finished = true;
                return Some(Err(e));
            }
        }
    }
}

#[async_trait]
impl Generator for OpenAiGenerator {
    fn model(&self) -> &str {
        &self.model
    }

    async fn generate(&self, req: &GenerateRequest) -> Result<Generation> {
        crate::validate_params(PROVIDER, &req.params)?;
        let body = self.request_body(req, false);
        self.retry.run(|_| self.complete_once(&body)).await
    }

    async fn stream(&self, req: &GenerateRequest) -> Result<TokenStream> {
        crate::validate_params(PROVIDER, &req.params)?;
        let body = self.request_body(req, true);
        let url = self.url();
        let timeouts = self.timeouts;
        let (resp, start) = self
            .retry
            .run(|_| {
                let (url, body) = (&url, &body);
                async move {
                    let start = Instant::now();
                    let deadline = start + timeouts.first_token.min(timeouts.total);
                    match tokio::time::timeout_at(deadline, self.post(url, body)).await {
                        Ok(r) => r.map(|resp| (resp, start)),
                        Err(_) => Err(http::timeout(PROVIDER, "first token", timeouts.first_token)),
                    }
                }
            })
            .await?;
        let state = SseState {
            url,
            body: Box::pin(resp.bytes_stream()),
            lines: LineSplitter::new(),
            queue: VecDeque::new(),
            data: Vec::new(),
            first_deadline: start + timeouts.first_token,
            total_deadline: start + timeouts.total,
            timeouts,
            started: false,
            saw_finish: false,
            eof: false,
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
        let url = if self.base_url.ends_with("/v1") {
            http::join(&self.base_url, "/models")
        } else {
            http::join(&self.base_url, "/v1/models")
        };
        let budget = self.timeouts.total.min(Duration::from_secs(10));
        let call = async {
            let mut rb = self.client.client().get(&url);
            if let Some(key) = &self.api_key {
                rb = rb.bearer_auth(key);
            }
            let resp = rb
                .send()
                .await
                .map_err(|e| http::map_reqwest(PROVIDER, &url, &e))?;
            if resp.status().as_u16() == 404 {
                // The server answers but lists no models: reachable, model unverifiable.
                return Ok(());
            }
            if !resp.status().is_success() {
                return Err(self.status_error(&url, resp).await);
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
                    format!("model `{}` is not served by {}", self.model, self.base_url),
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
    fn envelope_and_kinds() {
        let v: Value = serde_json::json!({"error": {"message": "The model `x` does not exist", "type": "invalid_request_error", "code": "model_not_found"}});
        let (m, t, c) = envelope(&v).unwrap();
        assert_eq!(m, "The model `x` does not exist");
        assert_eq!(t.as_deref(), Some("invalid_request_error"));
        assert_eq!(
            kind_for(Some(404), c.as_deref(), t.as_deref()),
            ProviderErrorKind::ModelNotFound
        );
        assert_eq!(
            kind_for(Some(400), c.as_deref(), t.as_deref()),
            ProviderErrorKind::ModelNotFound
        );
        assert_eq!(kind_for(Some(401), None, None), ProviderErrorKind::Auth);
        assert_eq!(kind_for(Some(403), None, None), ProviderErrorKind::Auth);
        assert_eq!(
            kind_for(Some(429), None, None),
            ProviderErrorKind::RateLimited
        );
        assert_eq!(
            kind_for(Some(502), None, None),
            ProviderErrorKind::Unavailable
        );
        assert_eq!(
            kind_for(None, Some("rate_limit_exceeded"), None),
            ProviderErrorKind::RateLimited
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
