"""Dense and hybrid search with the local MiniLM model (skipped when absent)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import verity
from conftest import DOCS, model_dir

MODEL = model_dir()


@pytest.mark.skipif(not MODEL.is_dir(), reason=f"local model missing at {MODEL}: run scripts/fetch-models.sh")
def test_dense_search_with_local_model(tmp_path: Path) -> None:
    s = verity.Store.open(tmp_path, embedder=f"local:{MODEL}")
    st = s.stats()
    assert st["embedder"] is not None
    rep = s.ingest(DOCS)
    assert rep["lexical_only"] is False
    # No shared keyword with the fees document: only the embedding can find it.
    res = s.search("how much does forwarding a payment cost", mode="dense", k=3)
    assert res.mode == "dense"
    assert res.hits[0].uid in {"fees-1", "fr-1"}
    assert res.hits[0].dense is not None
    hyb = s.search("rebalancing liquidity", mode="hybrid", k=3)
    assert hyb.hits[0].uid == "liq-1"


def test_model_presence_is_reported() -> None:
    if not MODEL.is_dir():
        print(f"\n!!! SKIPPING local-model test: {MODEL} absent (run scripts/fetch-models.sh)", file=sys.stderr)
