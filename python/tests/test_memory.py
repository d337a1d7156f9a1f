"""Event memory (seed 004) through ``store.memory``, on a lexical-only store."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Awaitable, Callable, TypeVar

import pytest

import verity

T = TypeVar("T")


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
    # Written as `to_dict()` and the REST JSON write it.
    assert a.timestamp == a.to_dict()["timestamp"] == "2025-03-01T10:00:00Z"

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


async def _awaited(call: Callable[[], Awaitable[T]]) -> T:
    return await call()


def test_non_finite_vectors_get_the_library_vector_error(tmp_path: Path) -> None:
    """A NaN or an infinity in a vector reaches the library's vector check
    (JSON cannot carry them; the keywords go through serde): the typed error
    REST's `POST /v1/events` gives for `[1.0, "NaN"]`, same code, same words,
    from `add`, `search` and their async twins alike."""
    mem = verity.Store.open(tmp_path / "h", embedder="none").memory
    mem.add({"text": "x"}, embedding=[1.0, 0.0])
    table = {row["code"]: row for row in verity._verity._error_table()}
    for bad in (float("nan"), float("inf"), float("-inf")):
        calls = [
            (lambda: mem.add({"text": "y"}, embedding=[1.0, bad]), "embedding", 1),
            (lambda: asyncio.run(_awaited(lambda: mem.aadd({"text": "y"}, embedding=(1.0, bad)))), "embedding", 1),
            (lambda: mem.search([bad, 1.0]), "vector_query", 0),
            (lambda: asyncio.run(_awaited(lambda: mem.asearch(vector_query=[bad, 1.0]))), "vector_query", 0),
        ]
        for call, field, i in calls:
            with pytest.raises(verity.InvalidInput) as e:
                call()
            assert e.value.code == "invalid_input" and not e.value.transient
            assert type(e.value).__name__ == table["invalid_input"]["python_class"]
            assert f"invalid `{field}`: element {i} is NaN or infinite" in str(e.value), str(e.value)
    # A non-finite number elsewhere is refused naming the argument, typed too.
    with pytest.raises(verity.InvalidInput, match="distance_threshold"):
        mem.search([1.0, 0.0], distance_threshold=float("nan"))
    with pytest.raises(verity.InvalidInput, match="metadata"):
        mem.add({"text": "y"}, metadata={"score": float("inf")})
    assert mem.search(limit=100).total_hits == 1


def test_add_and_search_keywords_are_the_api_fields(tmp_path: Path) -> None:
    """`add(content, **kwargs)` reads `NewEvent`'s fields, `search(vector_query,
    **kwargs)` `EventQuery`'s, through serde: each reaches the request, a
    wrong keyword is a TypeError naming it, the async twins agree."""
    mem = verity.Store.open(tmp_path / "h", embedder="none").memory
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
    a = mem.add({"text": "kept"}, metadata={"k": 1}, embedding=(0.0, 1.0),
                timestamp=datetime.date(2025, 1, 2), expires_at=later)
    assert a.timestamp.startswith("2025-01-02T00:00:00") and a.expires_at is not None
    assert a.metadata == {"k": 1} and a.embedding == [0.0, 1.0]
    b = asyncio.run(_awaited(lambda: mem.aadd({"text": "other"}, embedding=[1.0, 0.0], timestamp="2025-02-01T00:00:00Z")))
    page = mem.search([0.0, 1.0], distance_threshold=0.5, limit=5, mode="vector")
    assert [e.id for e in page.data] == [a.id] and page.limit == 5
    assert [e.id for e in mem.search("[0.0, 1.0]", distance_threshold=0.5).data] == [a.id]
    page = mem.search(filter_metadata={"k": 1}, ts_start=datetime.date(2025, 1, 1), ts_end="2025-01-31T00:00:00Z")
    assert [e.id for e in page.data] == [a.id] and page.mode == "metadata-only"
    apage = asyncio.run(_awaited(lambda: mem.asearch(ts_start=datetime.datetime(2025, 1, 15), offset=0, limit=10)))
    assert [e.id for e in apage.data] == [b.id]
    for call, name in [
        (lambda: mem.add({"text": "z"}, colour="blue"), "colour"),
        (lambda: mem.aadd({"text": "z"}, colour="blue"), "colour"),
        (lambda: mem.search(colour="blue"), "colour"),
        (lambda: mem.asearch([1.0, 0.0], filterMetadata={}), "filterMetadata"),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        assert f"'{name}'" in str(e.value), str(e.value)
    with pytest.raises(TypeError, match="multiple values for argument 'vector_query'"):
        mem.search([1.0, 0.0], vector_query=[0.0, 1.0])
    with pytest.raises(verity.InvalidInput, match="has no time zone"):
        mem.add({"text": "z"}, timestamp="2025-01-01T10:00:00")
    with pytest.raises(verity.InvalidInput, match="offset"):
        mem.search(offset=-1)
