"""The same Store API on Redis: `Store.open("redis://…")`."""

from __future__ import annotations

from pathlib import Path

import verity
from conftest import DOCS


def test_store_on_redis(redis_url: str, tmp_path: Path) -> None:
    s = verity.Store.open(redis_url, embedder="none", min_relevance=0.0)
    assert s.home.startswith("redis://")
    assert s.stats()["store"]["backend"] == "redis"
    assert s.stats()["redis"].startswith("redis://")
    rep = s.ingest(DOCS)
    assert rep["inserted"] == 3
    res = s.search("fee rate parts per million", k=2)
    assert res[0].uid == "fees-1"
    assert res.mode == "lexical" and any("lexical" in n for n in res.notes)
    q = "How is the fee rate of a Lightning channel expressed?"
    first = s.ask(q)
    assert first.citations and first.citations[0].doc_uid == "fees-1"
    assert s.ask(q).cached
    assert s.delete(["fees-1", "nope"]) == 1
    assert not s.ask(q).cached, "deleting a cited document busts the cached answer"
    (tmp_path / "n.md").write_text("# Splicing\n\nSplicing resizes a channel without closing it.\n")
    out = s.ingest_paths([tmp_path])
    assert out["inserted"] == 1
    assert s.stats()["store"]["documents"] == 3
    assert s.get("liq-1") is not None
