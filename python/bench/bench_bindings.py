"""Binding overhead and ingest throughput from Python (see docs/benchmarks.d/bindings.md).

    ~/.cache/verity/venv/bin/python python/bench/bench_bindings.py [N_CALLS] [N_DOCS]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import verity

REPO = Path(__file__).resolve().parents[2]
N = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
N_DOCS = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000
Q = "routing fees base fee"

store = verity.Store.open(tempfile.mkdtemp(prefix="verity-bench-"), embedder="none", cache=False)
store.ingest_paths([REPO / "examples" / "data"])
for _ in range(200):  # warm-up
    store.search(Q, mode="lexical")

rust = store._bench_search(Q, N, "lexical") / N  # type: ignore[attr-defined]
t = time.perf_counter()
for _ in range(N):
    store.search(Q, mode="lexical")
py = (time.perf_counter() - t) / N
print(json.dumps({"calls": N, "rust_us": rust * 1e6, "python_us": py * 1e6, "overhead_us": (py - rust) * 1e6}))

# Ingest throughput: a list of dicts, also written as JSONL for the CLI.
docs = [
    {
        "uid": f"doc-{i}",
        "source": "bench",
        "lang": "en",
        "title": f"Document {i}",
        "content": f"Document {i} discusses routing fees, channel liquidity and payment {i % 97} "
        "reliability on the Lightning network. " * 8,
        "tags": ["bench", f"t{i % 10}"],
    }
    for i in range(N_DOCS)
]
out = Path(tempfile.mkdtemp(prefix="verity-bench-")) / "docs.jsonl"
out.write_text("".join(json.dumps(d) + "\n" for d in docs))
s2 = verity.Store.open(tempfile.mkdtemp(prefix="verity-bench-"), embedder="none")
t = time.perf_counter()
rep = s2.ingest(docs)
dt = time.perf_counter() - t
mb = sum(len(d["content"].encode()) for d in docs) / 1e6
print(json.dumps({"docs": N_DOCS, "chunks": rep["chunks"], "seconds": dt, "docs_per_s": N_DOCS / dt, "mb_per_s": mb / dt, "jsonl": str(out)}))

# Same data through the Rust reader (`Verity::ingest_paths`, what `verity ingest FILE` runs).
s3 = verity.Store.open(tempfile.mkdtemp(prefix="verity-bench-"), embedder="none")
t = time.perf_counter()
rep3 = s3.ingest_paths([out])
dt3 = time.perf_counter() - t
print(json.dumps({"rust_reader_docs": rep3["inserted"], "seconds": dt3, "docs_per_s": N_DOCS / dt3, "mb_per_s": mb / dt3}))
