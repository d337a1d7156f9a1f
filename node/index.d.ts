// Types of the `verity-ai` Node package (hand-written; checked by `tsc --noEmit`
// against test/typed-sample.ts in scripts/test-node.sh). Results are plain
// objects of Verity's result types with camelCase keys (the same shapes
// Python exposes as snake_case attributes); user data (`metadata`, an
// event's `content`) is kept as written. `callTool`, the generic tool call,
// follows the same rule: the registry's JSON with camelCase keys (the
// snake_case MCP clients see becomes camelCase), user data kept as written.

export type SearchMode = 'lexical' | 'dense' | 'hybrid'

/** A source document (Verity's document schema). */
export interface Document {
  uid: string
  content: string
  source?: string
  /** RFC 3339. */
  ts?: string
  lang?: string
  title?: string
  tags?: string[]
  url?: string
  metadata?: Record<string, unknown>
}

export interface Chunk {
  id: string
  docUid: string
  index: number
  text: string
  /** Byte offsets in the document content (UTF-8). */
  start: number
  end: number
  /** Headings enclosing the chunk, outermost first (absent when there are none). */
  headingPath?: string[]
  tokenCount: number
}

export type DocumentMeta = Omit<Document, 'content'>

/** A search hit as the `search` tool answers it: a chunk, its document (without content) and its scores. */
export interface ScoredChunk {
  chunk: Chunk
  doc: DocumentMeta
  score: number
  relevance: number
  lexical?: number
  dense?: number
  freshness?: number
}

/** A search hit: a {@link ScoredChunk} with shortcuts to its document and chunk. */
export interface Hit extends ScoredChunk {
  /** The document's uid (also `doc.uid`). */
  uid: string
  /** The chunk's id (also `chunk.id`). */
  chunkId: string
  /** The chunk's text (also `chunk.text`). */
  text: string
  title?: string | null
  source: string
  url?: string | null
}

export interface SearchResults {
  hits: Hit[]
  mode: SearchMode
  notEnoughEvidence: boolean
  notes?: string[]
}

export interface Citation {
  index: number
  chunkId: string
  docUid: string
  source: string
  title?: string
  url?: string
  quote?: string
  span?: [number, number]
}

export interface Answer {
  text: string
  citations: Citation[]
  confidence: number
  degraded: boolean
  notEnoughEvidence: boolean
  invalidCitations?: number[]
  model: string
  cached: boolean
  timings: { retrievalMs: number; rerankMs: number; generationMs: number; totalMs: number }
  notes?: string[]
  /** The answer checked against its sources, sentence by sentence (absent with `verify: 'off'`). */
  verification?: AnswerVerification
}

/** One sentence of an answer and what its cited passages say of it. */
export interface SentenceVerdict {
  text: string
  citations: number[]
  /** Absent when the sentence cites nothing. */
  verdict?: Verdict
  confidence: number
  explanation?: string
  /** The sentence of the cited passage that decides it (its characters). */
  sourceQuote?: string
  quoteCitation?: number
  judge?: string
  /** Cited, and not SUPPORTED by what it cites. */
  flagged: boolean
  removed: boolean
}

/** The check of an answer against its sources. */
export interface AnswerVerification {
  mode: VerifyMode
  judge: string
  sentences: SentenceVerdict[]
  checked: number
  supported: number
  flagged: number
  removed: number
}

/** What `ask` does with sentences their sources do not support. */
export type VerifyMode = 'flag' | 'strip' | 'off'

export interface IngestReport {
  inserted: number
  replaced: number
  unchanged: number
  chunks: number
  rejected: string[]
  lexicalOnly: boolean
  seconds: number
  bytes: number
  /** Unchanged documents re-chunked and re-embedded because they were indexed with other settings. */
  reprocessed: number
}

export interface IngestOutcome {
  inserted: number
  replaced: number
  unchanged: number
  chunks: number
  readErrors: string[]
  rejected: string[]
  skippedFiles: string[]
  lexicalOnly: boolean
  embedder: string | null
  seconds: number
  bytes: number
  /** Unchanged documents re-chunked and re-embedded because they were indexed with other settings. */
  reprocessed: number
}

export interface Stats {
  store: { backend: string; index: string; documents: number; chunks: number; vectors: number; embedder?: string | null; sizeBytes?: number | null }
  embedder: string | null
  generator: string
  home: string
  /** Redis URL (password masked) when the store lives in Redis. */
  redis?: string
  notes: string[]
}

export interface OpenOptions {
  /** Store directory (default `VERITY_HOME` or `./.verity`), or a `redis://` URL. */
  home?: string
  /** Redis URL (`REDIS_URL`): documents, indexes and caches live in Redis. */
  url?: string
  index?: string
  /** `auto`, `none`, `local[:DIR]`, `ollama:MODEL:TAG`, `openai:MODEL`. */
  embedder?: string
  /** `extractive`, `local[:FILE]`, `ollama:MODEL:TAG`, `openai:MODEL`. */
  generator?: string
  fallback?: string
  k?: number
  minRelevance?: number
  cache?: boolean
  ollamaUrl?: string
  openaiUrl?: string
  /** Research knowledge base directory (`VERITY_KNOWLEDGE_DIR`). */
  knowledgeDir?: string
  /** SearXNG for web search (`VERITY_SEARXNG_URL` or `SEARXNG_URL`). */
  searxngUrl?: string
  /** Jina Reader for the watch's `crawlUrl` (`JINA_READER_URL`). */
  jinaReaderUrl?: string
  /** Let `crawlUrl` and `verifyFact` read private and loopback addresses (`VERITY_ALLOW_PRIVATE`). */
  allowPrivate?: boolean
}

export interface FilterOptions {
  sources?: string[]
  /** Any of these tags. */
  tags?: string[]
  /** All of these tags. */
  tagsAll?: string[]
  langs?: string[]
  uids?: string[]
  /** `{key: value}` or `{key: [v1, v2]}`. */
  metadata?: Record<string, unknown>
  /** RFC 3339, or `YYYY-MM-DD` (that day at 00:00 UTC). */
  since?: string
  /** RFC 3339, or `YYYY-MM-DD` (the whole day is included). */
  until?: string
}

export interface SearchOptions extends FilterOptions {
  k?: number
  mode?: SearchMode
}

export interface AskOptions extends FilterOptions {
  lang?: string
  k?: number
  mode?: SearchMode
  noCache?: boolean
  /** Check the answer against its sources first: `flag` (default, unsupported sentences marked), `strip` (removed) or `off`. */
  verify?: VerifyMode
}

/** Every rejection of this package is a `VerityError` (or a `TypeError` for wrong argument types). */
export class VerityError extends Error {
  constructor(message: string, code?: string, transient?: boolean)
  /** `invalid_input`, `not_found`, `unavailable`, `embedder_mismatch`, `model_not_found`, `config_error`, `timeout`; from `callTool` also `unknown_tool`, `invalid_arguments`; … */
  code: string
  transient: boolean
}

/** Verdict of a cited claim. */
export type Verdict = 'SUPPORTED' | 'NOT_SUPPORTED' | 'PARTIAL' | 'INCONCLUSIVE' | 'SOURCE_UNAVAILABLE'

/** What `check` reads: exactly one of `content`, `contentBase64`, `url` or `path`. */
export interface CheckRequest {
  content?: string
  /** The document's bytes in base64 (e.g. a PDF). */
  contentBase64?: string
  url?: string
  path?: string
  /** `markdown`, `html`, `text`, `pdf` or a MIME type; detected when absent. */
  contentType?: string
  /** File name of the document (helps detecting its format). */
  name?: string
  /** Sources fetched and claims judged at once (1–32, default 4). */
  concurrency?: number
  judge?: 'auto' | 'local' | 'llm'
  /** Sources and document on private or loopback addresses (disables the SSRF guard). */
  allowPrivate?: boolean
}

/** One cited claim and its verdict. */
export interface CheckResult {
  claim: string
  citationRef: string
  citationType: 'url' | 'doi' | 'arxiv' | 'bibliography' | 'footnote' | 'author_year'
  sourceUrl?: string
  verdict: Verdict
  confidence: number
  explanation: string
  /** A sentence that occurs verbatim in the fetched source. */
  sourceQuote?: string
  quoteContext?: { before: string; quote: string; after: string; start: number; end: number }
  location: { line: number; start: number; end: number }
  judge: string
  checks?: string[]
  elapsedMs: number
}

/** The report of `check` (the seed's JSON shape). */
export interface CheckReport {
  document?: string
  summary: { total: number; supported: number; issues: number; partial: number; notSupported: number; inconclusive: number; unavailable: number; message: string }
  results: CheckResult[]
  statistics: { claims: number; distinctSources: number; sourcesFetched: number; judge: string; elapsedMs: number; msPerCitation: number; judgeTokens: number; [key: string]: unknown }
  cancelled: boolean
}

/** One stored event. */
export interface MemoryEvent {
  id: string
  /** RFC 3339 (UTC). */
  timestamp: string
  content: Record<string, unknown>
  metadata: Record<string, unknown>
  embedding: number[] | null
  /** L2 distance to the query vector (lower = more similar), vector searches only. */
  similarityScore: number | null
  rankScore?: number
  expiresAt?: string
}

export interface NewMemoryEvent {
  content: Record<string, unknown>
  metadata?: Record<string, unknown>
  /** Bypasses auto-embedding; must have the store's dimension. */
  embedding?: number[] | null
  /** ISO 8601 with a zone (default: now). */
  timestamp?: string | null
  expiresAt?: string | null
}

export type MemorySearchMode = 'vector' | 'lexical' | 'hybrid' | 'metadata-only'

/** MnemoLite's `{data, meta}` envelope. */
export interface MemoryPage {
  data: MemoryEvent[]
  meta: {
    totalHits: number | null
    limit: number
    offset: number
    mode: MemorySearchMode
    thresholdFallback: boolean
    notes?: string[]
  }
}

export interface MemorySearchOptions {
  /** Text (embedded) or a vector. */
  vectorQuery?: string | number[]
  filterMetadata?: Record<string, unknown>
  tsStart?: string
  tsEnd?: string
  /** 0–2, default 1.0. */
  distanceThreshold?: number
  /** 1–100, default 10. */
  limit?: number
  offset?: number
  mode?: MemorySearchMode
}

export interface RecallOptions {
  query?: string
  filterMetadata?: Record<string, unknown>
  tsStart?: string
  tsEnd?: string
  limit?: number
  mode?: MemorySearchMode
  distanceThreshold?: number
}

export interface ForgetOptions {
  id?: string
  filterMetadata?: Record<string, unknown>
  tsStart?: string
  tsEnd?: string
}

/** Event memory of a store (`store.memory`). */
export interface Memory {
  add(event: NewMemoryEvent): Promise<MemoryEvent>
  get(id: string): Promise<MemoryEvent>
  delete(id: string): Promise<void>
  updateMetadata(id: string, patch: Record<string, unknown>): Promise<MemoryEvent>
  search(options?: MemorySearchOptions): Promise<MemoryPage>
  remember(text: string, options?: { metadata?: Record<string, unknown>; ttlSeconds?: number }): Promise<MemoryEvent>
  recall(options?: RecallOptions): Promise<MemoryPage>
  /** Resolves to how many events were deleted. */
  forget(options: ForgetOptions): Promise<number>
}

/** Options of `research`. */
export interface ResearchOptions {
  /** Run directory (brief, plan, trace, report); default `<home>/runs/<timestamp>`. */
  runDir?: string
  /** Knowledge base directory; default `<home>/knowledge`. */
  knowledgeDir?: string
  /** Let references on private and loopback addresses be fetched (intranets, tests). */
  allowPrivate?: boolean
  /** Remove unsupported sentences instead of flagging them. */
  removeUnsupported?: boolean
  /** Re-run the writer and the checks of `runDir` from its trace, offline. */
  replay?: boolean
}

/** Coverage of one theme of the research brief. */
export interface ThemeCoverage {
  id: string
  title: string
  cited: number
  supported: number
  covered: boolean
}

/** One reference of a research report (`url` for web sources, `filename` for knowledge-base files). */
export interface ResearchReference {
  n: number
  title: string
  url?: string
  filename?: string
}

/** The checked report of `research` (the api's `ResearchResponse`). */
export interface ResearchReport {
  runDir: string
  /** The note in Markdown, ending with its references. */
  markdown: string
  coverage: number
  supportedShare: number
  citedSentences: number
  supportedSentences: number
  themes: ThemeCoverage[]
  writer: string
  judge: string
  degraded: boolean
  missing: string[]
  notes: string[]
  tasksOk: number
  tasksFailed: number
  tasksSkipped: number
  planner: 'deterministic' | 'llm' | 'llm_fell_back'
  planAttempts: number
  unresolvedCitations: number
  references: ResearchReference[]
  timings: { step: string; ms: number }[]
}

/** A knowledge-base entry (`knowledge_db.json`). */
export interface KnowledgeEntry {
  filename: string
  url?: string
  title: string
  keywords: string[]
  summary: string
  fileId?: string
}

/** What `addReference` adds: exactly one of `url` or `filename`. */
export interface AddReferenceRequest {
  url?: string
  filename?: string
  title?: string
  description?: string
  keywords?: string[]
  knowledgeDir?: string
  allowPrivate?: boolean
}

/** What `addReference` did. */
export interface AddReferenceResult {
  entry: KnowledgeEntry
  downloaded: boolean
  indexed: boolean
  enrichedBy: string
}

export type RuleKind = 'include' | 'exclude' | 'boost'
export type RulePriority = 'critical' | 'high' | 'medium' | 'low'
export type SourceType = 'rss' | 'youtube' | 'reddit' | 'hn'
export type DecisionLlm = 'qwen' | 'phi'
export type DecisionType = 'score' | 'validate' | 'reject' | 'verify_fact'
export type FactVerdict = 'SUPPORTED' | 'NOT_SUPPORTED' | 'PARTIAL' | 'INCONCLUSIVE' | 'SOURCE_UNAVAILABLE'

export interface ScoringGuide { baseScore: number; minValidScore: number; maxScore: number }

/** A relevance rule of the watch. */
export interface RelevanceRule {
  name: string
  type: RuleKind
  keywords: string[]
  scoreModifier: number
  priority: RulePriority
  active: boolean
  description?: string
}

/** `updateVeilleRule`'s request: create or replace the rule `name`. */
export interface RuleUpdate {
  name: string
  type: RuleKind
  keywords: string[]
  /** −10 … +5; default by type (include +2, boost +1, exclude −10). */
  scoreModifier?: number
  priority?: RulePriority
  active?: boolean
  description?: string
}

export interface RulesResponse { rules: RelevanceRule[]; scoringGuide: ScoringGuide }
export interface UpdateRuleResponse { updated: boolean; created: boolean; rule: RelevanceRule }

export interface RuleMatch {
  rule: string
  type: RuleKind
  priority: RulePriority
  scoreModifier: number
  keywords: { keyword: string; count: number; fields: ('title' | 'content' | 'url')[] }[]
}

/** `scoreArticle`: base score plus the matched rules' modifiers, clamped, explained. */
export interface ScoreResult {
  score: number
  rawScore: number
  valid: boolean
  excluded: boolean
  matchedRules: RuleMatch[]
  explanation: string[]
  scoringGuide: ScoringGuide
  truncated?: boolean
}

export interface ArticleBrief {
  id: string
  title: string
  url: string
  source: string
  processedAt: string
  qwenScore?: number
  phiValidated: boolean
}

export interface CheckArticleResult {
  exists: boolean
  article?: ArticleBrief
  matchedBy?: 'url' | 'same_content' | 'near_duplicate'
  distance?: number
  canonicalUrl: string
  message: string
}

/** `logArticle`'s request (the watch's article fields, camelCase). */
export interface LogArticleRequest {
  url: string
  title: string
  source: string
  sourceType: SourceType
  qwenScore?: number
  qwenKeywords?: string[]
  phiValidated?: boolean
  phiConfidence?: number
  summaryFr?: string
  impact?: string
  hashtags?: string[]
  linkedinDraft?: string
  /** Full text: fingerprinted for duplicate detection and indexed in the store. */
  rawContent?: string
}

export interface LogArticleResult {
  logged: boolean
  articleId: string
  created: boolean
  duplicateOf?: string
  canonicalUrl: string
  ingested?: boolean
  ingestError?: string
}

/** A logged article. */
export interface Article {
  id: string
  url: string
  canonicalUrl: string
  aliases?: string[]
  title: string
  source: string
  sourceType: SourceType
  qwenScore?: number
  qwenKeywords: string[]
  phiValidated: boolean
  phiConfidence?: number
  summaryFr?: string
  impact?: string
  hashtags: string[]
  linkedinDraft?: string
  contentSha1?: string
  simhash?: number
  wordCount?: number
  processedAt: string
  updatedAt: string
}

export interface ArticlesResponse { articles: Article[]; total: number; period: string }

export interface LogDecisionRequest {
  articleId?: string
  llm: DecisionLlm
  decisionType: DecisionType
  decision: string
  confidence?: number
  reasoning?: string
  toolsUsed?: string[]
}

export interface LogDecisionResult { logged: boolean; decisionId: string; createdAt: string }

/** An entry of the decision audit log. */
export interface WatchDecision {
  id: string
  articleId?: string
  llm: DecisionLlm
  decisionType: DecisionType
  decision: string
  confidence?: number
  reasoning?: string
  toolsUsed: string[]
  createdAt: string
}

export interface WatchDecisionsResponse { decisions: WatchDecision[]; total: number }

export interface WebSearchResponse {
  query: string
  results: { title: string; url: string; snippet: string; source: string }[]
  totalFound: number
}

export interface CrawlResponse {
  url: string
  title: string
  content: string
  wordCount: number
  extractedAt: string
  truncated?: boolean
  paywalled?: boolean
  links?: { text: string; url: string }[]
}

export interface VerifyFactResult {
  claim: string
  verified: boolean
  confidence: number
  verdict: FactVerdict
  sources: { url: string; excerpt: string; title?: string; verdict: FactVerdict; confidence: number }[]
  summary: string
  notEnoughEvidence: boolean
  searched?: string
  unavailable?: { url: string; code: string; error: string }[]
  judge: string
}

/** The technology watch of a store (`store.watch`). A bad enum value rejects with `invalid_input` naming the allowed values. */
export interface Watch {
  getVeilleRules(options?: { type?: RuleKind | 'all'; priority?: RulePriority }): Promise<RulesResponse>
  updateVeilleRule(rule: RuleUpdate): Promise<UpdateRuleResponse>
  scoreArticle(article: { title?: string; content?: string; url?: string }): Promise<ScoreResult>
  /** By canonical URL (tracking parameters ignored) or, with `content`, by text. */
  checkArticleExists(request: { url: string; content?: string }): Promise<CheckArticleResult>
  /** Idempotent per canonical URL. */
  logArticle(article: LogArticleRequest): Promise<LogArticleResult>
  getArticles(options?: { days?: number; source?: string; validatedOnly?: boolean; limit?: number }): Promise<ArticlesResponse>
  logVeilleDecision(decision: LogDecisionRequest): Promise<LogDecisionResult>
  /** The audit log, oldest first; `since`/`until` are RFC 3339 strings. */
  getVeilleDecisions(options?: { articleId?: string; days?: number; since?: string; until?: string; limit?: number }): Promise<WatchDecisionsResponse>
  webSearch(query: string, options?: { numResults?: number; timeRange?: 'day' | 'week' | 'month' | 'year' }): Promise<WebSearchResponse>
  crawlUrl(url: string): Promise<CrawlResponse>
  verifyFact(request: { claim: string; context?: string; urls?: string[] }): Promise<VerifyFactResult>
}

export type ProjectStatus = 'active' | 'paused' | 'completed' | 'archived'
export type TaskStatus = 'todo' | 'in_progress' | 'blocked' | 'done' | 'cancelled'

/** An AuraCore project. */
export interface Project {
  id: string
  name: string
  description?: string
  status: ProjectStatus
  tags: string[]
  createdAt: string
  updatedAt: string
}

/** A piece of project context. */
export interface ContextEntry {
  id: string
  projectId: string
  title?: string
  content: string
  tags: string[]
  createdAt: string
}

/** A project task; `depends_on` holds ids of tasks of the same project. */
export interface Task {
  id: string
  projectId: string
  title: string
  description?: string
  priority: RulePriority
  status: TaskStatus
  dependsOn: string[]
  createdAt: string
  updatedAt: string
}

/** A decision recorded on a project. */
export interface ProjectDecision {
  id: string
  projectId: string
  decision: string
  reasoning?: string
  alternatives: string[]
  tags: string[]
  createdAt: string
}

export interface ProjectsResponse { projects: Project[]; total: number }
export interface ProjectOverview { project: Project; tasks: Task[]; contextEntries: number; recentDecisions: ProjectDecision[] }
export interface StoreContextResult { stored: boolean; contextId: string; indexed?: boolean }
/** `queryContext`: best entries first; `ran` says how they were ranked (`index`: the store's retrieval). */
export interface QueryContextResult {
  results: { entry: ContextEntry; score: number }[]
  ran: 'index' | 'lexical'
  degraded?: string
}
export interface DeleteContextResult { deleted: boolean; contextId: string }
/** `getNextTasks`: ready tasks (in progress first, then by priority, then oldest), and how many wait on dependencies or are blocked. */
export interface NextTasksResult { tasks: Task[]; waiting: number; blocked: number }
export interface ProjectDecisionsResponse { decisions: ProjectDecision[]; total: number }

/** The AuraCore project tools of a store (`store.projects`). A bad enum value rejects with `invalid_input` naming the allowed values; an unknown id with `not_found`. */
export interface Projects {
  createProject(project: { name: string; description?: string; status?: ProjectStatus; tags?: string[] }): Promise<Project>
  listProjects(options?: { status?: ProjectStatus }): Promise<ProjectsResponse>
  getProject(projectId: string): Promise<ProjectOverview>
  /** Only the given fields change. */
  updateProject(update: { projectId: string; name?: string; description?: string; status?: ProjectStatus; tags?: string[] }): Promise<Project>
  storeContext(entry: { projectId: string; content: string; title?: string; tags?: string[] }): Promise<StoreContextResult>
  queryContext(query: { projectId: string; query: string; limit?: number }): Promise<QueryContextResult>
  deleteContext(contextId: string): Promise<DeleteContextResult>
  createTask(task: { projectId: string; title: string; description?: string; priority?: RulePriority; status?: TaskStatus; dependsOn?: string[] }): Promise<Task>
  /** Only the given fields change; a dependency cycle is refused. */
  updateTask(update: { taskId: string; title?: string; description?: string; priority?: RulePriority; status?: TaskStatus; dependsOn?: string[] }): Promise<Task>
  getNextTasks(query: { projectId: string; limit?: number }): Promise<NextTasksResult>
  logDecision(decision: { projectId: string; decision: string; reasoning?: string; alternatives?: string[]; tags?: string[] }): Promise<LogDecisionResult>
  getDecisions(query: { projectId: string; limit?: number }): Promise<ProjectDecisionsResponse>
}

/** What the `search` tool answers: the shape of `POST /v1/retrieve`
 * (the hits, plus their uids, scores and sources side by side). */
export interface RetrieveResponse {
  /** Document uid of each hit. */
  uids: string[]
  /** Score of each hit. */
  scores: number[]
  /** Source of each hit. */
  sources: string[]
  hits: ScoredChunk[]
  mode: SearchMode
  notEnoughEvidence: boolean
  notes?: string[]
}

/** What the `get_document` tool answers (`null` when no document has the uid). */
export interface GetDocumentResponse {
  document: (Document & { source: string }) | null
}

/** What the `remember` tool answers: the stored event and where its vector came from. */
export interface Remembered {
  event: MemoryEvent
  embeddingSource: { kind: 'supplied' } | { kind: 'auto'; field: string } | { kind: 'none' }
  /** Said when the event is only findable by metadata and time (or lexically). */
  note?: string
}

/** What the `forget` tool answers. */
export interface ForgetResponse {
  deleted: number
}

/** What the `find_by_name` tool answers. */
export interface FindByNameResponse {
  found: boolean
  entry?: KnowledgeEntry
}

/** What `callTool` resolves to, per registry tool: the same camelCase types
 * as the methods doing the same thing (`watch`, `projects`, `check`,
 * `research`, `fetch`, …), and the tool's own response where it differs. */
export interface ToolResults {
  search: RetrieveResponse
  ask: Answer
  ingest: IngestOutcome
  fetch_url: FetchedSource
  get_document: GetDocumentResponse
  stats: Stats
  remember: Remembered
  recall: MemoryPage
  forget: ForgetResponse
  verify_citations: CheckReport
  research: ResearchReport
  find_by_name: FindByNameResponse
  add_reference: AddReferenceResult
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
  get(uid: string): Promise<Document | null>
  delete(uids: string[]): Promise<number>
  stats(): Promise<Stats>
  /** Check that each cited source supports the claim citing it. */
  check(request: CheckRequest): Promise<CheckReport>
  /** Research a syllabus (Markdown, PDF, HTML): a checked, sourced report. Pass `null` as syllabus with `{ replay: true, runDir }`. */
  research(syllabus: string | null, options?: ResearchOptions): Promise<ResearchReport>
  /** The knowledge-base entry of a file, or `null`. */
  findByName(filename: string, options?: { knowledgeDir?: string }): Promise<KnowledgeEntry | null>
  /** Add a reference to the research knowledge base (downloaded, saved as Markdown, indexed once). */
  addReference(request: AddReferenceRequest): Promise<AddReferenceResult>
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

/** How each error code is reported by each host (`verity::api::error`). */
export interface ErrorMapping {
  code: string
  jsCode: string
  exitCode: number
  httpStatus: number
  pythonClass: string
  jsonrpcCode: number
}

/** The error table shared by every host. */
export function errorTable(): ErrorMapping[]

/** Outcome of a fetch: `fetched`, or why not (`blocked` by the network guard, robots.txt or a 401/403, …). */
export type FetchStatus = 'fetched' | 'failed' | 'paywalled' | 'not_found' | 'timeout' | 'rate_limited' | 'blocked'

/** Format a source was parsed from. */
export type SourceFormat = 'pdf' | 'html' | 'markdown' | 'text' | 'json'

/** Where a page of the original (PDF) sits in the document content. */
export interface PageSpan {
  /** 1-based page number. */
  page: number
  /** Byte offset in the document content where the page starts. */
  start: number
  /** Byte offset one past its end. */
  end: number
}

/** A parsed source: the document (content in Markdown) and where its pieces came from. */
export interface ParsedDocument {
  /** The document (title, lang, url, ts and `metadata.author` filled when known). */
  document: Document & { source: string }
  format: SourceFormat
  /** Page map (PDF); absent for formats without pages. */
  pages?: PageSpan[]
}

/** What `fetch` resolves to: the source fetched (or the local file read), how that went, and its parsed content. */
export interface FetchedSource {
  /** URL asked for (`file://` for a local file). */
  url: string
  /** URL after redirects. */
  finalUrl: string
  status: FetchStatus
  /** Last HTTP status, when a response was received. */
  httpStatus?: number
  contentType?: string
  /** Set when `status` is `fetched`, possibly for `paywalled`. */
  parsed?: ParsedDocument
  /** Why it was not fetched, in words (statuses other than `fetched`). */
  detail?: string
  /** RFC 3339. */
  fetchedAt: string
}

/** Fetch a URL (SSRF guard on unless `allowPrivate`) or parse a local file. */
export function fetch(target: string, options?: { allowPrivate?: boolean }): Promise<FetchedSource>
