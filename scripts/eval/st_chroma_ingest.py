#!/usr/bin/env python3
"""The Python stack Verity's ingest is compared with: sentence-transformers + chromadb.

SciFact's 5,183 abstracts, one vector per abstract: the text Verity embeds for a
whole-abstract chunk (title, blank line, abstract; `embedding_input` in
verity-ingest), all-MiniLM-L6-v2 from Verity's model directory, truncated at 256
word pieces, 2 torch threads, written to a persistent chromadb collection (HNSW,
cosine) with the abstract as document. Then nDCG@10 of that dense index on the
SciFact train claims (no lexical side: chromadb has none).

    python3 -m venv ~/.cache/verity/venv-peer
    ~/.cache/verity/venv-peer/bin/pip install torch sentence-transformers chromadb
    THREADS=2 ~/.cache/verity/venv-peer/bin/python scripts/eval/st_chroma_ingest.py ../shared/data/scifact

Prints the ingest time (model load excluded and included) and nDCG@10. LIMIT=N
ingests the first N abstracts only (no nDCG then). Compare with
`verity ingest corpus.jsonl` (docs/benchmarks.d/ingest.md).
"""
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

T0 = time.perf_counter()
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402
import chromadb  # noqa: E402

DATA = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/scifact")
MODEL = Path(os.environ.get("VERITY_MODEL_DIR", Path.home() / ".cache/verity/models")) / "all-MiniLM-L6-v2"
THREADS = int(os.environ.get("THREADS", "2"))
LIMIT = int(os.environ.get("LIMIT", "0"))
BATCH = int(os.environ.get("BATCH", "32"))

torch.set_num_threads(THREADS)
docs = []
with open(DATA / "corpus.jsonl") as f:
    for line in f:
        d = json.loads(line)
        title, text = d.get("title", "").strip(), d.get("text", "")
        docs.append((str(d["_id"]), f"{title}\n\n{text}" if title else text, text))
        if LIMIT and len(docs) == LIMIT:
            break

model = SentenceTransformer(str(MODEL), device="cpu")
model.max_seq_length = 256
t_loaded = time.perf_counter()
vectors = model.encode([d[1] for d in docs], batch_size=BATCH, normalize_embeddings=True,
                       show_progress_bar=False)
t_embedded = time.perf_counter()
path = tempfile.mkdtemp(prefix="peer-chroma-")
client = chromadb.PersistentClient(path=path)
col = client.create_collection("scifact", metadata={"hnsw:space": "cosine"})
step = 5000
for i in range(0, len(docs), step):
    part = docs[i:i + step]
    col.add(ids=[d[0] for d in part], embeddings=vectors[i:i + step].tolist(),
            documents=[d[2] for d in part])
t_written = time.perf_counter()
print(f"torch {torch.__version__}, chromadb {chromadb.__version__}, {THREADS} threads, "
      f"{len(docs)} abstracts")
print(f"embed {t_embedded - t_loaded:.1f} s, chromadb {t_written - t_embedded:.1f} s, "
      f"ingest {t_written - t_loaded:.1f} s (model load excluded), "
      f"{t_written - T0:.1f} s since the interpreter started")

if not LIMIT:
    queries = {}
    with open(DATA / "queries_train.jsonl") as f:
        for line in f:
            q = json.loads(line)
            queries[str(q["_id"])] = q["text"]
    qrels = {}
    with open(DATA / "qrels" / "train.tsv") as f:
        next(f)
        for line in f:
            qid, did, score = line.rstrip("\n").split("\t")[:3]
            if int(score) > 0:
                qrels.setdefault(qid, {})[did] = int(score)
    qids = [q for q in queries if q in qrels]
    qv = model.encode([queries[q] for q in qids], batch_size=64, normalize_embeddings=True)
    res = col.query(query_embeddings=qv.tolist(), n_results=10)
    total = 0.0
    for qid, ids in zip(qids, res["ids"]):
        rel = qrels[qid]
        dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ids))
        ideal = sorted(rel.values(), reverse=True)[:10]
        idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
        total += dcg / idcg if idcg else 0.0
    print(f"dense nDCG@10 (train, {len(qids)} claims): {total / len(qids):.4f}")
shutil.rmtree(path, ignore_errors=True)
