from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

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
