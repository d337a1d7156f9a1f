from __future__ import annotations

import contextlib
import http.server
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

import verity

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "examples" / "data"

DOCS: list[dict[str, Any]] = [
    {
        "uid": "fees-1",
        "source": "internal",
        "ts": "2025-09-12T08:00:00Z",
        "lang": "en",
        "title": "Routing fees",
        "content": "Each Lightning channel advertises a fee policy: a base fee in millisatoshis "
        "and a proportional fee rate in parts per million of the forwarded amount.",
        "tags": ["fees", "lightning"],
        "metadata": {"channel": 7},
    },
    {
        "uid": "liq-1",
        "source": "amboss",
        "ts": "2024-03-15T12:00:00Z",
        "lang": "en",
        "title": "Liquidity",
        "content": "Circular rebalancing moves liquidity between your own channels so that "
        "outbound capacity is available where payments need it.",
        "tags": ["liquidity"],
        "metadata": {"channel": 8},
    },
    {
        "uid": "fr-1",
        "source": "internal",
        "ts": "2025-01-01T00:00:00Z",
        "lang": "fr",
        "title": "Frais de routage",
        "content": "Les frais de routage combinent des frais de base et un taux proportionnel "
        "au montant transféré par le canal.",
        "tags": ["fees"],
    },
]


@pytest.fixture
def store(tmp_path: Path) -> verity.Store:
    return verity.Store.open(tmp_path / "store", embedder="none")


@pytest.fixture
def filled(store: verity.Store) -> verity.Store:
    store.ingest(DOCS)
    return store


def model_dir() -> Path:
    base = os.environ.get("VERITY_MODEL_DIR")
    root = Path(base) if base else Path.home() / ".cache" / "verity" / "models"
    return root / "all-MiniLM-L6-v2"


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for k in ("VERITY_HOME", "VERITY_EMBEDDER", "VERITY_GENERATOR", "VERITY_INDEX", "RAG_TOPK"):
        monkeypatch.delenv(k, raising=False)
    yield


def _redis_binaries() -> tuple[Path, list[Path]]:
    """redis-server and its modules, found as crates/verity-redis/src/server.rs finds them."""
    cache = Path(os.environ.get("VERITY_CACHE", Path.home() / ".cache" / "verity"))
    server = Path(os.environ.get("VERITY_REDIS_SERVER", cache / "redis" / "bin" / "redis-server"))
    spec = os.environ.get("VERITY_REDIS_MODULES", str(cache / "redis" / "modules"))
    if Path(spec).is_dir():
        modules = [Path(spec) / "redisearch.so", Path(spec) / "rejson.so"]
    else:
        modules = [Path(m) for m in spec.split(":") if m]
    return server, modules


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A throw-away Redis with search + JSON on a free port; skipped when it cannot
    start, unless VERITY_REQUIRE_REDIS=1 (CI), where that is a failure."""
    import socket
    import subprocess
    import time

    def unavailable(why: str) -> None:
        if os.environ.get("VERITY_REQUIRE_REDIS") == "1":
            pytest.fail(f"VERITY_REQUIRE_REDIS=1 but Redis cannot start: {why}")
        pytest.skip(f"cannot start a local Redis with search+JSON (scripts/redis.sh): {why}")

    server, modules = _redis_binaries()
    missing = [p for p in [server, *modules] if not p.is_file()]
    if missing or not modules:
        unavailable(f"missing {missing or 'modules'}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [str(server), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", str(tmp_path)]
    for m in modules:
        args += ["--loadmodule", str(m)]
    log = open(tmp_path / "redis.log", "wb")
    proc = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while True:
            if proc.poll() is not None:
                unavailable(f"redis-server exited: {(tmp_path / 'redis.log').read_text()[-300:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.time() > deadline:
                unavailable("no answer within 20 s")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/"
    finally:
        proc.kill()
        proc.wait()
        log.close()


def same_as_plain(obj: object, path: str = "r") -> int:
    """Every key of `to_dict()` is an attribute holding the same value (typed
    objects walked recursively); returns how many typed objects were seen."""
    if isinstance(obj, list):
        return sum(same_as_plain(x, f"{path}[{i}]") for i, x in enumerate(obj))
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is None:
        return 0
    seen = 1
    for key, value in to_dict().items():
        assert hasattr(obj, key), f"{path}: {type(obj).__name__} has no attribute {key!r}"
        attr = getattr(obj, key)
        plain = attr.to_dict() if hasattr(attr, "to_dict") else (
            [x.to_dict() if hasattr(x, "to_dict") else x for x in attr] if isinstance(attr, list) else attr)
        assert plain == value, f"{path}.{key}: {plain!r} != {value!r}"
        seen += same_as_plain(attr, f"{path}.{key}")
    return seen


def run_mypy(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` on a snippet, the way a user's own code is checked
    against the stubs."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(textwrap.dedent(code))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(snippet)],
        capture_output=True, text=True, cwd=REPO / "python", timeout=300,
    )


@contextlib.contextmanager
def serve_pages(page: Callable[[str], Optional[tuple[str, bytes]]]) -> Iterator[str]:
    """Serve GET requests on a loopback port, `page(path)` giving the content
    type and body of a path (`None`: 404); yields the base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            found = page(self.path)
            content_type, body = found if found else ("text/plain", b"not found")
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
