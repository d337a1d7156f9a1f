"""Keyword arguments are the fields of the `verity::api` requests, read by
serde: each one reaches the request, unset ones take the library's
defaults, unknown ones are refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import verity


def _many(store: verity.Store, n: int) -> None:
    store.ingest([{"uid": f"d{i}", "content": f"routing fee policy number {i} of the channel"} for i in range(n)])


def test_k_reaches_the_request(store: verity.Store) -> None:
    _many(store, 12)
    assert len(store.search("routing fee", k=3, mode="lexical")) == 3
    assert len(store.search("routing fee", k=11, mode="lexical")) == 11


def test_unset_k_is_the_library_default(store: verity.Store) -> None:
    _many(store, 12)
    # The library's own path (the tool registry, the same `SearchRequest`
    # with no `k`) decides the count; the binding adds no default of its own.
    tool: Any = store.call_tool("search", {"query": "routing fee", "mode": "lexical"})
    default = len(store.search("routing fee", mode="lexical"))
    assert default == len(tool["hits"]) == 8
    assert len(store.search("routing fee", k=None, mode="lexical")) == default


def test_every_request_field_is_a_keyword(store: verity.Store) -> None:
    store.ingest(
        [
            {"uid": "a", "content": "fee policy", "tags": ["x", "y"]},
            {"uid": "b", "content": "fee policy too", "tags": ["x"]},
        ]
    )
    # `tags_all` and the nested `filters` were never listed by the binding:
    # they come from `SearchRequest` itself.
    assert {h.uid for h in store.search("fee", tags_all=["x", "y"], mode="lexical")} == {"a"}
    assert {h.uid for h in store.search("fee", filters={"uids": ["b"]}, mode="lexical")} == {"b"}


def test_open_keywords_are_config_overrides(tmp_path: Path) -> None:
    s = verity.Store.open(tmp_path / "s", embedder="none", generator="extractive", k=2)
    s.ingest([{"uid": f"d{i}", "content": f"routing fee policy {i}"} for i in range(6)])
    ans = s.ask("routing fee policy?", mode="lexical")
    # `ask` without `k` uses the configured k (2): at most two sources cited.
    assert len({c.chunk_id for c in ans.citations}) <= 2


def test_unknown_keyword_is_named(store: verity.Store, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'kk'"):
        store.search("x", kk=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'top_k'"):
        store.ask("x", top_k=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'embeder'"):
        verity.Store.open(tmp_path / "o", embeder="none")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'sources'"):
        store.search("x", sources="internal")  # type: ignore[arg-type]
    with pytest.raises(verity.InvalidInput, match="maybe"):
        store.ask("x", verify="maybe")  # type: ignore[arg-type]


async def _both(store: verity.Store) -> tuple[int, int]:
    a = await store.asearch("routing fee", k=4, mode="lexical")
    b = await store.asearch("routing fee", mode="lexical")
    return len(a), len(b)


def test_async_twin_takes_the_same_keywords(store: verity.Store) -> None:
    import asyncio

    _many(store, 12)
    assert asyncio.run(_both(store)) == (4, 8)
    with pytest.raises(TypeError, match="'kk'"):
        asyncio.run(store.asearch("x", kk=1))  # type: ignore[call-arg]


def test_namespaces_read_their_requests_the_same_way(store: verity.Store) -> None:
    w = store.watch
    w.log_article("https://example.org/a", "A", "Example", "rss", qwen_score=8, phi_validated=True)
    # No keyword given: `GetArticlesRequest`'s defaults (7 days, validated only).
    assert w.get_articles().total == 1
    assert w.get_articles(validated_only=False, limit=1).total == 1
    with pytest.raises(TypeError, match="unexpected keyword argument 'validated'"):
        w.get_articles(validated=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for argument 'url'"):
        w.check_article_exists("https://example.org/a", url="https://example.org/b")  # type: ignore[misc]
    p = store.projects.create_project("P", tags=["x"])
    assert store.projects.get_next_tasks(p.id).tasks == []
    with pytest.raises(TypeError, match="'limits'"):
        store.projects.get_decisions(p.id, limits=3)  # type: ignore[call-arg]
    mem = store.memory
    for i in range(12):
        mem.remember(f"note {i} about sqlite")
    # `RecallRequest`'s default limit (10), not one the binding picked.
    assert len(mem.recall("sqlite")) == 10
    assert len(mem.recall("sqlite", limit=3)) == 3
    with pytest.raises(TypeError, match="'ttl'"):
        mem.remember("x", ttl=3)  # type: ignore[call-arg]
