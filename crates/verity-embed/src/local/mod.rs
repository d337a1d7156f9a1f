//! Local BERT-family sentence-transformers models, run on the CPU with candle.
//!
//! The model directory holds `config.json`, `tokenizer.json` and
//! `model.safetensors` (optionally `sentence_bert_config.json` and
//! `1_Pooling/config.json`), as unpacked by `scripts/fetch-models.sh`, or is a
//! Hugging Face cache entry (`models--org--name/` with `refs/main` and
//! `snapshots/<rev>/`).
//!
//! Inference: texts are tokenised with the model's tokenizer, truncated at
//! `max_seq_length` word pieces (the `[CLS]`/`[SEP]` markers included, like
//! sentence-transformers), sorted by length and run in batches padded only to
//! the longest text of their batch; token vectors are mean-pooled over the
//! attention mask and L2-normalised.
//!
//! Threads: matrix products run on candle's CPU backend (the `gemm` crate on
//! the global rayon pool); `RAYON_NUM_THREADS` caps it, otherwise every core
//! is used.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config as BertConfig};

pub(crate) mod config;
mod model_dir;

pub use config::{Engine, LocalEmbedderConfig, Pooling, Precision};
use model_dir::{check_architecture, name_from_dir, read_json, resolve_dir};

use crate::bert::Bert;
use crate::calibration;
use crate::passes;
use crate::spans::{self, Frame};
use rayon::prelude::*;
use sha1::{Digest, Sha1};
use tokenizers::{Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};
use verity_core::embed::l2_normalize;
use verity_core::{
    embed_spans_separately, ConfigError, Embedder, EmbedderId, Embedding, Error, ProviderError,
    ProviderErrorKind, Result, SpanEmbeddings, SpanMode, SpanText, TokenEmbeddings,
};

/// Name of the default local model.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";
const PROVIDER: &str = "local";
const FETCH_HINT: &str = "fetch it with `scripts/fetch-models.sh minilm` (or point VERITY_MODEL_DIR at a model directory)";

enum Net {
    Packed(Bert),
    Candle(BertModel),
}

struct Model {
    net: Net,
    tokenizer: Tokenizer,
    /// Same tokenizer without truncation, for [`LocalEmbedder::count_tokens`].
    counter: Tokenizer,
    device: Device,
    pooling: Pooling,
    batch_size: usize,
    /// Word pieces per forward pass, at most ([`crate::passes`]).
    pass_tokens: usize,
    /// Special tokens and window length for pooled spans (`None`: the
    /// embedder computes span vectors separately).
    span_frame: Option<Frame>,
}

/// A local sentence-transformers embedder (BERT family, CPU, candle).
///
/// Cheap to clone (the model is shared). [`Embedder::embed`] runs inference
/// on tokio's blocking pool so async callers are not stalled.
#[derive(Clone)]
pub struct LocalEmbedder {
    model: Arc<Model>,
    id: EmbedderId,
    max_seq_length: usize,
    dir: PathBuf,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("id", &self.id)
            .field("max_seq_length", &self.max_seq_length)
            .field("dir", &self.dir)
            .finish()
    }
}

fn config_invalid(message: impl Into<String>) -> Error {
    ConfigError::Invalid {
        key: "embedder.local.model_dir".into(),
        message: message.into(),
    }
    .into()
}

fn inference_error(e: impl std::fmt::Display) -> Error {
    ProviderError::new(
        PROVIDER,
        ProviderErrorKind::BadResponse,
        format!("inference failed: {e}"),
    )
    .into()
}

/// `[CLS]`/`[SEP]` framing read off the tokenizer (it frames the empty text
/// as exactly two tokens), for pooled span vectors.
fn span_frame(counter: &Tokenizer, max_len: usize) -> Option<Frame> {
    let enc = counter.encode("", true).ok()?;
    match (enc.get_ids(), max_len >= 3) {
        (&[cls, sep], true) => Some(Frame { cls, sep, max_len }),
        _ => None,
    }
}

/// One packed pass over `encs` (no padding): each text's length, the
/// hidden size, and the hidden states of every word piece, row after row.
fn packed_pass(
    bert: &Bert,
    encs: &[&Encoding],
) -> candle_core::Result<(Vec<usize>, usize, Vec<f32>)> {
    let lens: Vec<usize> = encs.iter().map(|e| e.len()).collect();
    let ids: Vec<u32> = encs
        .iter()
        .flat_map(|e| e.get_ids().iter().copied())
        .collect();
    let types: Vec<u32> = encs
        .iter()
        .flat_map(|e| e.get_type_ids().iter().copied())
        .collect();
    let (dim, flat) = hidden_rows(bert, &ids, &types, &lens)?;
    Ok((lens, dim, flat))
}

/// [`Bert::forward`] on packed inputs, as `(hidden size, rows)`.
fn hidden_rows(
    bert: &Bert,
    ids: &[u32],
    types: &[u32],
    lens: &[usize],
) -> candle_core::Result<(usize, Vec<f32>)> {
    let hidden = bert.forward(ids, types, lens)?; // (tokens, h)
    Ok((hidden.dim(1)?, hidden.flatten_all()?.to_vec1::<f32>()?))
}

fn tokenisation_failed(e: impl std::fmt::Display) -> Error {
    provider_err(
        ProviderErrorKind::InvalidRequest,
        format!("tokenisation failed: {e}"),
    )
}

fn provider_err(kind: ProviderErrorKind, msg: impl Into<String>) -> Error {
    ProviderError::new(PROVIDER, kind, msg).into()
}

impl LocalEmbedder {
    /// Default location of all-MiniLM-L6-v2: the models directory
    /// ([`verity_net::models_dir`]: `$VERITY_MODEL_DIR`, else
    /// `$VERITY_CACHE/models`, else `.cache/verity/models` under `HOME` or
    /// `USERPROFILE`) when it is a model directory itself, else its
    /// `all-MiniLM-L6-v2` entry.
    pub fn default_model_dir() -> PathBuf {
        let dir = verity_net::models_dir();
        if dir.join("config.json").is_file() || dir.join("snapshots").is_dir() {
            return dir;
        }
        dir.join(DEFAULT_MODEL)
    }

    /// Start configuring an embedder for the model in `model_dir`.
    pub fn builder(model_dir: impl Into<PathBuf>) -> LocalEmbedderConfig {
        LocalEmbedderConfig::new(model_dir)
    }

    /// Load the default model from [`LocalEmbedder::default_model_dir`].
    pub fn load_default() -> Result<Self> {
        Self::load(LocalEmbedderConfig::default())
    }

    /// Load a model (blocking: reads and checks the files, ~90 MB for MiniLM).
    ///
    /// Errors: [`ConfigError::Missing`] naming the missing file (and how to
    /// fetch it), [`ConfigError::Invalid`] for unreadable or corrupted files.
    pub fn load(config: LocalEmbedderConfig) -> Result<Self> {
        let dir = resolve_dir(&config.model_dir)?;
        for file in ["config.json", "tokenizer.json", "model.safetensors"] {
            if !dir.join(file).is_file() {
                return Err(ConfigError::Missing {
                    what: format!("model file `{file}`"),
                    detail: format!("not found in {}; {FETCH_HINT}", dir.display()),
                }
                .into());
            }
        }
        let config_path = dir.join("config.json");
        let config_bytes = std::fs::read(&config_path)
            .map_err(|e| config_invalid(format!("cannot read {}: {e}", config_path.display())))?;
        check_architecture(&config_path, &config_bytes)?;
        let bert_config: BertConfig = serde_json::from_slice(&config_bytes).map_err(|e| {
            config_invalid(format!(
                "{} is not a BERT-family config: {e}",
                config_path.display()
            ))
        })?;
        if bert_config.hidden_size == 0 || bert_config.num_attention_heads == 0 {
            return Err(config_invalid(format!(
                "{}: hidden_size and num_attention_heads must be > 0",
                config_path.display()
            )));
        }

        // Sequence limit: explicit setting, else sentence_bert_config.json, else the position limit.
        let st_config = dir.join("sentence_bert_config.json");
        let st_max = if st_config.is_file() {
            read_json(&st_config)?
                .get("max_seq_length")
                .and_then(serde_json::Value::as_u64)
                .map(|n| n as usize)
        } else {
            None
        };
        let max_seq_length = config
            .max_seq_length
            .or(st_max)
            .unwrap_or(bert_config.max_position_embeddings)
            .clamp(2, bert_config.max_position_embeddings.max(2));

        let pooling = match config.pooling {
            Some(p) => p,
            None => {
                let pool_config = dir.join("1_Pooling").join("config.json");
                if pool_config.is_file() {
                    let v = read_json(&pool_config)?;
                    let flag = |k: &str| {
                        v.get(k)
                            .and_then(serde_json::Value::as_bool)
                            .unwrap_or(false)
                    };
                    if flag("pooling_mode_cls_token") && !flag("pooling_mode_mean_tokens") {
                        Pooling::Cls
                    } else {
                        Pooling::Mean
                    }
                } else {
                    Pooling::Mean
                }
            }
        };

        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| {
            config_invalid(format!(
                "{} is not a valid tokenizer: {e}",
                tok_path.display()
            ))
        })?;
        tokenizer.with_padding(None);
        let mut counter = tokenizer.clone();
        counter.with_truncation(None).map_err(|e| {
            config_invalid(format!(
                "cannot unset truncation on {}: {e}",
                tok_path.display()
            ))
        })?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: max_seq_length,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| {
                config_invalid(format!(
                    "cannot set truncation on {}: {e}",
                    tok_path.display()
                ))
            })?;

        let weights_path = dir.join("model.safetensors");
        let weights = std::fs::read(&weights_path)
            .map_err(|e| config_invalid(format!("cannot read {}: {e}", weights_path.display())))?;
        let device = Device::Cpu;
        let corrupt = |e: &dyn std::fmt::Display| {
            config_invalid(format!(
                "{} is not a usable safetensors file ({e}); re-fetch it with scripts/fetch-models.sh",
                weights_path.display()
            ))
        };
        // Parse the header ourselves first: a clear error for truncated or garbage files.
        safetensors::SafeTensors::deserialize(&weights).map_err(|e| corrupt(&e))?;
        let tensors = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            candle_core::safetensors::load_buffer(&weights, &device)
        }))
        .map_err(|_| corrupt(&"the loader panicked"))?
        .map_err(|e| corrupt(&e))?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let int8 = config.precision == Precision::Int8;
        let net = match config.engine {
            Engine::Packed => {
                let mut bert = Bert::load(vb, &bert_config).map_err(|e| corrupt(&e))?;
                if int8 {
                    calibration::quantize(&mut bert, &tokenizer).map_err(|e| corrupt(&e))?;
                } else {
                    bert.pack_panels().map_err(|e| corrupt(&e))?;
                }
                Net::Packed(bert)
            }
            Engine::CandleBert if int8 => {
                return Err(ConfigError::Invalid {
                    key: "embedder.local.precision".into(),
                    message:
                        "int8 precision needs the packed engine, not the reference candle engine"
                            .into(),
                }
                .into());
            }
            Engine::CandleBert => {
                Net::Candle(BertModel::load(vb, &bert_config).map_err(|e| corrupt(&e))?)
            }
        };

        let model_name = config
            .model_name
            .unwrap_or_else(|| name_from_dir(&config.model_dir, &dir));
        let version = config.embed_version.unwrap_or_else(|| {
            let mut h = Sha1::new();
            h.update(&config_bytes);
            h.update(weights.len().to_le_bytes());
            h.update(max_seq_length.to_le_bytes());
            h.update([pooling as u8]);
            let hash: String = hex::encode(h.finalize()).chars().take(12).collect();
            if int8 {
                EmbedderId::int8_version(&hash)
            } else {
                hash
            }
        });
        let id = EmbedderId::new(model_name, version, bert_config.hidden_size);
        let span_frame = match (config.span_mode, &net) {
            (SpanMode::Pooled, Net::Packed(_)) => span_frame(&counter, max_seq_length),
            _ => None,
        };
        if config.span_mode == SpanMode::Pooled && span_frame.is_none() {
            tracing::warn!(%id, "pooled span vectors need the packed engine and [CLS]/[SEP] framing; computing them separately");
        }
        tracing::debug!(%id, dir = %dir.display(), max_seq_length, ?pooling, "loaded local embedder");
        Ok(Self {
            model: Arc::new(Model {
                net,
                tokenizer,
                counter,
                device,
                pooling,
                batch_size: config.batch_size,
                pass_tokens: config.pass_tokens,
                span_frame,
            }),
            id,
            max_seq_length,
            dir,
        })
    }

    /// The directory the model files were read from.
    pub fn model_dir(&self) -> &Path {
        &self.dir
    }

    /// Number of word pieces `text` becomes, `[CLS]`/`[SEP]` included, before truncation.
    pub fn count_tokens(&self, text: &str) -> Result<usize> {
        let enc = self
            .model
            .counter
            .encode(text, true)
            .map_err(tokenisation_failed)?;
        Ok(enc.len())
    }

    /// [`Embedder::embed_tokens`] synchronously on the calling thread;
    /// `None` with the reference (candle) engine.
    pub fn embed_tokens_blocking<S: AsRef<str>>(
        &self,
        texts: &[S],
    ) -> Result<Option<Vec<TokenEmbeddings>>> {
        match &self.model.net {
            Net::Packed(bert) => self.model.embed_tokens(bert, texts).map(Some),
            Net::Candle(_) => Ok(None),
        }
    }

    /// Embed synchronously on the calling thread (CPU-bound; from async code use
    /// [`Embedder::embed`], which moves the work to the blocking pool).
    pub fn embed_blocking<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<Embedding>> {
        self.model.embed(texts)
    }
}

impl Model {
    /// `order` in forward passes of at most `batch_size` texts and
    /// `pass_tokens` word pieces ([`crate::passes`]).
    fn passes<'a, T>(&self, order: &'a [T], len: impl Fn(&T) -> usize) -> Vec<&'a [T]> {
        passes::passes(order, len, self.batch_size, self.pass_tokens)
    }

    /// Tokenise `texts` and group their indices into forward passes, longest
    /// first, so that each pass is padded only to its own longest text.
    fn encoded_passes<S: AsRef<str>>(
        &self,
        texts: &[S],
    ) -> Result<(Vec<Encoding>, Vec<Vec<usize>>)> {
        let inputs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(tokenisation_failed)?;
        let len = |&i: &usize| encodings.get(i).map_or(0, Encoding::len);
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|i| std::cmp::Reverse(len(i)));
        let passes = self
            .passes(&order, len)
            .into_iter()
            .map(<[usize]>::to_vec)
            .collect();
        Ok((encodings, passes))
    }

    /// Text vectors and word-piece states ([`Embedder::embed_tokens`]); packed engine only.
    fn embed_tokens<S: AsRef<str>>(
        &self,
        bert: &Bert,
        texts: &[S],
    ) -> Result<Vec<TokenEmbeddings>> {
        let (encodings, passes) = self.encoded_passes(texts)?;
        let mut out: Vec<Option<TokenEmbeddings>> = vec![None; encodings.len()];
        for batch in &passes {
            // Stop between passes when the request was given up.
            verity_core::cancel::check()?;
            let encs: Vec<&Encoding> = batch.iter().filter_map(|&i| encodings.get(i)).collect();
            let (lens, dim, flat) = packed_pass(bert, &encs).map_err(inference_error)?;
            let mut offset = 0;
            for ((&i, enc), &len) in batch.iter().zip(&encs).zip(&lens) {
                let rows = flat
                    .get(offset * dim..(offset + len) * dim)
                    .unwrap_or_default();
                offset += len;
                let text = match self.pooling {
                    Pooling::Mean => spans::mean_rows(rows, dim, 0..len),
                    Pooling::Cls => spans::mean_rows(rows, dim, 0..1),
                };
                let mut tokens = Vec::with_capacity(len);
                let mut offsets = Vec::with_capacity(len);
                for ((row, &special), o) in rows
                    .chunks_exact(dim)
                    .zip(enc.get_special_tokens_mask())
                    .zip(enc.get_offsets())
                {
                    if special != 0 {
                        continue;
                    }
                    let mut v = row.to_vec();
                    l2_normalize(&mut v);
                    tokens.push(v);
                    offsets.push(o.0..o.1);
                }
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(TokenEmbeddings {
                        text,
                        tokens,
                        offsets,
                    });
                }
            }
        }
        crate::filled(PROVIDER, out)
    }

    fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<Embedding>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let (encodings, passes) = self.encoded_passes(texts)?;
        let mut out: Vec<Option<Embedding>> = vec![None; encodings.len()];
        for batch in &passes {
            // Stop between passes when the request was given up.
            verity_core::cancel::check()?;
            let encs: Vec<&Encoding> = batch.iter().filter_map(|&i| encodings.get(i)).collect();
            let vectors = self.forward(&encs).map_err(inference_error)?;
            for (&i, v) in batch.iter().zip(vectors) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(v);
                }
            }
        }
        crate::filled(PROVIDER, out)
    }

    /// Pooled span vectors ([`SpanMode::Pooled`]; see [`crate::spans`]).
    fn embed_spans(
        &self,
        bert: &Bert,
        frame: Frame,
        items: &[SpanText],
    ) -> Result<Vec<SpanEmbeddings>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        let encodings = self
            .counter
            .encode_batch(texts, false)
            .map_err(tokenisation_failed)?;
        let plans: Vec<spans::ItemPlan> = items
            .iter()
            .zip(&encodings)
            .map(|(item, enc)| {
                let starts: Vec<usize> = enc.get_offsets().iter().map(|o| o.0).collect();
                spans::plan(enc.get_ids(), &starts, item.context, &item.spans, frame)
            })
            .collect();
        // Every window of every item, longest first, run in batches.
        let mut order: Vec<(usize, usize)> = plans
            .iter()
            .enumerate()
            .flat_map(|(i, p)| (0..p.windows.len()).map(move |w| (i, w)))
            .collect();
        let window = |&(i, w): &(usize, usize)| -> &[u32] {
            plans
                .get(i)
                .and_then(|p| p.windows.get(w))
                .map_or(&[], Vec::as_slice)
        };
        order.sort_by_key(|k| std::cmp::Reverse(window(k).len()));
        let mut states: Vec<Vec<Vec<f32>>> = plans
            .iter()
            .map(|p| vec![Vec::new(); p.windows.len()])
            .collect();
        let mut dim = 0;
        let run = |batch: &[(usize, usize)]| -> Result<(usize, Vec<f32>, Vec<usize>)> {
            let lens: Vec<usize> = batch.iter().map(|k| window(k).len()).collect();
            let ids: Vec<u32> = batch
                .iter()
                .flat_map(|k| window(k).iter().copied())
                .collect();
            let types = vec![0u32; ids.len()];
            let (dim, flat) = hidden_rows(bert, &ids, &types, &lens).map_err(inference_error)?;
            Ok((dim, flat, lens))
        };
        // Several passes at a time, each on a one-thread pool of its own (a
        // lane, `crate::passes::lanes`): a pass is ~60 fork–join steps, and
        // on 2 cores one pass split across both kept 1.61 of them busy
        // (waits at each join, steps that do not split), where one pass per
        // core has nothing to wait for. A lone pass (a query) still splits
        // across the whole pool. SciFact `--fast`, docs/benchmarks.d/ingest.md.
        let passes = self.passes(&order, |k| window(k).len());
        let lanes = crate::passes::lanes();
        for group in passes.chunks(lanes.len().max(1)) {
            // Stop between passes when the request was given up.
            verity_core::cancel::check()?;
            let outs: Vec<_> = if group.len() < 2 {
                group
                    .iter()
                    .map(|b| Ok((b, run(b)?)))
                    .collect::<Result<_>>()?
            } else {
                group
                    .par_iter()
                    .zip(lanes)
                    .map(|(b, lane)| {
                        let pass = verity_core::cancel::carry(|| run(b));
                        lane.install(pass).map(|out| (b, out))
                    })
                    .collect::<Result<_>>()?
            };
            for (batch, (d, flat, lens)) in outs {
                dim = d;
                let mut offset = 0;
                for (&(i, w), &len) in batch.iter().zip(&lens) {
                    if let Some(slot) = states.get_mut(i).and_then(|s| s.get_mut(w)) {
                        *slot = flat
                            .get(offset * dim..(offset + len) * dim)
                            .unwrap_or_default()
                            .to_vec();
                    }
                    offset += len;
                }
            }
        }
        let mut out = Vec::with_capacity(items.len());
        for (plan, states) in plans.iter().zip(&states) {
            let first = states.first().map_or(&[][..], Vec::as_slice);
            let rows = first.len() / dim.max(1);
            let text = match self.pooling {
                Pooling::Mean => spans::mean_rows(first, dim, 0..rows),
                Pooling::Cls => spans::mean_rows(first, dim, 0..1),
            };
            let span_vectors = plan
                .spans
                .iter()
                .map(|s| match s {
                    Some(s) => spans::mean_rows(
                        states.get(s.window).map_or(&[][..], Vec::as_slice),
                        dim,
                        s.rows.clone(),
                    ),
                    None => text.clone(),
                })
                .collect();
            out.push(SpanEmbeddings {
                text,
                spans: span_vectors,
            });
        }
        Ok(out)
    }

    fn forward(&self, encs: &[&Encoding]) -> candle_core::Result<Vec<Embedding>> {
        match &self.net {
            Net::Packed(bert) => self.forward_packed(bert, encs),
            Net::Candle(bert) => self.forward_padded(bert, encs),
        }
    }

    fn forward_packed(
        &self,
        bert: &Bert,
        encs: &[&Encoding],
    ) -> candle_core::Result<Vec<Embedding>> {
        let (lens, h, flat) = packed_pass(bert, encs)?;
        let mut out = Vec::with_capacity(encs.len());
        let mut offset = 0;
        for (enc, &len) in encs.iter().zip(&lens) {
            let rows = flat.get(offset * h..(offset + len) * h).unwrap_or_default();
            offset += len;
            let mut v = vec![0f32; h];
            match self.pooling {
                Pooling::Mean => {
                    let mut kept = 0f32;
                    for (row, &m) in rows.chunks_exact(h).zip(enc.get_attention_mask()) {
                        if m != 0 {
                            kept += 1.0;
                            v.iter_mut().zip(row).for_each(|(a, x)| *a += x);
                        }
                    }
                    let kept = kept.max(1.0);
                    v.iter_mut().for_each(|a| *a /= kept);
                }
                Pooling::Cls => {
                    if let Some(row) = rows.chunks_exact(h).next() {
                        v.copy_from_slice(row);
                    }
                }
            }
            l2_normalize(&mut v);
            out.push(v);
        }
        Ok(out)
    }

    fn forward_padded(
        &self,
        bert: &BertModel,
        encs: &[&Encoding],
    ) -> candle_core::Result<Vec<Embedding>> {
        let b = encs.len();
        let len = encs.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0u32; b * len];
        let mut types = vec![0u32; b * len];
        let mut mask = vec![0u32; b * len];
        for (row, enc) in encs.iter().enumerate() {
            let start = row * len;
            for (j, ((&id, &ty), &m)) in enc
                .get_ids()
                .iter()
                .zip(enc.get_type_ids())
                .zip(enc.get_attention_mask())
                .enumerate()
            {
                if let (Some(a), Some(t), Some(k)) = (
                    ids.get_mut(start + j),
                    types.get_mut(start + j),
                    mask.get_mut(start + j),
                ) {
                    *a = id;
                    *t = ty;
                    *k = m;
                }
            }
        }
        let ids = Tensor::from_vec(ids, (b, len), &self.device)?;
        let types = Tensor::from_vec(types, (b, len), &self.device)?;
        let mask = Tensor::from_vec(mask, (b, len), &self.device)?;
        let hidden = bert.forward(&ids, &types, Some(&mask))?; // (b, len, h)
        let pooled = match self.pooling {
            Pooling::Mean => {
                let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (b, len, 1)
                let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (b, h)
                let counts = m.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (b, 1)
                summed.broadcast_div(&counts)?
            }
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
        };
        let mut rows = pooled.to_vec2::<f32>()?;
        rows.iter_mut().for_each(|r| l2_normalize(r));
        Ok(rows)
    }
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn id(&self) -> &EmbedderId {
        &self.id
    }

    fn max_tokens(&self) -> usize {
        self.max_seq_length
    }

    fn int8_speedup(&self) -> Option<f64> {
        (!self.id.is_int8()).then(crate::simd::int8_speedup)
    }

    fn span_mode(&self) -> SpanMode {
        if self.model.span_frame.is_some() {
            SpanMode::Pooled
        } else {
            SpanMode::Separate
        }
    }

    async fn embed_spans(&self, items: &[SpanText]) -> Result<Vec<SpanEmbeddings>> {
        let Some(frame) = self.model.span_frame else {
            return embed_spans_separately(self, items).await;
        };
        for item in items {
            if let Some(r) = item
                .spans
                .iter()
                .find(|r| item.text.get((*r).clone()).is_none())
            {
                return Err(Error::invalid_input(format!(
                    "span {r:?} is not a char range of a {}-byte text",
                    item.text.len()
                )));
            }
        }
        let model = Arc::clone(&self.model);
        let items = items.to_vec();
        tokio::task::spawn_blocking(verity_core::cancel::carry(move || match &model.net {
            Net::Packed(bert) => model.embed_spans(bert, frame, &items),
            Net::Candle(_) => Err(provider_err(
                ProviderErrorKind::BadResponse,
                "pooled spans need the packed engine",
            )),
        }))
        .await
        .map_err(|e| {
            provider_err(
                ProviderErrorKind::BadResponse,
                format!("inference task failed: {e}"),
            )
        })?
    }

    async fn embed_tokens(&self, texts: &[String]) -> Result<Option<Vec<TokenEmbeddings>>> {
        if !matches!(self.model.net, Net::Packed(_)) {
            return Ok(None);
        }
        if texts.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let model = Arc::clone(&self.model);
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(verity_core::cancel::carry(move || match &model.net {
            Net::Packed(bert) => model.embed_tokens(bert, &texts).map(Some),
            Net::Candle(_) => Ok(None),
        }))
        .await
        .map_err(|e| {
            provider_err(
                ProviderErrorKind::BadResponse,
                format!("inference task failed: {e}"),
            )
        })?
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let model = Arc::clone(&self.model);
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(verity_core::cancel::carry(move || model.embed(&texts)))
            .await
            .map_err(|e| {
                provider_err(
                    ProviderErrorKind::BadResponse,
                    format!("inference task failed: {e}"),
                )
            })?
    }
}
