"""Verity: a source of truth for LLM applications.

Ingest documents, retrieve the passages that answer a question (BM25 and
dense, re-ranked) and answer only from them, with citations::

    import verity

    with verity.Store.open("./.verity", embedder="none") as store:
        store.ingest([{"uid": "a", "content": "Routing fees are set by each node."}])
        for hit in store.search("routing fees", k=3):
            print(hit.score, hit.title, hit.text)
        print(store.ask("How are routing fees set?").text)

Every call has an asyncio variant prefixed with ``a`` (``await store.asearch(...)``),
to be called from a coroutine (an event loop must be running).
"""

from __future__ import annotations

from ._verity import (
    Answer,
    AnswerStream,
    Chunk,
    Citation,
    Document,
    Event,
    EventPage,
    Hit,
    IngestOutcome,
    Memory,
    Projects,
    SearchResults,
    Stats,
    Store,
    StoreStats,
    Watch,
    __version__,
    afetch,
    fetch,
)
from .errors import (
    ConfigError,
    EmbedderMismatch,
    InvalidInput,
    NotFound,
    Unavailable,
    VerityError,
)

__all__ = [
    "Answer",
    "AnswerStream",
    "Chunk",
    "Citation",
    "ConfigError",
    "Document",
    "EmbedderMismatch",
    "Event",
    "EventPage",
    "Hit",
    "IngestOutcome",
    "InvalidInput",
    "Memory",
    "NotFound",
    "Projects",
    "SearchResults",
    "Stats",
    "Store",
    "StoreStats",
    "Unavailable",
    "VerityError",
    "Watch",
    "__version__",
    "afetch",
    "fetch",
]
