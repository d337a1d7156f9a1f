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
}

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
