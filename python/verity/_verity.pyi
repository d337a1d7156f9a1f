"""Type stubs of the native module ``verity._verity`` (PyO3)."""

from __future__ import annotations

import datetime
import os
from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, Optional, TypedDict, Union

__version__: str

_Time = Union[datetime.datetime, datetime.date, str]
_Path = Union[str, "os.PathLike[str]"]
_MetaFilter = Mapping[str, Any]

class Document:
    """A source document (Verity's document schema)."""

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
    @property
    def verification(self) -> Optional[AnswerVerification]:
        """The answer checked against its sources, sentence by sentence."""
        ...
    def to_dict(self) -> dict[str, Any]: ...

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

class IngestOutcome:
    """What an ingestion did (``Store.ingest``, ``Store.ingest_paths``)."""

    @property
    def inserted(self) -> int: ...
    @property
    def replaced(self) -> int: ...
    @property
    def unchanged(self) -> int: ...
    @property
    def chunks(self) -> int: ...
    @property
    def read_errors(self) -> list[str]: ...
    @property
    def rejected(self) -> list[str]: ...
    @property
    def skipped_files(self) -> list[str]: ...
    @property
    def lexical_only(self) -> bool: ...
    @property
    def embedder(self) -> Optional[str]: ...
    @property
    def seconds(self) -> float: ...
    @property
    def bytes(self) -> int: ...
    @property
    def reprocessed(self) -> int: ...
    @property
    def partial(self) -> bool: ...
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

class StoreStats:
    """Counts of the store's index."""

    @property
    def backend(self) -> str: ...
    @property
    def index(self) -> str: ...
    @property
    def documents(self) -> int: ...
    @property
    def chunks(self) -> int: ...
    @property
    def vectors(self) -> int: ...
    @property
    def embedder(self) -> Optional[str]: ...
    @property
    def size_bytes(self) -> Optional[int]: ...
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

class Stats:
    """What the store holds and how it is configured (``Store.stats``)."""

    @property
    def store(self) -> StoreStats: ...
    @property
    def embedder(self) -> Optional[str]: ...
    @property
    def generator(self) -> str: ...
    @property
    def home(self) -> str: ...
    @property
    def redis(self) -> Optional[str]: ...
    @property
    def notes(self) -> list[str]: ...
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

class SentenceVerdict(TypedDict, total=False):
    text: str
    citations: list[int]
    verdict: Optional[Verdict]
    confidence: float
    explanation: str
    source_quote: Optional[str]
    quote_citation: Optional[int]
    judge: str
    flagged: bool
    removed: bool

class AnswerVerification(TypedDict):
    mode: Literal["flag", "strip", "off"]
    judge: str
    sentences: list[SentenceVerdict]
    checked: int
    supported: int
    flagged: int
    removed: int

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
    """The report of ``Store.check`` (the citation-check report)."""
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

# ---------------------------------------------------------------- watch

_RuleKind = Literal["include", "exclude", "boost"]
_Priority = Literal["critical", "high", "medium", "low"]
_SourceType = Literal["rss", "youtube", "reddit", "hn"]
_DecisionLlm = Literal["qwen", "phi"]
_DecisionType = Literal["score", "validate", "reject", "verify_fact"]
_Verdict = Literal["SUPPORTED", "NOT_SUPPORTED", "PARTIAL", "INCONCLUSIVE", "SOURCE_UNAVAILABLE"]

class ScoringGuide(TypedDict):
    base_score: int
    min_valid_score: int
    max_score: int

class _RelevanceRuleBase(TypedDict):
    name: str
    type: _RuleKind
    keywords: list[str]
    score_modifier: int
    priority: _Priority
    active: bool

class RelevanceRule(_RelevanceRuleBase, total=False):
    """A relevance rule of the watch."""
    description: str

class RulesResponse(TypedDict):
    """``get_veille_rules``: active rules by priority then name."""
    rules: list[RelevanceRule]
    scoring_guide: ScoringGuide

class UpdateRuleResponse(TypedDict):
    updated: bool
    created: bool
    rule: RelevanceRule

class KeywordHit(TypedDict):
    keyword: str
    count: int
    fields: list[Literal["title", "content", "url"]]

class RuleMatch(TypedDict):
    rule: str
    type: _RuleKind
    priority: _Priority
    score_modifier: int
    keywords: list[KeywordHit]

class _ScoreResultBase(TypedDict):
    score: int
    raw_score: int
    valid: bool
    excluded: bool
    matched_rules: list[RuleMatch]
    explanation: list[str]
    scoring_guide: ScoringGuide

class ScoreResult(_ScoreResultBase, total=False):
    """``score_article``: the reference score, the matched rules, one explanation line per step."""
    truncated: bool

class _ArticleBriefBase(TypedDict):
    id: str
    title: str
    url: str
    source: str
    processed_at: str
    phi_validated: bool

class ArticleBrief(_ArticleBriefBase, total=False):
    qwen_score: int

class _CheckArticleResultBase(TypedDict):
    exists: bool
    canonical_url: str
    message: str

class CheckArticleResult(_CheckArticleResultBase, total=False):
    """``check_article_exists``: the logged article and how it was recognised."""
    article: ArticleBrief
    matched_by: Literal["url", "same_content", "near_duplicate"]
    distance: int

class _LogArticleResultBase(TypedDict):
    logged: bool
    article_id: str
    created: bool
    canonical_url: str

class LogArticleResult(_LogArticleResultBase, total=False):
    duplicate_of: str
    ingested: bool
    ingest_error: str

class _ArticleBase(TypedDict):
    id: str
    url: str
    canonical_url: str
    title: str
    source: str
    source_type: _SourceType
    qwen_keywords: list[str]
    phi_validated: bool
    hashtags: list[str]
    processed_at: str
    updated_at: str

class Article(_ArticleBase, total=False):
    """A logged article."""
    aliases: list[str]
    qwen_score: int
    phi_confidence: float
    summary_fr: str
    impact: str
    linkedin_draft: str
    content_sha1: str
    simhash: int
    word_count: int

class ArticlesResponse(TypedDict):
    articles: list[Article]
    total: int
    period: str

class LogDecisionResult(TypedDict):
    logged: bool
    decision_id: str
    created_at: str

class _WatchDecisionBase(TypedDict):
    id: str
    llm: _DecisionLlm
    decision_type: _DecisionType
    decision: str
    tools_used: list[str]
    created_at: str

class WatchDecision(_WatchDecisionBase, total=False):
    """An entry of the decision audit log."""
    article_id: str
    confidence: float
    reasoning: str

class WatchDecisionsResponse(TypedDict):
    decisions: list[WatchDecision]
    total: int

class WebResult(TypedDict):
    title: str
    url: str
    snippet: str
    source: str

class WebSearchResponse(TypedDict):
    query: str
    results: list[WebResult]
    total_found: int

class CrawlLink(TypedDict):
    text: str
    url: str

class _CrawlResponseBase(TypedDict):
    url: str
    title: str
    content: str
    word_count: int
    extracted_at: str

class CrawlResponse(_CrawlResponseBase, total=False):
    """``crawl_url``: the main content as Markdown (capped)."""
    truncated: bool
    paywalled: bool
    links: list[CrawlLink]

class _FactSourceBase(TypedDict):
    url: str
    excerpt: str
    verdict: _Verdict
    confidence: float

class FactSource(_FactSourceBase, total=False):
    title: str

class UnreadSource(TypedDict):
    url: str
    code: str
    error: str

class _VerifyFactResultBase(TypedDict):
    claim: str
    verified: bool
    confidence: float
    verdict: _Verdict
    sources: list[FactSource]
    summary: str
    not_enough_evidence: bool
    judge: str

class VerifyFactResult(_VerifyFactResultBase, total=False):
    """``verify_fact``: the verdict, the deciding sentences, the pages that could not be read."""
    searched: str
    unavailable: list[UnreadSource]

class Watch:
    """The technology watch of a store (``store.watch``); every call has an
    ``a``-prefixed async variant. A bad enum value raises ``InvalidInput``
    naming the allowed values."""

    def get_veille_rules(
        self, type: Optional[Literal["include", "exclude", "boost", "all"]] = None, *, priority: Optional[_Priority] = None
    ) -> RulesResponse: ...
    def aget_veille_rules(
        self, type: Optional[Literal["include", "exclude", "boost", "all"]] = None, *, priority: Optional[_Priority] = None
    ) -> Awaitable[RulesResponse]: ...
    def update_veille_rule(
        self,
        name: str,
        type: _RuleKind,
        keywords: Sequence[str],
        *,
        score_modifier: Optional[int] = None,
        priority: Optional[_Priority] = None,
        active: Optional[bool] = None,
        description: Optional[str] = None,
    ) -> UpdateRuleResponse:
        """Create or replace the rule ``name`` (``score_modifier`` −10…+5, default by type)."""
    def aupdate_veille_rule(
        self,
        name: str,
        type: _RuleKind,
        keywords: Sequence[str],
        *,
        score_modifier: Optional[int] = None,
        priority: Optional[_Priority] = None,
        active: Optional[bool] = None,
        description: Optional[str] = None,
    ) -> Awaitable[UpdateRuleResponse]: ...
    def score_article(self, *, title: str = "", content: str = "", url: str = "") -> ScoreResult:
        """Base score plus the modifiers of the matched rules, clamped, explained."""
    def ascore_article(
        self, *, title: str = "", content: str = "", url: str = ""
    ) -> Awaitable[ScoreResult]: ...
    def check_article_exists(self, url: str, *, content: Optional[str] = None) -> CheckArticleResult:
        """By canonical URL (tracking parameters ignored) or, with ``content``, by text."""
    def acheck_article_exists(
        self, url: str, *, content: Optional[str] = None
    ) -> Awaitable[CheckArticleResult]: ...
    def log_article(
        self,
        url: str,
        title: str,
        source: str,
        source_type: _SourceType,
        *,
        qwen_score: Optional[int] = None,
        qwen_keywords: Optional[Sequence[str]] = None,
        phi_validated: Optional[bool] = None,
        phi_confidence: Optional[float] = None,
        summary_fr: Optional[str] = None,
        impact: Optional[str] = None,
        hashtags: Optional[Sequence[str]] = None,
        linkedin_draft: Optional[str] = None,
        raw_content: Optional[str] = None,
    ) -> LogArticleResult:
        """Log an analysed article (idempotent per canonical URL)."""
    def alog_article(
        self,
        url: str,
        title: str,
        source: str,
        source_type: _SourceType,
        *,
        qwen_score: Optional[int] = None,
        qwen_keywords: Optional[Sequence[str]] = None,
        phi_validated: Optional[bool] = None,
        phi_confidence: Optional[float] = None,
        summary_fr: Optional[str] = None,
        impact: Optional[str] = None,
        hashtags: Optional[Sequence[str]] = None,
        linkedin_draft: Optional[str] = None,
        raw_content: Optional[str] = None,
    ) -> Awaitable[LogArticleResult]: ...
    def get_articles(
        self, *, days: int = 7, source: Optional[str] = None, validated_only: bool = True, limit: int = 20
    ) -> ArticlesResponse:
        """Recent articles, newest first."""
    def aget_articles(
        self, *, days: int = 7, source: Optional[str] = None, validated_only: bool = True, limit: int = 20
    ) -> Awaitable[ArticlesResponse]: ...
    def log_veille_decision(
        self,
        llm: _DecisionLlm,
        decision_type: _DecisionType,
        decision: str,
        *,
        article_id: Optional[str] = None,
        confidence: Optional[float] = None,
        reasoning: Optional[str] = None,
        tools_used: Optional[Sequence[str]] = None,
    ) -> LogDecisionResult:
        """Log a decision for the audit."""
    def alog_veille_decision(
        self,
        llm: _DecisionLlm,
        decision_type: _DecisionType,
        decision: str,
        *,
        article_id: Optional[str] = None,
        confidence: Optional[float] = None,
        reasoning: Optional[str] = None,
        tools_used: Optional[Sequence[str]] = None,
    ) -> Awaitable[LogDecisionResult]: ...
    def get_veille_decisions(
        self,
        *,
        article_id: Optional[str] = None,
        days: Optional[int] = None,
        since: Optional[Union[datetime.datetime, str]] = None,
        until: Optional[Union[datetime.datetime, str]] = None,
        limit: int = 100,
    ) -> WatchDecisionsResponse:
        """The decision audit log, oldest first."""
    def aget_veille_decisions(
        self,
        *,
        article_id: Optional[str] = None,
        days: Optional[int] = None,
        since: Optional[Union[datetime.datetime, str]] = None,
        until: Optional[Union[datetime.datetime, str]] = None,
        limit: int = 100,
    ) -> Awaitable[WatchDecisionsResponse]: ...
    def web_search(
        self, query: str, *, num_results: int = 5, time_range: Optional[Literal["day", "week", "month", "year"]] = None
    ) -> WebSearchResponse:
        """Web search through the configured SearXNG."""
    def aweb_search(
        self, query: str, *, num_results: int = 5, time_range: Optional[Literal["day", "week", "month", "year"]] = None
    ) -> Awaitable[WebSearchResponse]: ...
    def crawl_url(self, url: str) -> CrawlResponse:
        """The main content of a web page as Markdown, with its links."""
    def acrawl_url(self, url: str) -> Awaitable[CrawlResponse]: ...
    def verify_fact(
        self, claim: str, *, context: Optional[str] = None, urls: Optional[Sequence[str]] = None
    ) -> VerifyFactResult:
        """Check a claim against ``urls`` (or the top web search results)."""
    def averify_fact(
        self, claim: str, *, context: Optional[str] = None, urls: Optional[Sequence[str]] = None
    ) -> Awaitable[VerifyFactResult]: ...

# ---------------------------------------------------------------- AuraCore projects

_ProjectStatus = Literal["active", "paused", "completed", "archived"]
_TaskStatus = Literal["todo", "in_progress", "blocked", "done", "cancelled"]

class _ProjectBase(TypedDict):
    id: str
    name: str
    status: _ProjectStatus
    tags: list[str]
    created_at: str
    updated_at: str

class Project(_ProjectBase, total=False):
    """An AuraCore project."""
    description: str

class _ContextEntryBase(TypedDict):
    id: str
    project_id: str
    content: str
    tags: list[str]
    created_at: str

class ContextEntry(_ContextEntryBase, total=False):
    """A piece of project context."""
    title: str

class _TaskBase(TypedDict):
    id: str
    project_id: str
    title: str
    priority: _Priority
    status: _TaskStatus
    depends_on: list[str]
    created_at: str
    updated_at: str

class Task(_TaskBase, total=False):
    """A project task; ``depends_on`` holds ids of tasks of the same project."""
    description: str

class _ProjectDecisionBase(TypedDict):
    id: str
    project_id: str
    decision: str
    alternatives: list[str]
    tags: list[str]
    created_at: str

class ProjectDecision(_ProjectDecisionBase, total=False):
    """A decision recorded on a project."""
    reasoning: str

class ProjectsResponse(TypedDict):
    projects: list[Project]
    total: int

class ProjectOverview(TypedDict):
    """``get_project``: the project, its tasks, its context size, its recent decisions."""
    project: Project
    tasks: list[Task]
    context_entries: int
    recent_decisions: list[ProjectDecision]

class _StoreContextResultBase(TypedDict):
    stored: bool
    context_id: str

class StoreContextResult(_StoreContextResultBase, total=False):
    indexed: bool

class ContextHit(TypedDict):
    entry: ContextEntry
    score: float

class _QueryContextResultBase(TypedDict):
    results: list[ContextHit]
    ran: Literal["index", "lexical"]

class QueryContextResult(_QueryContextResultBase, total=False):
    """``query_context``: best entries first; ``ran`` says how they were ranked."""
    degraded: str

class DeleteContextResult(TypedDict):
    deleted: bool
    context_id: str

class NextTasksResult(TypedDict):
    """``get_next_tasks``: the ready tasks in order, and how many wait or are blocked."""
    tasks: list[Task]
    waiting: int
    blocked: int

class ProjectDecisionsResponse(TypedDict):
    decisions: list[ProjectDecision]
    total: int

class Projects:
    """The AuraCore project tools of a store (``store.projects``), named as
    the registry's tools; every call has an ``a``-prefixed async variant. A
    bad enum value raises ``InvalidInput`` naming the allowed values; an
    unknown id raises ``NotFound``."""

    def create_project(
        self,
        name: str,
        *,
        description: Optional[str] = None,
        status: Optional[_ProjectStatus] = None,
        tags: Optional[Sequence[str]] = None,
    ) -> Project: ...
    def acreate_project(
        self,
        name: str,
        *,
        description: Optional[str] = None,
        status: Optional[_ProjectStatus] = None,
        tags: Optional[Sequence[str]] = None,
    ) -> Awaitable[Project]: ...
    def list_projects(self, *, status: Optional[_ProjectStatus] = None) -> ProjectsResponse: ...
    def alist_projects(self, *, status: Optional[_ProjectStatus] = None) -> Awaitable[ProjectsResponse]: ...
    def get_project(self, project_id: str) -> ProjectOverview: ...
    def aget_project(self, project_id: str) -> Awaitable[ProjectOverview]: ...
    def update_project(
        self,
        project_id: str,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        status: Optional[_ProjectStatus] = None,
        tags: Optional[Sequence[str]] = None,
    ) -> Project:
        """Only the given fields change."""
    def aupdate_project(
        self,
        project_id: str,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        status: Optional[_ProjectStatus] = None,
        tags: Optional[Sequence[str]] = None,
    ) -> Awaitable[Project]: ...
    def store_context(
        self, project_id: str, content: str, *, title: Optional[str] = None, tags: Optional[Sequence[str]] = None
    ) -> StoreContextResult: ...
    def astore_context(
        self, project_id: str, content: str, *, title: Optional[str] = None, tags: Optional[Sequence[str]] = None
    ) -> Awaitable[StoreContextResult]: ...
    def query_context(self, project_id: str, query: str, *, limit: int = 5) -> QueryContextResult: ...
    def aquery_context(self, project_id: str, query: str, *, limit: int = 5) -> Awaitable[QueryContextResult]: ...
    def delete_context(self, context_id: str) -> DeleteContextResult: ...
    def adelete_context(self, context_id: str) -> Awaitable[DeleteContextResult]: ...
    def create_task(
        self,
        project_id: str,
        title: str,
        *,
        description: Optional[str] = None,
        priority: Optional[_Priority] = None,
        status: Optional[_TaskStatus] = None,
        depends_on: Optional[Sequence[str]] = None,
    ) -> Task: ...
    def acreate_task(
        self,
        project_id: str,
        title: str,
        *,
        description: Optional[str] = None,
        priority: Optional[_Priority] = None,
        status: Optional[_TaskStatus] = None,
        depends_on: Optional[Sequence[str]] = None,
    ) -> Awaitable[Task]: ...
    def update_task(
        self,
        task_id: str,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        priority: Optional[_Priority] = None,
        status: Optional[_TaskStatus] = None,
        depends_on: Optional[Sequence[str]] = None,
    ) -> Task:
        """Only the given fields change; a dependency cycle is refused."""
    def aupdate_task(
        self,
        task_id: str,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        priority: Optional[_Priority] = None,
        status: Optional[_TaskStatus] = None,
        depends_on: Optional[Sequence[str]] = None,
    ) -> Awaitable[Task]: ...
    def get_next_tasks(self, project_id: str, *, limit: int = 5) -> NextTasksResult:
        """Open tasks whose dependencies are finished: in progress first, then by priority, then oldest."""
    def aget_next_tasks(self, project_id: str, *, limit: int = 5) -> Awaitable[NextTasksResult]: ...
    def log_decision(
        self,
        project_id: str,
        decision: str,
        *,
        reasoning: Optional[str] = None,
        alternatives: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
    ) -> LogDecisionResult: ...
    def alog_decision(
        self,
        project_id: str,
        decision: str,
        *,
        reasoning: Optional[str] = None,
        alternatives: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
    ) -> Awaitable[LogDecisionResult]: ...
    def get_decisions(self, project_id: str, *, limit: int = 20) -> ProjectDecisionsResponse:
        """The most recent ``limit`` decisions, oldest first."""
    def aget_decisions(self, project_id: str, *, limit: int = 20) -> Awaitable[ProjectDecisionsResponse]: ...

class Event:
    """One stored event: ``content`` and ``metadata`` are dicts."""

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
    """A page of events with MnemoLite's ``meta`` (``total_hits``, ``limit``, ``offset``)."""

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
        verify: Optional[Literal["flag", "strip", "off"]] = None,
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
        verify: Optional[Literal["flag", "strip", "off"]] = None,
    ) -> Awaitable[Answer]: ...
    def ask_stream(
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
        verify: Optional[Literal["flag", "strip", "off"]] = None,
    ) -> AnswerStream: ...
    def get(self, uid: str) -> Optional[Document]: ...
    def aget(self, uid: str) -> Awaitable[Optional[Document]]: ...
    def delete(self, uids: Sequence[str]) -> int: ...
    def adelete(self, uids: Sequence[str]) -> Awaitable[int]: ...
    def stats(self) -> Stats: ...
    def astats(self) -> Awaitable[Stats]: ...
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
        """Research a syllabus (Markdown, PDF, HTML) and return the
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

def fetch(target: str, *, allow_private: bool = False) -> dict[str, Any]:
    """Fetch a URL (SSRF guard on unless ``allow_private``) or parse a local file."""

def afetch(target: str, *, allow_private: bool = False) -> Awaitable[dict[str, Any]]: ...
def _error_table() -> list[dict[str, Any]]:
    """The error table shared by every host: code, exit_code, http_status,
    python_class, js_code, jsonrpc_code."""
