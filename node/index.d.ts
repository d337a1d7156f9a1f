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
