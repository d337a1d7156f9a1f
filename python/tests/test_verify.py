"""Store.check: citation verification with the cited page served on loopback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Iterator

import pytest

import verity
from conftest import same_as_plain, serve_pages

SOURCE = (
    "<!DOCTYPE html><html><head><title>AI survey 2023</title></head><body><article><h1>AI survey 2023</h1>"
    "<p>The survey asked executives at 1,500 companies across industries about their use of artificial "
    "intelligence in daily operations.</p>"
    "<p>In 2023, 78 % of companies had adopted AI in at least one business function, up from 55 % a year earlier.</p>"
    "<p>Adoption was highest in technology and financial services, where most firms reported several uses "
    "of the technology.</p></article></body></html>"
)


@pytest.fixture()
def base() -> Iterator[str]:
    with serve_pages(lambda path: ("text/html; charset=utf-8", SOURCE.encode()) if path == "/survey" else None) as url:
        yield url


def _doc(base: str) -> str:
    return (
        "In 2023, 78 % of companies had adopted AI in at least one business function [1].\n\n"
        "According to the survey, 85 % of companies had adopted AI in at least one business function [1].\n\n"
        f"## References\n1. AI survey. {base}/survey\n"
    )


def test_check_verdicts_and_quotes(tmp_path: Path, base: str) -> None:
    store = verity.Store.open(tmp_path / "store", embedder="none")
    r = store.check(_doc(base), content_type="markdown", allow_private=True, judge="local")
    assert [x.verdict for x in r.results] == ["SUPPORTED", "PARTIAL"]
    assert r.summary.supported == 1
    assert r.results[0].source_quote in SOURCE
    assert "78" in r.results[1].explanation
    # Without the opt-in, the SSRF guard refuses the loopback source.
    guarded = store.check(_doc(base), judge="local")
    assert guarded.summary.unavailable == 2


def test_check_bad_input(tmp_path: Path, base: str) -> None:
    store = verity.Store.open(tmp_path / "store", embedder="none")
    with pytest.raises(verity.InvalidInput):
        store.check("x", url=f"{base}/survey")
    with pytest.raises(verity.InvalidInput):
        store.check(url=f"{base}/survey")
    with pytest.raises(verity.InvalidInput):
        store.check("x", colour="blue")


def test_acheck(tmp_path: Path, base: str) -> None:
    store = verity.Store.open(tmp_path / "store", embedder="none")

    async def main() -> int:
        r = await store.acheck(_doc(base), allow_private=True, judge="local")
        return r.summary.total

    assert asyncio.run(main()) == 2


def test_check_report_is_typed(tmp_path: Path, base: str) -> None:
    store = verity.Store.open(tmp_path / "store", embedder="none")
    r = store.check(_doc(base), content_type="markdown", allow_private=True, judge="local")
    assert isinstance(r, verity.CheckReport) and isinstance(r.summary, verity.CheckSummary)
    first = r.results[0]
    assert isinstance(first, verity.CheckResult)
    assert first.verdict == "SUPPORTED" and first.citation_type == "bibliography"
    assert first.source_url == f"{base}/survey" and 0 < first.confidence <= 1
    assert first.location.line == 1 and first.location.start == 0
    assert isinstance(first.quote_context, verity.QuoteContext)
    assert first.quote_context.quote == first.source_quote
    assert first.passages and isinstance(first.passages[0], verity.Passage)
    assert r.statistics.judge == "local" and r.statistics.claims == 2
    assert r.statistics.unavailable_sources == [] and r.document is None and r.cancelled is False
    assert same_as_plain(r) >= 8  # report, summary, statistics, results, locations, quotes, passages
    # The same serde type as the REST and MCP JSON: attributes, `to_dict()`
    # and dict-style access all read one value.
    plain = r.to_dict()
    assert plain["results"][0]["verdict"] == first.verdict == r["results"][0]["verdict"]
    assert plain["summary"] == r.summary.to_dict() and r["summary"]["total"] == r.summary.total == 2
    assert "source_url" not in plain["results"][1] or plain["results"][1]["source_url"] == r.results[1].source_url
    # Read-only, comparable, with a readable repr.
    with pytest.raises(AttributeError):
        r.summary = r.summary  # type: ignore[misc]
    assert r.results[0] == first and r.results[0] != r.results[1]
    assert repr(r.summary).startswith("CheckSummary(total=2, supported=1")
    with pytest.raises(KeyError):
        r["claims"]
    guarded = store.check(_doc(base), judge="local")
    assert [x.verdict for x in guarded.results] == ["SOURCE_UNAVAILABLE"] * 2
    assert guarded.statistics.unavailable_sources[0].status == "failed"
    assert guarded.statistics.unavailable_sources[0].claims == 2
