#!/usr/bin/env python3
"""Offline fusion experiments on candidate lists dumped by the beir_hybrid example.

    beir_hybrid <dataset> train <work> --grid --dump /tmp/dump.jsonl
    scripts/eval/fuse_dump.py /tmp/dump.jsonl <dataset>/qrels/train.tsv

Each dump line: {"qid", "lex": [[chunk, doc, score]...], "den": [...], "whole": [[doc, score]...]}.
Prints nDCG@10 (same definition as verity_eval::ndcg_at) for a few document-level fusions.
"""
import json
import math
import sys
from collections import defaultdict


def load_qrels(path):
    qrels = defaultdict(dict)
    for i, line in enumerate(open(path)):
        p = line.strip().split("\t")
        if len(p) < 3 or (i == 0 and not p[-1].isdigit()):
            continue
        qrels[p[0]][p[1]] = int(p[2])
    return qrels


def ndcg(ranked, judged, k=10):
    dcg = sum((2 ** judged.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(judged.values(), reverse=True)[:k]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def collapse(hits):
    """Chunk hits -> {doc: best chunk score}, in rank order."""
    out = {}
    for _chunk, doc, score in hits:
        out.setdefault(doc, score)
    return out


def zscore(m):
    n = len(m)
    if n == 0:
        return {}, 0.0
    mu = sum(m.values()) / n
    sd = max(1e-6, math.sqrt(sum((v - mu) ** 2 for v in m.values()) / n))
    z = {d: (s - mu) / sd for d, s in m.items()}
    return z, min(z.values())


def minmax(m):
    if not m:
        return {}, 0.0
    lo, hi = min(m.values()), max(m.values())
    r = (hi - lo) or 1e-9
    return {d: (s - lo) / r for d, s in m.items()}, 0.0


def fuse(lists, weights, norm):
    normed = [norm(x) for x in lists]
    ids = set().union(*[n[0].keys() for n in normed])
    score = {d: sum(w * n[0].get(d, n[1]) for w, n in zip(weights, normed)) for d in ids}
    return sorted(score, key=lambda d: (-score[d], d))


def main():
    runs = [json.loads(line) for line in open(sys.argv[1])]
    qrels = load_qrels(sys.argv[2])
    depth = 200

    def evaluate(f):
        return sum(ndcg(f(r), qrels.get(r["qid"], {})) for r in runs) / len(runs)

    variants = {
        "BM25 chunks": lambda r: list(collapse(r["lex"])),
        "BM25 whole abstracts": lambda r: [d for d, _ in r["whole"]],
        "dense": lambda r: list(collapse(r["den"])),
        "z chunk BM25 + dense, wl 0.5": lambda r: fuse(
            [collapse(r["lex"][:depth]), collapse(r["den"][:depth])], [0.5, 0.5], zscore),
        "min-max whole BM25 + dense, wl 0.5": lambda r: fuse(
            [dict(r["whole"][:depth]), collapse(r["den"][:depth])], [0.5, 0.5], minmax),
    }
    for wl in (0.4, 0.5, 0.55, 0.6):
        variants[f"z whole BM25 + dense, wl {wl}"] = lambda r, wl=wl: fuse(
            [dict(r["whole"][:depth]), collapse(r["den"][:depth])], [wl, 1 - wl], zscore)
    variants["z whole 0.375 + chunk BM25 0.125 + dense 0.5"] = lambda r: fuse(
        [dict(r["whole"][:depth]), collapse(r["lex"][:depth]), collapse(r["den"][:depth])],
        [0.375, 0.125, 0.5], zscore)
    for name, f in variants.items():
        print(f"{evaluate(f):.4f}  {name}", flush=True)


if __name__ == "__main__":
    main()
