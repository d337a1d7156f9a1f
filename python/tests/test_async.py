"""asyncio variants and concurrent use from threads."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import verity
from conftest import DATA, DOCS


def test_async_everything(tmp_path: Path) -> None:
    async def main() -> None:
        s = await verity.Store.aopen(tmp_path, embedder="none")
        rep = await s.aingest(DOCS)
        assert rep["inserted"] == 3
        out = await s.aingest_paths([DATA])
        assert out["inserted"] >= 1
        res = await s.asearch("routing fee rate", mode="lexical", k=2)
        assert res.hits and res.hits[0].uid.startswith(("fees-", "ln-fees-"))
        ans = await s.aask("What does a channel fee policy contain?", mode="lexical")
        assert isinstance(ans, verity.Answer)
        d = await s.aget("fees-1")
        assert d is not None and d.uid == "fees-1"
        assert await s.aget("nope") is None
        assert await s.adelete(["fees-1"]) == 1
        st = await s.astats()
        assert st["store"]["documents"] >= 2
        src = await verity.afetch(str(DATA / "caching.md"))
        assert src["status"] == "fetched"

    asyncio.run(main())


def test_async_errors(filled: verity.Store) -> None:
    async def main() -> None:
        with pytest.raises(verity.InvalidInput):
            await filled.asearch("x", since="never")  # raised before scheduling
        with pytest.raises(verity.InvalidInput):
            await filled.adelete([""])  # raised by the Rust future
        with pytest.raises(verity.ConfigError):
            await verity.Store.aopen("/tmp/ignored", embedder="bogus")

    asyncio.run(main())


def test_async_gather_concurrent(filled: verity.Store) -> None:
    async def main() -> list[verity.SearchResults]:
        qs = ["fees", "liquidity", "routage", "channel", "rebalancing"] * 4
        return list(await asyncio.gather(*(filled.asearch(q, mode="lexical") for q in qs)))

    results = asyncio.run(main())
    assert len(results) == 20
    assert all(isinstance(r, verity.SearchResults) for r in results)
    assert [h.to_dict() for h in results[0]] == [h.to_dict() for h in results[5]]


def test_event_loop_not_blocked(filled: verity.Store) -> None:
    """While Rust works, the loop keeps running other tasks."""

    async def main() -> int:
        ticks = 0
        done = False

        async def ticker() -> None:
            nonlocal ticks
            while not done:
                ticks += 1
                await asyncio.sleep(0)

        t = asyncio.create_task(ticker())
        for _ in range(20):
            await filled.asearch("fees", mode="lexical")
        done = True
        await t
        return ticks

    assert asyncio.run(main()) > 0


def test_threads_share_a_store(filled: verity.Store) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work(i: int) -> int:
        barrier.wait()
        try:
            if i % 2:
                filled.ingest([{"uid": f"t-{i}", "content": f"thread {i} writes about routing fees"}])
            return len(filled.search("routing fees", mode="lexical"))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
            raise

    with ThreadPoolExecutor(8) as ex:
        counts = list(ex.map(work, range(8)))
    assert not errors
    assert all(c >= 1 for c in counts)
    assert filled.stats()["store"]["documents"] == len(DOCS) + 4


def test_async_variant_needs_running_loop(filled: verity.Store) -> None:
    with pytest.raises(RuntimeError):
        filled.asearch("fees")
