//! [`LocalGgufGenerator`]: in-process inference of a llama-architecture GGUF
//! model (SmolLM2, Llama, Mistral, Qwen2 …) with candle, on the CPU.
//!
//! The tokenizer is rebuilt from the GGUF metadata (`tokenizer.ggml.*`,
//! byte-level GPT-2 BPE), the chat template is recognised from
//! `tokenizer.chat_template` (ChatML or Llama-3 headers), generation runs on a
//! dedicated thread and streams token by token through a channel; dropping the
//! stream stops the generation at the next token.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::generation::{LogitsProcessor, Sampling};
use candle_transformers::models::quantized_llama::MAX_SEQ_LEN;
use tokio::sync::mpsc;
use verity_core::{
    ChatMessage, ChatRequest, ConfigError, Error, FinishReason, Generation, GenerationBudget,
    Generator, ProviderErrorKind, Result, Role, TokenStream, Usage,
};

use crate::http::perr;
use crate::stop::StopMatcher;
use crate::LocalAnswerFormat;

mod engine;
mod format;
mod gguf_tokenizer;
#[cfg(feature = "llama-cpp")]
mod llama_cpp;

pub use crate::local_engine::LocalEngine;
use engine::{CandleSession, Session, Weights};
use format::Constraint;
pub use format::{
    ANSWER_TOKENS as CITED_ANSWER_TOKENS, MAX_SENTENCES as ANSWER_SENTENCES, PASSAGE_TOKENS,
};
use gguf_tokenizer::{build_tokenizer, chat_format, md_u32, ChatFormat, GgufTokenizer};

const PROVIDER: &str = "local";

/// Default budget of one local generation: 30 s and 512 new tokens. A
/// grounded answer of SmolLM2-135M takes 1–3 s on llama.cpp with 2 cores
/// (docs/benchmarks.d/generate.md); past the budget the caller falls back.
pub const DEFAULT_LOCAL_BUDGET: GenerationBudget = GenerationBudget {
    time: Some(Duration::from_secs(30)),
    tokens: Some(512),
};

/// Default model directory name and file under the models directory.
const DEFAULT_DIR: &str = "SmolLM2-135M-Instruct";
const DEFAULT_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// What to do when the prompt does not fit in the context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContextOverflow {
    /// Fail with [`ProviderErrorKind::InvalidRequest`] (default: nothing is
    /// silently dropped from a grounded prompt).
    #[default]
    Error,
    /// Drop the oldest non-system messages (never the system prompt nor the
    /// last message) until the prompt fits; fail as above if it still does not.
    TruncateOldest,
}

/// Settings of a [`LocalGgufGenerator`] (builder style).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalGgufConfig {
    /// The `.gguf` file.
    pub model_path: PathBuf,
    /// Repeat penalty applied to the last [`Self::repeat_last_n`] tokens (1.0 = off; default 1.1).
    pub repeat_penalty: f32,
    /// Window of the repeat penalty (default 64 tokens).
    pub repeat_last_n: usize,
    /// Seed used when the request has none (default 299792458).
    pub default_seed: u64,
    /// Cap on the context window, in tokens (the model's own limit and candle's
    /// 4096-position RoPE table also apply). `None` = no extra cap.
    pub max_context: Option<usize>,
    /// Prompt overflow policy.
    pub overflow: ContextOverflow,
    /// Tokens that must remain free for the answer when checking the prompt
    /// length (default 64, or `max_tokens` if smaller).
    pub min_answer_tokens: usize,
    /// Where the forward passes run (default: llama.cpp when built in, else candle).
    pub engine: LocalEngine,
    /// Threads of one generation (default: the CPUs available, one for a
    /// model under 512 MB, which also generates its tokens on one thread;
    /// llama.cpp only, candle uses its own pool).
    pub threads: Option<usize>,
    /// Budget of every generation ([`DEFAULT_LOCAL_BUDGET`]); a request's own
    /// (`GenerationParams::budget`) applies too, the tighter limit winning.
    /// Reaching it stops the generation with a transient timeout, so the
    /// caller falls back.
    pub budget: GenerationBudget,
    /// How a grounded request (one that carries a
    /// [`Grounding`](verity_core::Grounding)) is answered (default
    /// [`LocalAnswerFormat::Quoted`]): decoding is constrained to the format
    /// and the answer gets at most [`CITED_ANSWER_TOKENS`] new tokens, within
    /// which it always ends by itself. Other requests are not constrained.
    pub answer_format: LocalAnswerFormat,
    /// Sentences of a constrained grounded answer at most (default
    /// [`ANSWER_SENTENCES`], at least 1).
    pub answer_sentences: usize,
    /// Tokens of passage text in the prompt of a constrained grounded answer
    /// at most (default [`PASSAGE_TOKENS`]): the pipeline's passages in
    /// their order, cut at a sentence boundary; those left out cannot be
    /// cited. The prompt is then one line of instruction, the numbered
    /// passages and the question (prompt processing is most of a local
    /// answer's time).
    pub passage_tokens: usize,
}

impl Default for LocalGgufConfig {
    fn default() -> Self {
        Self::new(LocalGgufGenerator::default_model_path())
    }
}

impl LocalGgufConfig {
    /// Settings for the model at `path`, other values default.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            model_path: path.into(),
            repeat_penalty: 1.1,
            repeat_last_n: 64,
            default_seed: 299_792_458,
            max_context: None,
            overflow: ContextOverflow::Error,
            min_answer_tokens: 64,
            engine: LocalEngine::Auto,
            threads: None,
            budget: DEFAULT_LOCAL_BUDGET,
            answer_format: LocalAnswerFormat::default(),
            answer_sentences: ANSWER_SENTENCES,
            passage_tokens: PASSAGE_TOKENS,
        }
    }

    /// How grounded requests are answered ([`Self::answer_format`]).
    pub fn answer_format(mut self, format: LocalAnswerFormat) -> Self {
        self.answer_format = format;
        self
    }

    /// Sentences of a constrained grounded answer at most (at least 1).
    pub fn answer_sentences(mut self, sentences: usize) -> Self {
        self.answer_sentences = sentences.max(1);
        self
    }

    /// Tokens of passage text in a constrained grounded prompt at most
    /// ([`Self::passage_tokens`]; the best passage keeps one sentence).
    pub fn passage_tokens(mut self, tokens: usize) -> Self {
        self.passage_tokens = tokens;
        self
    }

    /// Pick the engine (default [`LocalEngine::Auto`]).
    pub fn engine(mut self, engine: LocalEngine) -> Self {
        self.engine = engine;
        self
    }

    /// Threads of one generation (llama.cpp).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads.max(1));
        self
    }

    /// Set the budget of every generation.
    pub fn budget(mut self, budget: GenerationBudget) -> Self {
        self.budget = budget;
        self
    }

    /// Set the repeat penalty (1.0 disables it).
    pub fn repeat_penalty(mut self, penalty: f32, last_n: usize) -> Self {
        self.repeat_penalty = penalty;
        self.repeat_last_n = last_n;
        self
    }

    /// Set the seed used when a request has none.
    pub fn default_seed(mut self, seed: u64) -> Self {
        self.default_seed = seed;
        self
    }

    /// Cap the context window.
    pub fn max_context(mut self, tokens: usize) -> Self {
        self.max_context = Some(tokens);
        self
    }

    /// Set the prompt overflow policy.
    pub fn overflow(mut self, policy: ContextOverflow) -> Self {
        self.overflow = policy;
        self
    }

    /// Load the model.
    pub fn build(self) -> Result<LocalGgufGenerator> {
        LocalGgufGenerator::new(self)
    }
}

/// A GGUF model running on the CPU, on llama.cpp or candle ([`LocalEngine`]).
pub struct LocalGgufGenerator {
    weights: Weights,
    tok: Arc<GgufTokenizer>,
    format: ChatFormat,
    name: String,
    context: usize,
    config: LocalGgufConfig,
}

impl std::fmt::Debug for LocalGgufGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalGgufGenerator")
            .field("name", &self.name)
            .field("engine", &self.weights.engine())
            .field("context", &self.context)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn cfg_err(what: &str, path: &Path, detail: impl std::fmt::Display) -> Error {
    ConfigError::Invalid {
        key: "local.model_path".into(),
        message: format!("{}: {what}: {detail}", path.display()),
    }
    .into()
}

/// Messages sent from the inference thread.
enum Msg {
    Text(String),
    Done {
        finish: FinishReason,
        prompt_tokens: u32,
        completion_tokens: u32,
    },
    Err(Error),
}

/// Incremental UTF-8 assembly of byte-level token pieces.
#[derive(Default)]
struct Utf8Assembler {
    pending: Vec<u8>,
}

impl Utf8Assembler {
    /// Add bytes; return the complete characters available.
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out.push_str(s);
                    self.pending.clear();
                    return out;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(
                        self.pending.get(..valid).unwrap_or_default(),
                    ));
                    match e.error_len() {
                        // Incomplete sequence at the end: wait for more bytes.
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                        // Invalid bytes: replace them and go on.
                        Some(n) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..(valid + n).min(self.pending.len()));
                        }
                    }
                }
            }
        }
    }

    /// Flush what is left (lossy).
    fn finish(&mut self) -> String {
        let s = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        s
    }
}

impl LocalGgufGenerator {
    /// `SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf` in the models
    /// directory ([`verity_net::models_dir`]: `$VERITY_MODEL_DIR`, else
    /// `$VERITY_CACHE/models`, else `~/.cache/verity/models`). When that
    /// directory directly holds the `.gguf` file, that file is used.
    pub fn default_model_path() -> PathBuf {
        let root = verity_net::models_dir();
        let direct = root.join(DEFAULT_FILE);
        if direct.is_file() {
            return direct;
        }
        root.join(DEFAULT_DIR).join(DEFAULT_FILE)
    }

    /// Settings builder for the model at `path`.
    pub fn builder(path: impl Into<PathBuf>) -> LocalGgufConfig {
        LocalGgufConfig::new(path)
    }

    /// Load the model described by `config` (blocking: reads the whole file).
    pub fn new(config: LocalGgufConfig) -> Result<Self> {
        let path = config.model_path.clone();
        if !path.is_file() {
            return Err(ConfigError::Missing {
                what: "GGUF model".into(),
                detail: format!(
                    "{} (run scripts/fetch-models.sh smollm2, or set VERITY_MODEL_DIR)",
                    path.display()
                ),
            }
            .into());
        }
        let mut file = File::open(&path).map_err(|e| cfg_err("cannot open", &path, e))?;
        let ct = gguf_file::Content::read(&mut file)
            .map_err(|e| cfg_err("not a readable GGUF file", &path, e))?;
        let arch = ct
            .metadata
            .get("general.architecture")
            .and_then(|v| v.to_string().ok())
            .cloned()
            .unwrap_or_default();
        if arch != "llama" {
            return Err(cfg_err(
                "unsupported architecture",
                &path,
                format!("`{arch}` (llama only)"),
            ));
        }
        let tok = build_tokenizer(&ct, &path)?;
        let format = chat_format(&ct, &tok, &path)?;
        let model_ctx = md_u32(&ct, "llama.context_length")
            .map(|c| c as usize)
            .unwrap_or(2048);
        let mut context = model_ctx.min(MAX_SEQ_LEN);
        if let Some(cap) = config.max_context {
            context = context.min(cap.max(2));
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "local-gguf".to_string());
        let engine = config.engine.resolve()?;
        let weights = Weights::load(engine, ct, &mut file, &path, config.threads)
            .map_err(|e| cfg_err("cannot load the model weights", &path, e))?;
        Ok(Self {
            weights,
            tok: Arc::new(tok),
            format,
            name,
            context,
            config,
        })
    }

    /// Load the default model ([`Self::default_model_path`]).
    pub fn from_default_path() -> Result<Self> {
        Self::new(LocalGgufConfig::default())
    }

    /// Usable context window in tokens.
    pub fn context_length(&self) -> usize {
        self.context
    }

    /// The engine the forward passes run on.
    pub fn engine(&self) -> LocalEngine {
        self.weights.engine()
    }

    /// Token ids of `text` (plain text: special-token markup is not interpreted).
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        self.tok
            .tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| {
                perr(
                    PROVIDER,
                    ProviderErrorKind::InvalidRequest,
                    format!("tokenization failed: {e}"),
                )
            })
    }

    /// Decode token ids to text (control tokens are skipped).
    pub fn detokenize(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for id in ids {
            if let Some(b) = self.tok.bytes.get(*id as usize) {
                bytes.extend_from_slice(b);
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The prompt token ids for `messages`, chat template applied, with the
    /// assistant prefix at the end.
    pub fn prompt_tokens(&self, messages: &[ChatMessage]) -> Result<Vec<u32>> {
        let role = |r: Role| match r {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let mut ids = Vec::new();
        match &self.format {
            ChatFormat::ChatMl {
                im_start,
                im_end,
                default_system,
            } => {
                let nl = self.tokenize("\n")?;
                let turn = |r: &str, content: &str, ids: &mut Vec<u32>| -> Result<()> {
                    ids.push(*im_start);
                    ids.extend(self.tokenize(&format!("{r}\n{content}"))?);
                    ids.push(*im_end);
                    ids.extend_from_slice(&nl);
                    Ok(())
                };
                if let (Some(sys), Some(first)) = (default_system, messages.first()) {
                    if first.role != Role::System {
                        turn("system", sys, &mut ids)?;
                    }
                }
                for m in messages {
                    turn(role(m.role), &m.content, &mut ids)?;
                }
                ids.push(*im_start);
                ids.extend(self.tokenize("assistant\n")?);
            }
            ChatFormat::Llama3 {
                begin,
                start_header,
                end_header,
                eot,
            } => {
                if let Some(b) = begin {
                    ids.push(*b);
                }
                for m in messages {
                    ids.push(*start_header);
                    ids.extend(self.tokenize(role(m.role))?);
                    ids.push(*end_header);
                    ids.extend(self.tokenize(&format!("\n\n{}", m.content.trim()))?);
                    ids.push(*eot);
                }
                ids.push(*start_header);
                ids.extend(self.tokenize("assistant")?);
                ids.push(*end_header);
                ids.extend(self.tokenize("\n\n")?);
            }
        }
        Ok(ids)
    }

    /// Prompt ids that fit the context window, per the overflow policy.
    fn fitted_prompt(
        &self,
        req: &ChatRequest,
        messages: Vec<ChatMessage>,
    ) -> Result<(Vec<u32>, usize)> {
        let ctx = self.context.min((req.params.num_ctx as usize).max(2));
        let reserve = self
            .config
            .min_answer_tokens
            .min(req.params.max_tokens as usize)
            .max(1);
        let mut messages = messages;
        loop {
            let ids = self.prompt_tokens(&messages)?;
            if ids.len() + reserve <= ctx {
                return Ok((ids, ctx));
            }
            let droppable = messages
                .iter()
                .enumerate()
                .position(|(i, m)| m.role != Role::System && i + 1 < messages.len());
            match (self.config.overflow, droppable) {
                (ContextOverflow::TruncateOldest, Some(i)) => {
                    messages.remove(i);
                }
                _ => {
                    return Err(perr(
                        PROVIDER,
                        ProviderErrorKind::InvalidRequest,
                        format!(
                            "prompt is {} tokens but the context window is {ctx} tokens ({reserve} kept free for the \
                             answer); shorten the context{}",
                            ids.len(),
                            if self.config.overflow == ContextOverflow::Error {
                                " or use ContextOverflow::TruncateOldest"
                            } else {
                                ""
                            }
                        ),
                    ))
                }
            }
        }
    }

    /// Start generation on a dedicated thread; messages arrive on the receiver.
    fn spawn(&self, req: &ChatRequest) -> Result<mpsc::Receiver<Msg>> {
        crate::validate_params(PROVIDER, &req.params)?;
        let count_tokens = |text: &str| self.tokenize(text).map_or(text.len(), |ids| ids.len());
        // A grounded answer in a constrained format gets the short prompt
        // over the passages that fit (format::prompt), and may cite only those.
        let (constraint, messages) = match req.grounding.as_ref().and_then(|g| {
            Constraint::grounded(
                self.config.answer_format,
                self.config.answer_sentences.max(1),
                g,
                self.config.passage_tokens,
                count_tokens,
            )
        }) {
            Some((c, messages)) => (Some(c), messages),
            None => (None, req.messages.clone()),
        };
        let (prompt, ctx) = self.fitted_prompt(req, messages)?;
        let (tx, rx) = mpsc::channel::<Msg>(64);
        let max_tokens = match constraint {
            Some(_) => req.params.max_tokens.min(CITED_ANSWER_TOKENS),
            None => req.params.max_tokens,
        };
        let job = Job {
            weights: self.weights.clone(),
            started: Instant::now(),
            budget: self.config.budget.min(req.params.budget),
            tok: Arc::clone(&self.tok),
            prompt,
            ctx,
            max_tokens: max_tokens as usize,
            constraint,
            temperature: req.params.temperature,
            top_p: req.params.top_p,
            seed: req.params.seed.unwrap_or(self.config.default_seed),
            stops: req.params.stop.clone(),
            repeat_penalty: self.config.repeat_penalty,
            repeat_last_n: self.config.repeat_last_n,
        };
        std::thread::Builder::new()
            .name("verity-llm-local".into())
            .spawn(move || {
                if let Err(e) = job.run(&tx) {
                    let _ = tx.blocking_send(Msg::Err(e));
                }
            })
            .map_err(|e| {
                perr(
                    PROVIDER,
                    ProviderErrorKind::Unavailable,
                    format!("cannot start inference thread: {e}"),
                )
            })?;
        Ok(rx)
    }
}

/// Everything the inference thread needs.
struct Job {
    weights: Weights,
    started: Instant,
    budget: GenerationBudget,
    tok: Arc<GgufTokenizer>,
    prompt: Vec<u32>,
    ctx: usize,
    max_tokens: usize,
    /// The format a grounded answer is constrained to.
    constraint: Option<Constraint>,
    temperature: f32,
    top_p: f32,
    seed: u64,
    stops: Vec<String>,
    repeat_penalty: f32,
    repeat_last_n: usize,
}

fn candle_err(e: candle_core::Error) -> Error {
    perr(
        PROVIDER,
        ProviderErrorKind::BadResponse,
        format!("inference failed: {e}"),
    )
}

impl Job {
    /// Run to completion; returns early (Ok) when the receiver is gone.
    fn run(mut self, tx: &mpsc::Sender<Msg>) -> Result<()> {
        let constraint = self.constraint.take();
        match &self.weights {
            Weights::Candle(m) => {
                let mut session = CandleSession::new(m.clone());
                self.generate(&mut session, tx, constraint)
            }
            #[cfg(feature = "llama-cpp")]
            Weights::LlamaCpp(m) => {
                let (max_new, _) = self.budget.token_limit(self.max_tokens_u32());
                let room = self.prompt.len() + max_new as usize + 1;
                let mut session = m.session(room.min(self.ctx))?;
                self.generate(&mut session, tx, constraint)
            }
        }
    }

    fn max_tokens_u32(&self) -> u32 {
        u32::try_from(self.max_tokens).unwrap_or(u32::MAX)
    }

    /// Whether the time budget is spent.
    fn out_of_time(&self) -> bool {
        self.budget
            .time
            .is_some_and(|t| self.started.elapsed() >= t)
    }

    /// The error of a generation stopped by its budget after `tokens` new tokens.
    fn over_budget(&self, tokens: usize) -> Error {
        self.budget.exceeded(
            PROVIDER,
            self.started.elapsed(),
            u32::try_from(tokens).unwrap_or(u32::MAX),
        )
    }

    fn generate(
        &self,
        session: &mut dyn Session,
        tx: &mpsc::Sender<Msg>,
        mut constraint: Option<Constraint>,
    ) -> Result<()> {
        let device = Device::Cpu;
        let sampling = if self.temperature <= 1e-7 {
            Sampling::ArgMax
        } else if self.top_p >= 1.0 {
            Sampling::All {
                temperature: f64::from(self.temperature),
            }
        } else {
            Sampling::TopP {
                p: f64::from(self.top_p),
                temperature: f64::from(self.temperature),
            }
        };
        let mut sampler = LogitsProcessor::from_sampling(self.seed, sampling);
        let mut tokens = self.prompt.clone();
        let prompt_len = tokens.len();
        let mut keep_going = || !tx.is_closed() && !self.out_of_time();
        let Some(mut logits) = session.feed(&self.prompt, &mut keep_going)? else {
            return if tx.is_closed() {
                Ok(())
            } else {
                Err(self.over_budget(0))
            };
        };
        let prompt_done = Instant::now();
        let (token_limit, budget_limits) = self.budget.token_limit(self.max_tokens_u32());
        let max_new = (token_limit as usize).min(self.ctx.saturating_sub(prompt_len));
        let mut utf8 = Utf8Assembler::default();
        let mut stop = StopMatcher::new(self.stops.iter().cloned());
        let mut generated = 0usize;
        let finish = loop {
            if generated >= max_new {
                // A constrained answer always ends within its allowance; one
                // that did not (a tokenisation longer than the usual one) is
                // incomplete, and never returned as an answer.
                if constraint.as_ref().is_some_and(|c| !c.is_complete()) {
                    return Err(self.over_budget(generated));
                }
                if budget_limits && generated >= token_limit as usize {
                    return Err(self.over_budget(generated));
                }
                break FinishReason::Length;
            }
            if self.out_of_time() {
                return Err(self.over_budget(generated));
            }
            if let Some(c) = &constraint {
                let open = c.mask(
                    max_new - generated,
                    &self.tok.bytes,
                    &self.tok.stop_ids,
                    &mut logits,
                );
                if open == 0 {
                    return Err(perr(
                        PROVIDER,
                        ProviderErrorKind::BadResponse,
                        "no token continues the grounded answer format",
                    ));
                }
            }
            let n = logits.len();
            let mut l =
                Tensor::from_vec(std::mem::take(&mut logits), n, &device).map_err(candle_err)?;
            if self.repeat_penalty != 1.0
                && self.repeat_penalty.is_finite()
                && self.repeat_penalty > 0.0
            {
                let start = tokens
                    .len()
                    .saturating_sub(self.repeat_last_n)
                    .max(prompt_len.min(tokens.len()));
                let recent = tokens.get(start..).unwrap_or_default();
                l = candle_transformers::utils::apply_repeat_penalty(
                    &l,
                    self.repeat_penalty,
                    recent,
                )
                .map_err(candle_err)?;
            }
            let next = sampler.sample(&l).map_err(candle_err)?;
            if self.tok.stop_ids.contains(&next) {
                break FinishReason::Stop;
            }
            if let Some(c) = &mut constraint {
                let bytes = self.tok.bytes.get(next as usize).map(Vec::as_slice);
                if !bytes.is_some_and(|b| c.advance(b, max_new - generated)) {
                    return Err(perr(
                        PROVIDER,
                        ProviderErrorKind::BadResponse,
                        "the sampler left the grounded answer format",
                    ));
                }
            }
            tokens.push(next);
            generated += 1;
            let piece = utf8.push(
                self.tok
                    .bytes
                    .get(next as usize)
                    .map(Vec::as_slice)
                    .unwrap_or_default(),
            );
            let out = stop.push(&piece);
            if !out.is_empty() && tx.blocking_send(Msg::Text(out)).is_err() {
                return Ok(()); // stream dropped: stop generating
            }
            if stop.is_stopped() {
                break FinishReason::Stop;
            }
            // What the format forces next (the rest of a quoted sentence)
            // goes to the model in one batch with `next`, at the speed of a
            // prompt rather than a token at a time: nothing to sample there.
            let forced = constraint
                .as_ref()
                .and_then(Constraint::forced)
                .and_then(|rest| self.tok.tokenizer.encode(rest, false).ok())
                .map(|e| e.get_ids().to_vec())
                .filter(|ids| generated + ids.len() < max_new)
                .unwrap_or_default();
            let mut batch = vec![next];
            for &id in &forced {
                let bytes = self.tok.bytes.get(id as usize).map(Vec::as_slice);
                let fits = match (&mut constraint, bytes) {
                    (Some(c), Some(b)) => c.advance(b, max_new - generated),
                    _ => false,
                };
                if !fits {
                    return Err(perr(
                        PROVIDER,
                        ProviderErrorKind::BadResponse,
                        "the forced text left the grounded answer format",
                    ));
                }
                tokens.push(id);
                batch.push(id);
                generated += 1;
                let out = stop.push(&utf8.push(bytes.unwrap_or_default()));
                if !out.is_empty() && tx.blocking_send(Msg::Text(out)).is_err() {
                    return Ok(());
                }
                if stop.is_stopped() {
                    break;
                }
            }
            if stop.is_stopped() {
                break FinishReason::Stop;
            }
            if generated >= max_new {
                continue;
            }
            let mut never_stop = || true;
            logits = session.feed(&batch, &mut never_stop)?.unwrap_or_default();
        };
        let mut tail = stop.push(&utf8.finish());
        tail.push_str(&stop.finish());
        if !tail.is_empty() && tx.blocking_send(Msg::Text(tail)).is_err() {
            return Ok(());
        }
        // Where the time of a local answer goes (`RUST_LOG=verity_llm=info`;
        // scripts/bench/ask_local.sh reads it).
        tracing::info!(
            engine = self.weights.engine().name(),
            prompt_tokens = prompt_len,
            prompt_ms = ms(prompt_done.duration_since(self.started)),
            tokens = generated,
            generation_ms = ms(prompt_done.elapsed()),
            finish = ?finish,
            constrained = constraint.is_some(),
            "local generation"
        );
        let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let _ = tx.blocking_send(Msg::Done {
            finish,
            prompt_tokens: as_u32(prompt_len),
            completion_tokens: as_u32(generated),
        });
        Ok(())
    }
}

/// Milliseconds, rounded to 0.1.
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

fn thread_died() -> Error {
    perr(
        PROVIDER,
        ProviderErrorKind::Unavailable,
        "inference thread ended without finishing",
    )
}

#[async_trait]
impl Generator for LocalGgufGenerator {
    fn model(&self) -> &str {
        &self.name
    }

    async fn generate(&self, req: &ChatRequest) -> Result<Generation> {
        let mut rx = self.spawn(req)?;
        let mut text = String::new();
        while let Some(msg) = rx.recv().await {
            match msg {
                Msg::Text(t) => text.push_str(&t),
                Msg::Err(e) => return Err(e),
                Msg::Done {
                    finish,
                    prompt_tokens,
                    completion_tokens,
                } => {
                    return Ok(Generation {
                        text,
                        model: self.name.clone(),
                        finish_reason: finish,
                        usage: Usage {
                            prompt_tokens: Some(prompt_tokens),
                            completion_tokens: Some(completion_tokens),
                        },
                    })
                }
            }
        }
        Err(thread_died())
    }

    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream> {
        let rx = self.spawn(req)?;
        let s = futures::stream::unfold(Some(rx), |state| async move {
            let mut rx = state?;
            match rx.recv().await {
                Some(Msg::Text(t)) => Some((Ok(t), Some(rx))),
                Some(Msg::Err(e)) => Some((Err(e), None)),
                Some(Msg::Done { .. }) => None,
                None => Some((Err(thread_died()), None)),
            }
        });
        Ok(Box::pin(s))
    }

    async fn health(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a fixed prompt set, greedy paths of the two engines compared token
    /// by token with the same prefix fed to both (teacher forcing): wherever
    /// llama.cpp's best token differs from candle's, the two are within a
    /// rounding-sized logit gap. They compute the same function; f16 KV
    /// cache and other block products make near-ties fall either way, so the
    /// texts themselves can part after a near-tie (measured in
    /// docs/benchmarks.d/generate.md).
    #[cfg(feature = "llama-cpp")]
    #[test]
    fn engines_agree_up_to_near_ties() {
        #![allow(clippy::unwrap_used, clippy::expect_used)]
        let path = LocalGgufGenerator::default_model_path();
        if !path.is_file() {
            verity_testkit::skip(&format!("local GGUF model not found at {}", path.display()));
            return;
        }
        let load = |engine| {
            LocalGgufConfig::new(&path)
                .engine(engine)
                // One thread: ggml's pool spins while waiting, which starves
                // a test run sharing the cores with others.
                .threads(1)
                .build()
                .unwrap()
        };
        let (cpp, candle) = (load(LocalEngine::LlamaCpp), load(LocalEngine::Candle));
        let (Weights::LlamaCpp(cpp_model), Weights::Candle(candle_model)) =
            (&cpp.weights, &candle.weights)
        else {
            panic!("engines not loaded as asked");
        };
        let argmax = |l: &[f32]| {
            l.iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(i, _)| i)
                .unwrap()
        };
        let prompts = [
            "What is the capital of France?",
            "Say hello.",
            "Count from 1 to 10, separated by commas.",
            "Give me three tips for writing clear emails.",
            "What is photosynthesis?",
            "CONTEXT:\n[1] The fee a routing node earns for one forward is base_fee_msat + \
             amount_msat * fee_rate_ppm / 1,000,000.\n\nQUESTION: How is the fee of a forward computed?",
        ];
        let (mut steps, mut same, mut worst_gap) = (0usize, 0usize, 0f32);
        for p in prompts {
            let ids = candle.prompt_tokens(&[ChatMessage::user(p)]).unwrap();
            let mut a = cpp_model.session(ids.len() + 40).unwrap();
            let mut b = CandleSession::new(candle_model.clone());
            let mut go = || true;
            let mut la = a.feed(&ids, &mut go).unwrap().unwrap();
            let mut lb = b.feed(&ids, &mut go).unwrap().unwrap();
            for _ in 0..16 {
                let (ta, tb) = (argmax(&la), argmax(&lb));
                steps += 1;
                if ta == tb {
                    same += 1;
                } else {
                    // llama.cpp's margin of its own best over candle's choice.
                    worst_gap = worst_gap.max(la[ta] - la[tb]);
                }
                let next = u32::try_from(tb).unwrap();
                if candle.tok.stop_ids.contains(&next) {
                    break;
                }
                la = a.feed(&[next], &mut go).unwrap().unwrap();
                lb = b.feed(&[next], &mut go).unwrap().unwrap();
            }
        }
        eprintln!("{same}/{steps} greedy steps agree; worst llama.cpp logit gap where not: {worst_gap:.3}");
        assert!(same * 100 >= steps * 95, "{same}/{steps} steps agree");
        assert!(
            worst_gap < 0.5,
            "a disagreement {worst_gap:.3} logits wide is not rounding"
        );
    }

    #[test]
    fn utf8_assembler_waits_for_complete_chars() {
        let mut a = Utf8Assembler::default();
        let euro = "€".as_bytes();
        assert_eq!(a.push(b"a"), "a");
        assert_eq!(a.push(&euro[..1]), "");
        assert_eq!(a.push(&euro[1..2]), "");
        assert_eq!(a.push(&[euro[2], b'b']), "€b");
        assert_eq!(a.push(&[0xff, b'c']), "\u{fffd}c");
        assert_eq!(a.push(&euro[..2]), "");
        assert_eq!(a.finish(), "\u{fffd}");
    }
}
