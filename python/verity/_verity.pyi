"""Type stubs of the native module ``verity._verity`` (PyO3). The section
between the "generated" lines is written from the ``verity::api`` JSON
schemas by ``crates/verity/tests/binding_types/mod.rs`` (see
docs/architecture.md, "Where to add an operation"); the rest is hand-written."""

from __future__ import annotations

import datetime
import os
from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, Optional, TypedDict, Union

from typing_extensions import NotRequired, Unpack

__version__: str

_Time = Union[datetime.datetime, datetime.date, str]
_Path = Union[str, "os.PathLike[str]"]

# ---- generated from the verity::api schemas by crates/verity/tests/binding_types: do not edit (begin) ----
_CitationType = Literal["url", "doi", "arxiv", "bibliography", "footnote", "author_year"]
"""How a claim cites its source (``citation_type``)."""
_ContextRanking = Literal["index", "lexical"]
"""How ``query_context`` ranked."""
_DecisionLlm = Literal["qwen", "phi"]
"""The LLM that took a decision (``llm``)."""
_DecisionType = Literal["score", "validate", "reject", "verify_fact"]
"""Kind of decision (``decision_type``)."""
_EventSearchMode = Literal["vector", "lexical", "hybrid", "metadata-only"]
"""Which index answers a search."""
_FetchStatus = Literal["fetched", "failed", "paywalled", "not_found", "timeout", "rate_limited", "blocked"]
"""Outcome class of a fetch (``fetch_status``)."""
_Field = Literal["title", "content", "url"]
"""Where a keyword was found."""
_JudgeChoice = Literal["auto", "local", "llm"]
"""Which judge decides (``auto``: the LLM judge over the configured generator
when it is a model, else the local judge).
"""
_MatchedBy = Literal["url", "same_content", "near_duplicate"]
"""How an existing article was recognised."""
_Priority = Literal["critical", "high", "medium", "low"]
"""Rule (and task) priority."""
_ProjectStatus = Literal["active", "paused", "completed", "archived"]
"""Life cycle of a project."""
_ReportFormat = Literal["json", "md", "html", "terminal"]
"""Output format of a report (``verity check --format``, ``format`` of ``POST /v1/verify``)."""
_RuleKind = Literal["include", "exclude", "boost"]
"""What a rule does to an article's score."""
_RuleTypeFilter = Literal["include", "exclude", "boost", "all"]
"""``type`` filter of ``get_veille_rules``."""
_SearchMode = Literal["lexical", "dense", "hybrid"]
"""Which index answers a query."""
_SourceFormat = Literal["pdf", "html", "markdown", "text", "json"]
"""Format a source was parsed from."""
_SourceStatus = Literal["success", "failed", "paywalled"]
"""How fetching the source went (``fetch_status``)."""
_SourceType = Literal["rss", "youtube", "reddit", "hn"]
"""Where an article came from (``source_type``)."""
_TaskStatus = Literal["todo", "in_progress", "blocked", "done", "cancelled"]
"""State of a task."""
_Verdict = Literal["SUPPORTED", "NOT_SUPPORTED", "PARTIAL", "INCONCLUSIVE", "SOURCE_UNAVAILABLE"]
"""What the source says about the claim."""
_VerifyMode = Literal["off", "flag", "strip"]
"""What to do with answer sentences their cited sources do not support."""
_WebTimeRange = Literal["day", "week", "month", "year"]
"""Recency window for web search."""

class _SearchOptions(TypedDict, total=False):
    """Search the store (``verity search``, ``store.search``, ``POST /search``)."""
    filters: Optional[Mapping[str, Any]]
    """The same filters as one object (``{query, k, filters}``),
    combined with the top-level ones.
    """
    k: Optional[int]
    """Hits wanted, 1 to ``MAX_K`` (default ``DEFAULT_K`` = 8)."""
    langs: Optional[Sequence[str]]
    """Keep documents in these languages."""
    metadata: Optional[Mapping[str, Any]]
    """Metadata equality (``{"key": value}``) or membership (``{"key": [v1, v2]}``); all must hold."""
    mode: Optional[_SearchMode]
    """``lexical``, ``dense`` or ``hybrid``. Default: hybrid; a search that cannot
    run dense (no embedder, no vectors, another embedding space) runs
    lexical and says so in the response's ``notes``.
    """
    since: Optional[_Time]
    """Keep documents dated at or after this (RFC 3339, or ``YYYY-MM-DD`` = that day 00:00 UTC)."""
    sources: Optional[Sequence[str]]
    """Keep documents from these sources."""
    tags: Optional[Sequence[str]]
    """Keep documents having any of these tags."""
    tags_all: Optional[Sequence[str]]
    """Keep documents having all of these tags."""
    uids: Optional[Sequence[str]]
    """Keep only these document uids."""
    until: Optional[_Time]
    """Keep documents dated at or before this (RFC 3339, or ``YYYY-MM-DD`` = the whole day)."""

class _AskOptions(TypedDict, total=False):
    """Answer a question from the sources (``verity ask``, ``store.ask``,
    ``POST /v1/rag`` with ``{query, lang}``).
    """
    filters: Optional[Mapping[str, Any]]
    """As in ``SearchRequest::filters``."""
    k: Optional[int]
    """Chunks given to the generator, 1 to ``MAX_K`` (default: the configured ``k``, 8)."""
    lang: Optional[str]
    """Answer language (ISO 639-1, e.g. ``fr``, ``en``); retrieval prefers
    documents in it and mixes languages when they hold too little. When
    absent, the configured default answer language (``RAG_DEFAULT_LANG``;
    ``fr`` on ``verity serve``; ``en`` elsewhere).
    """
    langs: Optional[Sequence[str]]
    """As in ``SearchRequest::langs``."""
    metadata: Optional[Mapping[str, Any]]
    """As in ``SearchRequest::metadata``."""
    mode: Optional[_SearchMode]
    """Retrieval mode, as in ``SearchRequest::mode``."""
    no_cache: Optional[bool]
    """Bypass the answer cache (default ``false``)."""
    since: Optional[_Time]
    """As in ``SearchRequest::since``."""
    sources: Optional[Sequence[str]]
    """As in ``SearchRequest::sources``."""
    tags: Optional[Sequence[str]]
    """As in ``SearchRequest::tags``."""
    tags_all: Optional[Sequence[str]]
    """As in ``SearchRequest::tags_all``."""
    uids: Optional[Sequence[str]]
    """As in ``SearchRequest::uids``."""
    until: Optional[_Time]
    """As in ``SearchRequest::until`` (a bare date includes the day)."""
    verify: Optional[_VerifyMode]
    """Check the answer against its sources before returning it: each
    sentence that cites ``[n]`` is judged against passage ``n`` (the local
    judge of ``verity check``). ``flag`` (default) keeps every sentence and
    marks the unsupported ones ``[unsupported: VERDICT]``; ``strip`` removes
    them; ``off`` skips the check. Per-sentence verdicts and quotes are in
    the answer's ``verification``.
    """

class _ConfigOverrides(TypedDict, total=False):
    """Settings a host overrides over ``VerityConfig::from_env`` (unset fields
    keep the environment's value, then the default). The CLI fills it from its
    flags, Python from ``Store.open(...)`` keywords, Node from ``Verity.open({...})``,
    the servers from their command line.
    """
    allow_private: Optional[bool]
    """Let the watch's ``crawl_url`` and ``verify_fact`` read private and
    loopback addresses (``VERITY_ALLOW_PRIVATE``; intranets and tests).
    """
    cache: Optional[bool]
    """Cache retrievals and answers (default ``true``)."""
    cache_answer_mb: Optional[int]
    """Size limit of the answer cache in MiB, ``0`` for none (``VERITY_CACHE_ANSWER_MB``, default 32)."""
    cache_embedding_mb: Optional[int]
    """Size limit of the embedding cache in MiB, ``0`` for none (``VERITY_CACHE_EMBEDDING_MB``, default 1024)."""
    cache_retrieval_mb: Optional[int]
    """Size limit of the retrieval cache in MiB, ``0`` for none (``VERITY_CACHE_RETRIEVAL_MB``, default 64)."""
    default_lang: Optional[str]
    """Answer language of questions that name none (``RAG_DEFAULT_LANG``;
    default ``en``, and ``fr`` on the REST server: ``Self::with_rest_defaults``).
    """
    embedder: Optional[str]
    """Embedder: ``auto``, ``none``, ``local[:DIR]``, ``ollama:MODEL:TAG``, ``openai:MODEL`` (``VERITY_EMBEDDER``)."""
    fallback: Optional[str]
    """Fallback generator, same syntax (``VERITY_FALLBACK``)."""
    fast: Optional[bool]
    """The fast ingest profile (``verity ingest --fast``): the local embedder
    runs its 8-bit products and pools sentence vectors from the chunk's
    pass (``VERITY_EMBED_PRECISION=int8``, ``VERITY_SENTENCE_VECTORS=pooled``).
    About 2.4× fewer word pieces, each ~1.2× faster, for −0.006 hybrid
    nDCG@10 on SciFact (docs/benchmarks.d/ingest.md).
    """
    generator: Optional[str]
    """Generator: ``extractive``, ``local[:FILE.gguf]``, ``ollama:MODEL:TAG``, ``openai:MODEL`` (``VERITY_GENERATOR``)."""
    index: Optional[str]
    """Index or alias (``VERITY_INDEX``, default ``default``)."""
    jina_reader_url: Optional[str]
    """Jina Reader endpoint for the watch's ``crawl_url`` (``JINA_READER_URL``)."""
    k: Optional[int]
    """Chunks given to the generator (``RAG_TOPK``)."""
    knowledge_dir: Optional[_Path]
    """Research knowledge base directory (``VERITY_KNOWLEDGE_DIR``, default ``<home>/knowledge``)."""
    min_relevance: Optional[float]
    """Guardrail: best relevance under this means "not enough evidence" (``RAG_MIN_SCORE``)."""
    ollama_url: Optional[str]
    """Ollama base URL (``OLLAMA_URL``)."""
    openai_url: Optional[str]
    """OpenAI-compatible base URL (``OPENAI_BASE_URL``)."""
    redis_url: Optional[str]
    """Redis URL (``REDIS_URL``); when set the store and caches live in Redis."""
    searxng_url: Optional[str]
    """SearXNG instance for web search (``VERITY_SEARXNG_URL`` or ``SEARXNG_URL``)."""

class _CheckRequest(TypedDict, total=False):
    """Check the citations of one document (``verity check``, ``POST /v1/verify``,
    ``verity.check``). Exactly one of ``content``, ``content_base64``, ``url`` or
    ``path`` is given.
    """
    allow_private: Optional[bool]
    """Let the document URL and the cited sources be on private or loopback
    addresses (disables the SSRF guard for this check; default ``false``).
    For tests and intranets; servers accept it only when their operator allows it.
    """
    concurrency: Optional[int]
    """Sources fetched and claims judged at once (1–32, default 4)."""
    content_base64: Optional[str]
    """The document's bytes in base64 (PDF, or any format), e.g. an uploaded file."""
    content_type: Optional[str]
    """``markdown``, ``html``, ``text``, ``pdf`` or a MIME type; sniffed when absent."""
    format: Optional[_ReportFormat]
    """How hosts render the report (default ``json``; the facade always returns the report)."""
    judge: Optional[_JudgeChoice]
    """Which judge decides (default ``auto``)."""
    name: Optional[str]
    """File name of an uploaded document (helps sniffing its format)."""
    path: Optional[str]
    """A local file (CLI and bindings; servers read files only under their roots)."""
    url: Optional[str]
    """An http(s) URL of the document, fetched with the shared fetcher."""

class _GetRulesRequest(TypedDict, total=False):
    """Input of ``get_veille_rules``."""
    priority: Optional[_Priority]
    """Filter by priority"""

class _RuleUpdate(TypedDict, total=False):
    """Input of ``update_veille_rule``: create or replace the rule ``name``.
    Omitted fields take defaults (modifier by kind: include +2, boost +1,
    exclude −10; priority medium).
    """
    active: Optional[bool]
    """Whether the rule is applied (default true)."""
    description: Optional[str]
    """Free description."""
    priority: Optional[_Priority]
    """Priority."""
    score_modifier: Optional[int]
    """Score modifier (-10 to +5)"""

class _ScoreRequest(TypedDict, total=False):
    """Input of ``score_article``."""
    content: Optional[str]
    """Article text."""
    title: Optional[str]
    """Article title."""
    url: Optional[str]
    """Article URL (its host and path words are matched too)."""

class _CheckArticleRequest(TypedDict, total=False):
    """Input of ``check_article_exists``. ``title`` and ``content`` are optional
    additions: with content, republications of a logged article
    at another URL are found too.
    """
    content: Optional[str]
    """Article text, to detect the same article at another URL."""

class _LogArticleRequest(TypedDict, total=False):
    """Input of ``log_article``."""
    hashtags: Optional[Sequence[str]]
    """Hashtags."""
    impact: Optional[str]
    """Impact."""
    linkedin_draft: Optional[str]
    """LinkedIn draft."""
    phi_confidence: Optional[float]
    """Confidence of the validating LLM (0…1)."""
    phi_validated: Optional[bool]
    """Validated by the validating LLM."""
    qwen_keywords: Optional[Sequence[str]]
    """Keywords of the scoring LLM."""
    qwen_score: Optional[int]
    """Score of the scoring LLM (0…max score)."""
    raw_content: Optional[str]
    """Full text: fingerprinted for duplicate detection and handed to the
    configured ingest so later RAG and verification can use it.
    """
    summary_fr: Optional[str]
    """French summary."""

class _GetArticlesRequest(TypedDict, total=False):
    """Input of ``get_articles``."""
    days: Optional[int]
    """How many days back to read"""
    limit: Optional[int]
    """Largest number of articles"""
    source: Optional[str]
    """Filter by source"""
    validated_only: Optional[bool]
    """Only articles validated by Phi"""

class _LogDecisionRequest(TypedDict, total=False):
    """Input of ``log_veille_decision``."""
    article_id: Optional[str]
    """Id of the article concerned (optional for a general decision)"""
    confidence: Optional[float]
    """Confidence (0-1)"""
    reasoning: Optional[str]
    """Reasoning behind the decision"""
    tools_used: Optional[Sequence[str]]
    """Tools called for this decision"""

class _GetWatchDecisionsRequest(TypedDict, total=False):
    """Reading the watch decision log back (per article and/or period)."""
    article_id: Optional[str]
    """Only this article (must exist)."""
    days: Optional[int]
    """Only the last ``days`` days."""
    limit: Optional[int]
    """At most this many (the most recent)."""
    since: Optional[_Time]
    """Logged at or after."""
    until: Optional[_Time]
    """Logged before."""

class _WebSearchOptions(TypedDict, total=False):
    """Input of ``web_search``."""
    num_results: Optional[int]
    """Number of results (at most 10)"""
    time_range: Optional[_WebTimeRange]
    """Time range filter"""

class _VerifyFactRequest(TypedDict, total=False):
    """Input of ``verify_fact``. With ``urls``, the
    claim is checked against these pages instead of a web search.
    """
    context: Optional[str]
    """Extra context to refine the search"""
    urls: Optional[Sequence[str]]
    """Sources to read (default: a web search)"""

class _CreateProjectRequest(TypedDict, total=False):
    """Input of ``create_project``."""
    description: Optional[str]
    """Description."""
    status: Optional[_ProjectStatus]
    """Status (default active)."""
    tags: Optional[Sequence[str]]
    """Tags."""

class _ListProjectsRequest(TypedDict, total=False):
    """Input of ``list_projects``."""
    status: Optional[_ProjectStatus]
    """Only this status."""

class _UpdateProjectRequest(TypedDict, total=False):
    """Input of ``update_project``: only the given fields change."""
    description: Optional[str]
    """New description."""
    name: Optional[str]
    """New name."""
    status: Optional[_ProjectStatus]
    """New status."""
    tags: Optional[Sequence[str]]
    """New tags."""

class _StoreContextRequest(TypedDict, total=False):
    """Input of ``store_context``."""
    tags: Optional[Sequence[str]]
    """Tags."""
    title: Optional[str]
    """Title."""

class _QueryContextRequest(TypedDict, total=False):
    """Input of ``query_context``."""
    limit: Optional[int]
    """Entries wanted (default 5)."""

class _CreateTaskRequest(TypedDict, total=False):
    """Input of ``create_task``."""
    depends_on: Optional[Sequence[str]]
    """Tasks of the same project that must finish first."""
    description: Optional[str]
    """Description."""
    priority: Optional[_Priority]
    """Priority (default medium)."""
    status: Optional[_TaskStatus]
    """Status (default todo)."""

class _UpdateTaskRequest(TypedDict, total=False):
    """Input of ``update_task``: only the given fields change."""
    depends_on: Optional[Sequence[str]]
    """New dependencies (replaces the list; cycles are refused)."""
    description: Optional[str]
    """New description."""
    priority: Optional[_Priority]
    """New priority."""
    status: Optional[_TaskStatus]
    """New status."""
    title: Optional[str]
    """New title."""

class _NextTasksRequest(TypedDict, total=False):
    """Input of ``get_next_tasks``."""
    limit: Optional[int]
    """Tasks wanted (default 5)."""

class _LogProjectDecisionRequest(TypedDict, total=False):
    """Input of ``log_decision`` (AuraCore)."""
    alternatives: Optional[Sequence[str]]
    """Options considered."""
    reasoning: Optional[str]
    """Why."""
    tags: Optional[Sequence[str]]
    """Tags."""

class _GetProjectDecisionsRequest(TypedDict, total=False):
    """Input of ``get_decisions`` (AuraCore)."""
    limit: Optional[int]
    """At most this many (the most recent)."""

class _RememberRequest(TypedDict, total=False):
    """``remember``: store a piece of text for later."""
    metadata: Optional[Mapping[str, Any]]
    """Tags, ids, … (a JSON object) used to filter later."""
    ttl_seconds: Optional[int]
    """Seconds until the event is forgotten (default: kept)."""

class _RecallRequest(TypedDict, total=False):
    """``recall``: find remembered events by meaning and/or words, metadata and time."""
    distance_threshold: Optional[float]
    """Largest L2 distance kept, 0–2 (default: none, the nearest events)."""
    filter_metadata: Optional[Mapping[str, Any]]
    """Metadata the events must contain (containment: nested objects and arrays)."""
    limit: Optional[int]
    """Results, 1–100 (default 10)."""
    mode: Optional[_EventSearchMode]
    """Index used (default: hybrid with an embedder, else lexical)."""
    ts_end: Optional[_Time]
    """Latest timestamp (ISO 8601 with a zone)."""
    ts_start: Optional[_Time]
    """Earliest timestamp (ISO 8601 with a zone)."""

class _ForgetRequest(TypedDict, total=False):
    """``forget``: delete one event by id, or every event matching a filter."""
    filter_metadata: Optional[Mapping[str, Any]]
    """Delete the events whose metadata contains this object."""
    ts_end: Optional[_Time]
    """… and at or before this."""
    ts_start: Optional[_Time]
    """… and whose timestamp is at or after this."""

class _ResearchOptions(TypedDict, total=False):
    """Options of a research run and of the knowledge-base calls (``research``,
    ``find_by_name``, ``add_reference`` of ``crate::Verity``): the keywords of
    the Python methods, the options object of the Node ones, the flags of
    ``verity research``.
    Servers do not take them from clients (paths on the server, the SSRF
    guard): ``POST /v1/research`` and the MCP tools set them from their
    configuration.
    """
    allow_private: Optional[bool]
    """Let references on private and loopback addresses be fetched
    (disables the SSRF guard; intranets and tests; default ``false``).
    """
    budget_secs: Optional[int]
    """Time budget of the run in seconds (default 300): past it, the LLM
    steps give way to their offline path and the note says it is partial.
    """
    judge: Optional[_JudgeChoice]
    """Judge of the report check (default ``auto``: the LLM judge when a
    model generator is configured, else the local judge).
    """
    knowledge_dir: Optional[_Path]
    """Knowledge base directory; default: the configuration's
    (``VERITY_KNOWLEDGE_DIR``), else ``<home>/knowledge``.
    """
    remove_unsupported: Optional[bool]
    """Remove unsupported sentences instead of flagging them (default ``false``)."""
    replay: Optional[bool]
    """Re-run the writer and the checks of ``run_dir`` from its trace, offline."""
    run_dir: Optional[_Path]
    """Run directory (brief, plan, trace, report); default ``<home>/runs/<timestamp>``."""

class _AddReferenceRequest(TypedDict, total=False):
    """``add_reference``: add a reference to the knowledge base — either ``url``
    (downloaded, saved as Markdown, indexed) or ``filename`` (a file already in
    the knowledge base directory, registered and indexed).
    """
    description: Optional[str]
    """Summary (else one is generated)."""
    filename: Optional[str]
    """Or the name of a file already in the knowledge base directory."""
    keywords: Optional[Sequence[str]]
    """Keywords (else they are extracted)."""
    title: Optional[str]
    """Title (else the page's title)."""

class _FetchRequest(TypedDict, total=False):
    """Fetch a URL, or parse a local file with the same parsers (``verity fetch``, ``verity.fetch``)."""
    allow_private: Optional[bool]
    """Allow private and loopback addresses (disables the SSRF guard; default ``false``)."""

class _NewMemoryEvent(TypedDict, total=False):
    """What a caller writes (MnemoLite's ``NewEvent``, plus an optional expiry)."""
    embedding: Optional[Sequence[float]]
    """A vector of the store's dimension; bypasses auto-embedding."""
    expires_at: Optional[_Time]
    """Expiry time (TTL), if any."""
    metadata: Optional[Mapping[str, Any]]
    """Metadata object."""
    timestamp: Optional[_Time]
    """Event time (default: now). Must carry a zone when given as text."""

class _MemorySearchOptions(TypedDict, total=False):
    """A search as a caller asks it (MnemoLite's ``GET /v1/search/`` parameters, plus ``mode``)."""
    distance_threshold: Optional[float]
    """Largest L2 distance kept, ``0..=2`` (default 1.0; 2 = plain top-K)."""
    filter_metadata: Optional[Mapping[str, Any]]
    """Keep events whose metadata contains this object."""
    limit: Optional[int]
    """Results per page, ``1..=100`` (default 10)."""
    mode: Optional[_EventSearchMode]
    """Index used (default: vector when ``vector_query`` is set, else metadata-only)."""
    offset: Optional[int]
    """Results skipped."""
    ts_end: Optional[_Time]
    """Latest timestamp (inclusive)."""
    ts_start: Optional[_Time]
    """Earliest timestamp (inclusive)."""

class _DocumentMeta(TypedDict):
    """Everything about a document but its content."""
    lang: NotRequired[Optional[str]]
    """Language."""
    metadata: NotRequired[dict[str, Any]]
    """Free metadata."""
    source: str
    """Source."""
    tags: NotRequired[list[str]]
    """Tags."""
    title: NotRequired[Optional[str]]
    """Title."""
    ts: NotRequired[Optional[str]]
    """Timestamp."""
    uid: str
    """Document uid."""
    url: NotRequired[Optional[str]]
    """Canonical URL."""

class _Timings(TypedDict):
    """Time spent in each stage, in milliseconds."""
    generation_ms: float
    """Generation (all attempts)."""
    rerank_ms: float
    """Re-ranking."""
    retrieval_ms: float
    """Retrieval (embedding the query + search)."""
    total_ms: float
    """End to end."""

class Chunk:
    """A piece of a document sized for the embedder, with where it came from.

    Invariant: ``text == document.content[start..end]`` (byte offsets on UTF-8
    boundaries), so a quote can always be located in the original.
    """
    @property
    def doc_uid(self) -> str:
        """Owning document."""
    @property
    def end(self) -> int:
        """Byte offset one past the last byte."""
    @property
    def heading_path(self) -> list[str]:
        """Headings enclosing the chunk, outermost first."""
    @property
    def id(self) -> str:
        """``"{doc_uid}#{index}"``."""
    @property
    def index(self) -> int:
        """0-based position in the document."""
    @property
    def start(self) -> int:
        """Byte offset of the first byte in the document content."""
    @property
    def text(self) -> str:
        """The chunk text."""
    @property
    def token_count(self) -> int:
        """Number of tokens of ``text`` for the chunking tokenizer."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Hit:
    """A search hit as the bindings present it: the hit itself (scores, chunk,
    document) plus, at the top, the fields readers use most — the
    document's ``uid``, ``title``, ``source`` and ``url``, the chunk's ``chunk_id`` and
    ``text``. Python's ``Hit`` has these as attributes, Node's hits as keys (in
    camelCase): one serde shape for both.
    """
    @property
    def chunk(self) -> Chunk:
        """The chunk."""
    @property
    def chunk_id(self) -> str:
        """The chunk's id."""
    @property
    def dense(self) -> Optional[float]:
        """Cosine similarity, when the dense index saw this chunk."""
    @property
    def doc(self) -> _DocumentMeta:
        """Its document (without content)."""
    @property
    def freshness(self) -> Optional[float]:
        """Freshness factor in ``[0, 1]`` applied by the re-ranker, if any."""
    @property
    def lexical(self) -> Optional[float]:
        """Raw BM25 score, when the lexical index saw this chunk."""
    @property
    def relevance(self) -> float:
        """Relevance in ``[0, 1]`` comparable across modes (cosine similarity for
        dense, a normalised BM25 for lexical, the better of both for hybrid);
        this is what the low-evidence guardrail reads.
        """
    @property
    def score(self) -> float:
        """Final score used for ordering (higher is better; meaning depends on mode)."""
    @property
    def source(self) -> str:
        """The document's source."""
    @property
    def text(self) -> str:
        """The chunk's text."""
    @property
    def title(self) -> Optional[str]:
        """The document's title."""
    @property
    def uid(self) -> str:
        """The document's uid."""
    @property
    def url(self) -> Optional[str]:
        """The document's URL."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class SearchResults:
    """Search results as the bindings present them: ``SearchResults`` with
    ``HitView`` hits.
    """
    @property
    def hits(self) -> list[Hit]:
        """Hits, best first."""
    @property
    def mode(self) -> _SearchMode:
        """Mode that ran."""
    @property
    def not_enough_evidence(self) -> bool:
        """Best relevance under the guardrail threshold."""
    @property
    def notes(self) -> list[str]:
        """Notes (fallbacks, cache)."""
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Hit: ...
    def __iter__(self) -> Iterator[Hit]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Citation:
    """A source cited by an answer: ``[n]`` ↔ chunk ↔ document ↔ URL."""
    @property
    def chunk_id(self) -> str:
        """Cited chunk."""
    @property
    def doc_uid(self) -> str:
        """Cited document."""
    @property
    def index(self) -> int:
        """The ``n`` of ``[n]`` in the answer text."""
    @property
    def quote(self) -> Optional[str]:
        """Exact quote from the chunk supporting the statement, when known."""
    @property
    def source(self) -> str:
        """Document source."""
    @property
    def span(self) -> Optional[tuple[int, int]]:
        """Byte range of the chunk in its document."""
    @property
    def title(self) -> Optional[str]:
        """Document title."""
    @property
    def url(self) -> Optional[str]:
        """Document URL."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Answer:
    """A grounded answer."""
    @property
    def cached(self) -> bool:
        """Served from the answer cache."""
    @property
    def citations(self) -> list[Citation]:
        """Valid citations, by ``index``."""
    @property
    def confidence(self) -> float:
        """Confidence in ``[0, 1]``."""
    @property
    def degraded(self) -> bool:
        """``true`` when the fallback generator answered or evidence was thin."""
    @property
    def invalid_citations(self) -> list[int]:
        """``[n]`` markers that pointed to no context block and were removed."""
    @property
    def model(self) -> str:
        """Model that produced the text."""
    @property
    def not_enough_evidence(self) -> bool:
        """``true`` when the answer is not backed by the sources: the guardrail
        found too little evidence, or the answer cites no source (the
        generator said the sources lack the answer, or wrote something uncited).
        """
    @property
    def notes(self) -> list[str]:
        """Notes for the reader (fallback used, lexical-only, …)."""
    @property
    def text(self) -> str:
        """Answer text with ``[n]`` markers."""
    @property
    def timings(self) -> _Timings:
        """Stage timings."""
    @property
    def verification(self) -> Optional[AnswerVerification]:
        """The answer checked against its sources, sentence by sentence, when
        asked (``verify``: ``flag`` by default).
        """
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class IngestOutcome:
    """What an ingestion did."""
    @property
    def bytes(self) -> int:
        """Content bytes ingested."""
    @property
    def chunks(self) -> int:
        """Chunks written."""
    @property
    def embedder(self) -> Optional[str]:
        """Embedder used."""
    @property
    def inserted(self) -> int:
        """New documents."""
    @property
    def lexical_only(self) -> bool:
        """``true`` when no embedder ran: only the BM25 index was built."""
    @property
    def read_errors(self) -> list[str]:
        """Records, files or URLs that could not be read (with file and line), skipped."""
    @property
    def rejected(self) -> list[str]:
        """Documents refused by the pipeline (empty content, duplicate uid, …)."""
    @property
    def replaced(self) -> int:
        """Documents whose previous version was replaced."""
    @property
    def reprocessed(self) -> int:
        """Documents with unchanged content re-chunked and re-embedded because
        they had been indexed with other settings (``IngestReport::reprocessed``).
        """
    @property
    def seconds(self) -> float:
        """Wall-clock seconds."""
    @property
    def skipped_files(self) -> list[str]:
        """Files left out because their type is not supported."""
    @property
    def unchanged(self) -> int:
        """Documents skipped because nothing changed."""
    @property
    def partial(self) -> bool:
        """Whether something was left out (a record, a file or a URL)."""
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

class StoreStats:
    """Counts describing a store."""
    @property
    def backend(self) -> str:
        """Backend name (``sqlite``, ``redis``)."""
    @property
    def chunks(self) -> int:
        """Chunks."""
    @property
    def documents(self) -> int:
        """Documents."""
    @property
    def embedder(self) -> Optional[str]:
        """Embedder the index was built with, if any."""
    @property
    def index(self) -> str:
        """Index name the store is bound to."""
    @property
    def size_bytes(self) -> Optional[int]:
        """Bytes on disk / in memory, when known."""
    @property
    def vectors(self) -> int:
        """Chunks with a vector."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Stats:
    """What the store holds and how it is configured (``verity stats``, ``store.stats``)."""
    @property
    def embedder(self) -> Optional[str]:
        """Embedder configured for queries and ingestion, if any."""
    @property
    def generator(self) -> str:
        """Generator answering questions (its configured spec; loaded on the first question)."""
    @property
    def home(self) -> str:
        """Store directory (embedded store) — also where evaluation stores go."""
    @property
    def notes(self) -> list[str]:
        """Warnings about the configuration (lexical-only, embedder mismatch, …)."""
    @property
    def redis(self) -> Optional[str]:
        """Redis URL (password masked) when the store lives in Redis."""
    @property
    def store(self) -> StoreStats:
        """Store counts."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class FetchedSource:
    """The result of fetching one URL."""
    @property
    def content_type(self) -> Optional[str]:
        """Content type of the response."""
    @property
    def detail(self) -> Optional[str]:
        """Human-readable detail for non-``Fetched`` outcomes."""
    @property
    def fetched_at(self) -> str:
        """When it was fetched."""
    @property
    def final_url(self) -> str:
        """URL after redirects."""
    @property
    def http_status(self) -> Optional[int]:
        """Last HTTP status, when a response was received."""
    @property
    def parsed(self) -> Optional[ParsedDocument]:
        """Parsed content (``Some`` when ``status`` is ``Fetched``, possibly for ``Paywalled``)."""
    @property
    def refusal(self) -> Optional[dict[str, Any]]:
        """Why the fetch was refused before any page was read (``Blocked`` with
        no HTTP status): the guard's address and rule, or robots.txt.
        """
    @property
    def status(self) -> _FetchStatus:
        """Outcome class."""
    @property
    def url(self) -> str:
        """URL asked for."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ParsedDocument:
    """A parsed source: a document whose content is Markdown, and where its
    pieces came from, so that a quote can be located later.
    """
    @property
    def document(self) -> Document:
        """The document (title, lang, url, ts and ``metadata.author`` filled when known)."""
    @property
    def format(self) -> _SourceFormat:
        """Original format."""
    @property
    def pages(self) -> list[PageSpan]:
        """Page map (PDF); empty for formats without pages."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class PageSpan:
    """Where a span of the content sits in the original (a PDF page, …)."""
    @property
    def end(self) -> int:
        """Byte offset one past its end."""
    @property
    def page(self) -> int:
        """1-based page number."""
    @property
    def start(self) -> int:
        """Byte offset in ``Document::content`` where the page starts."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CheckReport:
    """The report of one verification run."""
    @property
    def cancelled(self) -> bool:
        """``true`` when the run stopped early (cancelled); results hold what was done."""
    @property
    def document(self) -> Optional[str]:
        """Document title or name, when known."""
    @property
    def results(self) -> list[CheckResult]:
        """One result per claim–citation pair, in document order."""
    @property
    def statistics(self) -> CheckStatistics:
        """Statistics."""
    @property
    def summary(self) -> CheckSummary:
        """Counts."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CheckSummary:
    """Counts per verdict (``summary {total, supported, issues}``)."""
    @property
    def inconclusive(self) -> int:
        """INCONCLUSIVE."""
    @property
    def issues(self) -> int:
        """Everything but SUPPORTED."""
    @property
    def message(self) -> str:
        """A sentence for people ("3 of 5 claims are supported", "the document cites no source")."""
    @property
    def not_supported(self) -> int:
        """NOT_SUPPORTED."""
    @property
    def partial(self) -> int:
        """PARTIAL."""
    @property
    def supported(self) -> int:
        """SUPPORTED."""
    @property
    def total(self) -> int:
        """Claims checked."""
    @property
    def unavailable(self) -> int:
        """SOURCE_UNAVAILABLE."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CheckStatistics:
    """Run statistics."""
    @property
    def atomic_dropped(self) -> int:
        """Atomic claims from the splitter dropped because they were not in the text."""
    @property
    def claims(self) -> int:
        """Claims that cite (after atomic splitting, if any)."""
    @property
    def dense(self) -> bool:
        """Whether passages were found with sentence vectors (else BM25 only)."""
    @property
    def distinct_sources(self) -> int:
        """Distinct sources cited."""
    @property
    def downgraded(self) -> int:
        """Verdicts lowered by the deterministic checks."""
    @property
    def elapsed_ms(self) -> float:
        """Total time, ms."""
    @property
    def fetch_ms(self) -> float:
        """Time fetching sources (wall clock), ms."""
    @property
    def judge(self) -> str:
        """Judge used."""
    @property
    def judge_errors(self) -> int:
        """Judge failures (reported as INCONCLUSIVE)."""
    @property
    def judge_tokens(self) -> int:
        """Tokens spent by a model judge (0 for the local judge)."""
    @property
    def missing_entries(self) -> int:
        """Citations whose reference entry is missing (``[7]`` with no entry 7)."""
    @property
    def ms_per_citation(self) -> float:
        """Time per citation after fetching (retrieval + judge + checks), mean ms."""
    @property
    def quotes_replaced(self) -> int:
        """Quotes not found verbatim and replaced by the real sentence."""
    @property
    def sentences(self) -> int:
        """Sentences read in the document."""
    @property
    def skipped(self) -> int:
        """Claims left unchecked because the run was cancelled or the claim cap was hit."""
    @property
    def sources_fetched(self) -> int:
        """Sources fetched with content."""
    @property
    def total_ms_per_citation(self) -> float:
        """Total wall time divided by the number of citations, ms."""
    @property
    def unavailable_sources(self) -> list[UnavailableSource]:
        """Sources (or references) that could not be read."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class UnavailableSource:
    """A source that could not be read, and why."""
    @property
    def claims(self) -> int:
        """Claims that cite it."""
    @property
    def reason(self) -> str:
        """Why."""
    @property
    def source(self) -> str:
        """URL or reference."""
    @property
    def status(self) -> _SourceStatus:
        """``failed`` or ``paywalled``."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CheckResult:
    """The verdict on one claim, with the claim and citation it is about."""
    @property
    def checks(self) -> list[str]:
        """What the deterministic checks changed, if anything."""
    @property
    def citation_ref(self) -> str:
        """What it cites."""
    @property
    def citation_type(self) -> _CitationType:
        """How it cites."""
    @property
    def claim(self) -> str:
        """The claim text."""
    @property
    def confidence(self) -> float:
        """Confidence, 0–1."""
    @property
    def elapsed_ms(self) -> float:
        """Time spent on this claim after fetching (retrieval + judge + checks), ms."""
    @property
    def explanation(self) -> str:
        """Why."""
    @property
    def judge(self) -> str:
        """Which judge decided (``local``, ``llm:<model>``; ``fetch`` for unavailable sources)."""
    @property
    def location(self) -> CheckLocation:
        """Where the claim is in the document."""
    @property
    def passages(self) -> list[Passage]:
        """The best passages of the source, best first."""
    @property
    def quote_context(self) -> Optional[QuoteContext]:
        """The quote in its context."""
    @property
    def source_quote(self) -> Optional[str]:
        """The exact sentence of the source that decides it (verbatim in the fetched source)."""
    @property
    def source_url(self) -> Optional[str]:
        """The URL fetched, if any."""
    @property
    def verdict(self) -> _Verdict:
        """The verdict."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CheckLocation:
    """Where a claim sits in the document text."""
    @property
    def end(self) -> int:
        """Byte offset one past its end."""
    @property
    def line(self) -> int:
        """1-based line of the claim's first character."""
    @property
    def start(self) -> int:
        """Byte offset of the claim's sentence (or clause) in the document text."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class QuoteContext:
    """The quote with a little of the source around it."""
    @property
    def after(self) -> str:
        """Text after the quote."""
    @property
    def before(self) -> str:
        """Text before the quote."""
    @property
    def end(self) -> int:
        """Byte offset one past its end."""
    @property
    def quote(self) -> str:
        """The quote, verbatim."""
    @property
    def start(self) -> int:
        """Byte offset of the quote in the source content."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Passage:
    """A passage of a source handed to a judge, with where it sits in the source."""
    @property
    def end(self) -> int:
        """Byte offset one past its end."""
    @property
    def score(self) -> float:
        """Retrieval score (higher is better; scale depends on the retriever)."""
    @property
    def source_url(self) -> Optional[str]:
        """URL of the source, when known."""
    @property
    def start(self) -> int:
        """Byte offset of ``text`` in the source content."""
    @property
    def text(self) -> str:
        """Passage text, verbatim from the source content."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class AnswerVerification:
    """The check of an answer against its sources."""
    @property
    def checked(self) -> int:
        """Sentences that cite a source (and were judged)."""
    @property
    def flagged(self) -> int:
        """Of which caught (not SUPPORTED): what ``answer_hallucination_flag`` counts."""
    @property
    def judge(self) -> str:
        """The judge configured for the check."""
    @property
    def mode(self) -> _VerifyMode:
        """What was done with unsupported sentences."""
    @property
    def removed(self) -> int:
        """Of which removed (``strip``)."""
    @property
    def sentences(self) -> list[SentenceVerdict]:
        """Every sentence of the answer, in order."""
    @property
    def supported(self) -> int:
        """Of which SUPPORTED."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class SentenceVerdict:
    """One sentence of an answer and what its cited sources say of it."""
    @property
    def citations(self) -> list[int]:
        """The ``[n]`` it cites."""
    @property
    def confidence(self) -> float:
        """Confidence, 0–1."""
    @property
    def explanation(self) -> str:
        """Why."""
    @property
    def flagged(self) -> bool:
        """Caught: cited, and not SUPPORTED by what it cites."""
    @property
    def judge(self) -> str:
        """Which judge decided."""
    @property
    def quote_citation(self) -> Optional[int]:
        """The ``[n]`` the quote comes from."""
    @property
    def removed(self) -> bool:
        """Removed from the answer text (``strip``)."""
    @property
    def source_quote(self) -> Optional[str]:
        """The sentence of the cited passage that decides it (its characters)."""
    @property
    def text(self) -> str:
        """The sentence, citation markers removed."""
    @property
    def verdict(self) -> Optional[_Verdict]:
        """The verdict of its best-supporting citation (``None``: it cites nothing)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ResearchReport:
    """Answer of ``research``: the checked report and how the run went."""
    @property
    def cited_sentences(self) -> int:
        """Sentences carrying a citation."""
    @property
    def coverage(self) -> float:
        """Covered themes / themes."""
    @property
    def degraded(self) -> bool:
        """``true`` when something failed and the report is partial."""
    @property
    def judge(self) -> str:
        """Judge used."""
    @property
    def markdown(self) -> str:
        """The report in Markdown, ending with its references."""
    @property
    def missing(self) -> list[str]:
        """What is missing, in words."""
    @property
    def notes(self) -> list[str]:
        """Syllabus warnings and run notes."""
    @property
    def plan_attempts(self) -> int:
        """Attempts the LLM planner used (0 for the deterministic planner)."""
    @property
    def planner(self) -> str:
        """How the plan was made: ``deterministic``, ``llm`` (valid after
        ``plan_attempts`` attempts) or ``llm_fell_back`` (every LLM plan was
        invalid; the deterministic plan ran — ``notes`` say why).
        """
    @property
    def references(self) -> list[ResearchReference]:
        """The references the report cites, by number."""
    @property
    def run_dir(self) -> str:
        """Run directory (brief, plan, trace, report, ``result.json``)."""
    @property
    def supported_sentences(self) -> int:
        """Of which the judge supports."""
    @property
    def supported_share(self) -> float:
        """Share of cited sentences the judge supports."""
    @property
    def tasks_failed(self) -> int:
        """Failed tasks."""
    @property
    def tasks_ok(self) -> int:
        """Tasks that succeeded, failed, were skipped."""
    @property
    def tasks_skipped(self) -> int:
        """Skipped tasks."""
    @property
    def themes(self) -> list[ThemeCoverage]:
        """Per theme."""
    @property
    def timings(self) -> list[StepTiming]:
        """Time per step (``syllabus``, ``brief``, ``plan``, ``execute``, ``write``, ``check``, …)."""
    @property
    def unresolved_citations(self) -> int:
        """Citations naming no retrieved source (0 in a checked report)."""
    @property
    def writer(self) -> str:
        """Who wrote the draft and which judge checked it."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ThemeCoverage:
    """Coverage of one theme of the brief."""
    @property
    def cited(self) -> int:
        """Cited sentences in its section."""
    @property
    def covered(self) -> bool:
        """At least one supported, cited sentence."""
    @property
    def id(self) -> str:
        """Theme id (``T1``…)."""
    @property
    def supported(self) -> int:
        """Of which the judge supports."""
    @property
    def title(self) -> str:
        """Title."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ResearchReference:
    """One reference of the report."""
    @property
    def filename(self) -> Optional[str]:
        """Knowledge-base file name, for internal files."""
    @property
    def n(self) -> int:
        """Citation number (``[n]`` in the text)."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def url(self) -> Optional[str]:
        """URL, for web sources."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class StepTiming:
    """Duration of one step of a run."""
    @property
    def ms(self) -> int:
        """Milliseconds."""
    @property
    def step(self) -> str:
        """Step name."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class KnowledgeEntry:
    """One knowledge-base entry."""
    @property
    def file_id(self) -> Optional[str]:
        """Store id once indexed."""
    @property
    def filename(self) -> str:
        """File name in the knowledge base directory."""
    @property
    def keywords(self) -> list[str]:
        """Keywords."""
    @property
    def summary(self) -> str:
        """Summary."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def url(self) -> Optional[str]:
        """Where it was downloaded from (absent for files placed by hand)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class AddReferenceResult:
    """Answer of ``add_reference``."""
    @property
    def downloaded(self) -> bool:
        """``true`` when the document was downloaded by this call."""
    @property
    def enriched_by(self) -> str:
        """How summary and keywords were filled (``syllabus``, ``extractive``, ``llm:<model>``, ``kept``)."""
    @property
    def entry(self) -> KnowledgeEntry:
        """The knowledge-base entry after the operation."""
    @property
    def indexed(self) -> bool:
        """``true`` when it was indexed by this call (``false``: already indexed)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class RulesResponse:
    """Output of ``get_veille_rules``."""
    @property
    def rules(self) -> list[RelevanceRule]:
        """Active rules, by priority then name."""
    @property
    def scoring_guide(self) -> ScoringGuide:
        """How scores read."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class RelevanceRule:
    """A relevance rule (``update_veille_rule``)."""
    @property
    def active(self) -> bool:
        """Inactive rules are kept but ignored."""
    @property
    def description(self) -> Optional[str]:
        """Free description."""
    @property
    def keywords(self) -> list[str]:
        """Keywords that trigger the rule (words or multi-word phrases)."""
    @property
    def name(self) -> str:
        """Unique name."""
    @property
    def priority(self) -> _Priority:
        """Priority."""
    @property
    def score_modifier(self) -> int:
        """Score change when it triggers (−10 … +5)."""
    @property
    def type(self) -> _RuleKind:
        """Include, exclude or boost."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ScoringGuide:
    """How scores read (``scoring_guide``): every article starts at
    ``base_score``, matched rules add their modifiers, the result is clamped to
    ``0..=max_score``, and ``min_valid_score`` or more is relevant.
    """
    @property
    def base_score(self) -> int:
        """Starting score (default 5)."""
    @property
    def max_score(self) -> int:
        """Highest score (default 10)."""
    @property
    def min_valid_score(self) -> int:
        """Lowest relevant score (default 7)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class UpdateRuleResponse:
    """Output of ``update_veille_rule``."""
    @property
    def created(self) -> bool:
        """True when no rule had this name before."""
    @property
    def rule(self) -> RelevanceRule:
        """The rule as stored."""
    @property
    def updated(self) -> bool:
        """Always true on success."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ScoreResult:
    """Result of ``score_article``."""
    @property
    def excluded(self) -> bool:
        """Whether an exclude rule matched."""
    @property
    def explanation(self) -> list[str]:
        """One line per step: base, each rule, clamping, verdict."""
    @property
    def matched_rules(self) -> list[RuleMatch]:
        """Rules that matched, by priority then name."""
    @property
    def raw_score(self) -> int:
        """Base score plus modifiers, before clamping."""
    @property
    def score(self) -> int:
        """Final score, clamped to ``0..=scoring_guide.max_score``."""
    @property
    def scoring_guide(self) -> ScoringGuide:
        """The guide used."""
    @property
    def truncated(self) -> bool:
        """Content beyond ``MAX_SCORED_BYTES`` was not read."""
    @property
    def valid(self) -> bool:
        """``score >= min_valid_score`` and no exclude rule matched."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class RuleMatch:
    """A rule that matched and what it did."""
    @property
    def keywords(self) -> list[KeywordHit]:
        """Keywords that matched."""
    @property
    def priority(self) -> _Priority:
        """Rule priority."""
    @property
    def rule(self) -> str:
        """Rule name."""
    @property
    def score_modifier(self) -> int:
        """Modifier applied (once per rule)."""
    @property
    def type(self) -> _RuleKind:
        """Rule type."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class KeywordHit:
    """A keyword of a rule that matched."""
    @property
    def count(self) -> int:
        """Occurrences over all fields."""
    @property
    def fields(self) -> list[_Field]:
        """Fields it occurs in."""
    @property
    def keyword(self) -> str:
        """The keyword as written in the rule."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CheckArticleResult:
    """Output of ``check_article_exists``."""
    @property
    def article(self) -> Optional[ArticleBrief]:
        """The logged article."""
    @property
    def canonical_url(self) -> str:
        """The canonical form that was looked up (tracking parameters, ``www.``,
        AMP, trailing slash and scheme folded): a duplicate-detection key only.
        """
    @property
    def distance(self) -> Optional[int]:
        """SimHash distance in bits, for near-duplicates."""
    @property
    def exists(self) -> bool:
        """Whether the article was already processed."""
    @property
    def matched_by(self) -> Optional[_MatchedBy]:
        """How it was recognised."""
    @property
    def message(self) -> str:
        """Human-readable verdict."""
    @property
    def url(self) -> str:
        """The URL as given (trimmed): the article's URL, never rewritten."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ArticleBrief:
    """A logged article in short (``check_article_exists.article``)."""
    @property
    def id(self) -> str:
        """Id."""
    @property
    def phi_validated(self) -> bool:
        """Validated by the validating LLM."""
    @property
    def processed_at(self) -> str:
        """First logged."""
    @property
    def qwen_score(self) -> Optional[int]:
        """Score of the scoring LLM."""
    @property
    def source(self) -> str:
        """Source."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def url(self) -> str:
        """URL as logged."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class LogArticleResult:
    """Output of ``log_article``."""
    @property
    def article_id(self) -> str:
        """Id of the article record (an existing one when this is a re-log or a duplicate)."""
    @property
    def canonical_url(self) -> str:
        """Canonical URL."""
    @property
    def created(self) -> bool:
        """True when a new record was created."""
    @property
    def duplicate_of(self) -> Optional[str]:
        """Set when the content is a near-duplicate of an article logged at
        another URL: this URL was added to that article instead.
        """
    @property
    def ingest_error(self) -> Optional[str]:
        """Why the ingest failed (the article is logged anyway)."""
    @property
    def ingested(self) -> Optional[bool]:
        """Whether ``raw_content`` was handed to the ingest (``None``: no content or no ingest configured)."""
    @property
    def logged(self) -> bool:
        """Always true on success."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ArticlesResponse:
    """Output of ``get_articles``."""
    @property
    def articles(self) -> list[Article]:
        """Articles, newest first."""
    @property
    def period(self) -> str:
        """``"{days} days"``."""
    @property
    def total(self) -> int:
        """How many were returned."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Article:
    """A logged article: every field of ``log_article``, plus what the
    watch derives from it.
    """
    @property
    def aliases(self) -> list[str]:
        """Other canonical URLs the same article was seen at (republications)."""
    @property
    def canonical_url(self) -> str:
        """Canonical form of ``url`` (see ``verity_watch::canonical_url``)."""
    @property
    def content_sha1(self) -> Optional[str]:
        """SHA-1 of the normalised raw content, when content was given."""
    @property
    def hashtags(self) -> list[str]:
        """Hashtags."""
    @property
    def id(self) -> str:
        """Stable id (``art_`` + 16 hex digits of the canonical URL's SHA-1)."""
    @property
    def impact(self) -> Optional[str]:
        """Expected impact."""
    @property
    def linkedin_draft(self) -> Optional[str]:
        """LinkedIn post draft."""
    @property
    def phi_confidence(self) -> Optional[float]:
        """Confidence of the validating LLM (0…1)."""
    @property
    def phi_validated(self) -> bool:
        """Whether the validating LLM accepted it."""
    @property
    def processed_at(self) -> str:
        """First logged."""
    @property
    def qwen_keywords(self) -> list[str]:
        """Keywords given by the scoring LLM."""
    @property
    def qwen_score(self) -> Optional[int]:
        """Score given by the scoring LLM."""
    @property
    def simhash(self) -> Optional[int]:
        """64-bit SimHash of the raw content (near-duplicate detection)."""
    @property
    def source(self) -> str:
        """Source name (``ollama_blog``, …)."""
    @property
    def source_type(self) -> _SourceType:
        """Source type."""
    @property
    def summary_fr(self) -> Optional[str]:
        """French summary."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def updated_at(self) -> str:
        """Last logged again."""
    @property
    def url(self) -> str:
        """URL as first logged."""
    @property
    def word_count(self) -> Optional[int]:
        """Words in the raw content, when given."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class LogDecisionResult:
    """Output of ``log_veille_decision`` and ``log_decision``."""
    @property
    def created_at(self) -> str:
        """When it was logged."""
    @property
    def decision_id(self) -> str:
        """Id of the new entry."""
    @property
    def logged(self) -> bool:
        """Always true on success."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class WatchDecisionsResponse:
    """Watch decisions, oldest first."""
    @property
    def decisions(self) -> list[WatchDecision]:
        """Entries."""
    @property
    def total(self) -> int:
        """How many were returned."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class WatchDecision:
    """One entry of the append-only decision audit log (``log_veille_decision``)."""
    @property
    def article_id(self) -> Optional[str]:
        """Article concerned (absent for general decisions)."""
    @property
    def confidence(self) -> Optional[float]:
        """Confidence (0…1)."""
    @property
    def created_at(self) -> str:
        """When it was logged."""
    @property
    def decision(self) -> str:
        """The decision."""
    @property
    def decision_type(self) -> _DecisionType:
        """Kind of decision."""
    @property
    def id(self) -> str:
        """Id (``dec_…``, time-ordered)."""
    @property
    def llm(self) -> _DecisionLlm:
        """LLM that decided."""
    @property
    def reasoning(self) -> Optional[str]:
        """Justification."""
    @property
    def tools_used(self) -> list[str]:
        """Tools called for it."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class WebSearchResponse:
    """Output of ``web_search``."""
    @property
    def query(self) -> str:
        """The query."""
    @property
    def results(self) -> list[WebResult]:
        """Results."""
    @property
    def total_found(self) -> int:
        """Number of results."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class WebResult:
    """One web result."""
    @property
    def snippet(self) -> str:
        """Snippet."""
    @property
    def source(self) -> str:
        """Host."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def url(self) -> str:
        """URL."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CrawlResponse:
    """Output of ``crawl_url``."""
    @property
    def content(self) -> str:
        """Main content (Markdown), capped."""
    @property
    def extracted_at(self) -> str:
        """When it was extracted."""
    @property
    def links(self) -> list[CrawlLink]:
        """Links of the main content (anchor text, absolute URL): the content
        carries the anchor text only, the targets are here.
        """
    @property
    def paywalled(self) -> bool:
        """The page is behind a paywall (content may be partial)."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def truncated(self) -> bool:
        """The content was cut at the configured cap."""
    @property
    def url(self) -> str:
        """URL after redirects."""
    @property
    def word_count(self) -> int:
        """Words in the full main content."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class CrawlLink:
    """A link of a crawled page's main content."""
    @property
    def text(self) -> str:
        """Anchor text, as it reads in the content."""
    @property
    def url(self) -> str:
        """Absolute target URL."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class VerifyFactResult:
    """Output of ``verify_fact`` (``verified``, ``confidence``, ``sources``, ``summary``, plus the verdict, the judge and
    the pages that could not be read).
    """
    @property
    def claim(self) -> str:
        """The claim."""
    @property
    def confidence(self) -> float:
        """Confidence in the overall verdict (0…1)."""
    @property
    def judge(self) -> str:
        """Which judge decided (``local``, ``llm:<model>``)."""
    @property
    def not_enough_evidence(self) -> bool:
        """True when no page let the judge decide."""
    @property
    def searched(self) -> Optional[str]:
        """The web search query, when the pages came from a search."""
    @property
    def sources(self) -> list[FactSource]:
        """Pages that speak of the claim, the deciding ones first."""
    @property
    def summary(self) -> str:
        """One-paragraph explanation."""
    @property
    def unavailable(self) -> list[UnreadSource]:
        """Pages that could not be read."""
    @property
    def verdict(self) -> _Verdict:
        """Overall verdict."""
    @property
    def verified(self) -> bool:
        """True only when a source supports the claim and none contradicts it."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class FactSource:
    """One source of a ``verify_fact`` answer."""
    @property
    def confidence(self) -> float:
        """The judge's confidence for this page (0…1)."""
    @property
    def excerpt(self) -> str:
        """Sentence of the page that decided its verdict: the page's own
        characters (empty when the page does not discuss the claim).
        """
    @property
    def judge(self) -> str:
        """Which judge decided this page (``local``, ``llm:<model>``; ``local`` when
        the configured LLM judge failed on it, said in ``notes``).
        """
    @property
    def notes(self) -> list[str]:
        """What changed the verdict after the judge, and fallbacks."""
    @property
    def title(self) -> str:
        """Page title."""
    @property
    def url(self) -> str:
        """Page URL (after redirects)."""
    @property
    def verdict(self) -> _Verdict:
        """What this page says about the claim."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class UnreadSource:
    """A page ``verify_fact`` could not read."""
    @property
    def code(self) -> str:
        """Stable error code."""
    @property
    def error(self) -> str:
        """What went wrong."""
    @property
    def url(self) -> str:
        """URL tried."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Project:
    """A project."""
    @property
    def created_at(self) -> str:
        """Created."""
    @property
    def description(self) -> Optional[str]:
        """Description."""
    @property
    def id(self) -> str:
        """Id (``prj_…``)."""
    @property
    def name(self) -> str:
        """Name (unique is not required)."""
    @property
    def status(self) -> _ProjectStatus:
        """Status."""
    @property
    def tags(self) -> list[str]:
        """Free tags."""
    @property
    def updated_at(self) -> str:
        """Last changed."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ContextEntry:
    """A piece of project context (notes, specs, excerpts) that ``query_context``
    retrieves from.
    """
    @property
    def content(self) -> str:
        """The text."""
    @property
    def created_at(self) -> str:
        """Created."""
    @property
    def id(self) -> str:
        """Id (``ctx_…``)."""
    @property
    def project_id(self) -> str:
        """Project it belongs to."""
    @property
    def tags(self) -> list[str]:
        """Free tags."""
    @property
    def title(self) -> Optional[str]:
        """Optional title."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Task:
    """A task."""
    @property
    def created_at(self) -> str:
        """Created."""
    @property
    def depends_on(self) -> list[str]:
        """Ids of tasks (same project) that must be finished first."""
    @property
    def description(self) -> Optional[str]:
        """Description."""
    @property
    def id(self) -> str:
        """Id (``tsk_…``)."""
    @property
    def priority(self) -> _Priority:
        """Priority."""
    @property
    def project_id(self) -> str:
        """Project it belongs to."""
    @property
    def status(self) -> _TaskStatus:
        """Status."""
    @property
    def title(self) -> str:
        """Title."""
    @property
    def updated_at(self) -> str:
        """Last changed."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ProjectDecision:
    """A decision recorded on a project (``log_decision``)."""
    @property
    def alternatives(self) -> list[str]:
        """Options that were considered."""
    @property
    def created_at(self) -> str:
        """When."""
    @property
    def decision(self) -> str:
        """The decision."""
    @property
    def id(self) -> str:
        """Id (``pdc_…``, time-ordered)."""
    @property
    def project_id(self) -> str:
        """Project."""
    @property
    def reasoning(self) -> Optional[str]:
        """Why."""
    @property
    def tags(self) -> list[str]:
        """Free tags."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ProjectsResponse:
    """Output of ``list_projects``."""
    @property
    def projects(self) -> list[Project]:
        """Projects, oldest first."""
    @property
    def total(self) -> int:
        """How many."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ProjectOverview:
    """Output of ``get_project``."""
    @property
    def context_entries(self) -> int:
        """Number of context entries."""
    @property
    def project(self) -> Project:
        """The project."""
    @property
    def recent_decisions(self) -> list[ProjectDecision]:
        """Its most recent decisions (up to 10), oldest first."""
    @property
    def tasks(self) -> list[Task]:
        """Its tasks, oldest first."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class StoreContextResult:
    """Output of ``store_context``."""
    @property
    def context_id(self) -> str:
        """Id of the entry."""
    @property
    def indexed(self) -> Optional[bool]:
        """Whether the context index accepted it (``None``: no index configured)."""
    @property
    def stored(self) -> bool:
        """Always true on success."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class QueryContextResult:
    """Output of ``query_context``."""
    @property
    def degraded(self) -> Optional[str]:
        """Why the index was not used although configured."""
    @property
    def ran(self) -> _ContextRanking:
        """How they were ranked."""
    @property
    def results(self) -> list[ContextHit]:
        """Best entries first."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ContextHit:
    """One retrieved context entry."""
    @property
    def entry(self) -> ContextEntry:
        """The entry."""
    @property
    def score(self) -> float:
        """Relevance (higher is better; scale depends on ``ran``)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class DeleteContextResult:
    """Output of ``delete_context``."""
    @property
    def context_id(self) -> str:
        """Id removed."""
    @property
    def deleted(self) -> bool:
        """Always true on success (an unknown id is a not-found error)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class NextTasksResult:
    """Output of ``get_next_tasks``."""
    @property
    def blocked(self) -> int:
        """Open tasks marked blocked."""
    @property
    def tasks(self) -> list[Task]:
        """Ready tasks (open, every dependency finished): in progress first,
        then by priority, then oldest.
        """
    @property
    def waiting(self) -> int:
        """Open tasks still waiting on unfinished dependencies."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class ProjectDecisionsResponse:
    """Output of ``get_decisions``."""
    @property
    def decisions(self) -> list[ProjectDecision]:
        """Decisions, oldest first."""
    @property
    def total(self) -> int:
        """How many were returned."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class Document:
    """A source document, in Verity's ingestion schema
    (``uid, source, ts, lang, title, content, tags`` + free metadata).

    Deserializing one is ``Document::from_record`` (``crate::record``): any
    field besides these is kept in ``metadata``, never dropped.
    """
    @property
    def content(self) -> str:
        """Full text (Markdown for parsed sources)."""
    @property
    def lang(self) -> Optional[str]:
        """ISO 639-1 language code (``en``, ``fr``, …); detected when absent."""
    @property
    def metadata(self) -> dict[str, Any]:
        """Any other field of the input record (e.g. ``node_pubkey``,
        ``channel_id``, ``metrics``, …), filterable; a ``metadata`` object is merged in.
        """
    @property
    def source(self) -> str:
        """Where it comes from (``internal``, a file path, a host, …)."""
    @property
    def tags(self) -> list[str]:
        """Free tags."""
    @property
    def title(self) -> Optional[str]:
        """Title, if any."""
    @property
    def ts(self) -> Optional[str]:
        """Publication / event time (RFC 3339), used for time filters and freshness."""
    @property
    def uid(self) -> str:
        """Stable identifier. Re-ingesting the same uid replaces the document."""
    @property
    def url(self) -> Optional[str]:
        """Canonical URL, when the document has one (cited in answers)."""
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
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

class Event:
    """One stored event."""
    @property
    def content(self) -> dict[str, Any]:
        """Free JSON object; its text field (``text``, ``body``, ``message``, …) is embedded."""
    @property
    def embedding(self) -> Optional[list[float]]:
        """The event's vector (``None``: no text and none supplied)."""
    @property
    def expires_at(self) -> Optional[str]:
        """When the event expires (vanishes from every read, then purged)."""
    @property
    def id(self) -> str:
        """Identifier."""
    @property
    def metadata(self) -> dict[str, Any]:
        """Tags, external ids, … (filtered with containment semantics)."""
    @property
    def rank_score(self) -> Optional[float]:
        """Rank score of lexical (BM25 relevance in ``[0, 1)``) and hybrid (fused) searches, higher = better."""
    @property
    def similarity_score(self) -> Optional[float]:
        """L2 distance to the query vector when a vector search ran (lower = more similar)."""
    @property
    def timestamp(self) -> str:
        """When it happened (UTC)."""
    def __getitem__(self, key: str) -> Any:
        """The field as plain data (``r["field"]``, as when results were dicts)."""
    def to_dict(self) -> dict[str, Any]: ...

class EventPage:
    """One page of results (MnemoLite's ``{data, meta: {total_hits, limit, offset}}``)."""
    @property
    def data(self) -> list[Event]:
        """Events of this page, best (or newest) first."""
    @property
    def limit(self) -> int:
        """Page size asked."""
    @property
    def mode(self) -> _EventSearchMode:
        """Index that answered."""
    @property
    def notes(self) -> list[str]:
        """Honest notes (a text query on a memory without embedder ran lexical, …)."""
    @property
    def offset(self) -> int:
        """Offset asked."""
    @property
    def threshold_fallback(self) -> bool:
        """``true`` when a strict threshold found nothing on a pure vector search
        and the plain top-K was returned instead (MnemoLite's fallback).
        """
    @property
    def total_hits(self) -> Optional[int]:
        """Matching events before pagination, when known exactly (approximate
        graph searches over large sets leave it ``None``).
        """
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Event: ...
    def to_dict(self) -> dict[str, Any]: ...
# ---- generated (end) ----

class AnswerStream:
    """The text of an answer as it is generated (``Store.ask_stream``):
    iterate it with ``for`` or ``async for``; ``answer`` is the final
    ``Answer`` once the iteration ended."""

    def __iter__(self) -> Iterator[str]: ...
    def __next__(self) -> str: ...
    def __aiter__(self) -> AsyncIterator[str]: ...
    def __anext__(self) -> Awaitable[str]: ...
    @property
    def answer(self) -> Optional[Answer]: ...

_DocIn = Union[Mapping[str, Any], Document]

Verdict = _Verdict
CitationType = _CitationType
SourceStatus = _SourceStatus

# ---------------------------------------------------------------- watch


class Watch:
    """The technology watch of a store (``store.watch``); every call has an
    ``a``-prefixed async variant. The leading arguments and the keywords are
    the fields of the api's request types, with their defaults; a bad enum
    value raises ``InvalidInput`` naming the allowed values."""

    def get_veille_rules(
        self, type: Optional[Literal["include", "exclude", "boost", "all"]] = None, **kwargs: Unpack[_GetRulesRequest]
    ) -> RulesResponse: ...
    def aget_veille_rules(
        self, type: Optional[Literal["include", "exclude", "boost", "all"]] = None, **kwargs: Unpack[_GetRulesRequest]
    ) -> Awaitable[RulesResponse]: ...
    def update_veille_rule(
        self, name: str, type: _RuleKind, keywords: Sequence[str], **kwargs: Unpack[_RuleUpdate]
    ) -> UpdateRuleResponse:
        """Create or replace the rule ``name`` (``score_modifier`` −10…+5, default by type)."""
    def aupdate_veille_rule(
        self, name: str, type: _RuleKind, keywords: Sequence[str], **kwargs: Unpack[_RuleUpdate]
    ) -> Awaitable[UpdateRuleResponse]: ...
    def score_article(self, **kwargs: Unpack[_ScoreRequest]) -> ScoreResult:
        """Base score plus the modifiers of the matched rules, clamped, explained."""
    def ascore_article(self, **kwargs: Unpack[_ScoreRequest]) -> Awaitable[ScoreResult]: ...
    def check_article_exists(self, url: str, **kwargs: Unpack[_CheckArticleRequest]) -> CheckArticleResult:
        """By canonical URL (tracking parameters ignored) or, with ``content``, by text."""
    def acheck_article_exists(
        self, url: str, **kwargs: Unpack[_CheckArticleRequest]
    ) -> Awaitable[CheckArticleResult]: ...
    def log_article(
        self, url: str, title: str, source: str, source_type: _SourceType, **kwargs: Unpack[_LogArticleRequest]
    ) -> LogArticleResult:
        """Log an analysed article (idempotent per canonical URL)."""
    def alog_article(
        self, url: str, title: str, source: str, source_type: _SourceType, **kwargs: Unpack[_LogArticleRequest]
    ) -> Awaitable[LogArticleResult]: ...
    def get_articles(self, **kwargs: Unpack[_GetArticlesRequest]) -> ArticlesResponse: ...
    def aget_articles(self, **kwargs: Unpack[_GetArticlesRequest]) -> Awaitable[ArticlesResponse]: ...
    def log_veille_decision(
        self, llm: _DecisionLlm, decision_type: _DecisionType, decision: str, **kwargs: Unpack[_LogDecisionRequest]
    ) -> LogDecisionResult:
        """Append a decision to the audit log."""
    def alog_veille_decision(
        self, llm: _DecisionLlm, decision_type: _DecisionType, decision: str, **kwargs: Unpack[_LogDecisionRequest]
    ) -> Awaitable[LogDecisionResult]: ...
    def get_veille_decisions(self, **kwargs: Unpack[_GetWatchDecisionsRequest]) -> WatchDecisionsResponse:
        """The audit log, oldest first (``since``/``until``: datetimes or RFC 3339 strings)."""
    def aget_veille_decisions(
        self, **kwargs: Unpack[_GetWatchDecisionsRequest]
    ) -> Awaitable[WatchDecisionsResponse]: ...
    def web_search(self, query: str, **kwargs: Unpack[_WebSearchOptions]) -> WebSearchResponse: ...
    def aweb_search(self, query: str, **kwargs: Unpack[_WebSearchOptions]) -> Awaitable[WebSearchResponse]: ...
    def crawl_url(self, url: str) -> CrawlResponse:
        """A page's main text as Markdown, its title and links."""
    def acrawl_url(self, url: str) -> Awaitable[CrawlResponse]: ...
    def verify_fact(self, claim: str, **kwargs: Unpack[_VerifyFactRequest]) -> VerifyFactResult:
        """Whether sources support ``claim``, each judged by the Judge."""
    def averify_fact(self, claim: str, **kwargs: Unpack[_VerifyFactRequest]) -> Awaitable[VerifyFactResult]: ...

# ---------------------------------------------------------------- AuraCore projects


class Projects:
    """The AuraCore project tools of a store (``store.projects``), named as
    the registry's tools; every call has an ``a``-prefixed async variant. A
    bad enum value raises ``InvalidInput`` naming the allowed values; an
    unknown id raises ``NotFound``."""

    def create_project(self, name: str, **kwargs: Unpack[_CreateProjectRequest]) -> Project: ...
    def acreate_project(self, name: str, **kwargs: Unpack[_CreateProjectRequest]) -> Awaitable[Project]: ...
    def list_projects(self, **kwargs: Unpack[_ListProjectsRequest]) -> ProjectsResponse: ...
    def alist_projects(self, **kwargs: Unpack[_ListProjectsRequest]) -> Awaitable[ProjectsResponse]: ...
    def get_project(self, project_id: str) -> ProjectOverview: ...
    def aget_project(self, project_id: str) -> Awaitable[ProjectOverview]: ...
    def update_project(self, project_id: str, **kwargs: Unpack[_UpdateProjectRequest]) -> Project:
        """Change a project's ``name``, ``description``, ``status`` or ``tags``."""
    def aupdate_project(self, project_id: str, **kwargs: Unpack[_UpdateProjectRequest]) -> Awaitable[Project]: ...
    def store_context(self, project_id: str, content: str, **kwargs: Unpack[_StoreContextRequest]) -> StoreContextResult: ...
    def astore_context(self, project_id: str, content: str, **kwargs: Unpack[_StoreContextRequest]) -> Awaitable[StoreContextResult]: ...
    def query_context(self, project_id: str, query: str, **kwargs: Unpack[_QueryContextRequest]) -> QueryContextResult: ...
    def aquery_context(self, project_id: str, query: str, **kwargs: Unpack[_QueryContextRequest]) -> Awaitable[QueryContextResult]: ...
    def delete_context(self, context_id: str) -> DeleteContextResult: ...
    def adelete_context(self, context_id: str) -> Awaitable[DeleteContextResult]: ...
    def create_task(self, project_id: str, title: str, **kwargs: Unpack[_CreateTaskRequest]) -> Task: ...
    def acreate_task(self, project_id: str, title: str, **kwargs: Unpack[_CreateTaskRequest]) -> Awaitable[Task]: ...
    def update_task(self, task_id: str, **kwargs: Unpack[_UpdateTaskRequest]) -> Task:
        """Change a task's fields; ``status="done"`` may unblock others."""
    def aupdate_task(self, task_id: str, **kwargs: Unpack[_UpdateTaskRequest]) -> Awaitable[Task]: ...
    def get_next_tasks(self, project_id: str, **kwargs: Unpack[_NextTasksRequest]) -> NextTasksResult:
        """The tasks ready to start (dependencies done), by priority."""
    def aget_next_tasks(self, project_id: str, **kwargs: Unpack[_NextTasksRequest]) -> Awaitable[NextTasksResult]: ...
    def log_decision(self, project_id: str, decision: str, **kwargs: Unpack[_LogProjectDecisionRequest]) -> LogDecisionResult: ...
    def alog_decision(self, project_id: str, decision: str, **kwargs: Unpack[_LogProjectDecisionRequest]) -> Awaitable[LogDecisionResult]: ...
    def get_decisions(self, project_id: str, **kwargs: Unpack[_GetProjectDecisionsRequest]) -> ProjectDecisionsResponse:
        """A project's decisions, newest first."""
    def aget_decisions(self, project_id: str, **kwargs: Unpack[_GetProjectDecisionsRequest]) -> Awaitable[ProjectDecisionsResponse]: ...

_Vector = Union[str, Sequence[float]]

class Memory:
    """Event memory of a store (``store.memory``); every call has an ``a``-prefixed async variant."""

    def add(self, content: Mapping[str, Any], **kwargs: Unpack[_NewMemoryEvent]) -> Event:
        """Write an event; the keywords are the fields of the api's ``NewEvent``."""
    def aadd(self, content: Mapping[str, Any], **kwargs: Unpack[_NewMemoryEvent]) -> Awaitable[Event]: ...
    def get(self, id: str) -> Event: ...
    def aget(self, id: str) -> Awaitable[Event]: ...
    def delete(self, id: str) -> None: ...
    def adelete(self, id: str) -> Awaitable[None]: ...
    def update_metadata(self, id: str, patch: Mapping[str, Any]) -> Event: ...
    def aupdate_metadata(self, id: str, patch: Mapping[str, Any]) -> Awaitable[Event]: ...
    def search(self, vector_query: Optional[_Vector] = None, **kwargs: Unpack[_MemorySearchOptions]) -> EventPage:
        """Search events; the keywords are the fields of the api's ``EventQuery``."""
    def asearch(
        self, vector_query: Optional[_Vector] = None, **kwargs: Unpack[_MemorySearchOptions]
    ) -> Awaitable[EventPage]: ...
    def remember(self, text: str, **kwargs: Unpack[_RememberRequest]) -> Event: ...
    def aremember(self, text: str, **kwargs: Unpack[_RememberRequest]) -> Awaitable[Event]: ...
    def recall(self, query: Optional[str] = None, **kwargs: Unpack[_RecallRequest]) -> EventPage:
        """Find remembered events by meaning and/or words, metadata and time."""
    def arecall(self, query: Optional[str] = None, **kwargs: Unpack[_RecallRequest]) -> Awaitable[EventPage]: ...
    def forget(self, id: Optional[str] = None, **kwargs: Unpack[_ForgetRequest]) -> int:
        """Delete one event by ``id``, or every event matching ``filter_metadata``
        and the time range; returns how many were deleted."""
    def aforget(self, id: Optional[str] = None, **kwargs: Unpack[_ForgetRequest]) -> Awaitable[int]: ...

class Store:
    """An open Verity store; safe to share between threads and asyncio tasks."""

    @staticmethod
    def open(path: Optional[_Path] = None, **kwargs: Unpack[_ConfigOverrides]) -> Store:
        """Open or create a store: ``path`` is a directory (embedded SQLite) or a
        ``redis://`` URL; the keywords are the fields of the api's ``ConfigOverrides``.
        Unset ones come from the environment (``VERITY_HOME``, ``REDIS_URL``,
        ``VERITY_EMBEDDER``, …), then the library's defaults."""
    @staticmethod
    def aopen(path: Optional[_Path] = None, **kwargs: Unpack[_ConfigOverrides]) -> Awaitable[Store]: ...
    def close(self) -> None:
        """Flush the store and release it; later calls raise ``VerityError``."""
    def aclose(self) -> Awaitable[None]: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Store: ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...
    def __aenter__(self) -> Awaitable[Store]: ...
    def __aexit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> Awaitable[bool]: ...
    def ingest(self, docs: Sequence[_DocIn]) -> IngestOutcome: ...
    def aingest(self, docs: Sequence[_DocIn]) -> Awaitable[IngestOutcome]: ...
    def ingest_paths(self, paths: Sequence[_Path], strict: bool = False) -> IngestOutcome: ...
    def aingest_paths(self, paths: Sequence[_Path], strict: bool = False) -> Awaitable[IngestOutcome]: ...
    def search(self, query: str, **kwargs: Unpack[_SearchOptions]) -> SearchResults:
        """Search (lexical, dense or hybrid) with re-rank and guardrail; the
        keywords are the fields of the api's ``SearchRequest``, unset ones its defaults."""
    def asearch(self, query: str, **kwargs: Unpack[_SearchOptions]) -> Awaitable[SearchResults]: ...
    def ask(self, question: str, **kwargs: Unpack[_AskOptions]) -> Answer:
        """Answer from the sources, with citations; the keywords are the fields
        of the api's ``AskRequest``, unset ones its defaults."""
    def aask(self, question: str, **kwargs: Unpack[_AskOptions]) -> Awaitable[Answer]: ...
    def ask_stream(self, question: str, **kwargs: Unpack[_AskOptions]) -> AnswerStream:
        """``ask``, the text streamed as it is generated."""
    def get(self, uid: str) -> Optional[Document]: ...
    def aget(self, uid: str) -> Awaitable[Optional[Document]]: ...
    def delete(self, uids: Sequence[str]) -> int: ...
    def adelete(self, uids: Sequence[str]) -> Awaitable[int]: ...
    def stats(self) -> Stats: ...
    def astats(self) -> Awaitable[Stats]: ...
    def check(self, content: Optional[str] = None, **kwargs: Unpack[_CheckRequest]) -> CheckReport:
        """Check that each cited source supports the claim citing it. Give one
        of ``content``, ``url``, ``path`` or ``content_base64``;
        ``allow_private`` lifts the SSRF guard (tests, intranets)."""
    def acheck(self, content: Optional[str] = None, **kwargs: Unpack[_CheckRequest]) -> Awaitable[CheckReport]: ...
    def research(self, syllabus: Optional[_Path] = None, **kwargs: Unpack[_ResearchOptions]) -> ResearchReport:
        """Research a syllabus (Markdown, PDF, HTML) and return the
        checked, sourced report; the keywords are the fields of the api's
        ``ResearchOptions``. ``replay=True`` re-runs the writer and the
        checks of ``run_dir`` offline; ``allow_private`` lets references on
        private and loopback addresses be fetched."""
    def aresearch(
        self, syllabus: Optional[_Path] = None, **kwargs: Unpack[_ResearchOptions]
    ) -> Awaitable[ResearchReport]: ...
    def find_by_name(self, filename: str, *, knowledge_dir: Optional[_Path] = None) -> Optional[KnowledgeEntry]:
        """The knowledge-base entry of a file, or ``None``."""
    def afind_by_name(
        self, filename: str, *, knowledge_dir: Optional[_Path] = None
    ) -> Awaitable[Optional[KnowledgeEntry]]: ...
    def add_reference(
        self,
        url: Optional[str] = None,
        *,
        knowledge_dir: Optional[_Path] = None,
        allow_private: Optional[bool] = None,
        **kwargs: Unpack[_AddReferenceRequest],
    ) -> AddReferenceResult:
        """Add ``url`` (downloaded, saved as Markdown, indexed once) or
        ``filename`` (already in the knowledge base directory); the keywords
        are the fields of the api's ``AddReferenceRequest`` and
        ``knowledge_dir``, ``allow_private`` of its ``ResearchOptions``."""
    def aadd_reference(
        self,
        url: Optional[str] = None,
        *,
        knowledge_dir: Optional[_Path] = None,
        allow_private: Optional[bool] = None,
        **kwargs: Unpack[_AddReferenceRequest],
    ) -> Awaitable[AddReferenceResult]: ...
    def call_tool(self, name: str, args: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """Call a registry tool by name (``verify_fact``, ``log_article``,
        ``create_task``, ``search``, …) and return its structured response as
        plain data, keyed as the tool's JSON (snake_case, as MCP clients see
        it): ``call_tool("score_article", {...})`` equals
        ``watch.score_article(...).to_dict()``."""
    def acall_tool(self, name: str, args: Optional[Mapping[str, Any]] = None) -> Awaitable[dict[str, Any]]: ...
    @property
    def memory(self) -> Memory:
        """The event memory on this store's backend and embedder."""
    @property
    def watch(self) -> Watch:
        """The technology watch: rules, scoring, articles, decisions, web, facts."""
    @property
    def projects(self) -> Projects:
        """The AuraCore project tools: projects, context, tasks, decisions."""
    @property
    def notes(self) -> list[str]: ...
    @property
    def home(self) -> str: ...


def fetch(target: str, **kwargs: Unpack[_FetchRequest]) -> FetchedSource:
    """Fetch a URL (SSRF guard on unless ``allow_private``) or parse a local
    file; the keywords are the fields of the api's ``FetchRequest``."""

def afetch(target: str, **kwargs: Unpack[_FetchRequest]) -> Awaitable[FetchedSource]: ...
def _error_table() -> list[dict[str, Any]]:
    """The error table shared by every host: code, exit_code, http_status,
    python_class, js_code, jsonrpc_code."""
