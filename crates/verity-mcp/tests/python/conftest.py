"""Fixtures: a temp store filled through the `verity` CLI, and HTTP servers.

VERITY_BIN and VERITY_MCP_HTTP_BIN point at the built binaries
(scripts/test-mcp.sh sets them).
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

DOCS = """{"uid":"fees","source":"handbook","title":"Routing fees","content":"Routing fees are set by each node operator: a base fee plus a proportional rate in parts per million."}
{"uid":"tides","source":"almanac","title":"Tides","content":"Tides are caused by the gravitational pull of the moon and the sun."}
"""


def _bin(name: str) -> str:
    path = os.environ.get(name)
    if not path:
        pytest.skip(f"{name} is not set (run scripts/test-mcp.sh)")
    return path


@pytest.fixture(scope="session")
def verity_bin() -> str:
    return _bin("VERITY_BIN")


@pytest.fixture(scope="session")
def store(verity_bin):
    """(env, root): a store with two documents, and a file root with one file."""
    tmp = Path(tempfile.mkdtemp(prefix="verity-mcp-py-"))
    home, root = tmp / "home", tmp / "root"
    root.mkdir()
    (root / "lighthouse.md").write_text("# Lighthouses\n\nThe keeper lit the lamp at dusk.\n")
    corpus = tmp / "docs.jsonl"
    corpus.write_text(DOCS)
    env = {
        **os.environ,
        "VERITY_HOME": str(home),
        "VERITY_EMBEDDER": "none",
        "RUST_LOG": "warn",
    }
    env.pop("VERITY_GENERATOR", None)
    subprocess.run([verity_bin, "--quiet", "ingest", str(corpus)], env=env, check=True)
    yield env, root
    shutil.rmtree(tmp, ignore_errors=True)


def _start_http(store, *extra):
    env, root = store
    proc = subprocess.Popen(
        [_bin("VERITY_MCP_HTTP_BIN"), "--root", str(root), *extra],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline().strip()
    assert line.startswith("listening on "), line
    return proc, line.removeprefix("listening on ")


@pytest.fixture
def http_url(store):
    proc, url = _start_http(store)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def stateless_url(store):
    proc, url = _start_http(store, "--stateless")
    yield url
    proc.terminate()
    proc.wait(timeout=10)
