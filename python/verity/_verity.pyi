"""Type stubs of the native module ``verity._verity`` (PyO3)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from typing import Any, Literal, Optional, TypedDict, Union

__version__: str

_Time = Union[datetime.datetime, datetime.date, str]
_Path = Union[str, "os.PathLike[str]"]
_MetaFilter = Mapping[str, Any]

class Document:
    """A source document (seed-001 schema)."""

    def __init__(
        self,
        uid: str,
        content: str,
        *,
        source: str = "",
        ts: Optional[_Time] = None,
        lang: Optional[str] = None,
        title: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        url: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> None: ...
    @property
    def uid(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def ts(self) -> Optional[str]:
        """RFC 3339 timestamp."""
    @property
    def lang(self) -> Optional[str]: ...
    @property
    def title(self) -> Optional[str]: ...
    @property
    def content(self) -> str: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def url(self) -> Optional[str]: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Chunk:
    """A piece of a document; ``text == content[start:end]`` in UTF-8 bytes."""

    @property
    def id(self) -> str: ...
    @property
    def doc_uid(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def heading_path(self) -> list[str]: ...
    @property
    def token_count(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

class Hit:
    """One search hit: chunk, document metadata and scores."""

    @property
    def chunk(self) -> Chunk: ...
    @property
    def chunk_id(self) -> str: ...
    @property
    def uid(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def title(self) -> Optional[str]: ...
    @property
    def source(self) -> str: ...
    @property
    def url(self) -> Optional[str]: ...
    @property
    def doc(self) -> dict[str, Any]: ...
    @property
    def score(self) -> float: ...
    @property
    def relevance(self) -> float: ...
    @property
    def lexical(self) -> Optional[float]: ...
    @property
    def dense(self) -> Optional[float]: ...
    @property
    def freshness(self) -> Optional[float]: ...
    def to_dict(self) -> dict[str, Any]: ...

class SearchResults:
    """Hits best first, the mode actually used, and the guardrail verdict."""

    @property
    def hits(self) -> list[Hit]: ...
    @property
    def mode(self) -> str: ...
    @property
    def not_enough_evidence(self) -> bool: ...
    @property
    def notes(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Hit: ...
    def __iter__(self) -> Iterator[Hit]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Citation:
    """A cited source: ``[index]`` ↔ chunk ↔ document ↔ URL."""

    @property
    def index(self) -> int: ...
    @property
    def chunk_id(self) -> str: ...
    @property
    def doc_uid(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def title(self) -> Optional[str]: ...
    @property
    def url(self) -> Optional[str]: ...
    @property
    def quote(self) -> Optional[str]: ...
    @property
    def span(self) -> Optional[tuple[int, int]]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Answer:
    """A grounded answer with ``[n]`` markers and its citations."""

    @property
    def text(self) -> str: ...
    @property
    def citations(self) -> list[Citation]: ...
    @property
    def confidence(self) -> float: ...
    @property
    def degraded(self) -> bool: ...
    @property
    def not_enough_evidence(self) -> bool: ...
    @property
    def invalid_citations(self) -> list[int]: ...
    @property
    def model(self) -> str: ...
    @property
    def cached(self) -> bool: ...
    @property
    def timings(self) -> dict[str, float]: ...
    @property
    def notes(self) -> list[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

_DocIn = Union[Mapping[str, Any], Document]

Verdict = Literal["SUPPORTED", "NOT_SUPPORTED", "PARTIAL", "INCONCLUSIVE", "SOURCE_UNAVAILABLE"]

class CheckLocation(TypedDict):
    line: int
    start: int
    end: int

class QuoteContext(TypedDict):
    before: str
    quote: str
    after: str
    start: int
    end: int

class _CheckResultBase(TypedDict):
    claim: str
    citation_ref: str
    citation_type: str
    verdict: Verdict
    confidence: float
    explanation: str
    location: CheckLocation
    judge: str
    elapsed_ms: float

class CheckResult(_CheckResultBase, total=False):
    source_url: str
    source_quote: str
    """A sentence that occurs verbatim in the fetched source."""
    quote_context: QuoteContext
    checks: list[str]
    passages: list[dict[str, Any]]

class CheckSummary(TypedDict):
    total: int
    supported: int
    issues: int
    partial: int
    not_supported: int
    inconclusive: int
    unavailable: int
    message: str

class _CheckReportBase(TypedDict):
    summary: CheckSummary
    results: list[CheckResult]
    statistics: dict[str, Any]
    cancelled: bool

class CheckReport(_CheckReportBase, total=False):
    """The report of ``Store.check`` (the seed-002 JSON shape)."""
    document: str

class ThemeCoverage(TypedDict):
    """Coverage of one theme of the research brief."""
    id: str
    title: str
    cited: int
    supported: int
    covered: bool

class _ResearchReferenceBase(TypedDict):
    n: int
    title: str

class ResearchReference(_ResearchReferenceBase, total=False):
    """One reference of a research report: ``url`` for web sources,
    ``filename`` for knowledge-base files."""
    url: str
    filename: str

class StepTiming(TypedDict):
    step: str
    ms: int

class ResearchReport(TypedDict):
    """The checked report of ``Store.research`` (the api's ``ResearchResponse``)."""
    run_dir: str
    markdown: str
    coverage: float
    supported_share: float
    cited_sentences: int
    supported_sentences: int
    themes: list[ThemeCoverage]
    writer: str
    judge: str
    degraded: bool
    missing: list[str]
    notes: list[str]
    tasks_ok: int
    tasks_failed: int
    tasks_skipped: int
    planner: Literal["deterministic", "llm", "llm_fell_back"]
    plan_attempts: int
    unresolved_citations: int
    references: list[ResearchReference]
    timings: list[StepTiming]

class _KnowledgeEntryBase(TypedDict):
    filename: str
    title: str
    keywords: list[str]
    summary: str

class KnowledgeEntry(_KnowledgeEntryBase, total=False):
    """A knowledge-base entry (``knowledge_db.json``)."""
    url: str
    file_id: str

class AddReferenceResult(TypedDict):
    """What ``Store.add_reference`` did."""
    entry: KnowledgeEntry
    downloaded: bool
    indexed: bool
    enriched_by: str

class Event:
    """One stored event (seed 004): ``content`` and ``metadata`` are dicts."""

    @property
    def id(self) -> str: ...
    @property
    def timestamp(self) -> str:
        """RFC 3339 timestamp (UTC)."""
    @property
    def content(self) -> dict[str, Any]: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def embedding(self) -> Optional[list[float]]: ...
    @property
    def similarity_score(self) -> Optional[float]:
        """L2 distance to the query vector (lower = more similar), vector searches only."""
    @property
    def rank_score(self) -> Optional[float]: ...
    @property
    def expires_at(self) -> Optional[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

class EventPage:
    """A page of events with seed 004's ``meta`` (``total_hits``, ``limit``, ``offset``)."""

    @property
    def data(self) -> list[Event]: ...
    @property
    def total_hits(self) -> Optional[int]: ...
    @property
    def limit(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def mode(self) -> str:
        """``vector``, ``lexical``, ``hybrid`` or ``metadata-only``."""
    @property
    def threshold_fallback(self) -> bool: ...
    @property
    def notes(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Event: ...
    def to_dict(self) -> dict[str, Any]: ...

_Vector = Union[str, Sequence[float]]

class Memory:
    """Event memory of a store (``store.memory``); every call has an ``a``-prefixed async variant."""

    def add(
        self,
        content: Mapping[str, Any],
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        embedding: Optional[Sequence[float]] = None,
        timestamp: Optional[_Time] = None,
    ) -> Event: ...
    def aadd(
        self,
        content: Mapping[str, Any],
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        embedding: Optional[Sequence[float]] = None,
        timestamp: Optional[_Time] = None,
    ) -> Awaitable[Event]: ...
    def get(self, id: str) -> Event: ...
    def aget(self, id: str) -> Awaitable[Event]: ...
    def delete(self, id: str) -> None: ...
    def adelete(self, id: str) -> Awaitable[None]: ...
    def update_metadata(self, id: str, patch: Mapping[str, Any]) -> Event: ...
    def aupdate_metadata(self, id: str, patch: Mapping[str, Any]) -> Awaitable[Event]: ...
    def search(
        self,
        vector_query: Optional[_Vector] = None,
        *,
        filter_metadata: Optional[Mapping[str, Any]] = None,
        ts_start: Optional[_Time] = None,
        ts_end: Optional[_Time] = None,
        distance_threshold: Optional[float] = None,
        limit: int = 10,
        offset: int = 0,
        mode: Optional[str] = None,
    ) -> EventPage: ...
    def asearch(
        self,
        vector_query: Optional[_Vector] = None,
        *,
        filter_metadata: Optional[Mapping[str, Any]] = None,
        ts_start: Optional[_Time] = None,
        ts_end: Optional[_Time] = None,
        distance_threshold: Optional[float] = None,
        limit: int = 10,
        offset: int = 0,
        mode: Optional[str] = None,
    ) -> Awaitable[EventPage]: ...
    def remember(
        self, text: str, *, metadata: Optional[Mapping[str, Any]] = None, ttl_seconds: Optional[int] = None
    ) -> Event: ...
    def aremember(
        self, text: str, *, metadata: Optional[Mapping[str, Any]] = None, ttl_seconds: Optional[int] = None
    ) -> Awaitable[Event]: ...
    def recall(
        self,
        query: Optional[str] = None,
        *,
        filter_metadata: Optional[Mapping[str, Any]] = None,
        ts_start: Optional[_Time] = None,
        ts_end: Optional[_Time] = None,
        limit: int = 10,
        mode: Optional[str] = None,
        distance_threshold: Optional[float] = None,
    ) -> EventPage: ...
    def arecall(
        self,
        query: Optional[str] = None,
        *,
        filter_metadata: Optional[Mapping[str, Any]] = None,
        ts_start: Optional[_Time] = None,
        ts_end: Optional[_Time] = None,
        limit: int = 10,
        mode: Optional[str] = None,
        distance_threshold: Optional[float] = None,
    ) -> Awaitable[EventPage]: ...
    def forget(
        self,
        id: Optional[str] = None,
        *,
        filter_metadata: Optional[Mapping[str, Any]] = None,
        ts_start: Optional[_Time] = None,
        ts_end: Optional[_Time] = None,
    ) -> int: ...
    def aforget(
        self,
        id: Optional[str] = None,
        *,
        filter_metadata: Optional[Mapping[str, Any]] = None,
        ts_start: Optional[_Time] = None,
        ts_end: Optional[_Time] = None,
    ) -> Awaitable[int]: ...

class Store:
    """An open Verity store; safe to share between threads and asyncio tasks."""

    @staticmethod
    def open(
        path: Optional[_Path] = None,
        *,
        index: Optional[str] = None,
        embedder: Optional[str] = None,
        generator: Optional[str] = None,
        fallback: Optional[str] = None,
        k: Optional[int] = None,
        min_relevance: Optional[float] = None,
        cache: Optional[bool] = None,
    ) -> Store:
        """Open or create a store: ``path`` is a directory (embedded SQLite) or a
        ``redis://`` URL. Unset arguments come from the environment
        (``VERITY_HOME``, ``REDIS_URL``, ``VERITY_EMBEDDER``, …), then the defaults
        (``embedder="auto"``, ``generator="extractive"``, ``k=8``, ``min_relevance=0.35``)."""
    @staticmethod
    def aopen(
        path: Optional[_Path] = None,
        *,
        index: Optional[str] = None,
        embedder: Optional[str] = None,
        generator: Optional[str] = None,
        fallback: Optional[str] = None,
        k: Optional[int] = None,
        min_relevance: Optional[float] = None,
        cache: Optional[bool] = None,
    ) -> Awaitable[Store]: ...
    def ingest(self, docs: Sequence[_DocIn]) -> dict[str, Any]: ...
    def aingest(self, docs: Sequence[_DocIn]) -> Awaitable[dict[str, Any]]: ...
    def ingest_paths(self, paths: Sequence[_Path], strict: bool = False) -> dict[str, Any]: ...
    def aingest_paths(self, paths: Sequence[_Path], strict: bool = False) -> Awaitable[dict[str, Any]]: ...
    def search(
        self,
        query: str,
        *,
        k: int = 8,
        mode: Optional[str] = None,
        sources: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
        langs: Optional[Sequence[str]] = None,
        uids: Optional[Sequence[str]] = None,
        metadata: Optional[_MetaFilter] = None,
        since: Optional[_Time] = None,
        until: Optional[_Time] = None,
    ) -> SearchResults: ...
    def asearch(
        self,
        query: str,
        *,
        k: int = 8,
        mode: Optional[str] = None,
        sources: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
        langs: Optional[Sequence[str]] = None,
        uids: Optional[Sequence[str]] = None,
        metadata: Optional[_MetaFilter] = None,
        since: Optional[_Time] = None,
        until: Optional[_Time] = None,
    ) -> Awaitable[SearchResults]: ...
    def ask(
        self,
        question: str,
        *,
        lang: Optional[str] = None,
        k: Optional[int] = None,
        mode: Optional[str] = None,
        sources: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
        langs: Optional[Sequence[str]] = None,
        uids: Optional[Sequence[str]] = None,
        metadata: Optional[_MetaFilter] = None,
        since: Optional[_Time] = None,
        until: Optional[_Time] = None,
        no_cache: bool = False,
    ) -> Answer: ...
    def aask(
        self,
        question: str,
        *,
        lang: Optional[str] = None,
        k: Optional[int] = None,
        mode: Optional[str] = None,
        sources: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
        langs: Optional[Sequence[str]] = None,
        uids: Optional[Sequence[str]] = None,
        metadata: Optional[_MetaFilter] = None,
        since: Optional[_Time] = None,
        until: Optional[_Time] = None,
        no_cache: bool = False,
    ) -> Awaitable[Answer]: ...
    def get(self, uid: str) -> Optional[Document]: ...
    def aget(self, uid: str) -> Awaitable[Optional[Document]]: ...
    def delete(self, uids: Sequence[str]) -> int: ...
    def adelete(self, uids: Sequence[str]) -> Awaitable[int]: ...
    def stats(self) -> dict[str, Any]: ...
    def astats(self) -> Awaitable[dict[str, Any]]: ...
    def check(
        self,
        content: Optional[str] = None,
        *,
        url: Optional[str] = None,
        path: Optional[str] = None,
        content_base64: Optional[str] = None,
        content_type: Optional[str] = None,
        name: Optional[str] = None,
        concurrency: Optional[int] = None,
        judge: Optional[Literal["auto", "local", "llm"]] = None,
        allow_private: bool = False,
    ) -> CheckReport:
        """Check that each cited source supports the claim citing it. Give one
        of ``content``, ``url``, ``path`` or ``content_base64``;
        ``allow_private`` lifts the SSRF guard (tests, intranets)."""
    def acheck(
        self,
        content: Optional[str] = None,
        *,
        url: Optional[str] = None,
        path: Optional[str] = None,
        content_base64: Optional[str] = None,
        content_type: Optional[str] = None,
        name: Optional[str] = None,
        concurrency: Optional[int] = None,
        judge: Optional[Literal["auto", "local", "llm"]] = None,
        allow_private: bool = False,
    ) -> Awaitable[CheckReport]: ...
    def research(
        self,
        syllabus: Optional[_Path] = None,
        *,
        run_dir: Optional[_Path] = None,
        knowledge_dir: Optional[_Path] = None,
        allow_private: bool = False,
        remove_unsupported: bool = False,
        replay: bool = False,
    ) -> ResearchReport:
        """Research a syllabus (Markdown, PDF, HTML; seed 003) and return the
        checked, sourced report. ``replay=True`` re-runs the writer and the
        checks of ``run_dir`` offline; ``allow_private`` lets references on
        private and loopback addresses be fetched."""
    def aresearch(
        self,
        syllabus: Optional[_Path] = None,
        *,
        run_dir: Optional[_Path] = None,
        knowledge_dir: Optional[_Path] = None,
        allow_private: bool = False,
        remove_unsupported: bool = False,
        replay: bool = False,
    ) -> Awaitable[ResearchReport]: ...
    def find_by_name(
        self, filename: str, *, knowledge_dir: Optional[_Path] = None
    ) -> Optional[KnowledgeEntry]:
        """The knowledge-base entry of a file, or ``None``."""
    def add_reference(
        self,
        url: Optional[str] = None,
        *,
        filename: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        keywords: Optional[Sequence[str]] = None,
        knowledge_dir: Optional[_Path] = None,
        allow_private: bool = False,
    ) -> AddReferenceResult:
        """Add ``url`` (downloaded, saved as Markdown, indexed once) or
        ``filename`` (already in the knowledge base directory)."""
    @property
    def memory(self) -> Memory:
        """The event memory (seed 004) on this store's backend and embedder."""
    @property
    def notes(self) -> list[str]: ...
    @property
    def home(self) -> str: ...

def fetch(target: str, *, allow_private: bool = False) -> dict[str, Any]:
    """Fetch a URL (SSRF guard on unless ``allow_private``) or parse a local file."""

def afetch(target: str, *, allow_private: bool = False) -> Awaitable[dict[str, Any]]: ...
def _error_table() -> list[dict[str, Any]]:
    """The error table shared by every host: code, exit_code, http_status,
    python_class, js_code, jsonrpc_code."""
