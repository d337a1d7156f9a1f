// Types of the `verity` Node package (hand-written; checked by `tsc --noEmit`
// against test/typed-sample.ts in scripts/test-node.sh). Results are plain
// objects in Verity's JSON schema (snake_case keys, as in the CLI's --json).

export type SearchMode = 'lexical' | 'dense' | 'hybrid'

/** A source document (seed-001 schema). */
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
  doc_uid: string
  index: number
  text: string
  /** Byte offsets in the document content (UTF-8). */
  start: number
  end: number
  heading_path: string[]
  token_count: number
}

export type DocumentMeta = Omit<Document, 'content'>

export interface Hit {
  chunk: Chunk
  doc: DocumentMeta
  score: number
  relevance: number
  lexical?: number
  dense?: number
  freshness?: number
}

export interface SearchResults {
  hits: Hit[]
  mode: SearchMode
  not_enough_evidence: boolean
  notes?: string[]
}

export interface Citation {
  index: number
  chunk_id: string
  doc_uid: string
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
  not_enough_evidence: boolean
  invalid_citations?: number[]
  model: string
  cached: boolean
  timings: { retrieval_ms: number; rerank_ms: number; generation_ms: number; total_ms: number }
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
  source_quote?: string
  quote_citation?: number
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
  lexical_only: boolean
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
  read_errors: string[]
  rejected: string[]
  skipped_files: string[]
  lexical_only: boolean
  embedder: string | null
  seconds: number
  bytes: number
  /** Unchanged documents re-chunked and re-embedded because they were indexed with other settings. */
  reprocessed: number
}

export interface Stats {
  store: { backend: string; index: string; documents: number; chunks: number; vectors: number; embedder?: string | null; size_bytes?: number | null }
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
  /** `invalid_input`, `not_found`, `unavailable`, `embedder_mismatch`, `model_not_found`, `config_error`, `timeout`, … */
  code: string
  transient: boolean
}

/** Verdict of a cited claim (seed 002). */
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
  citation_ref: string
  citation_type: 'url' | 'doi' | 'arxiv' | 'bibliography' | 'footnote' | 'author_year'
  source_url?: string
  verdict: Verdict
  confidence: number
  explanation: string
  /** A sentence that occurs verbatim in the fetched source. */
  source_quote?: string
  quote_context?: { before: string; quote: string; after: string; start: number; end: number }
  location: { line: number; start: number; end: number }
  judge: string
  checks?: string[]
  elapsed_ms: number
}

/** The report of `check` (the seed's JSON shape). */
export interface CheckReport {
  document?: string
  summary: { total: number; supported: number; issues: number; partial: number; not_supported: number; inconclusive: number; unavailable: number; message: string }
  results: CheckResult[]
  statistics: { claims: number; distinct_sources: number; sources_fetched: number; judge: string; elapsed_ms: number; ms_per_citation: number; judge_tokens: number; [key: string]: unknown }
  cancelled: boolean
}

/** One stored event (seed 004). */
export interface MemoryEvent {
  id: string
  /** RFC 3339 (UTC). */
  timestamp: string
  content: Record<string, unknown>
  metadata: Record<string, unknown>
  embedding: number[] | null
  /** L2 distance to the query vector (lower = more similar), vector searches only. */
  similarity_score: number | null
  rank_score?: number
  expires_at?: string
}

export interface NewMemoryEvent {
  content: Record<string, unknown>
  metadata?: Record<string, unknown>
  /** Bypasses auto-embedding; must have the store's dimension. */
  embedding?: number[] | null
  /** ISO 8601 with a zone (default: now). */
  timestamp?: string | null
  expires_at?: string | null
}

export type MemorySearchMode = 'vector' | 'lexical' | 'hybrid' | 'metadata-only'

/** Seed 004's `{data, meta}` envelope. */
export interface MemoryPage {
  data: MemoryEvent[]
  meta: {
    total_hits: number | null
    limit: number
    offset: number
    mode: MemorySearchMode
    threshold_fallback: boolean
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

/** Options of `research` (seed 003). */
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
  run_dir: string
  /** The note in Markdown, ending with its references. */
  markdown: string
  coverage: number
  supported_share: number
  cited_sentences: number
  supported_sentences: number
  themes: ThemeCoverage[]
  writer: string
  judge: string
  degraded: boolean
  missing: string[]
  notes: string[]
  tasks_ok: number
  tasks_failed: number
  tasks_skipped: number
  planner: 'deterministic' | 'llm' | 'llm_fell_back'
  plan_attempts: number
  unresolved_citations: number
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
  file_id?: string
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
  enriched_by: string
}

export type RuleKind = 'include' | 'exclude' | 'boost'
export type RulePriority = 'critical' | 'high' | 'medium' | 'low'
export type SourceType = 'rss' | 'youtube' | 'reddit' | 'hn'
export type DecisionLlm = 'qwen' | 'phi'
export type DecisionType = 'score' | 'validate' | 'reject' | 'verify_fact'
export type FactVerdict = 'SUPPORTED' | 'NOT_SUPPORTED' | 'PARTIAL' | 'INCONCLUSIVE' | 'SOURCE_UNAVAILABLE'

export interface ScoringGuide { base_score: number; min_valid_score: number; max_score: number }

/** A relevance rule of the watch. */
export interface RelevanceRule {
  name: string
  type: RuleKind
  keywords: string[]
  score_modifier: number
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

export interface RulesResponse { rules: RelevanceRule[]; scoring_guide: ScoringGuide }
export interface UpdateRuleResponse { updated: boolean; created: boolean; rule: RelevanceRule }

export interface RuleMatch {
  rule: string
  type: RuleKind
  priority: RulePriority
  score_modifier: number
  keywords: { keyword: string; count: number; fields: ('title' | 'content' | 'url')[] }[]
}

/** `scoreArticle`: base score plus the matched rules' modifiers, clamped, explained. */
export interface ScoreResult {
  score: number
  raw_score: number
  valid: boolean
  excluded: boolean
  matched_rules: RuleMatch[]
  explanation: string[]
  scoring_guide: ScoringGuide
  truncated?: boolean
}

export interface ArticleBrief {
  id: string
  title: string
  url: string
  source: string
  processed_at: string
  qwen_score?: number
  phi_validated: boolean
}

export interface CheckArticleResult {
  exists: boolean
  article?: ArticleBrief
  matched_by?: 'url' | 'same_content' | 'near_duplicate'
  distance?: number
  canonical_url: string
  message: string
}

/** `logArticle`'s request (seed 000 fields, camelCase). */
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
  article_id: string
  created: boolean
  duplicate_of?: string
  canonical_url: string
  ingested?: boolean
  ingest_error?: string
}

/** A logged article. */
export interface Article {
  id: string
  url: string
  canonical_url: string
  aliases?: string[]
  title: string
  source: string
  source_type: SourceType
  qwen_score?: number
  qwen_keywords: string[]
  phi_validated: boolean
  phi_confidence?: number
  summary_fr?: string
  impact?: string
  hashtags: string[]
  linkedin_draft?: string
  content_sha1?: string
  simhash?: number
  word_count?: number
  processed_at: string
  updated_at: string
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

export interface LogDecisionResult { logged: boolean; decision_id: string; created_at: string }

/** An entry of the decision audit log. */
export interface WatchDecision {
  id: string
  article_id?: string
  llm: DecisionLlm
  decision_type: DecisionType
  decision: string
  confidence?: number
  reasoning?: string
  tools_used: string[]
  created_at: string
}

export interface WatchDecisionsResponse { decisions: WatchDecision[]; total: number }

export interface WebSearchResponse {
  query: string
  results: { title: string; url: string; snippet: string; source: string }[]
  total_found: number
}

export interface CrawlResponse {
  url: string
  title: string
  content: string
  word_count: number
  extracted_at: string
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
  not_enough_evidence: boolean
  searched?: string
  unavailable?: { url: string; code: string; error: string }[]
  judge: string
}

/** The technology watch of a store (`store.watch`, seed 000). A bad enum value rejects with `invalid_input` naming the allowed values. */
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
  created_at: string
  updated_at: string
}

/** A piece of project context. */
export interface ContextEntry {
  id: string
  project_id: string
  title?: string
  content: string
  tags: string[]
  created_at: string
}

/** A project task; `depends_on` holds ids of tasks of the same project. */
export interface Task {
  id: string
  project_id: string
  title: string
  description?: string
  priority: RulePriority
  status: TaskStatus
  depends_on: string[]
  created_at: string
  updated_at: string
}

/** A decision recorded on a project. */
export interface ProjectDecision {
  id: string
  project_id: string
  decision: string
  reasoning?: string
  alternatives: string[]
  tags: string[]
  created_at: string
}

export interface ProjectsResponse { projects: Project[]; total: number }
export interface ProjectOverview { project: Project; tasks: Task[]; context_entries: number; recent_decisions: ProjectDecision[] }
export interface StoreContextResult { stored: boolean; context_id: string; indexed?: boolean }
/** `queryContext`: best entries first; `ran` says how they were ranked (`index`: the store's retrieval). */
export interface QueryContextResult {
  results: { entry: ContextEntry; score: number }[]
  ran: 'index' | 'lexical'
  degraded?: string
}
export interface DeleteContextResult { deleted: boolean; context_id: string }
/** `getNextTasks`: ready tasks (in progress first, then by priority, then oldest), and how many wait on dependencies or are blocked. */
export interface NextTasksResult { tasks: Task[]; waiting: number; blocked: number }
export interface ProjectDecisionsResponse { decisions: ProjectDecision[]; total: number }

/** The AuraCore project tools of a store (`store.projects`, seed 000). A bad enum value rejects with `invalid_input` naming the allowed values; an unknown id with `not_found`. */
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

/** An open Verity store. */
export class Verity {
  private constructor(native: unknown)
  static open(options?: OpenOptions): Promise<Verity>
  ingest(docs: Document[]): Promise<IngestOutcome>
  ingestPaths(paths: string[], strict?: boolean): Promise<IngestOutcome>
  search(query: string, options?: SearchOptions): Promise<SearchResults>
  ask(question: string, options?: AskOptions): Promise<Answer>
  get(uid: string): Promise<Document | null>
  delete(uids: string[]): Promise<number>
  stats(): Promise<Stats>
  /** Check that each cited source supports the claim citing it. */
  check(request: CheckRequest): Promise<CheckReport>
  /** Research a syllabus (Markdown, PDF, HTML): a checked, sourced report (seed 003). Pass `null` as syllabus with `{ replay: true, runDir }`. */
  research(syllabus: string | null, options?: ResearchOptions): Promise<ResearchReport>
  /** The knowledge-base entry of a file, or `null`. */
  findByName(filename: string, options?: { knowledgeDir?: string }): Promise<KnowledgeEntry | null>
  /** Add a reference to the research knowledge base (downloaded, saved as Markdown, indexed once). */
  addReference(request: AddReferenceRequest): Promise<AddReferenceResult>
  /** Event memory (seed 004) on this store's backend and embedder. */
  readonly memory: Memory
  /** Technology watch (seed 000): rules, scoring, articles, decisions, web search, fact checks. */
  readonly watch: Watch
  /** AuraCore project tools (seed 000): projects, context, tasks with dependencies, project decisions. */
  readonly projects: Projects
  /** Call a registry tool by name (`verify_fact`, `log_article`, `create_task`, …); resolves to its structured response. */
  callTool(name: string, args?: Record<string, unknown>): Promise<any>
  readonly notes: string[]
  readonly home: string
}

/** How each error code is reported by each host (`verity::api::error`). */
export interface ErrorMapping {
  code: string
  js_code: string
  exit_code: number
  http_status: number
  python_class: string
  jsonrpc_code: number
}

/** The error table shared by every host. */
export function errorTable(): ErrorMapping[]

/** Fetch a URL (SSRF guard on unless `allowPrivate`) or parse a local file. */
export function fetch(target: string, options?: { allowPrivate?: boolean }): Promise<Record<string, unknown>>
