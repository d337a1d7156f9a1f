#!/usr/bin/env python3
"""Reference throughput: sentence-transformers (PyTorch CPU) on the embed bench's workload.

The first 64 SciFact abstracts, all-MiniLM-L6-v2 from Verity's model directory, truncated at
256 word pieces; median wall time of REPS runs per batch size. Compare with
`RAYON_NUM_THREADS=2 cargo bench -p verity-benches --bench embed` (docs/benchmarks.d/embed.md).

    python3 -m venv /tmp/st-venv && /tmp/st-venv/bin/pip install torch sentence-transformers
    THREADS=2 REPS=5 /tmp/st-venv/bin/python scripts/eval/st_bench.py
"""
import json
import os
import statistics
import time
from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("VERITY_DATA_DIR", ROOT.parent / "shared" / "data"))
MODEL = Path(os.environ.get("VERITY_MODEL_DIR", Path.home() / ".cache/verity/models/all-MiniLM-L6-v2"))
THREADS = int(os.environ.get("THREADS", "2"))
REPS = int(os.environ.get("REPS", "5"))

torch.set_num_threads(THREADS)
texts = []
with open(DATA / "scifact" / "corpus.jsonl") as f:
    for line in f:
        t = json.loads(line).get("text", "")
        if t:
            texts.append(t)
        if len(texts) == 64:
            break
model = SentenceTransformer(str(MODEL), device="cpu")
model.max_seq_length = 256
tokens = sum(min(256, len(model.tokenizer(t)["input_ids"])) for t in texts)
model.encode(texts[:8], batch_size=8)  # warm-up
print(f"torch {torch.__version__}, {THREADS} threads, {len(texts)} texts, {tokens} word pieces")
for bs in (8, 32, 64):
    times = []
    for _ in range(REPS):
        t = time.perf_counter()
        model.encode(texts, batch_size=bs, normalize_embeddings=True)
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    print(f"ST batch {bs:>2}: {med:.3f} s  {len(texts) / med:.1f} chunks/s  {tokens / med:.0f} tokens/s")
