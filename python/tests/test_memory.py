"""Event memory (seed 004) through ``store.memory``, on a lexical-only store."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path

import pytest

import verity


def test_add_get_search_update_delete(tmp_path: Path) -> None:
    mem = verity.Store.open(tmp_path / "h", embedder="none").memory
    a = mem.add({"text": "event zero"}, metadata={"event_type": "decision", "tags": ["a", "b"]},
                embedding=[1.0, 0.05, 0.05, 0.05], timestamp="2025-03-01T10:00:00Z")
    assert isinstance(a, verity.Event)
    b = mem.add({"text": "event one"}, metadata={"event_type": "observation"},
                embedding=[0.05, 1.0, 0.05, 0.05],
                timestamp=datetime.datetime(2025, 4, 1, tzinfo=datetime.timezone.utc))
    assert mem.get(a.id).metadata["event_type"] == "decision"
    assert a.timestamp.startswith("2025-03-01T10:00:00")

    page = mem.search([1.0, 0.0, 0.0, 0.0])
    assert isinstance(page, verity.EventPage)
    assert page[0].id == a.id and page[0].similarity_score is not None
    page = mem.search(filter_metadata={"tags": ["b"]}, ts_start="2025-01-01T00:00:00Z")
    assert [e.id for e in page.data] == [a.id] and page.total_hits == 1 and page.mode == "metadata-only"
    page = mem.search(ts_start="2025-03-15T00:00:00+00:00")
    assert [e.id for e in page.data] == [b.id]

    upd = mem.update_metadata(a.id, {"reviewed": True})
    assert upd.metadata == {"event_type": "decision", "tags": ["a", "b"], "reviewed": True}
    mem.delete(b.id)
    with pytest.raises(verity.NotFound):
        mem.get(b.id)


def test_bad_input_names_the_field(tmp_path: Path) -> None:
    mem = verity.Store.open(tmp_path / "h", embedder="none").memory
    mem.add({"text": "x"}, embedding=[1.0, 0.0])
    for call, field in [
        (lambda: mem.add({"text": "y"}, embedding=[1.0, 0.0, 0.0]), "embedding"),
        (lambda: mem.add({"text": "y"}, embedding=[1.0, float("nan")]), "embedding"),
        (lambda: mem.add({"text": "y"}, timestamp="2025-01-01T10:00:00"), "timestamp"),
        (lambda: mem.search(limit=0), "limit"),
        (lambda: mem.search(distance_threshold=3.0), "distance_threshold"),
        (lambda: mem.get("not-a-uuid"), "id"),
        (lambda: mem.forget(), "id"),
    ]:
        with pytest.raises(verity.InvalidInput) as e:
            call()
        assert field in str(e.value), (field, str(e.value))
    assert mem.search(limit=100).total_hits == 1


def test_remember_recall_forget_and_async(tmp_path: Path) -> None:
    mem = verity.Store.open(tmp_path / "h", embedder="none").memory
    ev = mem.remember("We chose SQLite for the demo", metadata={"session_id": "s1"}, ttl_seconds=3600)
    assert ev.expires_at is not None
    mem.remember("SQLite again, other session", metadata={"session_id": "s2"})
    page = mem.recall("SQLite", filter_metadata={"session_id": "s1"})
    assert [e.id for e in page.data] == [ev.id]
    assert page.mode == "lexical"

    async def run() -> int:
        found = await mem.arecall("SQLite")
        assert len(found) == 2
        got = await mem.aget(ev.id)
        assert got.id == ev.id
        return await mem.aforget(filter_metadata={"session_id": "s2"})

    assert asyncio.run(run()) == 1
    assert mem.forget(ev.id) == 1
    assert len(mem.recall()) == 0
