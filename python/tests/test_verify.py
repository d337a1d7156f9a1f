"""Store.check: citation verification with the cited page served on loopback."""

from __future__ import annotations

import asyncio
import http.server
import threading
from pathlib import Path
from typing import Iterator

import pytest

import verity

SOURCE = (
    "<!DOCTYPE html><html><head><title>AI survey 2023</title></head><body><article><h1>AI survey 2023</h1>"
    "<p>The survey asked executives at 1,500 companies across industries about their use of artificial "
    "intelligence in daily operations.</p>"
    "<p>In 2023, 78 % of companies had adopted AI in at least one business function, up from 55 % a year earlier.</p>"
    "<p>Adoption was highest in technology and financial services, where most firms reported several uses "
    "of the technology.</p></article></body></html>"
)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/survey":
            body = SOURCE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
        else:
            body = b"not found"
            self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def base() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


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
