"""Reference HNSW numbers (faiss, hnswlib) on the vectors of the HNSW benchmark (benches/benches/hnsw.rs).

Data sets, the same as the Rust benchmark's:

* ``random``    -- VERITY_HNSW_N random unit vectors (seed 1) and queries (seed 2), bit-for-bit the
                   generator of benches/benches/hnsw.rs (SplitMix64, Box-Muller, f32 normalisation);
* ``clustered`` -- 200 centroids + isotropic noise (seeds 3 and 4), idem;
* a path to a ``.npy`` file (e.g. from scripts/eval/make_hnsw_vectors.py) -- base vectors; the
  queries are ``<stem>.queries.npy`` (or ``--queries``).

Per implementation: build time (all threads given by --threads), recall@10 against brute force and
single-query latency p50 / p95 (one thread, one query at a time, like the Rust benchmark), for each
ef_search.

Run (faiss-cpu and/or hnswlib from PyPI):

    python scripts/eval/hnsw_reference.py random --n 100000 --m 24 --efc 200 --ef 128,256,512
    python scripts/eval/hnsw_reference.py ~/.cache/verity/bench/scifact-minilm-100k.npy --lib faiss
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def splitmix(seed: int, start: int, count: int) -> np.ndarray:
    """Outputs start..start+count of the benchmark's SplitMix64 generator seeded with `seed`."""
    with np.errstate(over="ignore"):
        k = np.arange(start + 1, start + count + 1, dtype=np.uint64)
        z = np.uint64(seed) + k * GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class Rng:
    """The benchmark's generator, vectorised; `pos` counts the u64 outputs drawn so far."""

    def __init__(self, seed: int) -> None:
        self.seed, self.pos = seed, 0

    def take(self, count: int) -> np.ndarray:
        out = splitmix(self.seed, self.pos, count)
        self.pos += count
        return out

    def gauss(self, count: int) -> np.ndarray:
        u = self.take(2 * count).reshape(count, 2)
        uni = ((u >> np.uint64(11)).astype(np.float64) + 0.5) / float(1 << 53)
        g = np.sqrt(-2.0 * np.log(uni[:, 0])) * np.cos(2.0 * np.pi * uni[:, 1])
        return g.astype(np.float32)


def normalize_rows(v: np.ndarray) -> np.ndarray:
    # Sequential f32 sum of squares, as in the Rust code (x * x summed left to right).
    acc = np.zeros(v.shape[0], dtype=np.float32)
    for j in range(v.shape[1]):
        acc += v[:, j] * v[:, j]
    return (v / np.sqrt(acc)[:, None]).astype(np.float32)


def random_data(n: int, dim: int, seed: int) -> np.ndarray:
    rng = Rng(seed)
    return normalize_rows(rng.gauss(n * dim).reshape(n, dim))


def clustered_data(n: int, dim: int, seed: int) -> np.ndarray:
    rng = Rng(seed)
    centroids = normalize_rows(rng.gauss(200 * dim).reshape(200, dim))
    out = np.empty((n, dim), dtype=np.float32)
    for i in range(n):
        c = centroids[int(rng.take(1)[0] % np.uint64(200))]
        noise = normalize_rows(rng.gauss(dim).reshape(1, dim))[0]
        out[i] = c + np.float32(1.2) * noise
    return normalize_rows(out)


def load(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    if args.data == "random":
        return random_data(args.n, args.dim, 1), random_data(args.queries_n, args.dim, 2)
    if args.data == "clustered":
        return clustered_data(args.n, args.dim, 3), clustered_data(args.queries_n, args.dim, 4)
    base = np.load(args.data).astype(np.float32)
    qpath = args.queries or str(Path(args.data).with_suffix("")) + ".queries.npy"
    queries = np.load(qpath).astype(np.float32)
    if args.n and args.n < len(base):
        base = base[: args.n]
    base = base / np.linalg.norm(base, axis=1, keepdims=True)
    queries = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    return np.ascontiguousarray(base), np.ascontiguousarray(queries)


def ground_truth(base: np.ndarray, queries: np.ndarray, k: int = 10) -> np.ndarray:
    out = np.empty((len(queries), k), dtype=np.int64)
    for s in range(0, len(queries), 256):
        sims = queries[s : s + 256] @ base.T
        part = np.argpartition(-sims, k, axis=1)[:, :k]
        out[s : s + 256] = part
    return out


def recall(found: list[np.ndarray], truth: np.ndarray) -> float:
    hits = sum(len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth))
    return hits / truth.size


def timed_queries(search, queries: np.ndarray) -> tuple[list[np.ndarray], float, float]:
    found, times = [], []
    for q in queries:
        t = time.perf_counter()
        ids = search(q[None, :])
        times.append(time.perf_counter() - t)
        found.append(ids)
    times.sort()
    p = lambda x: times[round((len(times) - 1) * x)] * 1e3  # noqa: E731
    return found, p(0.5), p(0.95)


def run_faiss(base, queries, truth, args) -> None:
    import faiss

    faiss.omp_set_num_threads(args.threads)
    index = faiss.IndexHNSWFlat(base.shape[1], args.m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = args.efc
    t = time.perf_counter()
    index.add(base)
    build = time.perf_counter() - t
    faiss.omp_set_num_threads(1)
    for ef in args.ef:
        index.hnsw.efSearch = ef
        found, p50, p95 = timed_queries(lambda q: index.search(q, 10)[1][0], queries)
        row("faiss", args, build, ef, recall(found, truth), p50, p95)


def run_hnswlib(base, queries, truth, args) -> None:
    import hnswlib

    index = hnswlib.Index(space="ip", dim=base.shape[1])
    index.init_index(max_elements=len(base), M=args.m, ef_construction=args.efc, random_seed=100)
    index.set_num_threads(args.threads)
    t = time.perf_counter()
    index.add_items(base, np.arange(len(base)))
    build = time.perf_counter() - t
    index.set_num_threads(1)
    for ef in args.ef:
        index.set_ef(ef)
        found, p50, p95 = timed_queries(lambda q: index.knn_query(q, k=10)[0][0], queries)
        row("hnswlib", args, build, ef, recall(found, truth), p50, p95)


def row(lib, args, build, ef, rec, p50, p95) -> None:
    print(f"| {lib} | {args.m} | {args.efc} | {build:.1f} | {ef} | {rec:.4f} | {p50:.3f} | {p95:.3f} |", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", help="random | clustered | path to a .npy of base vectors")
    ap.add_argument("--queries", help="queries .npy (default <stem>.queries.npy)")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries-n", type=int, default=300, help="synthetic sets: number of queries")
    ap.add_argument("--m", type=int, default=24)
    ap.add_argument("--efc", type=int, default=200)
    ap.add_argument("--ef", default="128,256,512")
    ap.add_argument("--lib", default="faiss,hnswlib")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    args.ef = [int(x) for x in args.ef.split(",")]

    t = time.perf_counter()
    base, queries = load(args)
    truth = ground_truth(base, queries)
    print(
        f"{args.data}: {base.shape[0]} x {base.shape[1]}, {len(queries)} queries "
        f"(data + exact top-10 in {time.perf_counter() - t:.1f} s)",
        file=sys.stderr,
    )
    print("| library | M | ef_construction | build (s) | ef_search | recall@10 | p50 (ms) | p95 (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for lib in args.lib.split(","):
        try:
            {"faiss": run_faiss, "hnswlib": run_hnswlib}[lib](base, queries, truth, args)
        except ImportError as e:
            print(f"{lib}: not installed ({e})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
