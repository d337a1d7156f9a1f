"""Every exposed call of the Python API, against a lexical-only store."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

import verity
from conftest import DATA, DOCS


def test_open_creates_store_and_reports_lexical(tmp_path: Path) -> None:
    s = verity.Store.open(tmp_path / "h", embedder="none")
    assert (tmp_path / "h").is_dir()
    assert s.home.endswith("h")
    st = s.stats()
    assert st["store"]["documents"] == 0
    assert st["embedder"] is None
    assert "h" in repr(s)


def test_ingest_dicts_and_documents(store: verity.Store) -> None:
    rep = store.ingest(DOCS)
    assert rep["inserted"] == 3
    assert rep["chunks"] >= 3
    assert rep["lexical_only"] is True
    doc = verity.Document("obj-1", "A Document object about watchtowers.", title="Watchtowers", tags=["x"])
    assert store.ingest([doc])["inserted"] == 1
    # Re-ingesting the same content is a no-op.
    again = store.ingest(DOCS)
    assert again["unchanged"] == 3 and again["inserted"] == 0 and again["reprocessed"] == 0
    assert store.stats()["store"]["documents"] == 4


def test_search_returns_typed_hits(filled: verity.Store) -> None:
    res = filled.search("routing fee rate", k=2, mode="lexical")
    assert isinstance(res, verity.SearchResults)
    assert res.mode == "lexical"
    assert 1 <= len(res) <= 2
    top = res[0]
    assert isinstance(top, verity.Hit)
    assert top.uid == "fees-1"
    assert top.title == "Routing fees"
    assert top.chunk.doc_uid == "fees-1"
    assert top.text in DOCS[0]["content"]
    assert top.score > 0 and 0 <= top.relevance <= 1
    assert top.lexical is not None
    assert [h.uid for h in res] == [h.uid for h in res.hits]
    assert res[-1] == res.hits[-1]
    with pytest.raises(IndexError):
        res[10]
    d = res.to_dict()
    assert d["hits"][0]["chunk"]["doc_uid"] == "fees-1"
    assert d["mode"] == "lexical"
    # `to_dict()` shows what the attributes and `hit["…"]` show (the api's
    # `HitView`): the REST and MCP hit (a scored chunk) and its shortcuts.
    assert d["hits"][0]["uid"] == top.uid and d["hits"][0]["text"] == top.text
    assert top.to_dict() == d["hits"][0] == {k: top[k] for k in d["hits"][0]}
    tool: Any = filled.call_tool("search", {"query": "routing fee rate", "k": 2, "mode": "lexical"})
    assert tool["uids"] == [h["uid"] for h in d["hits"]]
    assert all({k: ours[k] for k in theirs} == theirs for theirs, ours in zip(tool["hits"], d["hits"]))
    assert "Hit(" in repr(top) and "score=" in repr(top)


def test_search_filters(filled: verity.Store) -> None:
    q = "fees"
    assert {h.uid for h in filled.search(q, sources=["amboss"], mode="lexical")} <= {"liq-1"}
    assert {h.uid for h in filled.search("frais de routage", langs=["fr"], mode="lexical")} == {"fr-1"}
    assert {h.uid for h in filled.search(q, tags=["fees"], mode="lexical")} <= {"fees-1", "fr-1"}
    assert {h.uid for h in filled.search("channel fee", metadata={"channel": 7}, mode="lexical")} == {"fees-1"}
    assert {h.uid for h in filled.search("channel fee", metadata={"channel": [7, 8]}, mode="lexical")} <= {
        "fees-1",
        "liq-1",
    }
    since = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    recent = {h.uid for h in filled.search("fees routage", since=since, mode="lexical")}
    assert "liq-1" not in recent and recent
    old = {h.uid for h in filled.search("liquidity rebalancing", until="2024-12-31T00:00:00Z", mode="lexical")}
    assert old == {"liq-1"}
    naive = {h.uid for h in filled.search("liquidity", until=datetime.date(2024, 12, 31), mode="lexical")}
    assert naive == {"liq-1"}
    assert len(filled.search("frais", uids=["fr-1"], mode="lexical")) == 1
    assert len(filled.search("fees", uids=["liq-1"], mode="lexical")) == 0


def test_until_a_date_includes_that_day(filled: verity.Store) -> None:
    # fees-1 is dated 2025-09-12T08:00Z: a date-only `until` of that day keeps it,
    # whether given as a date or as a YYYY-MM-DD string, as in the CLI and Node.
    day = datetime.date(2025, 9, 12)
    for until in (day, "2025-09-12"):
        assert "fees-1" in {h.uid for h in filled.search("fee rate", until=until, mode="lexical")}
    midnight = datetime.datetime(2025, 9, 12, tzinfo=datetime.timezone.utc)
    assert "fees-1" not in {h.uid for h in filled.search("fee rate", until=midnight, mode="lexical")}


def test_ask_cites_sources(filled: verity.Store) -> None:
    ans = filled.ask("What is the proportional fee rate of a Lightning channel?", mode="lexical")
    assert isinstance(ans, verity.Answer)
    assert ans.model
    if ans.not_enough_evidence:
        assert not ans.citations
    else:
        assert ans.citations
        c = ans.citations[0]
        assert isinstance(c, verity.Citation)
        assert f"[{c.index}]" in ans.text
        assert c.doc_uid in {d["uid"] for d in DOCS}
    assert set(ans.timings) >= {"retrieval_ms", "total_ms"}
    assert ans.to_dict()["model"] == ans.model


def test_ask_low_evidence_says_so(filled: verity.Store) -> None:
    ans = filled.ask("zebra migration patterns in the serengeti", mode="lexical")
    assert ans.not_enough_evidence
    assert ans.citations == []


def test_get_and_delete(filled: verity.Store) -> None:
    d = filled.get("fees-1")
    assert isinstance(d, verity.Document)
    assert d.uid == "fees-1" and d.title == "Routing fees"
    assert d.metadata == {"channel": 7}
    assert d.tags == ["fees", "lightning"]
    assert d.ts is not None and d.ts.startswith("2025-09-12")
    assert d.to_dict()["content"] == DOCS[0]["content"]
    assert d == filled.get("fees-1")
    assert filled.get("missing") is None
    assert filled.delete(["fees-1", "missing"]) == 1
    assert filled.get("fees-1") is None
    assert all(h.uid != "fees-1" for h in filled.search("routing fee", mode="lexical"))


def test_ingest_paths(store: verity.Store) -> None:
    out = store.ingest_paths([DATA])
    assert out["inserted"] >= 8
    assert out["read_errors"] == []
    assert store.search("routing fees", mode="lexical").hits


def test_ingest_paths_strict_refuses_malformed(store: verity.Store, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"uid": "ok", "content": "fine"}\n{not json\n')
    lenient = store.ingest_paths([bad])
    assert lenient["inserted"] == 1 and len(lenient["read_errors"]) == 1
    with pytest.raises(verity.VerityError):
        store.ingest_paths([str(bad)], strict=True)


def test_fetch_local_file() -> None:
    src = verity.fetch(str(DATA / "caching.md"))
    assert src["status"] == "fetched"
    assert "rag:retrieval" in src["parsed"]["document"]["content"]


def test_document_constructor_validates() -> None:
    d = verity.Document("u", "text", ts=datetime.datetime(2025, 1, 2, 3, 4, 5), metadata={"k": [1, "a", None]})
    assert d.ts is not None and d.ts.startswith("2025-01-02T03:04:05")
    with pytest.raises(verity.InvalidInput):
        verity.Document("u", "t", ts="yesterday")
    with pytest.raises(TypeError):
        verity.Document("u", "t", metadata={"k": b"bytes"})


def test_open_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_env: None) -> None:
    monkeypatch.setenv("VERITY_HOME", str(tmp_path / "envhome"))
    monkeypatch.setenv("VERITY_EMBEDDER", "none")
    s = verity.Store.open()
    assert s.home == str(tmp_path / "envhome")
    assert s.stats()["embedder"] is None


def test_options_k_and_index(tmp_path: Path) -> None:
    s = verity.Store.open(tmp_path, embedder="none", index="other", k=1, cache=False, min_relevance=0.0)
    s.ingest([{"uid": str(i), "content": f"fee number {i} about routing"} for i in range(5)])
    assert s.stats()["store"]["index"] == "other"
    assert len(s.search("routing fee", k=3, mode="lexical")) == 3
    ans = s.ask("routing fee", mode="lexical")
    assert len({c.doc_uid for c in ans.citations}) <= 1
