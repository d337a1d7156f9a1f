//! A packed ("unpadded") BERT encoder for CPU inference.
//!
//! Same weights and maths as `candle_transformers::models::bert`, laid out for
//! throughput on a few CPU cores:
//! - the tokens of a batch are packed into one `(tokens, hidden)` matrix with
//!   no padding, so every dense layer, layer norm and activation only touches
//!   real tokens, and attention runs per text (no mask needed);
//! - Q, K and V are one fused matrix product, with the `1/sqrt(d)` scale folded
//!   into the query weights at load time;
//! - bias + GELU and bias + residual are fused element-wise passes run on the
//!   rayon pool (candle's generic element-wise ops are single-threaded); GELU
//!   and the attention softmax use the vectorised `erf`/`exp` of
//!   [`crate::fastmath`] instead of libm's scalar ones;
//! - per-text attention runs in parallel across texts;
//! - passes of a few tokens (one query) run the dense layers on weights packed
//!   once at load ([`crate::smallmm`]) instead of gemm, which re-packs them on
//!   every call.

use candle_core::{
    CpuStorage, CustomOp1, CustomOp2, DType, Device, InplaceOp1, Layout, Result, Shape, Tensor,
};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{Config, HiddenAct};
use rayon::prelude::*;

use crate::fastmath;
use crate::smallmm::{self, PackedLinear};
use crate::{int16mm, int8mm};

struct Layer {
    /// `(3h, h)`: query (pre-scaled), key, value.
    qkv_w: Tensor,
    qkv_b: Vec<f32>,
    attn_out_w: Tensor,
    attn_out_b: Vec<f32>,
    attn_ln: (Tensor, Tensor),
    inter_w: Tensor,
    inter_b: Vec<f32>,
    out_w: Tensor,
    out_b: Vec<f32>,
    out_ln: (Tensor, Tensor),
    /// The four dense weights (QKV, attention output, intermediate, output)
    /// packed for short passes; `None` where the CPU has no fast path for them.
    small: Option<[PackedLinear; 4]>,
    /// The dense weights in integers, used for every pass when the embedder
    /// was built with `Precision::Int8`.
    quant: Option<QuantLayer>,
}

/// One layer's dense weights for `Precision::Int8`: the attention output
/// and the intermediate product in 8-bit products with smoothed inputs
/// ([`crate::int8mm`]); QKV (whose errors the attention softmax amplifies)
/// and the feed-forward output (whose GELU inputs are the most skewed) in
/// 16-bit products ([`crate::int16mm`]). Cosine to the f32 vectors on 64
/// SciFact abstracts, mean / worst: all four in 8 bits 0.9970 / 0.9951;
/// QKV also smoothed in 8 bits 0.9993 / 0.9989; this split 0.9997 / 0.9995
/// (docs/benchmarks.d/embed.md).
struct QuantLayer {
    qkv: int16mm::QuantLinear,
    /// Attention output, intermediate.
    eight: [int8mm::QuantLinear; 2],
    out: int16mm::QuantLinear,
}

/// Per input feature, the largest magnitude the inputs of a layer's
/// attention output and intermediate products took on calibration text.
type InputMax = [Vec<f32>; 2];

impl Layer {
    fn quantize(&mut self, input_max: &InputMax) -> Result<()> {
        let failed = || candle_core::Error::Msg("weights cannot be quantised".into());
        let eight = |w: &Tensor, act: &[f32]| -> Result<int8mm::QuantLinear> {
            let (out, inp) = w.dims2()?;
            int8mm::QuantLinear::quantize_smoothed(&vec_of(w)?, out, inp, act).ok_or_else(failed)
        };
        let sixteen = |w: &Tensor| -> Result<int16mm::QuantLinear> {
            let (out, inp) = w.dims2()?;
            int16mm::QuantLinear::quantize(&vec_of(w)?, out, inp).ok_or_else(failed)
        };
        self.quant = Some(QuantLayer {
            qkv: sixteen(&self.qkv_w)?,
            eight: [
                eight(&self.attn_out_w, &input_max[0])?,
                eight(&self.inter_w, &input_max[1])?,
            ],
            out: sixteen(&self.out_w)?,
        });
        Ok(())
    }

    /// The dense weights' fast forms for product `i` (QKV, attention
    /// output, intermediate, output).
    fn fast(&self, i: usize) -> Fast<'_> {
        match (&self.quant, &self.small) {
            (Some(q), _) => match i {
                0 => Fast::Int16(&q.qkv),
                1 | 2 => Fast::Int8(&q.eight[i - 1]),
                _ => Fast::Int16(&q.out),
            },
            (None, Some(s)) => Fast::Panels(&s[i]),
            (None, None) => Fast::None,
        }
    }

    fn pack_small(&mut self) -> Result<()> {
        if !smallmm::in_use() {
            return Ok(());
        }
        let pack = |w: &Tensor| -> Result<Option<PackedLinear>> {
            let (out, inp) = w.dims2()?;
            Ok(PackedLinear::pack(&vec_of(w)?, out, inp))
        };
        self.small = match (
            pack(&self.qkv_w)?,
            pack(&self.attn_out_w)?,
            pack(&self.inter_w)?,
            pack(&self.out_w)?,
        ) {
            (Some(a), Some(b), Some(c), Some(d)) => Some([a, b, c, d]),
            _ => None,
        };
        Ok(())
    }
}

/// A dense weight's alternative forms.
enum Fast<'a> {
    /// 8-bit weights, for every pass.
    Int8(&'a int8mm::QuantLinear),
    /// 10-bit weights in 16-bit products, for every pass.
    Int16(&'a int16mm::QuantLinear),
    /// f32 panels, for short passes.
    Panels(&'a PackedLinear),
    None,
}

/// What follows a dense product: bias and activation, or bias and residual.
#[derive(Clone, Copy)]
enum After<'a> {
    Bias(&'a [f32], Option<HiddenAct>),
    BiasResidual(&'a [f32], &'a Tensor),
}

/// `after(x · wᵀ)` for a `(tokens, in)` input and an `(out, in)` weight: the
/// integer weights when quantised, else the packed panels for a short pass,
/// else gemm. On the first two, `after` runs in place on the product's own
/// buffer (no second buffer to allocate, zero and fill).
fn dense(x: &Tensor, w: &Tensor, fast: Fast<'_>, after: After<'_>) -> Result<Tensor> {
    let tokens = x.dim(0)?;
    let fast = match fast {
        Fast::Panels(_) if tokens > smallmm::MAX_TOKENS => Fast::None,
        f => f,
    };
    if !matches!(fast, Fast::None) {
        let x = x.contiguous()?;
        let (storage, layout) = x.storage_and_layout();
        if let candle_core::Storage::Cpu(cpu) = &*storage {
            let input = contiguous_f32(cpu, layout, "dense")?;
            let y = match fast {
                Fast::Int8(q) => q.forward(input, tokens).map(|y| (y, q.out_features())),
                Fast::Int16(q) => q.forward(input, tokens).map(|y| (y, q.out_features())),
                Fast::Panels(lin) => lin.forward(input, tokens).map(|y| (y, lin.out_features())),
                Fast::None => None,
            };
            if let Some((mut y, out)) = y {
                finish_in_place(&mut y, out, after)?;
                return Tensor::from_vec(y, (tokens, out), x.device());
            }
        }
    }
    let y = x.matmul(&w.t()?)?;
    match after {
        After::Bias(bias, act) => y.apply_op1_no_bwd(&BiasAct { bias, act }),
        After::BiasResidual(bias, residual) => y.apply_op2_no_bwd(residual, &BiasResidual { bias }),
    }
}

/// [`After`] on a product's rows of `out` values, in place.
fn finish_in_place(y: &mut [f32], out: usize, after: After<'_>) -> Result<()> {
    if matches!(after, After::Bias(b, _) | After::BiasResidual(b, _) if b.len() != out) {
        candle_core::bail!("a bias of the wrong length for {out} outputs");
    }
    match after {
        After::Bias(bias, act) => bias_act_rows(y, bias, act),
        After::BiasResidual(bias, residual) => {
            let residual = residual.contiguous()?;
            let (storage, layout) = residual.storage_and_layout();
            let candle_core::Storage::Cpu(cpu) = &*storage else {
                candle_core::bail!("bias-residual: CPU tensor expected");
            };
            bias_residual_rows(y, contiguous_f32(cpu, layout, "bias-residual")?, bias)
        }
    }
}

/// `y = act(y + bias)` for each row of `bias.len()` values, in parallel.
fn bias_act_rows(y: &mut [f32], bias: &[f32], act: Option<HiddenAct>) -> Result<()> {
    let n = bias.len();
    if n == 0 || y.len() % n != 0 {
        candle_core::bail!("bias-act: {} values do not split into rows of {n}", y.len());
    }
    let rows = y.par_chunks_mut(n);
    match act {
        Some(HiddenAct::Gelu) => rows.for_each(|row| fastmath::bias_gelu_in_place(row, bias)),
        act => rows.for_each(|row| {
            for (o, &b) in row.iter_mut().zip(bias) {
                *o = activate(act, *o + b);
            }
        }),
    }
    Ok(())
}

/// `y = y + bias + residual` for each row of `bias.len()` values, in parallel.
fn bias_residual_rows(y: &mut [f32], residual: &[f32], bias: &[f32]) -> Result<()> {
    let n = bias.len();
    if n == 0 || y.len() % n != 0 || y.len() != residual.len() {
        candle_core::bail!(
            "bias-residual: {} values, residual {}, bias {n}",
            y.len(),
            residual.len()
        );
    }
    y.par_chunks_mut(n)
        .zip(residual.par_chunks(n))
        .for_each(|(row, r)| {
            for ((o, &r), &b) in row.iter_mut().zip(r).zip(bias) {
                *o = *o + b + r;
            }
        });
    Ok(())
}

/// Whether a pass moves onto a rayon worker ([`Bert::forward`]): on unless
/// `VERITY_EMBED_IN_POOL=off` (for comparisons).
fn in_pool() -> bool {
    crate::local::config::kernel_switches().in_pool()
}

/// A BERT encoder ready for packed inference.
pub(crate) struct Bert {
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    emb_ln: (Tensor, Tensor),
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    hidden: usize,
    eps: f32,
    act: HiddenAct,
    device: Device,
}

fn vec_of(t: &Tensor) -> Result<Vec<f32>> {
    t.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
}

fn layer_norm(vb: &VarBuilder, h: usize) -> Result<(Tensor, Tensor)> {
    if vb.contains_tensor("weight") {
        Ok((vb.get(h, "weight")?, vb.get(h, "bias")?))
    } else {
        Ok((vb.get(h, "gamma")?, vb.get(h, "beta")?))
    }
}

impl Bert {
    /// Load from a BERT checkpoint (tensor names as in Hugging Face's `BertModel`,
    /// optionally under a `bert.` or `model.` prefix).
    /// Dense layers run in f32 on gemm; [`Self::pack_panels`] adds the
    /// pre-packed panels for short passes, [`Self::quantize`] turns them to
    /// integers instead.
    pub fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        let root = ["", "bert", "model"]
            .iter()
            .map(|p| if p.is_empty() { vb.clone() } else { vb.pp(*p) })
            .find(|v| v.contains_tensor("embeddings.word_embeddings.weight"))
            .ok_or_else(|| {
                candle_core::Error::Msg("no `embeddings.word_embeddings.weight` tensor".into())
            })?;
        let h = config.hidden_size;
        let heads = config.num_attention_heads;
        if heads == 0 || h % heads != 0 {
            candle_core::bail!("hidden_size {h} is not a multiple of num_attention_heads {heads}");
        }
        let head_dim = h / heads;
        let emb = root.pp("embeddings");
        let word = emb
            .pp("word_embeddings")
            .get((config.vocab_size, h), "weight")?;
        let position = emb
            .pp("position_embeddings")
            .get((config.max_position_embeddings, h), "weight")?;
        let token_type = emb
            .pp("token_type_embeddings")
            .get((config.type_vocab_size, h), "weight")?;
        let emb_ln = layer_norm(&emb.pp("LayerNorm"), h)?;
        let scale = 1.0 / (head_dim as f64).sqrt();
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let l = root.pp(format!("encoder.layer.{i}"));
            let att = l.pp("attention");
            let sa = att.pp("self");
            let lin = |vb: VarBuilder, out: usize, inp: usize| -> Result<(Tensor, Tensor)> {
                Ok((vb.get((out, inp), "weight")?, vb.get(out, "bias")?))
            };
            let (qw, qb) = lin(sa.pp("query"), h, h)?;
            let (kw, kb) = lin(sa.pp("key"), h, h)?;
            let (vw, vbias) = lin(sa.pp("value"), h, h)?;
            let qkv_w = Tensor::cat(&[(qw * scale)?, kw, vw], 0)?.contiguous()?;
            let qkv_b = vec_of(&Tensor::cat(&[(qb * scale)?, kb, vbias], 0)?)?;
            let (aw, ab) = lin(att.pp("output").pp("dense"), h, h)?;
            let attn_ln = layer_norm(&att.pp("output").pp("LayerNorm"), h)?;
            let (iw, ib) = lin(
                l.pp("intermediate").pp("dense"),
                config.intermediate_size,
                h,
            )?;
            let (ow, ob) = lin(l.pp("output").pp("dense"), h, config.intermediate_size)?;
            let out_ln = layer_norm(&l.pp("output").pp("LayerNorm"), h)?;
            layers.push(Layer {
                qkv_w,
                qkv_b,
                attn_out_w: aw,
                attn_out_b: vec_of(&ab)?,
                attn_ln,
                inter_w: iw,
                inter_b: vec_of(&ib)?,
                out_w: ow,
                out_b: vec_of(&ob)?,
                out_ln,
                small: None,
                quant: None,
            });
        }
        Ok(Self {
            word,
            position,
            token_type,
            emb_ln,
            layers,
            heads,
            head_dim,
            hidden: h,
            eps: config.layer_norm_eps as f32,
            act: config.hidden_act,
            device: vb.device().clone(),
        })
    }

    /// Encode packed texts: `ids`/`types` hold every text's tokens back to back,
    /// `lens` their lengths. Returns the `(tokens, hidden)` last hidden states.
    ///
    /// The pass runs on a rayon worker: its ~60 parallel steps (four matrix products and
    /// the element-wise passes of each layer) then fork inside the pool instead of each
    /// being handed to it from outside, which cost two thread wake-ups per step (a one-query
    /// pass went from ~120 context switches to ~8; docs/benchmarks.d/embed.md).
    pub fn forward(&self, ids: &[u32], types: &[u32], lens: &[usize]) -> Result<Tensor> {
        if rayon::current_thread_index().is_some() || !in_pool() {
            return self.forward_here(ids, types, lens, None);
        }
        // The worker sees the cancel flag of the request this pass serves.
        let pass = verity_core::cancel::carry(|| self.forward_here(ids, types, lens, None));
        rayon::scope(|_| pass())
    }

    /// Pack every layer's dense weights for short passes ([`crate::smallmm`];
    /// nothing where the CPU has no fast path for them).
    pub fn pack_panels(&mut self) -> Result<()> {
        self.layers.iter_mut().try_for_each(Layer::pack_small)
    }

    /// Run the dense layers in integers from now on ([`QuantLayer`]): one
    /// f32 pass over the packed calibration texts (`ids`, `types`, `lens` as
    /// for [`Self::forward`]) measures each input feature's range, which
    /// sets the smoothing of the 8-bit products.
    pub fn quantize(&mut self, ids: &[u32], types: &[u32], lens: &[usize]) -> Result<()> {
        let mut input_max: Vec<InputMax> = self
            .layers
            .iter()
            .map(|l| -> Result<InputMax> {
                Ok([
                    vec![0.0; l.attn_out_w.dim(1)?],
                    vec![0.0; l.inter_w.dim(1)?],
                ])
            })
            .collect::<Result<_>>()?;
        self.forward_here(ids, types, lens, Some(&mut input_max))?;
        for (layer, max) in self.layers.iter_mut().zip(&input_max) {
            layer.quantize(max)?;
        }
        Ok(())
    }

    fn forward_here(
        &self,
        ids: &[u32],
        types: &[u32],
        lens: &[usize],
        mut observe: Option<&mut Vec<InputMax>>,
    ) -> Result<Tensor> {
        let total: usize = lens.iter().sum();
        if total != ids.len() || total != types.len() || total == 0 {
            candle_core::bail!(
                "packed input: {} ids, {} types, lengths sum to {total}",
                ids.len(),
                types.len()
            );
        }
        let positions: Vec<u32> = lens.iter().flat_map(|&l| 0..l as u32).collect();
        let ids = Tensor::from_slice(ids, total, &self.device)?;
        let types = Tensor::from_slice(types, total, &self.device)?;
        let positions = Tensor::from_vec(positions, total, &self.device)?;
        let x = ((self.word.index_select(&ids, 0)? + self.token_type.index_select(&types, 0)?)?
            + self.position.index_select(&positions, 0)?)?;
        let mut x = candle_nn::ops::layer_norm(&x, &self.emb_ln.0, &self.emb_ln.1, self.eps)?;
        let mut spans = Vec::with_capacity(lens.len());
        let mut offset = 0;
        for &l in lens {
            spans.push((offset, l));
            offset += l;
        }
        for (i, layer) in self.layers.iter().enumerate() {
            // A pass is up to a second of work: stop between layers when the
            // request it serves was given up (`verity_core::cancel`).
            if verity_core::cancel::is_cancelled() {
                return Err(candle_core::Error::Msg(
                    "cancelled: the caller has gone".into(),
                ));
            }
            let seen = observe.as_deref_mut().and_then(|o| o.get_mut(i));
            x = self.layer(layer, &x, &spans, seen)?;
        }
        Ok(x)
    }

    fn layer(
        &self,
        layer: &Layer,
        x: &Tensor,
        spans: &[(usize, usize)],
        mut seen: Option<&mut InputMax>,
    ) -> Result<Tensor> {
        let (h, heads, d) = (self.hidden, self.heads, self.head_dim);
        let mut observe = |i: usize, t: &Tensor| -> Result<()> {
            if let Some(max) = seen.as_deref_mut() {
                column_abs_max(t, &mut max[i])?;
            }
            Ok(())
        };
        let qkv = dense(
            x,
            &layer.qkv_w,
            layer.fast(0),
            After::Bias(&layer.qkv_b, None),
        )?;
        let ctx: Vec<Tensor> = spans
            .par_iter()
            .map(|&(off, len)| -> Result<Tensor> {
                let s = qkv
                    .narrow(0, off, len)?
                    .reshape((len, 3, heads, d))?
                    .permute((1, 2, 0, 3))?
                    .contiguous()?;
                let (q, k, v) = (s.get(0)?, s.get(1)?, s.get(2)?);
                let scores = q.matmul(&k.t()?)?; // (heads, len, len), scale folded into q
                                                 // In place: the scores are this closure's own tensor, and a
                                                 // copy of them (heads × len² values) cost as much as the softmax.
                scores.inplace_op1(&SoftmaxRows)?;
                scores
                    .matmul(&v)?
                    .transpose(0, 1)?
                    .contiguous()?
                    .reshape((len, h))
            })
            .collect::<Result<_>>()?;
        let ctx = Tensor::cat(&ctx, 0)?;
        observe(0, &ctx)?;
        let attn = dense(
            &ctx,
            &layer.attn_out_w,
            layer.fast(1),
            After::BiasResidual(&layer.attn_out_b, x),
        )?;
        let attn = candle_nn::ops::layer_norm(&attn, &layer.attn_ln.0, &layer.attn_ln.1, self.eps)?;
        observe(1, &attn)?;
        let inter = dense(
            &attn,
            &layer.inter_w,
            layer.fast(2),
            After::Bias(&layer.inter_b, Some(self.act)),
        )?;
        let out = dense(
            &inter,
            &layer.out_w,
            layer.fast(3),
            After::BiasResidual(&layer.out_b, &attn),
        )?;
        candle_nn::ops::layer_norm(&out, &layer.out_ln.0, &layer.out_ln.1, self.eps)
    }
}

/// Fold a `(tokens, features)` tensor's largest magnitude per feature into `max`.
fn column_abs_max(t: &Tensor, max: &mut [f32]) -> Result<()> {
    let rows = t.to_dtype(DType::F32)?.to_vec2::<f32>()?;
    for row in rows {
        for (m, v) in max.iter_mut().zip(row) {
            *m = m.max(v.abs());
        }
    }
    Ok(())
}

fn contiguous_f32<'a>(s: &'a CpuStorage, l: &Layout, what: &str) -> Result<&'a [f32]> {
    let CpuStorage::F32(data) = s else {
        candle_core::bail!("{what}: f32 input expected")
    };
    let (start, end) = l
        .contiguous_offsets()
        .ok_or_else(|| candle_core::Error::Msg(format!("{what}: contiguous input expected")))?;
    data.get(start..end)
        .ok_or_else(|| candle_core::Error::Msg(format!("{what}: layout out of bounds")))
}

#[inline]
fn activate(act: Option<HiddenAct>, v: f32) -> f32 {
    match act {
        None => v,
        Some(HiddenAct::Gelu) => {
            0.5 * v * (1.0 + fastmath::erf(v * std::f32::consts::FRAC_1_SQRT_2))
        }
        Some(HiddenAct::GeluApproximate) => {
            0.5 * v
                * (1.0 + ((2.0 / std::f32::consts::PI).sqrt() * (v + 0.044715 * v * v * v)).tanh())
        }
        Some(HiddenAct::Relu) => v.max(0.0),
    }
}

/// `act(x + bias)` row by row, in parallel (for gemm's output, which is
/// not ours to write in place; [`bias_act_rows`] on a copy).
struct BiasAct<'a> {
    bias: &'a [f32],
    act: Option<HiddenAct>,
}

impl CustomOp1 for BiasAct<'_> {
    fn name(&self) -> &'static str {
        "bias-act"
    }

    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let mut out = contiguous_f32(s, l, "bias-act")?.to_vec();
        bias_act_rows(&mut out, self.bias, self.act)?;
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
}

/// Softmax over the last dimension (one text's attention scores; the caller
/// already runs texts in parallel, so this stays on the calling thread).
struct SoftmaxRows;

impl InplaceOp1 for SoftmaxRows {
    fn name(&self) -> &'static str {
        "softmax-rows"
    }

    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> Result<()> {
        let CpuStorage::F32(data) = s else {
            candle_core::bail!("softmax-rows: f32 input expected")
        };
        let (start, end) = l.contiguous_offsets().ok_or_else(|| {
            candle_core::Error::Msg("softmax-rows: contiguous input expected".into())
        })?;
        let row = l.dims().last().copied().unwrap_or(0);
        let Some(scores) = data.get_mut(start..end) else {
            candle_core::bail!("softmax-rows: layout out of bounds")
        };
        if row == 0 || scores.len() % row != 0 {
            candle_core::bail!("softmax-rows: shape {:?}", l.shape());
        }
        fastmath::softmax_rows(scores, row);
        Ok(())
    }
}

/// `x + bias + residual`, in parallel ([`bias_residual_rows`] on a copy of
/// gemm's output).
struct BiasResidual<'a> {
    bias: &'a [f32],
}

impl CustomOp2 for BiasResidual<'_> {
    fn name(&self) -> &'static str {
        "bias-residual"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let mut out = contiguous_f32(s1, l1, "bias-residual")?.to_vec();
        let r = contiguous_f32(s2, l2, "bias-residual")?;
        bias_residual_rows(&mut out, r, self.bias)?;
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }
}
