"""Verity: a source of truth for LLM applications.

Ingest documents, retrieve the passages that answer a question (BM25 and
dense, re-ranked) and answer only from them, with citations::

    import verity

    store = verity.Store.open("./.verity", embedder="none")
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
    Chunk,
    Citation,
    Document,
    Event,
    EventPage,
    Hit,
    Memory,
    Projects,
    SearchResults,
    Store,
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
    "Chunk",
    "Citation",
    "ConfigError",
    "Document",
    "EmbedderMismatch",
    "Event",
    "EventPage",
    "Hit",
    "InvalidInput",
    "Memory",
    "NotFound",
    "Projects",
    "SearchResults",
    "Store",
    "Unavailable",
    "VerityError",
    "Watch",
    "__version__",
    "afetch",
    "fetch",
]
