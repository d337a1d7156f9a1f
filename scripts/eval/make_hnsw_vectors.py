"""Real-embedding vector set for the HNSW benchmark (benches/benches/hnsw.rs).

Builds 100,000 distinct passages from the evaluation data in ../shared/data -- SciFact sentences,
titles and windows of 2 (then 3) consecutive sentences, plus the sentences and sentence windows of
the article-extraction ground-truth texts -- embeds them with the local all-MiniLM-L6-v2
(sentence-transformers, normalised, CPU) and writes, under ~/.cache/verity/bench/ by default:

* ``scifact-minilm-100k.npy``          base vectors, float32, shape (100000, 384)
* ``scifact-minilm-100k.queries.npy``  the 809 SciFact training claims (queries unlike the passages)
* ``scifact-minilm-100k.heldout.npy``  1,000 passages of the same kind, held out of the base set
* ``scifact-minilm-100k.texts.jsonl``  the text behind every row (base, held-out, then claims)

Run (needs torch + sentence-transformers, e.g. the venv that scripts/eval/st_bench.py uses;
on 2 cores about 35 minutes in float32, 14 minutes with --bf16):

    python scripts/eval/make_hnsw_vectors.py \
        [--data ../shared/data] [--model ~/.cache/verity/models/all-MiniLM-L6-v2] \
        [--out ~/.cache/verity/bench] [--n 100000] [--heldout 1000] [--threads 2] [--bf16]

then

    VERITY_HNSW_VECTORS=~/.cache/verity/bench/scifact-minilm-100k.npy \
        cargo bench -p verity-benches --bench hnsw

The passage selection is deterministic (fixed seed). With --bf16 the model runs under bfloat16
autocast: every vector has cosine >= 0.9999 with its float32 counterpart (measured on 600 SciFact
passages: min 0.99997, mean 0.99998), which changes nothing for an index benchmark.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from pathlib import Path

SEED = 20261123


def sentences_of(text: str) -> list[str]:
    """Split free text into sentences of at least 4 words."""
    out = []
    for para in re.split(r"\n+", text):
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])", para.strip()):
            s = " ".join(s.split())
            if len(s.split()) >= 4:
                out.append(s)
    return out


def windows(sents: list[str], width: int) -> list[str]:
    return [" ".join(sents[i : i + width]) for i in range(len(sents) - width + 1)]


def passage_pools(data: Path) -> list[tuple[str, list[str]]]:
    """Candidate passages by priority: single sentences first, wider windows only as needed."""
    docs: list[list[str]] = []
    titles: list[str] = []
    with open(data / "scifact" / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            docs.append([" ".join(s.split()) for s in d.get("sentences") or [] if s.strip()])
            if d.get("title"):
                titles.append(" ".join(d["title"].split()))
    articles: list[list[str]] = []
    gt_path = data / "article-extraction" / "ground-truth.json"
    if gt_path.exists():
        with open(gt_path, encoding="utf-8") as f:
            gt = json.load(f)
        for key in sorted(gt):
            articles.append(sentences_of(gt[key].get("articleBody") or ""))
    return [
        ("scifact-sentence", [s for d in docs for s in d]),
        ("scifact-title", titles),
        ("article-sentence", [s for a in articles for s in a]),
        ("scifact-window2", [w for d in docs for w in windows(d, 2)]),
        ("article-window2", [w for a in articles for w in windows(a, 2)]),
        ("scifact-window3", [w for d in docs for w in windows(d, 3)]),
        ("article-window3", [w for a in articles for w in windows(a, 3)]),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--model", default=os.path.expanduser("~/.cache/verity/models/all-MiniLM-L6-v2"))
    ap.add_argument("--out", default=os.path.expanduser("~/.cache/verity/bench"))
    ap.add_argument("--name", default="scifact-minilm-100k")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--heldout", type=int, default=1_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument(
        "--bf16",
        action="store_true",
        help="bfloat16 autocast on CPU: ~2.6x faster here, cosine >= 0.9999 to the float32 vectors",
    )
    args = ap.parse_args()

    data = Path(args.data)
    if not (data / "scifact" / "corpus.jsonl").exists():
        print(f"no SciFact corpus under {data}", file=sys.stderr)
        return 2

    need = args.n + args.heldout
    seen: set[str] = set()
    picked: list[tuple[str, str]] = []
    for source, texts in passage_pools(data):
        for t in texts:
            if len(picked) >= need:
                break
            if t and t not in seen:
                seen.add(t)
                picked.append((source, t))
    if len(picked) < need:
        print(f"only {len(picked)} distinct passages, {need} needed", file=sys.stderr)
        return 1
    random.Random(SEED).shuffle(picked)
    heldout, base = picked[: args.heldout], picked[args.heldout :]

    claims: list[str] = []
    with open(data / "scifact" / "claims_train.jsonl", encoding="utf-8") as f:
        for line in f:
            claims.append(" ".join(json.loads(line)["claim"].split()))

    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(args.threads)
    model = SentenceTransformer(args.model, device="cpu")

    def embed(texts: list[str], what: str) -> "np.ndarray":
        start = time.time()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            v = model.encode(
                texts,
                batch_size=args.batch,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        print(f"{what}: {len(texts)} texts in {time.time() - start:.0f} s", file=sys.stderr)
        return v

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / args.name
    q = embed(claims, "claims")
    h = embed([t for _, t in heldout], "held-out passages")
    b = embed([t for _, t in base], "base passages")
    np.save(f"{stem}.queries.npy", q)
    np.save(f"{stem}.heldout.npy", h)
    np.save(f"{stem}.npy", b)
    with open(f"{stem}.texts.jsonl", "w", encoding="utf-8") as f:
        for kind, rows in (("base", base), ("heldout", heldout)):
            for i, (source, t) in enumerate(rows):
                f.write(json.dumps({"set": kind, "row": i, "source": source, "text": t}) + "\n")
        for i, t in enumerate(claims):
            f.write(json.dumps({"set": "claims", "row": i, "source": "scifact-claim", "text": t}) + "\n")
    counts: dict[str, int] = {}
    for source, _ in base:
        counts[source] = counts.get(source, 0) + 1
    print(json.dumps({"base": len(base), "heldout": len(heldout), "claims": len(claims), "sources": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
