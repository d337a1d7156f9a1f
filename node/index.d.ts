// Types of the `verity-ai` Node package, checked by `tsc --noEmit` against
// test/typed-sample.ts in scripts/test-node.sh. The section between the
// "generated" lines is written from the `verity::api` JSON schemas by
// crates/verity/tests/binding_types/mod.rs (see docs/architecture.md, "Where to
// add an operation"); the rest (the classes, their methods, the types the
// binding extends) is hand-written. Results are plain objects of Verity's
// result types with camelCase keys (the same shapes Python exposes as
// snake_case attributes); user data (`metadata`, an event's `content`) is
// kept as written. `callTool`, the generic tool call, follows the same rule:
// the registry's JSON with camelCase keys (the snake_case MCP clients see
// becomes camelCase), user data kept as written.

// ---- generated from the verity::api schemas by crates/verity/tests/binding_types: do not edit (begin) ----
/** How a claim cites its source (`citation_type`). */
export type CitationType = 'url' | 'doi' | 'arxiv' | 'bibliography' | 'footnote' | 'author_year'
/** How `query_context` ranked. */
export type ContextRanking = 'index' | 'lexical'
/** The LLM that took a decision (`llm`). */
export type DecisionLlm = 'qwen' | 'phi'
/** Kind of decision (`decision_type`). */
export type DecisionType = 'score' | 'validate' | 'reject' | 'verify_fact'
/** Which index answers a search. */
export type EventSearchMode = 'vector' | 'lexical' | 'hybrid' | 'metadata-only'
/** Outcome class of a fetch (`fetch_status`). */
export type FetchStatus = 'fetched' | 'failed' | 'paywalled' | 'not_found' | 'timeout' | 'rate_limited' | 'blocked'
/** Where a keyword was found. */
export type Field = 'title' | 'content' | 'url'
/**
 * Which judge decides (`auto`: the LLM judge over the configured generator
 * when it is a model, else the local judge).
 */
export type JudgeChoice = 'auto' | 'local' | 'llm'
/** How an existing article was recognised. */
export type MatchedBy = 'url' | 'same_content' | 'near_duplicate'
/** Rule (and task) priority. */
export type Priority = 'critical' | 'high' | 'medium' | 'low'
/** Life cycle of a project. */
export type ProjectStatus = 'active' | 'paused' | 'completed' | 'archived'
/** Output format of a report (`verity check --format`, `format` of `POST /v1/verify`). */
export type ReportFormat = 'json' | 'md' | 'html' | 'terminal'
/** What a rule does to an article's score. */
export type RuleKind = 'include' | 'exclude' | 'boost'
/** `type` filter of `get_veille_rules`. */
export type RuleTypeFilter = 'include' | 'exclude' | 'boost' | 'all'
/** Which index answers a query. */
export type SearchMode = 'lexical' | 'dense' | 'hybrid'
/** Format a source was parsed from. */
export type SourceFormat = 'pdf' | 'html' | 'markdown' | 'text' | 'json'
/** How fetching the source went (`fetch_status`). */
export type SourceStatus = 'success' | 'failed' | 'paywalled'
/** Where an article came from (`source_type`). */
export type SourceType = 'rss' | 'youtube' | 'reddit' | 'hn'
/** State of a task. */
export type TaskStatus = 'todo' | 'in_progress' | 'blocked' | 'done' | 'cancelled'
/** What the source says about the claim. */
export type Verdict = 'SUPPORTED' | 'NOT_SUPPORTED' | 'PARTIAL' | 'INCONCLUSIVE' | 'SOURCE_UNAVAILABLE'
/** What to do with answer sentences their cited sources do not support. */
export type VerifyMode = 'off' | 'flag' | 'strip'
/** Recency window for web search. */
export type WebTimeRange = 'day' | 'week' | 'month' | 'year'

/**
 * A piece of a document sized for the embedder, with where it came from.
 *
 * Invariant: `text == document.content[start..end]` (byte offsets on UTF-8
 * boundaries), so a quote can always be located in the original.
 */
export interface Chunk {
  /** Owning document. */
  docUid: string
  /** Byte offset one past the last byte. */
  end: number
  /** Headings enclosing the chunk, outermost first. */
  headingPath?: string[]
  /** `"{doc_uid}#{index}"`. */
  id: string
  /** 0-based position in the document. */
  index: number
  /** Byte offset of the first byte in the document content. */
  start: number
  /** The chunk text. */
  text: string
  /** Number of tokens of `text` for the chunking tokenizer. */
  tokenCount: number
}

/**
 * A search hit as the bindings present it: the hit itself (scores, chunk,
 * document) plus, at the top, the fields readers use most — the
 * document's `uid`, `title`, `source` and `url`, the chunk's `chunk_id` and
 * `text`. Python's `Hit` has these as attributes, Node's hits as keys (in
 * camelCase): one serde shape for both.
 */
export interface Hit {
  /** The chunk. */
  chunk: Chunk
  /** The chunk's id. */
  chunkId: string
  /** Cosine similarity, when the dense index saw this chunk. */
  dense?: number
  /** Its document (without content). */
  doc: DocumentMeta
  /** Freshness factor in `[0, 1]` applied by the re-ranker, if any. */
  freshness?: number
  /** Raw BM25 score, when the lexical index saw this chunk. */
  lexical?: number
  /**
   * Relevance in `[0, 1]` comparable across modes (cosine similarity for
   * dense, a normalised BM25 for lexical, the better of both for hybrid);
   * this is what the low-evidence guardrail reads.
   */
  relevance: number
  /** Final score used for ordering (higher is better; meaning depends on mode). */
  score: number
  /** The document's source. */
  source: string
  /** The chunk's text. */
  text: string
  /** The document's title. */
  title: string | null
  /** The document's uid. */
  uid: string
  /** The document's URL. */
  url: string | null
}

/**
 * Search results as the bindings present them: `SearchResults` with
 * `HitView` hits.
 */
export interface SearchResults {
  /** Hits, best first. */
  hits: Hit[]
  /** Mode that ran. */
  mode: SearchMode
  /** Best relevance under the guardrail threshold. */
  notEnoughEvidence: boolean
  /** Notes (fallbacks, cache). */
  notes: string[]
}

/** A source cited by an answer: `[n]` ↔ chunk ↔ document ↔ URL. */
export interface Citation {
  /** Cited chunk. */
  chunkId: string
  /** Cited document. */
  docUid: string
  /** The `n` of `[n]` in the answer text. */
  index: number
  /** Exact quote from the chunk supporting the statement, when known. */
  quote?: string
  /** Document source. */
  source: string
  /** Byte range of the chunk in its document. */
  span?: [number, number]
  /** Document title. */
  title?: string
  /** Document URL. */
  url?: string
}

/** A grounded answer. */
export interface Answer {
  /** Served from the answer cache. */
  cached: boolean
  /** Valid citations, by `index`. */
  citations: Citation[]
  /** Confidence in `[0, 1]`. */
  confidence: number
  /** `true` when the fallback generator answered or evidence was thin. */
  degraded: boolean
  /** `[n]` markers that pointed to no context block and were removed. */
  invalidCitations?: number[]
  /** Model that produced the text. */
  model: string
  /**
   * `true` when the answer is not backed by the sources: the guardrail
   * found too little evidence, or the answer cites no source (the
   * generator said the sources lack the answer, or wrote something uncited).
   */
  notEnoughEvidence: boolean
  /** Notes for the reader (fallback used, lexical-only, …). */
  notes?: string[]
  /** Answer text with `[n]` markers. */
  text: string
  /** Stage timings. */
  timings: Timings
  /**
   * The answer checked against its sources, sentence by sentence, when
   * asked (`verify`: `flag` by default).
   */
  verification?: AnswerVerification
}

/** What an ingestion did. */
export interface IngestOutcome {
  /** Content bytes ingested. */
  bytes: number
  /** Chunks written. */
  chunks: number
  /** Embedder used. */
  embedder: EmbedderId | null
  /** New documents. */
  inserted: number
  /** `true` when no embedder ran: only the BM25 index was built. */
  lexicalOnly: boolean
  /** Records, files or URLs that could not be read (with file and line), skipped. */
  readErrors: string[]
  /** Documents refused by the pipeline (empty content, duplicate uid, …). */
  rejected: string[]
  /** Documents whose previous version was replaced. */
  replaced: number
  /**
   * Documents with unchanged content re-chunked and re-embedded because
   * they had been indexed with other settings (`IngestReport::reprocessed`).
   */
  reprocessed: number
  /** Wall-clock seconds. */
  seconds: number
  /** Files left out because their type is not supported. */
  skippedFiles: string[]
  /** Documents skipped because nothing changed. */
  unchanged: number
}

/** Counts describing a store. */
export interface StoreStats {
  /** Backend name (`sqlite`, `redis`). */
  backend: string
  /** Chunks. */
  chunks: number
  /** Documents. */
  documents: number
  /** Embedder the index was built with, if any. */
  embedder: EmbedderId | null
  /** Index name the store is bound to. */
  index: string
  /** Bytes on disk / in memory, when known. */
  sizeBytes: number | null
  /** Chunks with a vector. */
  vectors: number
}

/** What the store holds and how it is configured (`verity stats`, `store.stats`). */
export interface Stats {
  /** Embedder configured for queries and ingestion, if any. */
  embedder: EmbedderId | null
  /** Generator answering questions (its configured spec; loaded on the first question). */
  generator: string
  /** Store directory (embedded store) — also where evaluation stores go. */
  home: string
  /** Warnings about the configuration (lexical-only, embedder mismatch, …). */
  notes: string[]
  /** Redis URL (password masked) when the store lives in Redis. */
  redis?: string
  /** Store counts. */
  store: StoreStats
}

/** The result of fetching one URL. */
export interface FetchedSource {
  /** Content type of the response. */
  contentType?: string
  /** Human-readable detail for non-`Fetched` outcomes. */
  detail?: string
  /** When it was fetched. */
  fetchedAt: string
  /** URL after redirects. */
  finalUrl: string
  /** Last HTTP status, when a response was received. */
  httpStatus?: number
  /** Parsed content (`Some` when `status` is `Fetched`, possibly for `Paywalled`). */
  parsed?: ParsedDocument
  /**
   * Why the fetch was refused before any page was read (`Blocked` with
   * no HTTP status): the guard's address and rule, or robots.txt.
   */
  refusal?: { addr: string; by: 'network_guard'; reason: string } | { by: 'robots_txt' }
  /** Outcome class. */
  status: FetchStatus
  /** URL asked for. */
  url: string
}

/**
 * A parsed source: a document whose content is Markdown, and where its
 * pieces came from, so that a quote can be located later.
 */
export interface ParsedDocument {
  /** The document (title, lang, url, ts and `metadata.author` filled when known). */
  document: StoredDocument
  /** Original format. */
  format: SourceFormat
  /** Page map (PDF); empty for formats without pages. */
  pages?: PageSpan[]
}

/** Where a span of the content sits in the original (a PDF page, …). */
export interface PageSpan {
  /** Byte offset one past its end. */
  end: number
  /** 1-based page number. */
  page: number
  /** Byte offset in `Document::content` where the page starts. */
  start: number
}

/** The report of one verification run. */
export interface CheckReport {
  /** `true` when the run stopped early (cancelled); results hold what was done. */
  cancelled: boolean
  /** Document title or name, when known. */
  document?: string
  /** One result per claim–citation pair, in document order. */
  results: CheckResult[]
  /** Statistics. */
  statistics: CheckStatistics
  /** Counts. */
  summary: CheckSummary
}

/** Counts per verdict (`summary {total, supported, issues}`). */
export interface CheckSummary {
  /** INCONCLUSIVE. */
  inconclusive: number
  /** Everything but SUPPORTED. */
  issues: number
  /** A sentence for people ("3 of 5 claims are supported", "the document cites no source"). */
  message: string
  /** NOT_SUPPORTED. */
  notSupported: number
  /** PARTIAL. */
  partial: number
  /** SUPPORTED. */
  supported: number
  /** Claims checked. */
  total: number
  /** SOURCE_UNAVAILABLE. */
  unavailable: number
}

/** Run statistics. */
export interface CheckStatistics {
  /** Atomic claims from the splitter dropped because they were not in the text. */
  atomicDropped: number
  /** Claims that cite (after atomic splitting, if any). */
  claims: number
  /** Whether passages were found with sentence vectors (else BM25 only). */
  dense: boolean
  /** Distinct sources cited. */
  distinctSources: number
  /** Verdicts lowered by the deterministic checks. */
  downgraded: number
  /** Total time, ms. */
  elapsedMs: number
  /** Time fetching sources (wall clock), ms. */
  fetchMs: number
  /** Judge used. */
  judge: string
  /** Judge failures (reported as INCONCLUSIVE). */
  judgeErrors: number
  /** Tokens spent by a model judge (0 for the local judge). */
  judgeTokens: number
  /** Citations whose reference entry is missing (`[7]` with no entry 7). */
  missingEntries: number
  /** Time per citation after fetching (retrieval + judge + checks), mean ms. */
  msPerCitation: number
  /** Quotes not found verbatim and replaced by the real sentence. */
  quotesReplaced: number
  /** Sentences read in the document. */
  sentences: number
  /** Claims left unchecked because the run was cancelled or the claim cap was hit. */
  skipped: number
  /** Sources fetched with content. */
  sourcesFetched: number
  /** Total wall time divided by the number of citations, ms. */
  totalMsPerCitation: number
  /** Sources (or references) that could not be read. */
  unavailableSources: UnavailableSource[]
}

/** A source that could not be read, and why. */
export interface UnavailableSource {
  /** Claims that cite it. */
  claims: number
  /** Why. */
  reason: string
  /** URL or reference. */
  source: string
  /** `failed` or `paywalled`. */
  status: SourceStatus
}

/** The verdict on one claim, with the claim and citation it is about. */
export interface CheckResult {
  /** What the deterministic checks changed, if anything. */
  checks?: string[]
  /** What it cites. */
  citationRef: string
  /** How it cites. */
  citationType: CitationType
  /** The claim text. */
  claim: string
  /** Confidence, 0–1. */
  confidence: number
  /** Time spent on this claim after fetching (retrieval + judge + checks), ms. */
  elapsedMs: number
  /** Why. */
  explanation: string
  /** Which judge decided (`local`, `llm:<model>`; `fetch` for unavailable sources). */
  judge: string
  /** Where the claim is in the document. */
  location: CheckLocation
  /** The best passages of the source, best first. */
  passages?: Passage[]
  /** The quote in its context. */
  quoteContext?: QuoteContext
  /** The exact sentence of the source that decides it (verbatim in the fetched source). */
  sourceQuote?: string
  /** The URL fetched, if any. */
  sourceUrl?: string
  /** The verdict. */
  verdict: Verdict
}

/** Where a claim sits in the document text. */
export interface CheckLocation {
  /** Byte offset one past its end. */
  end: number
  /** 1-based line of the claim's first character. */
  line: number
  /** Byte offset of the claim's sentence (or clause) in the document text. */
  start: number
}

/** The quote with a little of the source around it. */
export interface QuoteContext {
  /** Text after the quote. */
  after: string
  /** Text before the quote. */
  before: string
  /** Byte offset one past its end. */
  end: number
  /** The quote, verbatim. */
  quote: string
  /** Byte offset of the quote in the source content. */
  start: number
}

/** A passage of a source handed to a judge, with where it sits in the source. */
export interface Passage {
  /** Byte offset one past its end. */
  end: number
  /** Retrieval score (higher is better; scale depends on the retriever). */
  score: number
  /** URL of the source, when known. */
  sourceUrl?: string
  /** Byte offset of `text` in the source content. */
  start: number
  /** Passage text, verbatim from the source content. */
  text: string
}

/** The check of an answer against its sources. */
export interface AnswerVerification {
  /** Sentences that cite a source (and were judged). */
  checked: number
  /** Of which caught (not SUPPORTED): what `answer_hallucination_flag` counts. */
  flagged: number
  /** The judge configured for the check. */
  judge: string
  /** What was done with unsupported sentences. */
  mode: VerifyMode
  /** Of which removed (`strip`). */
  removed: number
  /** Every sentence of the answer, in order. */
  sentences: SentenceVerdict[]
  /** Of which SUPPORTED. */
  supported: number
}

/** One sentence of an answer and what its cited sources say of it. */
export interface SentenceVerdict {
  /** The `[n]` it cites. */
  citations: number[]
  /** Confidence, 0–1. */
  confidence: number
  /** Why. */
  explanation?: string
  /** Caught: cited, and not SUPPORTED by what it cites. */
  flagged: boolean
  /** Which judge decided. */
  judge?: string
  /** The `[n]` the quote comes from. */
  quoteCitation?: number
  /** Removed from the answer text (`strip`). */
  removed: boolean
  /** The sentence of the cited passage that decides it (its characters). */
  sourceQuote?: string
  /** The sentence, citation markers removed. */
  text: string
  /** The verdict of its best-supporting citation (`None`: it cites nothing). */
  verdict?: Verdict
}

/** Answer of `research`: the checked report and how the run went. */
export interface ResearchReport {
  /** Sentences carrying a citation. */
  citedSentences: number
  /** Covered themes / themes. */
  coverage: number
  /** `true` when something failed and the report is partial. */
  degraded: boolean
  /** Judge used. */
  judge: string
  /** The report in Markdown, ending with its references. */
  markdown: string
  /** What is missing, in words. */
  missing: string[]
  /** Syllabus warnings and run notes. */
  notes: string[]
  /** Attempts the LLM planner used (0 for the deterministic planner). */
  planAttempts: number
  /**
   * How the plan was made: `deterministic`, `llm` (valid after
   * `plan_attempts` attempts) or `llm_fell_back` (every LLM plan was
   * invalid; the deterministic plan ran — `notes` say why).
   */
  planner: string
  /** The references the report cites, by number. */
  references: ResearchReference[]
  /** Run directory (brief, plan, trace, report, `result.json`). */
  runDir: string
  /** Of which the judge supports. */
  supportedSentences: number
  /** Share of cited sentences the judge supports. */
  supportedShare: number
  /** Failed tasks. */
  tasksFailed: number
  /** Tasks that succeeded, failed, were skipped. */
  tasksOk: number
  /** Skipped tasks. */
  tasksSkipped: number
  /** Per theme. */
  themes: ThemeCoverage[]
  /** Time per step (`syllabus`, `brief`, `plan`, `execute`, `write`, `check`, …). */
  timings: StepTiming[]
  /** Citations naming no retrieved source (0 in a checked report). */
  unresolvedCitations: number
  /** Who wrote the draft and which judge checked it. */
  writer: string
}

/** Coverage of one theme of the brief. */
export interface ThemeCoverage {
  /** Cited sentences in its section. */
  cited: number
  /** At least one supported, cited sentence. */
  covered: boolean
  /** Theme id (`T1`…). */
  id: string
  /** Of which the judge supports. */
  supported: number
  /** Title. */
  title: string
}

/** One reference of the report. */
export interface ResearchReference {
  /** Knowledge-base file name, for internal files. */
  filename?: string
  /** Citation number (`[n]` in the text). */
  n: number
  /** Title. */
  title: string
  /** URL, for web sources. */
  url?: string
}

/** Duration of one step of a run. */
export interface StepTiming {
  /** Milliseconds. */
  ms: number
  /** Step name. */
  step: string
}

/** One knowledge-base entry. */
export interface KnowledgeEntry {
  /** Store id once indexed. */
  fileId?: string
  /** File name in the knowledge base directory. */
  filename: string
  /** Keywords. */
  keywords: string[]
  /** Summary. */
  summary: string
  /** Title. */
  title: string
  /** Where it was downloaded from (absent for files placed by hand). */
  url?: string
}

/** Answer of `add_reference`. */
export interface AddReferenceResult {
  /** `true` when the document was downloaded by this call. */
  downloaded: boolean
  /** How summary and keywords were filled (`syllabus`, `extractive`, `llm:<model>`, `kept`). */
  enrichedBy: string
  /** The knowledge-base entry after the operation. */
  entry: KnowledgeEntry
  /** `true` when it was indexed by this call (`false`: already indexed). */
  indexed: boolean
}

/** Output of `get_veille_rules`. */
export interface RulesResponse {
  /** Active rules, by priority then name. */
  rules: RelevanceRule[]
  /** How scores read. */
  scoringGuide: ScoringGuide
}

/** A relevance rule (`update_veille_rule`). */
export interface RelevanceRule {
  /** Inactive rules are kept but ignored. */
  active: boolean
  /** Free description. */
  description?: string
  /** Keywords that trigger the rule (words or multi-word phrases). */
  keywords: string[]
  /** Unique name. */
  name: string
  /** Priority. */
  priority: Priority
  /** Score change when it triggers (−10 … +5). */
  scoreModifier: number
  /** Include, exclude or boost. */
  type: RuleKind
}

/**
 * How scores read (`scoring_guide`): every article starts at
 * `base_score`, matched rules add their modifiers, the result is clamped to
 * `0..=max_score`, and `min_valid_score` or more is relevant.
 */
export interface ScoringGuide {
  /** Starting score (default 5). */
  baseScore: number
  /** Highest score (default 10). */
  maxScore: number
  /** Lowest relevant score (default 7). */
  minValidScore: number
}

/** Output of `update_veille_rule`. */
export interface UpdateRuleResponse {
  /** True when no rule had this name before. */
  created: boolean
  /** The rule as stored. */
  rule: RelevanceRule
  /** Always true on success. */
  updated: boolean
}

/** Result of `score_article`. */
export interface ScoreResult {
  /** Whether an exclude rule matched. */
  excluded: boolean
  /** One line per step: base, each rule, clamping, verdict. */
  explanation: string[]
  /** Rules that matched, by priority then name. */
  matchedRules: RuleMatch[]
  /** Base score plus modifiers, before clamping. */
  rawScore: number
  /** Final score, clamped to `0..=scoring_guide.max_score`. */
  score: number
  /** The guide used. */
  scoringGuide: ScoringGuide
  /** Content beyond `MAX_SCORED_BYTES` was not read. */
  truncated?: boolean
  /** `score >= min_valid_score` and no exclude rule matched. */
  valid: boolean
}

/** A rule that matched and what it did. */
export interface RuleMatch {
  /** Keywords that matched. */
  keywords: KeywordHit[]
  /** Rule priority. */
  priority: Priority
  /** Rule name. */
  rule: string
  /** Modifier applied (once per rule). */
  scoreModifier: number
  /** Rule type. */
  type: RuleKind
}

/** A keyword of a rule that matched. */
export interface KeywordHit {
  /** Occurrences over all fields. */
  count: number
  /** Fields it occurs in. */
  fields: Field[]
  /** The keyword as written in the rule. */
  keyword: string
}

/** Output of `check_article_exists`. */
export interface CheckArticleResult {
  /** The logged article. */
  article?: ArticleBrief
  /**
   * The canonical form that was looked up (tracking parameters, `www.`,
   * AMP, trailing slash and scheme folded): a duplicate-detection key only.
   */
  canonicalUrl: string
  /** SimHash distance in bits, for near-duplicates. */
  distance?: number
  /** Whether the article was already processed. */
  exists: boolean
  /** How it was recognised. */
  matchedBy?: MatchedBy
  /** Human-readable verdict. */
  message: string
  /** The URL as given (trimmed): the article's URL, never rewritten. */
  url: string
}

/** A logged article in short (`check_article_exists.article`). */
export interface ArticleBrief {
  /** Id. */
  id: string
  /** Validated by the validating LLM. */
  phiValidated: boolean
  /** First logged. */
  processedAt: string
  /** Score of the scoring LLM. */
  qwenScore?: number
  /** Source. */
  source: string
  /** Title. */
  title: string
  /** URL as logged. */
  url: string
}

/** Output of `log_article`. */
export interface LogArticleResult {
  /** Id of the article record (an existing one when this is a re-log or a duplicate). */
  articleId: string
  /** Canonical URL. */
  canonicalUrl: string
  /** True when a new record was created. */
  created: boolean
  /**
   * Set when the content is a near-duplicate of an article logged at
   * another URL: this URL was added to that article instead.
   */
  duplicateOf?: string
  /** Why the ingest failed (the article is logged anyway). */
  ingestError?: string
  /** Whether `raw_content` was handed to the ingest (`None`: no content or no ingest configured). */
  ingested?: boolean
  /** Always true on success. */
  logged: boolean
}

/** Output of `get_articles`. */
export interface ArticlesResponse {
  /** Articles, newest first. */
  articles: Article[]
  /** `"{days} days"`. */
  period: string
  /** How many were returned. */
  total: number
}

/**
 * A logged article: every field of `log_article`, plus what the
 * watch derives from it.
 */
export interface Article {
  /** Other canonical URLs the same article was seen at (republications). */
  aliases?: string[]
  /** Canonical form of `url` (see `verity_watch::canonical_url`). */
  canonicalUrl: string
  /** SHA-1 of the normalised raw content, when content was given. */
  contentSha1?: string
  /** Hashtags. */
  hashtags: string[]
  /** Stable id (`art_` + 16 hex digits of the canonical URL's SHA-1). */
  id: string
  /** Expected impact. */
  impact?: string
  /** LinkedIn post draft. */
  linkedinDraft?: string
  /** Confidence of the validating LLM (0…1). */
  phiConfidence?: number
  /** Whether the validating LLM accepted it. */
  phiValidated: boolean
  /** First logged. */
  processedAt: string
  /** Keywords given by the scoring LLM. */
  qwenKeywords: string[]
  /** Score given by the scoring LLM. */
  qwenScore?: number
  /** 64-bit SimHash of the raw content (near-duplicate detection). */
  simhash?: number
  /** Source name (`ollama_blog`, …). */
  source: string
  /** Source type. */
  sourceType: SourceType
  /** French summary. */
  summaryFr?: string
  /** Title. */
  title: string
  /** Last logged again. */
  updatedAt: string
  /** URL as first logged. */
  url: string
  /** Words in the raw content, when given. */
  wordCount?: number
}

/** Output of `log_veille_decision` and `log_decision`. */
export interface LogDecisionResult {
  /** When it was logged. */
  createdAt: string
  /** Id of the new entry. */
  decisionId: string
  /** Always true on success. */
  logged: boolean
}

/** Watch decisions, oldest first. */
export interface WatchDecisionsResponse {
  /** Entries. */
  decisions: WatchDecision[]
  /** How many were returned. */
  total: number
}

/** One entry of the append-only decision audit log (`log_veille_decision`). */
export interface WatchDecision {
  /** Article concerned (absent for general decisions). */
  articleId?: string
  /** Confidence (0…1). */
  confidence?: number
  /** When it was logged. */
  createdAt: string
  /** The decision. */
  decision: string
  /** Kind of decision. */
  decisionType: DecisionType
  /** Id (`dec_…`, time-ordered). */
  id: string
  /** LLM that decided. */
  llm: DecisionLlm
  /** Justification. */
  reasoning?: string
  /** Tools called for it. */
  toolsUsed: string[]
}

/** Output of `web_search`. */
export interface WebSearchResponse {
  /** The query. */
  query: string
  /** Results. */
  results: WebResult[]
  /** Number of results. */
  totalFound: number
}

/** One web result. */
export interface WebResult {
  /** Snippet. */
  snippet: string
  /** Host. */
  source: string
  /** Title. */
  title: string
  /** URL. */
  url: string
}

/** Output of `crawl_url`. */
export interface CrawlResponse {
  /** Main content (Markdown), capped. */
  content: string
  /** When it was extracted. */
  extractedAt: string
  /**
   * Links of the main content (anchor text, absolute URL): the content
   * carries the anchor text only, the targets are here.
   */
  links?: CrawlLink[]
  /** The page is behind a paywall (content may be partial). */
  paywalled?: boolean
  /** Title. */
  title: string
  /** The content was cut at the configured cap. */
  truncated?: boolean
  /** URL after redirects. */
  url: string
  /** Words in the full main content. */
  wordCount: number
}

/** A link of a crawled page's main content. */
export interface CrawlLink {
  /** Anchor text, as it reads in the content. */
  text: string
  /** Absolute target URL. */
  url: string
}

/**
 * Output of `verify_fact` (`verified`, `confidence`, `sources`, `summary`, plus the verdict, the judge and
 * the pages that could not be read).
 */
export interface VerifyFactResult {
  /** The claim. */
  claim: string
  /** Confidence in the overall verdict (0…1). */
  confidence: number
  /** Which judge decided (`local`, `llm:<model>`). */
  judge: string
  /** True when no page let the judge decide. */
  notEnoughEvidence: boolean
  /** The web search query, when the pages came from a search. */
  searched?: string
  /** Pages that speak of the claim, the deciding ones first. */
  sources: FactSource[]
  /** One-paragraph explanation. */
  summary: string
  /** Pages that could not be read. */
  unavailable?: UnreadSource[]
  /** Overall verdict. */
  verdict: Verdict
  /** True only when a source supports the claim and none contradicts it. */
  verified: boolean
}

/** One source of a `verify_fact` answer. */
export interface FactSource {
  /** The judge's confidence for this page (0…1). */
  confidence: number
  /**
   * Sentence of the page that decided its verdict: the page's own
   * characters (empty when the page does not discuss the claim).
   */
  excerpt: string
  /**
   * Which judge decided this page (`local`, `llm:<model>`; `local` when
   * the configured LLM judge failed on it, said in `notes`).
   */
  judge: string
  /** What changed the verdict after the judge, and fallbacks. */
  notes?: string[]
  /** Page title. */
  title?: string
  /** Page URL (after redirects). */
  url: string
  /** What this page says about the claim. */
  verdict: Verdict
}

/** A page `verify_fact` could not read. */
export interface UnreadSource {
  /** Stable error code. */
  code: string
  /** What went wrong. */
  error: string
  /** URL tried. */
  url: string
}

/** A project. */
export interface Project {
  /** Created. */
  createdAt: string
  /** Description. */
  description?: string
  /** Id (`prj_…`). */
  id: string
  /** Name (unique is not required). */
  name: string
  /** Status. */
  status: ProjectStatus
  /** Free tags. */
  tags: string[]
  /** Last changed. */
  updatedAt: string
}

/**
 * A piece of project context (notes, specs, excerpts) that `query_context`
 * retrieves from.
 */
export interface ContextEntry {
  /** The text. */
  content: string
  /** Created. */
  createdAt: string
  /** Id (`ctx_…`). */
  id: string
  /** Project it belongs to. */
  projectId: string
  /** Free tags. */
  tags: string[]
  /** Optional title. */
  title?: string
}

/** A task. */
export interface Task {
  /** Created. */
  createdAt: string
  /** Ids of tasks (same project) that must be finished first. */
  dependsOn: string[]
  /** Description. */
  description?: string
  /** Id (`tsk_…`). */
  id: string
  /** Priority. */
  priority: Priority
  /** Project it belongs to. */
  projectId: string
  /** Status. */
  status: TaskStatus
  /** Title. */
  title: string
  /** Last changed. */
  updatedAt: string
}

/** A decision recorded on a project (`log_decision`). */
export interface ProjectDecision {
  /** Options that were considered. */
  alternatives: string[]
  /** When. */
  createdAt: string
  /** The decision. */
  decision: string
  /** Id (`pdc_…`, time-ordered). */
  id: string
  /** Project. */
  projectId: string
  /** Why. */
  reasoning?: string
  /** Free tags. */
  tags: string[]
}

/** Output of `list_projects`. */
export interface ProjectsResponse {
  /** Projects, oldest first. */
  projects: Project[]
  /** How many. */
  total: number
}

/** Output of `get_project`. */
export interface ProjectOverview {
  /** Number of context entries. */
  contextEntries: number
  /** The project. */
  project: Project
  /** Its most recent decisions (up to 10), oldest first. */
  recentDecisions: ProjectDecision[]
  /** Its tasks, oldest first. */
  tasks: Task[]
}

/** Output of `store_context`. */
export interface StoreContextResult {
  /** Id of the entry. */
  contextId: string
  /** Whether the context index accepted it (`None`: no index configured). */
  indexed?: boolean
  /** Always true on success. */
  stored: boolean
}

/** Output of `query_context`. */
export interface QueryContextResult {
  /** Why the index was not used although configured. */
  degraded?: string
  /** How they were ranked. */
  ran: ContextRanking
  /** Best entries first. */
  results: ContextHit[]
}

/** One retrieved context entry. */
export interface ContextHit {
  /** The entry. */
  entry: ContextEntry
  /** Relevance (higher is better; scale depends on `ran`). */
  score: number
}

/** Output of `delete_context`. */
export interface DeleteContextResult {
  /** Id removed. */
  contextId: string
  /** Always true on success (an unknown id is a not-found error). */
  deleted: boolean
}

/** Output of `get_next_tasks`. */
export interface NextTasksResult {
  /** Open tasks marked blocked. */
  blocked: number
  /**
   * Ready tasks (open, every dependency finished): in progress first,
   * then by priority, then oldest.
   */
  tasks: Task[]
  /** Open tasks still waiting on unfinished dependencies. */
  waiting: number
}

/** Output of `get_decisions`. */
export interface ProjectDecisionsResponse {
  /** Decisions, oldest first. */
  decisions: ProjectDecision[]
  /** How many were returned. */
  total: number
}

/**
 * A source document, in Verity's ingestion schema
 * (`uid, source, ts, lang, title, content, tags` + free metadata).
 *
 * Deserializing one is `Document::from_record` (`crate::record`): any
 * field besides these is kept in `metadata`, never dropped.
 */
export interface StoredDocument {
  /** Full text (Markdown for parsed sources). */
  content: string
  /** ISO 639-1 language code (`en`, `fr`, …); detected when absent. */
  lang?: string
  /**
   * Any other field of the input record (e.g. `node_pubkey`,
   * `channel_id`, `metrics`, …), filterable; a `metadata` object is merged in.
   */
  metadata?: Record<string, unknown>
  /** Where it comes from (`internal`, a file path, a host, …). */
  source: string
  /** Free tags. */
  tags?: string[]
  /** Title, if any. */
  title?: string
  /** Publication / event time (RFC 3339), used for time filters and freshness. */
  ts?: string
  /** Stable identifier. Re-ingesting the same uid replaces the document. */
  uid: string
  /** Canonical URL, when the document has one (cited in answers). */
  url?: string
}

/** One search result: a chunk, its document and its scores. */
export interface ScoredChunk {
  /** The chunk. */
  chunk: Chunk
  /** Cosine similarity, when the dense index saw this chunk. */
  dense?: number
  /** Its document (without content). */
  doc: DocumentMeta
  /** Freshness factor in `[0, 1]` applied by the re-ranker, if any. */
  freshness?: number
  /** Raw BM25 score, when the lexical index saw this chunk. */
  lexical?: number
  /**
   * Relevance in `[0, 1]` comparable across modes (cosine similarity for
   * dense, a normalised BM25 for lexical, the better of both for hybrid);
   * this is what the low-evidence guardrail reads.
   */
  relevance: number
  /** Final score used for ordering (higher is better; meaning depends on mode). */
  score: number
}

/** One stored event. */
export interface MemoryEvent {
  /** Free JSON object; its text field (`text`, `body`, `message`, …) is embedded. */
  content: Record<string, unknown>
  /** The event's vector (`None`: no text and none supplied). */
  embedding: number[] | null
  /** When the event expires (vanishes from every read, then purged). */
  expiresAt?: string
  /** Identifier. */
  id: string
  /** Tags, external ids, … (filtered with containment semantics). */
  metadata: Record<string, unknown>
  /** Rank score of lexical (BM25 relevance in `[0, 1)`) and hybrid (fused) searches, higher = better. */
  rankScore?: number
  /** L2 distance to the query vector when a vector search ran (lower = more similar). */
  similarityScore: number | null
  /** When it happened (UTC). */
  timestamp: string
}

/** MnemoLite's search envelope: `{data, meta: {total_hits, limit, offset}}`. */
export interface MemoryPage {
  /** Events of this page, best (or newest) first. */
  data: MemoryEvent[]
  /** Counts and how the search ran. */
  meta: EventSearchMeta
}

/** A written event and how it was indexed. */
export interface Remembered {
  /** Where its vector came from. */
  embeddingSource: { kind: 'supplied' } | { field: string; kind: 'auto' } | { kind: 'none' }
  /** The stored event. */
  event: MemoryEvent
  /** Said when the event is only findable by metadata and time (or lexically). */
  note?: string
}

/** What `forget` deleted. */
export interface ForgetResponse {
  /** Events deleted. */
  deleted: number
}

/**
 * A retrieval as the `/v1/retrieve` contract returns it: `uids`, `scores`, `sources` in rank
 * order, plus the full hits and flags.
 */
export interface RetrieveResponse {
  /** The hits, best first. */
  hits: ScoredChunk[]
  /** Mode that ran (lexical when dense was impossible; see `notes`). */
  mode: SearchMode
  /** Best relevance under the guardrail: do not answer from these. */
  notEnoughEvidence: boolean
  /** Notes. */
  notes?: string[]
  /** Score of each hit. */
  scores: number[]
  /** Source of each hit. */
  sources: string[]
  /** Document uid of each hit. */
  uids: string[]
}

/** The document, when it exists. */
export interface GetDocumentResponse {
  /** `None` when no document has this uid. */
  document: StoredDocument | null
}

/** Answer of `find_by_name`. */
export interface FindByNameResponse {
  /** The entry, when found. */
  entry?: KnowledgeEntry
  /** `true` when the knowledge base has the file. */
  found: boolean
}

/** How one error code is reported by each host. */
export interface ErrorMapping {
  /** The `Error::code`. */
  code: string
  /** CLI exit status. */
  exitCode: number
  /** HTTP status of the REST server (a client mistake is never a 5xx). */
  httpStatus: number
  /** The JS `err.code` (the error code itself). */
  jsCode: string
  /** JSON-RPC error code of the MCP server. */
  jsonrpcCode: number
  /** Exception class in the Python module `verity.errors`. */
  pythonClass: string
}

/** Everything about a document but its content. */
export interface DocumentMeta {
  /** Language. */
  lang?: string
  /** Free metadata. */
  metadata?: Record<string, unknown>
  /** Source. */
  source: string
  /** Tags. */
  tags?: string[]
  /** Title. */
  title?: string
  /** Timestamp. */
  ts?: string
  /** Document uid. */
  uid: string
  /** Canonical URL. */
  url?: string
}

/**
 * Identity of an embedding space. Recorded in every index: vectors from two
 * different ids are never mixed.
 */
export interface EmbedderId {
  /** Vector dimension. */
  dim: number
  /** Model name with its immutable tag (`all-MiniLM-L6-v2`, `nomic-embed-text:v1.5`). */
  model: string
  /**
   * `EMBED_VERSION`: bump it when the model, its settings or the
   * chunking change; a change requires a full re-index.
   */
  version: string
}

/** The `meta` of an `EventSearchResponse`. */
export interface EventSearchMeta {
  /** Page size asked. */
  limit: number
  /** Index that answered (`vector`, `lexical`, `hybrid`, `metadata-only`). */
  mode: EventSearchMode
  /** Honest notes (a text query without embedder ran lexical, …). */
  notes?: string[]
  /** Offset asked. */
  offset: number
  /**
   * `true` when a strict `distance_threshold` found nothing on a pure
   * vector search and the nearest events were returned instead.
   */
  thresholdFallback: boolean
  /** Matching events before pagination, when known exactly. */
  totalHits: number | null
}

/** Time spent in each stage, in milliseconds. */
export interface Timings {
  /** Generation (all attempts). */
  generationMs: number
  /** Re-ranking. */
  rerankMs: number
  /** Retrieval (embedding the query + search). */
  retrievalMs: number
  /** End to end. */
  totalMs: number
}

/** Search the store (`verity search`, `store.search`, `POST /search`). */
export interface SearchOptions {
  /**
   * The same filters as one object (`{query, k, filters}`),
   * combined with the top-level ones.
   */
  filters?: { lang?: string | string[] | null; langs?: string[]; metadata?: Record<string, unknown>; since?: string | null; sources?: string[]; tags?: string[]; tags_all?: string[]; uids?: string[]; until?: string | null } | null
  /** Hits wanted, 1 to `MAX_K` (default `DEFAULT_K` = 8). */
  k?: number | null
  /** Keep documents in these languages. */
  langs?: string[]
  /** Metadata equality (`{"key": value}`) or membership (`{"key": [v1, v2]}`); all must hold. */
  metadata?: Record<string, unknown>
  /**
   * `lexical`, `dense` or `hybrid`. Default: hybrid; a search that cannot
   * run dense (no embedder, no vectors, another embedding space) runs
   * lexical and says so in the response's `notes`.
   */
  mode?: SearchMode | null
  /** Keep documents dated at or after this (RFC 3339, or `YYYY-MM-DD` = that day 00:00 UTC). */
  since?: string | null
  /** Keep documents from these sources. */
  sources?: string[]
  /** Keep documents having any of these tags. */
  tags?: string[]
  /** Keep documents having all of these tags. */
  tagsAll?: string[]
  /** Keep only these document uids. */
  uids?: string[]
  /** Keep documents dated at or before this (RFC 3339, or `YYYY-MM-DD` = the whole day). */
  until?: string | null
}

/**
 * Answer a question from the sources (`verity ask`, `store.ask`,
 * `POST /v1/rag` with `{query, lang}`).
 */
export interface AskOptions {
  /** As in `SearchRequest::filters`. */
  filters?: { lang?: string | string[] | null; langs?: string[]; metadata?: Record<string, unknown>; since?: string | null; sources?: string[]; tags?: string[]; tags_all?: string[]; uids?: string[]; until?: string | null } | null
  /** Chunks given to the generator, 1 to `MAX_K` (default: the configured `k`, 8). */
  k?: number | null
  /**
   * Answer language (ISO 639-1, e.g. `fr`, `en`); retrieval prefers
   * documents in it and mixes languages when they hold too little. When
   * absent, the configured default answer language (`RAG_DEFAULT_LANG`;
   * `fr` on `verity serve`; `en` elsewhere).
   */
  lang?: string | null
  /** As in `SearchRequest::langs`. */
  langs?: string[]
  /** As in `SearchRequest::metadata`. */
  metadata?: Record<string, unknown>
  /** Retrieval mode, as in `SearchRequest::mode`. */
  mode?: SearchMode | null
  /** Bypass the answer cache (default `false`). */
  noCache?: boolean
  /** As in `SearchRequest::since`. */
  since?: string | null
  /** As in `SearchRequest::sources`. */
  sources?: string[]
  /** As in `SearchRequest::tags`. */
  tags?: string[]
  /** As in `SearchRequest::tags_all`. */
  tagsAll?: string[]
  /** As in `SearchRequest::uids`. */
  uids?: string[]
  /** As in `SearchRequest::until` (a bare date includes the day). */
  until?: string | null
  /**
   * Check the answer against its sources before returning it: each
   * sentence that cites `[n]` is judged against passage `n` (the local
   * judge of `verity check`). `flag` (default) keeps every sentence and
   * marks the unsupported ones `[unsupported: VERDICT]`; `strip` removes
   * them; `off` skips the check. Per-sentence verdicts and quotes are in
   * the answer's `verification`.
   */
  verify?: VerifyMode | null
}

/**
 * Settings a host overrides over `VerityConfig::from_env` (unset fields
 * keep the environment's value, then the default). The CLI fills it from its
 * flags, Python from `Store.open(...)` keywords, Node from `Verity.open({...})`,
 * the servers from their command line.
 */
export interface ConfigOverrides {
  /**
   * Let the watch's `crawl_url` and `verify_fact` read private and
   * loopback addresses (`VERITY_ALLOW_PRIVATE`; intranets and tests).
   */
  allowPrivate?: boolean | null
  /** Cache retrievals and answers (default `true`). */
  cache?: boolean | null
  /** Size limit of the answer cache in MiB, `0` for none (`VERITY_CACHE_ANSWER_MB`, default 32). */
  cacheAnswerMb?: number | null
  /** Size limit of the embedding cache in MiB, `0` for none (`VERITY_CACHE_EMBEDDING_MB`, default 1024). */
  cacheEmbeddingMb?: number | null
  /** Size limit of the retrieval cache in MiB, `0` for none (`VERITY_CACHE_RETRIEVAL_MB`, default 64). */
  cacheRetrievalMb?: number | null
  /**
   * Answer language of questions that name none (`RAG_DEFAULT_LANG`;
   * default `en`, and `fr` on the REST server: `Self::with_rest_defaults`).
   */
  defaultLang?: string | null
  /** Embedder: `auto`, `none`, `local[:DIR]`, `ollama:MODEL:TAG`, `openai:MODEL` (`VERITY_EMBEDDER`). */
  embedder?: string | null
  /** Fallback generator, same syntax (`VERITY_FALLBACK`). */
  fallback?: string | null
  /**
   * The fast ingest profile (`verity ingest --fast`): the local embedder
   * runs its 8-bit products and pools sentence vectors from the chunk's
   * pass (`VERITY_EMBED_PRECISION=int8`, `VERITY_SENTENCE_VECTORS=pooled`).
   * About 2.4× fewer word pieces, each ~1.2× faster, for −0.006 hybrid
   * nDCG@10 on SciFact (docs/benchmarks.d/ingest.md).
   */
  fast?: boolean | null
  /** Generator: `extractive`, `local[:FILE.gguf]`, `ollama:MODEL:TAG`, `openai:MODEL` (`VERITY_GENERATOR`). */
  generator?: string | null
  /** Index or alias (`VERITY_INDEX`, default `default`). */
  index?: string | null
  /** Jina Reader endpoint for the watch's `crawl_url` (`JINA_READER_URL`). */
  jinaReaderUrl?: string | null
  /** Chunks given to the generator (`RAG_TOPK`). */
  k?: number | null
  /** Research knowledge base directory (`VERITY_KNOWLEDGE_DIR`, default `<home>/knowledge`). */
  knowledgeDir?: string | null
  /** Guardrail: best relevance under this means "not enough evidence" (`RAG_MIN_SCORE`). */
  minRelevance?: number | null
  /** Ollama base URL (`OLLAMA_URL`). */
  ollamaUrl?: string | null
  /** OpenAI-compatible base URL (`OPENAI_BASE_URL`). */
  openaiUrl?: string | null
  /** Redis URL (`REDIS_URL`); when set the store and caches live in Redis. */
  redisUrl?: string | null
  /** SearXNG instance for web search (`VERITY_SEARXNG_URL` or `SEARXNG_URL`). */
  searxngUrl?: string | null
}

/**
 * Check the citations of one document (`verity check`, `POST /v1/verify`,
 * `verity.check`). Exactly one of `content`, `content_base64`, `url` or
 * `path` is given.
 */
export interface CheckRequest {
  /**
   * Let the document URL and the cited sources be on private or loopback
   * addresses (disables the SSRF guard for this check; default `false`).
   * For tests and intranets; servers accept it only when their operator allows it.
   */
  allowPrivate?: boolean
  /** Sources fetched and claims judged at once (1–32, default 4). */
  concurrency?: number | null
  /** The document as text (Markdown, HTML or plain text). */
  content?: string | null
  /** The document's bytes in base64 (PDF, or any format), e.g. an uploaded file. */
  contentBase64?: string | null
  /** `markdown`, `html`, `text`, `pdf` or a MIME type; sniffed when absent. */
  contentType?: string | null
  /** How hosts render the report (default `json`; the facade always returns the report). */
  format?: ReportFormat | null
  /** Which judge decides (default `auto`). */
  judge?: JudgeChoice | null
  /** File name of an uploaded document (helps sniffing its format). */
  name?: string | null
  /** A local file (CLI and bindings; servers read files only under their roots). */
  path?: string | null
  /** An http(s) URL of the document, fetched with the shared fetcher. */
  url?: string | null
}

/** Input of `get_veille_rules`. */
export interface GetRulesRequest {
  /** Filter by priority */
  priority?: Priority | null
  /** Filter by rule type (default: all) */
  type?: RuleTypeFilter
}

/**
 * Input of `update_veille_rule`: create or replace the rule `name`.
 * Omitted fields take defaults (modifier by kind: include +2, boost +1,
 * exclude −10; priority medium).
 */
export interface RuleUpdate {
  /** Whether the rule is applied (default true). */
  active?: boolean | null
  /** Free description. */
  description?: string | null
  /** Keywords (words or phrases) the rule matches */
  keywords: string[]
  /** Unique name of the rule */
  name: string
  /** Priority. */
  priority?: Priority | null
  /** Score modifier (-10 to +5) */
  scoreModifier?: number | null
  /** Rule type: include, exclude or boost */
  type: RuleKind
}

/** Input of `score_article`. */
export interface ScoreRequest {
  /** Article text. */
  content?: string
  /** Article title. */
  title?: string
  /** Article URL (its host and path words are matched too). */
  url?: string
}

/**
 * Input of `check_article_exists`. `title` and `content` are optional
 * additions: with content, republications of a logged article
 * at another URL are found too.
 */
export interface CheckArticleRequest {
  /** Article text, to detect the same article at another URL. */
  content?: string | null
  /** URL of the article to check */
  url: string
}

/** Input of `log_article`. */
export interface LogArticleRequest {
  /** Hashtags. */
  hashtags?: string[]
  /** Impact. */
  impact?: string | null
  /** LinkedIn draft. */
  linkedinDraft?: string | null
  /** Confidence of the validating LLM (0…1). */
  phiConfidence?: number | null
  /** Validated by the validating LLM. */
  phiValidated?: boolean | null
  /** Keywords of the scoring LLM. */
  qwenKeywords?: string[]
  /** Score of the scoring LLM (0…max score). */
  qwenScore?: number | null
  /**
   * Full text: fingerprinted for duplicate detection and handed to the
   * configured ingest so later RAG and verification can use it.
   */
  rawContent?: string | null
  /** Source name. */
  source: string
  /** Source type. */
  sourceType: SourceType
  /** French summary. */
  summaryFr?: string | null
  /** Title. */
  title: string
  /** URL. */
  url: string
}

/** Input of `get_articles`. */
export interface GetArticlesRequest {
  /** How many days back to read */
  days?: number
  /** Largest number of articles */
  limit?: number
  /** Filter by source */
  source?: string | null
  /** Only articles validated by Phi */
  validatedOnly?: boolean
}

/** Input of `log_veille_decision`. */
export interface LogDecisionRequest {
  /** Id of the article concerned (optional for a general decision) */
  articleId?: string | null
  /** Confidence (0-1) */
  confidence?: number | null
  /** The decision made */
  decision: string
  /** Decision type */
  decisionType: DecisionType
  /** LLM that made the decision */
  llm: DecisionLlm
  /** Reasoning behind the decision */
  reasoning?: string | null
  /** Tools called for this decision */
  toolsUsed?: string[]
}

/** Reading the watch decision log back (per article and/or period). */
export interface GetWatchDecisionsRequest {
  /** Only this article (must exist). */
  articleId?: string | null
  /** Only the last `days` days. */
  days?: number | null
  /** At most this many (the most recent). */
  limit?: number
  /** Logged at or after. */
  since?: string | null
  /** Logged before. */
  until?: string | null
}

/** Input of `web_search`. */
export interface WebSearchOptions {
  /** Number of results (at most 10) */
  numResults?: number
  /** Time range filter */
  timeRange?: WebTimeRange | null
}

/**
 * Input of `verify_fact`. With `urls`, the
 * claim is checked against these pages instead of a web search.
 */
export interface VerifyFactRequest {
  /** The claim to verify */
  claim: string
  /** Extra context to refine the search */
  context?: string | null
  /** Sources to read (default: a web search) */
  urls?: string[]
}

/** Input of `create_project`. */
export interface CreateProjectRequest {
  /** Description. */
  description?: string | null
  /** Name. */
  name: string
  /** Status (default active). */
  status?: ProjectStatus | null
  /** Tags. */
  tags?: string[]
}

/** Input of `list_projects`. */
export interface ListProjectsRequest {
  /** Only this status. */
  status?: ProjectStatus | null
}

/** Input of `update_project`: only the given fields change. */
export interface UpdateProjectRequest {
  /** New description. */
  description?: string | null
  /** New name. */
  name?: string | null
  /** Project id. */
  projectId: string
  /** New status. */
  status?: ProjectStatus | null
  /** New tags. */
  tags?: string[] | null
}

/** Input of `store_context`. */
export interface StoreContextRequest {
  /** Text. */
  content: string
  /** Project id. */
  projectId: string
  /** Tags. */
  tags?: string[]
  /** Title. */
  title?: string | null
}

/** Input of `query_context`. */
export interface QueryContextRequest {
  /** Entries wanted (default 5). */
  limit?: number
  /** Project id. */
  projectId: string
  /** What to look for. */
  query: string
}

/** Input of `create_task`. */
export interface CreateTaskRequest {
  /** Tasks of the same project that must finish first. */
  dependsOn?: string[]
  /** Description. */
  description?: string | null
  /** Priority (default medium). */
  priority?: Priority | null
  /** Project id. */
  projectId: string
  /** Status (default todo). */
  status?: TaskStatus | null
  /** Title. */
  title: string
}

/** Input of `update_task`: only the given fields change. */
export interface UpdateTaskRequest {
  /** New dependencies (replaces the list; cycles are refused). */
  dependsOn?: string[] | null
  /** New description. */
  description?: string | null
  /** New priority. */
  priority?: Priority | null
  /** New status. */
  status?: TaskStatus | null
  /** Task id. */
  taskId: string
  /** New title. */
  title?: string | null
}

/** Input of `get_next_tasks`. */
export interface NextTasksRequest {
  /** Tasks wanted (default 5). */
  limit?: number
  /** Project id. */
  projectId: string
}

/** Input of `log_decision` (AuraCore). */
export interface LogProjectDecisionRequest {
  /** Options considered. */
  alternatives?: string[]
  /** The decision. */
  decision: string
  /** Project id. */
  projectId: string
  /** Why. */
  reasoning?: string | null
  /** Tags. */
  tags?: string[]
}

/** Input of `get_decisions` (AuraCore). */
export interface GetProjectDecisionsRequest {
  /** At most this many (the most recent). */
  limit?: number
  /** Project id. */
  projectId: string
}

/** `remember`: store a piece of text for later. */
export interface RememberRequest {
  /** Tags, ids, … (a JSON object) used to filter later. */
  metadata?: Record<string, unknown>
  /** What to remember (stored as the event's `content.text`, embedded). */
  text: string
  /** Seconds until the event is forgotten (default: kept). */
  ttlSeconds?: number | null
}

/** `recall`: find remembered events by meaning and/or words, metadata and time. */
export interface RecallRequest {
  /** Largest L2 distance kept, 0–2 (default: none, the nearest events). */
  distanceThreshold?: number | null
  /** Metadata the events must contain (containment: nested objects and arrays). */
  filterMetadata?: Record<string, unknown>
  /** Results, 1–100 (default 10). */
  limit?: number
  /** Index used (default: hybrid with an embedder, else lexical). */
  mode?: EventSearchMode | null
  /** What to look for; omitted: the newest events matching the filters. */
  query?: string | null
  /** Latest timestamp (ISO 8601 with a zone). */
  tsEnd?: string | null
  /** Earliest timestamp (ISO 8601 with a zone). */
  tsStart?: string | null
}

/** `forget`: delete one event by id, or every event matching a filter. */
export interface ForgetRequest {
  /** Delete the events whose metadata contains this object. */
  filterMetadata?: Record<string, unknown>
  /** The event to delete (exclusive with the filters). */
  id?: string | null
  /** … and at or before this. */
  tsEnd?: string | null
  /** … and whose timestamp is at or after this. */
  tsStart?: string | null
}

/**
 * Options of a research run and of the knowledge-base calls (`research`,
 * `find_by_name`, `add_reference` of `crate::Verity`): the keywords of
 * the Python methods, the options object of the Node ones, the flags of
 * `verity research`.
 * Servers do not take them from clients (paths on the server, the SSRF
 * guard): `POST /v1/research` and the MCP tools set them from their
 * configuration.
 */
export interface ResearchOptions {
  /**
   * Let references on private and loopback addresses be fetched
   * (disables the SSRF guard; intranets and tests; default `false`).
   */
  allowPrivate?: boolean
  /**
   * Time budget of the run in seconds (default 300): past it, the LLM
   * steps give way to their offline path and the note says it is partial.
   */
  budgetSecs?: number | null
  /**
   * Judge of the report check (default `auto`: the LLM judge when a
   * model generator is configured, else the local judge).
   */
  judge?: JudgeChoice
  /**
   * Knowledge base directory; default: the configuration's
   * (`VERITY_KNOWLEDGE_DIR`), else `<home>/knowledge`.
   */
  knowledgeDir?: string | null
  /** Remove unsupported sentences instead of flagging them (default `false`). */
  removeUnsupported?: boolean
  /** Re-run the writer and the checks of `run_dir` from its trace, offline. */
  replay?: boolean
  /** Run directory (brief, plan, trace, report); default `<home>/runs/<timestamp>`. */
  runDir?: string | null
}

/**
 * `add_reference`: add a reference to the knowledge base — either `url`
 * (downloaded, saved as Markdown, indexed) or `filename` (a file already in
 * the knowledge base directory, registered and indexed).
 */
export interface AddReferenceRequest {
  /** Summary (else one is generated). */
  description?: string | null
  /** Or the name of a file already in the knowledge base directory. */
  filename?: string | null
  /** Keywords (else they are extracted). */
  keywords?: string[]
  /** Title (else the page's title). */
  title?: string | null
  /** http(s) URL of the reference. */
  url?: string | null
}

/** Fetch a URL, or parse a local file with the same parsers (`verity fetch`, `verity.fetch`). */
export interface FetchRequest {
  /** Allow private and loopback addresses (disables the SSRF guard; default `false`). */
  allowPrivate?: boolean
}

/** What a caller writes (MnemoLite's `NewEvent`, plus an optional expiry). */
export interface NewMemoryEvent {
  /** Content object (required). */
  content: Record<string, unknown>
  /** A vector of the store's dimension; bypasses auto-embedding. */
  embedding?: number[] | null
  /** Expiry time (TTL), if any. */
  expiresAt?: string | null
  /** Metadata object. */
  metadata?: Record<string, unknown>
  /** Event time (default: now). Must carry a zone when given as text. */
  timestamp?: string | null
}

/** A search as a caller asks it (MnemoLite's `GET /v1/search/` parameters, plus `mode`). */
export interface MemorySearchOptions {
  /** Largest L2 distance kept, `0..=2` (default 1.0; 2 = plain top-K). */
  distanceThreshold?: number | null
  /** Keep events whose metadata contains this object. */
  filterMetadata?: Record<string, unknown> | null
  /** Results per page, `1..=100` (default 10). */
  limit?: number
  /** Index used (default: vector when `vector_query` is set, else metadata-only). */
  mode?: EventSearchMode | null
  /** Results skipped. */
  offset?: number
  /** Latest timestamp (inclusive). */
  tsEnd?: string | null
  /** Earliest timestamp (inclusive). */
  tsStart?: string | null
  /** Text or vector; absent: metadata/time listing. */
  vectorQuery?: number[] | string | null
}

/**
 * A source document, in Verity's ingestion schema
 * (`uid, source, ts, lang, title, content, tags` + free metadata).
 *
 * Deserializing one is `Document::from_record` (`crate::record`): any
 * field besides these is kept in `metadata`, never dropped.
 */
export interface Document {
  /** Full text (Markdown for parsed sources). */
  content: string
  /** ISO 639-1 language code (`en`, `fr`, …); detected when absent. */
  lang?: string | null
  /**
   * Any other field of the input record (e.g. `node_pubkey`,
   * `channel_id`, `metrics`, …), filterable; a `metadata` object is merged in.
   */
  metadata?: Record<string, unknown>
  /** Where it comes from (`internal`, a file path, a host, …). */
  source?: string
  /** Free tags. */
  tags?: string[]
  /** Title, if any. */
  title?: string | null
  /** Publication / event time (RFC 3339), used for time filters and freshness. */
  ts?: string | null
  /** Stable identifier. Re-ingesting the same uid replaces the document. */
  uid: string
  /** Canonical URL, when the document has one (cited in answers). */
  url?: string | null
}

/**
 * What `callTool` resolves to, per registry tool: the same camelCase types
 * as the methods doing the same thing (`watch`, `projects`, `check`,
 * `research`, `fetch`, …), and the tool's own response where it differs.
 */
export interface ToolResults {
  search: RetrieveResponse
  ask: Answer
  ingest: IngestOutcome
  fetch_url: FetchedSource
  get_document: GetDocumentResponse
  stats: Stats
  verify_citations: CheckReport
  remember: Remembered
  recall: MemoryPage
  forget: ForgetResponse
  find_by_name: FindByNameResponse
  add_reference: AddReferenceResult
  research: ResearchReport
  get_veille_rules: RulesResponse
  update_veille_rule: UpdateRuleResponse
  score_article: ScoreResult
  check_article_exists: CheckArticleResult
  log_article: LogArticleResult
  get_articles: ArticlesResponse
  log_veille_decision: LogDecisionResult
  get_veille_decisions: WatchDecisionsResponse
  web_search: WebSearchResponse
  crawl_url: CrawlResponse
  verify_fact: VerifyFactResult
  create_project: Project
  list_projects: ProjectsResponse
  get_project: ProjectOverview
  update_project: Project
  store_context: StoreContextResult
  query_context: QueryContextResult
  delete_context: DeleteContextResult
  create_task: Task
  update_task: Task
  get_next_tasks: NextTasksResult
  log_decision: LogDecisionResult
  get_decisions: ProjectDecisionsResponse
}
// ---- generated (end) ----

export interface OpenOptions extends ConfigOverrides {
  /** Store directory (default `VERITY_HOME` or `./.verity`), or a `redis://` URL. */
  home?: string
  /** Redis URL (`REDIS_URL`), the same as `redisUrl`: documents, indexes and caches live in Redis. */
  url?: string
}

/** Every rejection of this package is a `VerityError` (or a `TypeError` for wrong argument types). */
export class VerityError extends Error {
  constructor(message: string, code?: string, transient?: boolean)
  /** `invalid_input`, `not_found`, `unavailable`, `embedder_mismatch`, `model_not_found`, `config_error`, `timeout`; from `callTool` also `unknown_tool`, `invalid_arguments`; … */
  code: string
  transient: boolean
}

/** The index a memory search ran on (also {@link EventSearchMode}). */
export type MemorySearchMode = EventSearchMode

/** Former name of {@link IngestOutcome}, whose fields it had. */
export type IngestReport = IngestOutcome

/** Options of `memory.recall`. */
export type RecallOptions = RecallRequest

/** Options of `memory.forget`. */
export type ForgetOptions = ForgetRequest

/** Event memory of a store (`store.memory`). */
export interface Memory {
  add(event: NewMemoryEvent): Promise<MemoryEvent>
  get(id: string): Promise<MemoryEvent>
  delete(id: string): Promise<void>
  updateMetadata(id: string, patch: Record<string, unknown>): Promise<MemoryEvent>
  search(options?: MemorySearchOptions): Promise<MemoryPage>
  remember(text: string, options?: Omit<RememberRequest, 'text'>): Promise<MemoryEvent>
  recall(options?: RecallOptions): Promise<MemoryPage>
  /** Resolves to how many events were deleted. */
  forget(options: ForgetOptions): Promise<number>
}

/** Former name of {@link Priority}. */
export type RulePriority = Priority
/** Former name of {@link Verdict}. */
export type FactVerdict = Verdict

/** The technology watch of a store (`store.watch`). A bad enum value rejects with `invalid_input` naming the allowed values. */
export interface Watch {
  getVeilleRules(options?: GetRulesRequest): Promise<RulesResponse>
  updateVeilleRule(rule: RuleUpdate): Promise<UpdateRuleResponse>
  scoreArticle(article: ScoreRequest): Promise<ScoreResult>
  /** By canonical URL (tracking parameters ignored) or, with `content`, by text. */
  checkArticleExists(request: CheckArticleRequest): Promise<CheckArticleResult>
  /** Idempotent per canonical URL. */
  logArticle(article: LogArticleRequest): Promise<LogArticleResult>
  getArticles(options?: GetArticlesRequest): Promise<ArticlesResponse>
  logVeilleDecision(decision: LogDecisionRequest): Promise<LogDecisionResult>
  /** The audit log, oldest first; `since`/`until` are RFC 3339 strings. */
  getVeilleDecisions(options?: GetWatchDecisionsRequest): Promise<WatchDecisionsResponse>
  webSearch(query: string, options?: WebSearchOptions): Promise<WebSearchResponse>
  crawlUrl(url: string): Promise<CrawlResponse>
  verifyFact(request: VerifyFactRequest): Promise<VerifyFactResult>
}

/** The AuraCore project tools of a store (`store.projects`). A bad enum value rejects with `invalid_input` naming the allowed values; an unknown id with `not_found`. */
export interface Projects {
  createProject(project: CreateProjectRequest): Promise<Project>
  listProjects(options?: ListProjectsRequest): Promise<ProjectsResponse>
  getProject(projectId: string): Promise<ProjectOverview>
  /** Only the given fields change. */
  updateProject(update: UpdateProjectRequest): Promise<Project>
  storeContext(entry: StoreContextRequest): Promise<StoreContextResult>
  queryContext(query: QueryContextRequest): Promise<QueryContextResult>
  deleteContext(contextId: string): Promise<DeleteContextResult>
  createTask(task: CreateTaskRequest): Promise<Task>
  /** Only the given fields change; a dependency cycle is refused. */
  updateTask(update: UpdateTaskRequest): Promise<Task>
  getNextTasks(query: NextTasksRequest): Promise<NextTasksResult>
  logDecision(decision: LogProjectDecisionRequest): Promise<LogDecisionResult>
  getDecisions(query: GetProjectDecisionsRequest): Promise<ProjectDecisionsResponse>
}

/** An open Verity store. */
export class Verity {
  private constructor(native: unknown)
  static open(options?: OpenOptions): Promise<Verity>
  ingest(docs: Document[]): Promise<IngestOutcome>
  ingestPaths(paths: string[], strict?: boolean): Promise<IngestOutcome>
  search(query: string, options?: SearchOptions): Promise<SearchResults>
  ask(question: string, options?: AskOptions): Promise<Answer>
  /** Answer a question, streaming: `for await (const text of stream)`, then `stream.answer`. */
  askStream(question: string, options?: AskOptions): AnswerStream
  get(uid: string): Promise<StoredDocument | null>
  delete(uids: string[]): Promise<number>
  stats(): Promise<Stats>
  /** Check that each cited source supports the claim citing it. */
  check(request: CheckRequest): Promise<CheckReport>
  /** Research a syllabus (Markdown, PDF, HTML): a checked, sourced report. Pass `null` as syllabus with `{ replay: true, runDir }`. */
  research(syllabus: string | null, options?: ResearchOptions): Promise<ResearchReport>
  /** The knowledge-base entry of a file, or `null`. */
  findByName(filename: string, options?: Pick<ResearchOptions, 'knowledgeDir'>): Promise<KnowledgeEntry | null>
  /** Add a reference to the research knowledge base (downloaded, saved as Markdown, indexed once). */
  addReference(
    request: AddReferenceRequest,
    options?: Pick<ResearchOptions, 'knowledgeDir' | 'allowPrivate'>,
  ): Promise<AddReferenceResult>
  /** Event memory on this store's backend and embedder. */
  readonly memory: Memory
  /** Technology watch: rules, scoring, articles, decisions, web search, fact checks. */
  readonly watch: Watch
  /** AuraCore project tools: projects, context, tasks with dependencies, project decisions. */
  readonly projects: Projects
  /**
   * Call a registry tool by name (`verify_fact`, `log_article`, `create_task`, …);
   * resolves to its structured response with camelCase keys, like every
   * result here (user data such as `metadata` kept as written). Argument
   * names may be camelCase (`sourceType`) or the tool schema's snake_case
   * (`source_type`). The watch and project tools resolve to the same types
   * as the methods doing the same thing ({@link ToolResults}).
   */
  callTool<N extends keyof ToolResults>(name: N, args?: Record<string, unknown>): Promise<ToolResults[N]>
  /** A name known only at run time: every registry tool is in {@link ToolResults}; narrow the result yourself. */
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>
  readonly notes: string[]
  readonly home: string
  /** Flush the store and release it; later calls reject. */
  close(): Promise<void>
  readonly closed: boolean
  /** `await using store = await Verity.open(...)` closes the store at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>
}

/** The text of an answer as it is generated; `answer` is set once iterated to the end. */
export class AnswerStream implements AsyncIterable<string> {
  private constructor(native: unknown)
  [Symbol.asyncIterator](): AsyncIterator<string>
  answer: Answer | null
}

/** The error table shared by every host. */
export function errorTable(): ErrorMapping[]

/** Fetch a URL (SSRF guard on unless `allowPrivate`) or parse a local file. */
export function fetch(target: string, options?: FetchRequest): Promise<FetchedSource>
