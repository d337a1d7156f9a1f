"""Simulated integer dense layers for all-MiniLM-L6-v2 (fake quantisation in PyTorch).

Each named scheme quantises the inputs and weights of chosen dense layers the way
crates/verity-embed's int8mm / int16mm do (inputs per token, weights per output
feature, optional SmoothQuant-style smoothing calibrated on the ten paragraphs of
crates/verity-embed/src/calibration.rs), then prints the cosine of the pooled
vectors to the f32 ones on the first 64 SciFact abstracts. This is how the split
of `Precision::Int8` was chosen (docs/benchmarks.d/embed.md).

    /path/to/venv/bin/python scripts/eval/quant_sim.py ../shared/data [MODEL_DIR]

Needs torch and transformers.
"""

import json
import os
import re
import sys

import torch
from transformers import AutoModel, AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def calibration_texts():
    src = open(os.path.join(ROOT, "crates/verity-embed/src/calibration.rs"), encoding="utf-8").read()
    body = src[src.index("pub(crate) const TEXTS") :]
    return re.findall(r'^\s+"(.*)",$', body[: body.index("];")], re.M)


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
    model_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/verity/models/all-MiniLM-L6-v2")
    torch.set_num_threads(2)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    with open(os.path.join(data, "scifact/corpus.jsonl"), encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f][:64]

    def embed(batch_texts):
        out = []
        with torch.no_grad():
            for i in range(0, len(batch_texts), 16):
                b = tok(batch_texts[i : i + 16], padding=True, truncation=True, max_length=256, return_tensors="pt")
                h = model(**b).last_hidden_state
                mask = b["attention_mask"].unsqueeze(-1).float()
                out.append(torch.nn.functional.normalize((h * mask).sum(1) / mask.sum(1), dim=-1))
        return torch.cat(out)

    reference = embed(texts)
    lins = {}
    for i, layer in enumerate(model.encoder.layer):
        sa = layer.attention.self
        lins[(i, "q")], lins[(i, "k")], lins[(i, "v")] = sa.query, sa.key, sa.value
        lins[(i, "ao")] = layer.attention.output.dense
        lins[(i, "up")] = layer.intermediate.dense
        lins[(i, "down")] = layer.output.dense
    original = {k: v.weight.data.clone() for k, v in lins.items()}

    # Per input feature, the largest magnitude on the calibration text.
    stats, hooks = {}, []
    for key, lin in lins.items():
        def hook(mod, inp, out, key=key):
            x = inp[0].reshape(-1, inp[0].shape[-1]).abs().amax(0)
            stats[key] = torch.maximum(stats.get(key, x), x)
        hooks.append(lin.register_forward_hook(hook))
    embed(calibration_texts())
    for h in hooks:
        h.remove()

    def quant_inputs(x, bits, symmetric):
        if symmetric:  # int16mm: ±(2^(bits-1) - 1)
            top = 2 ** (bits - 1) - 1
            s = x.abs().amax(-1, keepdim=True) / top
            s[s == 0] = 1
            return (x / s).round().clamp(-top, top) * s
        top = 2**bits - 1  # int8mm: 0..2^bits - 1 with a zero point
        lo = x.amin(-1, keepdim=True).clamp(max=0)
        hi = x.amax(-1, keepdim=True).clamp(min=0)
        s = (hi - lo) / top
        s[s == 0] = 1
        z = (-lo / s).round()
        return ((x / s).round() + z).clamp(0, top).sub(z) * s

    def quant_weights(w, bits):
        top = 2 ** (bits - 1) - 1
        s = w.abs().amax(1, keepdim=True) / top
        s[s == 0] = 1
        return (w / s).round().clamp(-top, top) * s

    EIGHT, SMOOTH, SIXTEEN = (7, 8, False, False), (7, 8, False, True), (12, 10, True, False)

    def apply(scheme):
        for key, lin in lins.items():
            lin._forward_pre_hooks.clear()
            cfg = scheme.get(key[1])
            if cfg is None:
                lin.weight.data = original[key].clone()
                continue
            abits, wbits, symmetric, smooth = cfg
            w = original[key]
            s = torch.ones(w.shape[1])
            if smooth:
                w_max = w.abs().amax(0)
                if key[1] in "qkv":  # Q, K and V are one fused product: one input, one smoothing
                    w_max = torch.stack([original[(key[0], t)].abs().amax(0) for t in "qkv"]).amax(0)
                s = (stats[key].clamp(min=1e-5) / w_max.clamp(min=1e-5)).sqrt()
            lin.weight.data = quant_weights(w * s, wbits)
            lin.register_forward_pre_hook(lambda mod, inp, s=s, a=abits, sym=symmetric: (quant_inputs(inp[0] / s, a, sym),))

    schemes = {
        "all four in 8 bits (the first form)": dict(q=EIGHT, k=EIGHT, v=EIGHT, ao=EIGHT, up=EIGHT, down=EIGHT),
        "8 bits, smoothed": dict(q=SMOOTH, k=SMOOTH, v=SMOOTH, ao=SMOOTH, up=SMOOTH, down=SMOOTH),
        "8 bits smoothed, output in 16": dict(q=SMOOTH, k=SMOOTH, v=SMOOTH, ao=SMOOTH, up=SMOOTH, down=SIXTEEN),
        "QKV and output in 16, rest 8 smoothed (shipped)": dict(
            q=SIXTEEN, k=SIXTEEN, v=SIXTEEN, ao=SMOOTH, up=SMOOTH, down=SIXTEEN
        ),
        "all four in 16": dict(q=SIXTEEN, k=SIXTEEN, v=SIXTEEN, ao=SIXTEEN, up=SIXTEEN, down=SIXTEEN),
    }
    for name, scheme in schemes.items():
        apply(scheme)
        c = (embed(texts) * reference).sum(-1)
        print(f"{name:48s} cosine to f32: mean {c.mean():.5f}, worst {c.min():.5f}", flush=True)


if __name__ == "__main__":
    main()
