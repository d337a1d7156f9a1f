"""verity.fetch / verity.afetch: a typed `FetchedSource` (attributes named as
the REST and MCP JSON keys), for a local file, a PDF with its page map, a page
served on loopback, and a fetch the network guard refuses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Iterator

import pytest

import verity
from conftest import DATA, REPO, run_mypy, same_as_plain, serve_pages

PDF = REPO / "crates" / "verity-extract" / "tests" / "fixtures" / "pdf" / "single.pdf"

PAGE = (
    "<!DOCTYPE html><html lang=\"en\"><head><title>Channel fees explained</title>"
    "<meta name=\"author\" content=\"Ada Lovelace\"></head><body><nav>Home | Blog</nav><article>"
    "<h1>Channel fees explained</h1>"
    "<p>Each Lightning channel advertises a fee policy made of a base fee in millisatoshis and a "
    "proportional fee rate expressed in parts per million of the forwarded amount.</p>"
    "<p>Nodes that route many payments tune both values to keep their channels balanced, raising "
    "the rate on channels whose outbound liquidity runs low.</p>"
    "</article><footer>Copyright</footer></body></html>"
)


@pytest.fixture()
def base() -> Iterator[str]:
    with serve_pages(lambda path: ("text/html; charset=utf-8", PAGE.encode()) if path == "/fees" else None) as url:
        yield url


def test_fetch_local_file_is_typed() -> None:
    src = verity.fetch(str(DATA / "caching.md"))
    assert isinstance(src, verity.FetchedSource)
    assert src.status == "fetched" and src.detail is None
    assert src.url.startswith("file://") and src.url.endswith("/examples/data/caching.md")
    assert src.final_url == src.url
    assert src.http_status is None and src.content_type is None
    assert isinstance(src.fetched_at, str) and src.fetched_at[:2] == "20"
    parsed = src.parsed
    assert isinstance(parsed, verity.ParsedDocument)
    assert parsed.format == "markdown" and parsed.pages == []
    doc = parsed.document
    assert isinstance(doc, verity.Document)
    assert "rag:retrieval" in doc.content and isinstance(doc.title, str)
    # Every key of the plain data is an attribute with the same value, nested
    # objects typed in turn; dict-style access keeps working.
    assert same_as_plain(src) == 3
    assert src["status"] == "fetched" and src["parsed"]["format"] == "markdown"
    assert src.to_dict()["parsed"]["document"]["content"] == doc.content
    assert repr(src).startswith("FetchedSource(url=\"file://") and 'status="fetched"' in repr(src)
    with pytest.raises(KeyError):
        src["finalUrl"]


def test_fetch_pdf_has_its_page_map() -> None:
    src = verity.fetch(str(PDF))
    assert src.status == "fetched" and src.parsed is not None
    assert src.parsed.format == "pdf"
    pages = src.parsed.pages
    assert pages and all(isinstance(p, verity.PageSpan) for p in pages)
    assert [p.page for p in pages] == list(range(1, len(pages) + 1))
    content = src.parsed.document.content.encode()
    assert pages[0].start == 0 and pages[-1].end <= len(content)
    assert all(p.start < p.end for p in pages)
    assert same_as_plain(src) == 3 + len(pages)


def test_fetch_page_on_loopback(base: str) -> None:
    src = verity.fetch(f"{base}/fees", allow_private=True)
    assert src.status == "fetched", src.detail
    assert src.url == f"{base}/fees" and src.final_url == f"{base}/fees"
    assert src.http_status == 200
    assert src.content_type is not None and src.content_type.startswith("text/html")
    assert src.parsed is not None and src.parsed.format == "html"
    doc = src.parsed.document
    assert doc.title == "Channel fees explained"
    assert "proportional fee rate" in doc.content and "Copyright" not in doc.content
    assert same_as_plain(src) == 3

    missing = verity.fetch(f"{base}/gone", allow_private=True)
    assert missing.status == "not_found" and missing.http_status == 404 and missing.parsed is None


def test_fetch_refused_by_the_network_guard_is_a_typed_status(base: str) -> None:
    src = verity.fetch(f"{base}/fees")
    assert isinstance(src, verity.FetchedSource)
    assert src.status == "blocked" and src.parsed is None and src.http_status is None
    assert isinstance(src.detail, str) and src.detail
    assert same_as_plain(src) == 1


def test_afetch_is_typed(base: str) -> None:
    async def main() -> tuple[verity.FetchedSource, verity.FetchedSource]:
        return await asyncio.gather(
            verity.afetch(str(DATA / "caching.md")), verity.afetch(f"{base}/fees", allow_private=True))

    local, page = asyncio.run(main())
    assert isinstance(local, verity.FetchedSource) and local.parsed is not None
    assert local.parsed.format == "markdown"
    assert page.http_status == 200 and page.parsed is not None
    assert page.parsed.document.title == "Channel fees explained"


def test_mypy_reads_fetch_attributes(tmp_path: Path) -> None:
    ok = run_mypy(tmp_path, """
        import verity
        from typing import Optional

        def title_of(target: str) -> str:
            src = verity.fetch(target, allow_private=True)
            code: Optional[int] = src.http_status
            if src.status != "fetched" or src.parsed is None:
                return f"{src.status} {code} {src.detail or ''}"
            doc: verity.Document = src.parsed.document
            pages: list[int] = [p.page for p in src.parsed.pages]
            return f"{doc.title or src.final_url} {src.parsed.format} {pages} {src.fetched_at}"

        async def size(target: str) -> int:
            src = await verity.afetch(target)
            return len(src.parsed.document.content) if src.parsed else 0
    """)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = run_mypy(tmp_path, """
        import verity

        def broken(target: str) -> int:
            src = verity.fetch(target)
            code: int = src.http_status
            return code + len(src.finalUrl) + len(src.parsed.document.content)
    """)
    assert bad.returncode == 1
    assert '"FetchedSource" has no attribute "finalUrl"' in bad.stdout, bad.stdout
    assert 'Incompatible types in assignment (expression has type "int | None"' in bad.stdout, bad.stdout
    assert 'Item "None" of "ParsedDocument | None" has no attribute "document"' in bad.stdout, bad.stdout


def test_fetch_keywords_are_the_api_fetch_request(base: str) -> None:
    """`fetch(target, **kwargs)`: the keywords are `FetchRequest`'s fields,
    the async twin gives the same source, a wrong keyword is a TypeError."""
    src = verity.fetch(f"{base}/fees", allow_private=True)
    assert src.status == "fetched"
    async def again_async() -> verity.FetchedSource:
        return await verity.afetch(f"{base}/fees", allow_private=True)

    again = asyncio.run(again_async())
    assert again.parsed.document.content == src.parsed.document.content
    for call in (lambda: verity.fetch(f"{base}/fees", allowPrivate=True),
                 lambda: verity.afetch(f"{base}/fees", allowPrivate=True)):
        with pytest.raises(TypeError) as e:
            call()
        assert "'allowPrivate'" in str(e.value) and "allow_private" in str(e.value)
    with pytest.raises(TypeError, match="multiple values for argument 'target'"):
        verity.fetch(f"{base}/fees", target="x")
    with pytest.raises(TypeError, match="'allow_private'"):
        verity.fetch(f"{base}/fees", allow_private="yes")
