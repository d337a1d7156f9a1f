"""Verity from Python: ingest the sample corpus, search, ask with citations.

    scripts/test-python.sh --build-only   # builds and installs the extension
    ~/.cache/verity/venv/bin/python examples/python/quickstart.py
"""

import asyncio
import tempfile
from pathlib import Path

import verity

DATA = Path(__file__).resolve().parents[1] / "data"

store = verity.Store.open(tempfile.mkdtemp(prefix="verity-"), embedder="auto")
print(store.ingest_paths([DATA]))

for hit in store.search("how are routing fees computed?", k=3):
    print(f"{hit.score:.3f} {hit.uid} {hit.title}")

answer = store.ask("How are Lightning routing fees computed?")
print(answer.text)
for c in answer.citations:
    print(f"  [{c.index}] {c.doc_uid} {c.title or ''} {c.url or ''}")

try:
    store.search("fees", mode="psychic")
except verity.InvalidInput as e:
    print("error:", e.code, e)



async def main() -> None:
    # The a-prefixed variants must be called with an event loop running.
    res = await store.asearch("liquidity", k=1)
    print(res.hits[0].title)


asyncio.run(main())
