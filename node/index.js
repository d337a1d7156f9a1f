'use strict'
// Loader and thin promise API over the native addon (bindings/node), the
// CommonJS entry point of the `verity-ai` package (`index.mjs` is the ES
// module one). The only logic here is error mapping — native rejections
// carry `VERITY:<code>:<transient>:<message>` and become `VerityError`s —
// and the JavaScript protocols: async iteration of a streamed answer and
// `Symbol.asyncDispose` for `await using`.

const path = require('node:path')

function loadNative() {
  const candidates = []
  if (process.env.VERITY_NODE_ADDON) candidates.push(process.env.VERITY_NODE_ADDON)
  candidates.push(path.join(__dirname, `verity.${process.platform}-${process.arch}.node`))
  let last
  for (const file of candidates) {
    try {
      return require(file)
    } catch (e) {
      last = e
    }
  }
  throw new Error(`verity: native addon not found (${candidates.join(', ')}); run scripts/test-node.sh --build-only: ${last && last.message}`)
}

const native = loadNative()

/** Base class of every Verity error; `code` is the Rust error code, `transient` says whether a retry may succeed. */
class VerityError extends Error {
  constructor(message, code = 'internal', transient = false) {
    super(message)
    this.name = 'VerityError'
    this.code = code
    this.transient = transient
  }
}

const NAPI_TYPE_CODES = new Set([
  'InvalidArg', 'ObjectExpected', 'StringExpected', 'NameExpected', 'FunctionExpected',
  'NumberExpected', 'BooleanExpected', 'ArrayExpected', 'BigintExpected', 'DateExpected',
])
const ENCODED = /^VERITY:([a-z_]+):(true|false):([\s\S]*)$/

function toError(e) {
  const m = e && typeof e.message === 'string' ? ENCODED.exec(e.message) : null
  if (m) return new VerityError(m[3], m[1], m[2] === 'true')
  if (e && NAPI_TYPE_CODES.has(e.code)) {
    const t = new TypeError(e.message)
    t.code = 'invalid_type'
    return t
  }
  return e
}

async function call(fn) {
  try {
    return await fn()
  } catch (e) {
    throw toError(e)
  }
}

/** An open Verity store. */
class Verity {
  #native
  constructor(nativeStore) {
    if (!(nativeStore instanceof native.NativeVerity)) throw new TypeError('use `await Verity.open(options)`')
    this.#native = nativeStore
  }
  static open(options) { return call(async () => new Verity(await native.open(options))) }
  ingest(docs) { return call(() => this.#native.ingest(docs)) }
  ingestPaths(paths, strict) { return call(() => this.#native.ingestPaths(paths, strict)) }
  search(query, options) { return call(() => this.#native.search(query, options)) }
  ask(question, options) { return call(() => this.#native.ask(question, options)) }
  /**
   * Answer a question, streaming: `for await (const text of stream)` gives the
   * text as it is generated, then `stream.answer` is the final answer.
   */
  askStream(question, options) {
    let native
    try {
      native = this.#native.askStream(question, options)
    } catch (e) {
      throw toError(e)
    }
    return new AnswerStream(native)
  }
  /** Flush the store and release it; later calls reject. `await using store = await Verity.open(...)` closes it. */
  close() { return call(() => this.#native.close()) }
  get closed() { return this.#native.closed }
  [Symbol.asyncDispose]() { return this.close() }
  get(uid) { return call(() => this.#native.get(uid)) }
  delete(uids) { return call(() => this.#native.delete(uids)) }
  stats() { return call(() => this.#native.stats()) }
  check(request) { return call(() => this.#native.check(request)) }
  research(syllabus, options) { return call(() => this.#native.research(syllabus, options)) }
  findByName(filename, options) { return call(() => this.#native.findByName(filename, options)) }
  addReference(request, options) { return call(() => this.#native.addReference(request, options)) }
  callTool(name, args) { return call(() => this.#native.callTool(name, args)) }
  // Benchmark helper (not API): n searches inside Rust, resolves to seconds.
  _benchSearch(query, n, options) { return call(() => this.#native.benchSearch(query, n, options)) }
  /** Event memory on this store's backend and embedder. */
  get memory() {
    const n = this.#native
    return {
      add: (event) => call(() => n.memoryAdd(event)),
      get: (id) => call(() => n.memoryGet(id)),
      delete: (id) => call(() => n.memoryDelete(id)),
      updateMetadata: (id, patch) => call(() => n.memoryUpdateMetadata(id, patch)),
      search: (options) => call(() => n.memorySearch(options)),
      remember: (text, options) => call(() => n.remember(text, options)),
      recall: (options) => call(() => n.recall(options)),
      forget: (options) => call(() => n.forget(options)),
    }
  }
  /** Technology watch: rules, scoring, articles, decisions, web search, fact checks. */
  get watch() {
    const n = this.#native
    return {
      getVeilleRules: (options) => call(() => n.watchGetVeilleRules(options)),
      updateVeilleRule: (rule) => call(() => n.watchUpdateVeilleRule(rule)),
      scoreArticle: (article) => call(() => n.watchScoreArticle(article)),
      checkArticleExists: (request) => call(() => n.watchCheckArticleExists(request)),
      logArticle: (article) => call(() => n.watchLogArticle(article)),
      getArticles: (options) => call(() => n.watchGetArticles(options)),
      logVeilleDecision: (decision) => call(() => n.watchLogVeilleDecision(decision)),
      getVeilleDecisions: (options) => call(() => n.watchGetVeilleDecisions(options)),
      webSearch: (query, options) => call(() => n.watchWebSearch(query, options)),
      crawlUrl: (url) => call(() => n.watchCrawlUrl(url)),
      verifyFact: (request) => call(() => n.watchVerifyFact(request)),
    }
  }
  /** AuraCore project tools: projects, context, tasks with dependencies, project decisions. */
  get projects() {
    const n = this.#native
    return {
      createProject: (project) => call(() => n.projectsCreateProject(project)),
      listProjects: (options) => call(() => n.projectsListProjects(options)),
      getProject: (projectId) => call(() => n.projectsGetProject(projectId)),
      updateProject: (update) => call(() => n.projectsUpdateProject(update)),
      storeContext: (entry) => call(() => n.projectsStoreContext(entry)),
      queryContext: (query) => call(() => n.projectsQueryContext(query)),
      deleteContext: (contextId) => call(() => n.projectsDeleteContext(contextId)),
      createTask: (task) => call(() => n.projectsCreateTask(task)),
      updateTask: (update) => call(() => n.projectsUpdateTask(update)),
      getNextTasks: (query) => call(() => n.projectsGetNextTasks(query)),
      logDecision: (decision) => call(() => n.projectsLogDecision(decision)),
      getDecisions: (query) => call(() => n.projectsGetDecisions(query)),
    }
  }
  get notes() { return this.#native.notes }
  get home() { return this.#native.home }
}

/** The text of an answer as it is generated; `answer` is the final answer once iterated to the end. */
class AnswerStream {
  #native
  answer = null
  constructor(native) { this.#native = native }
  async *[Symbol.asyncIterator]() {
    for (;;) {
      const text = await call(() => this.#native.next())
      if (text === null) break
      yield text
    }
    this.answer = this.#native.answer()
  }
}

// `Symbol.asyncDispose` is standard from Node 24 (and TypeScript's `await using`
// needs it); older versions get the well-known symbol registered here.
if (typeof Symbol.asyncDispose !== 'symbol') {
  Object.defineProperty(Symbol, 'asyncDispose', { value: Symbol.for('Symbol.asyncDispose') })
}

function fetch(target, options) {
  return call(() => native.fetch(target, options))
}

/** The error table of `verity::api::error`: for each code, its exit code, HTTP status, Python class, JS code and JSON-RPC code. */
function errorTable() {
  return native.errorTable()
}

module.exports = { Verity, VerityError, AnswerStream, fetch, errorTable }
