// Type-checked (not run) by `tsc --noEmit`: the declared API in use.
import { Verity, VerityError, AnswerStream, fetch, type AddReferenceResult, type FetchedSource, type PageSpan, type Answer, type CheckReport, type Hit, type KnowledgeEntry, type ResearchReport, type SearchResults, type ScoreResult, type CheckArticleResult, type WatchDecisionsResponse, type NextTasksResult, type QueryContextResult, type Task, type IngestOutcome, type Citation, type MemoryEvent, type MemoryPage, type Stats, type StoredDocument } from '../index.js'

export async function sample(home: string): Promise<string> {
  const store: Verity = await Verity.open({ home, embedder: 'none', k: 4, minRelevance: 0.3 })
  await store.ingest([{ uid: 'a', content: 'text', tags: ['t'], metadata: { channel: 7 } }])
  const res: SearchResults = await store.search('text', { k: 3, mode: 'lexical', since: '2024-01-01T00:00:00Z', metadata: { channel: [7, 8] } })
  const titles: (string | undefined)[] = res.hits.map((h: Hit) => h.doc.title)
  const answer: Answer = await store.ask('what?', { lang: 'en', noCache: true })
  const n: number = await store.delete(['a'])
  const doc = await store.get('a')
  const src = await fetch('README.md')
  const report: CheckReport = await store.check({ content: 'x [1]', contentType: 'markdown', judge: 'local' })
  const verdicts: string[] = report.results.map((r) => `${r.verdict} ${r.sourceQuote ?? ''}`)
  try {
    await store.search('x', { mode: 'lexical' })
  } catch (e) {
    if (e instanceof VerityError) return `${e.code} ${e.transient}`
  }
  return `${titles.join()} ${answer.text} ${n} ${doc?.uid ?? ''} ${Object.keys(src).length} ${store.home} ${store.notes.length} ${verdicts.length}`
}

export async function research(store: Verity, syllabus: string): Promise<string> {
  const r: ResearchReport = await store.research(syllabus, { knowledgeDir: 'kb', allowPrivate: false })
  const refs: string[] = r.references.map((x) => x.url ?? x.filename ?? x.title)
  const entry: KnowledgeEntry | null = await store.findByName('notes.md', { knowledgeDir: 'kb' })
  const added: AddReferenceResult = await store.addReference({ filename: 'notes.md' })
  const replayed: ResearchReport = await store.research(null, { replay: true, runDir: r.runDir })
  return `${r.planner} ${r.coverage} ${refs.join()} ${entry?.title ?? ''} ${added.indexed} ${replayed.coverage}`
}

export async function watch(store: Verity, url: string): Promise<string> {
  const w = store.watch
  await w.updateVeilleRule({ name: 'local-llm', type: 'include', keywords: ['ollama'], scoreModifier: 3 })
  const s: ScoreResult = await w.scoreArticle({ title: 'Ollama 0.5', url })
  const lines: string[] = s.matchedRules.map((m) => `${m.rule} ${m.scoreModifier}`).concat(s.explanation)
  const seen: CheckArticleResult = await w.checkArticleExists({ url })
  if (!seen.exists) {
    const logged = await w.logArticle({ url, title: 'Ollama 0.5', source: 'blog', sourceType: 'rss', qwenScore: s.score })
    await w.logVeilleDecision({ articleId: logged.articleId, llm: 'qwen', decisionType: 'score', decision: `${s.score}` })
  }
  const back: WatchDecisionsResponse = await w.getVeilleDecisions({ since: '2024-01-01T00:00:00Z' })
  return `${lines.join()} ${seen.article?.id ?? ''} ${back.total}`
}

export async function projects(store: Verity): Promise<string> {
  const p = store.projects
  const prj = await p.createProject({ name: 'verity', status: 'active', tags: ['rust'] })
  const first: Task = await p.createTask({ projectId: prj.id, title: 'design', priority: 'high' })
  await p.createTask({ projectId: prj.id, title: 'build', dependsOn: [first.id] })
  await p.updateTask({ taskId: first.id, status: 'done' })
  const next: NextTasksResult = await p.getNextTasks({ projectId: prj.id, limit: 3 })
  const ctx = await p.storeContext({ projectId: prj.id, content: 'SQLite by default', title: 'storage' })
  const found: QueryContextResult = await p.queryContext({ projectId: prj.id, query: 'sqlite' })
  await p.deleteContext(ctx.contextId)
  await p.logDecision({ projectId: prj.id, decision: 'SQLite', alternatives: ['Postgres'] })
  const overview = await p.getProject(prj.id)
  const listed = await p.listProjects({ status: 'active' })
  const decisions = await p.getDecisions({ projectId: prj.id })
  return `${next.tasks.map((t) => t.title).join()} ${found.ran} ${overview.contextEntries} ${listed.total} ${decisions.total}`
}

export async function tools(store: Verity): Promise<string> {
  // The generic tool call: camelCase keys, typed for the watch and project tools.
  const s: ScoreResult = await store.callTool('score_article', { title: 'Ollama 0.5' })
  const task = await store.callTool('create_task', { projectId: 'prj_1', title: 'design', dependsOn: [] })
  const stats = await store.callTool('stats')
  const page = await store.callTool('fetch_url', { url: 'https://example.com/' })
  const found = await store.callTool('search', { query: 'fees', k: 3 })
  const doc = await store.callTool('get_document', { uid: 'a' })
  // @ts-expect-error the keys are camelCase: `rawScore`, not `raw_score`
  void s.raw_score
  const name: string = ['stats', 'ask'][0]
  // @ts-expect-error a name known only at run time resolves to `unknown`: narrow it first
  void (await store.callTool(name)).store
  const hits = found.hits.map((h) => `${h.doc.uid}:${h.chunk.id}:${h.relevance}`).join()
  return `${s.rawScore} ${s.matchedRules.map((m) => m.scoreModifier).join()} ${task.dependsOn.length} ${stats.store.documents} ${page.parsed?.document.title ?? page.status} ${hits} ${doc.document?.uid ?? ''}`
}

export async function fetched(target: string): Promise<string> {
  const src: FetchedSource = await fetch(target, { allowPrivate: false })
  const code: number | undefined = src.httpStatus
  if (src.status !== 'fetched' || !src.parsed) return `${src.status} ${code ?? ''} ${src.detail ?? ''}`
  const pages: PageSpan[] = src.parsed.pages ?? []
  const source: string = src.parsed.document.source
  // @ts-expect-error the keys are camelCase: `finalUrl`, not `final_url`
  void src.final_url
  // @ts-expect-error `parsed` may be absent (not fetched): narrowed above, not here
  void (await fetch(target)).parsed.format
  return `${src.parsed.document.title ?? src.finalUrl} ${src.parsed.format} ${pages.map((p) => p.page).join()} ${source} ${src.fetchedAt}`
}

export async function lifecycle(home: string): Promise<string> {
  const store = await Verity.open({ home, embedder: 'none' })
  const hit: Hit | undefined = (await store.search('text', { k: 1 })).hits[0]
  const stream: AnswerStream = store.askStream('what?', { noCache: true })
  let text = ''
  for await (const piece of stream) text += piece
  const final: Answer | null = stream.answer
  const closed: boolean = store.closed
  await store[Symbol.asyncDispose]()
  await store.close()
  return `${hit?.uid ?? ''} ${hit?.chunkId ?? ''} ${hit?.text ?? ''} ${text} ${final?.notEnoughEvidence ?? ''} ${closed}`
}

export async function generatedResults(home: string): Promise<string> {
  // The result types generated from the api schemas, read field by field.
  const store = await Verity.open({ home, embedder: 'none' })
  const outcome: IngestOutcome = await store.ingest([{ uid: 'a', content: 'text', source: 'notes', ts: '2025-01-01T00:00:00Z' }])
  const ingested = `${outcome.inserted} ${outcome.replaced} ${outcome.readErrors.length} ${outcome.skippedFiles.join()} ${outcome.lexicalOnly} ${outcome.embedder?.model ?? 'none'} ${outcome.reprocessed}`
  // @ts-expect-error the keys are camelCase: `readErrors`, not `read_errors`
  void outcome.read_errors
  const res: SearchResults = await store.search('text', { k: 3 })
  const hit: Hit | undefined = res.hits[0]
  const searched = hit
    ? `${hit.uid} ${hit.chunkId} ${hit.chunk.docUid} ${hit.chunk.headingPath?.join('/') ?? ''} ${hit.doc.title ?? ''} ${hit.doc.metadata?.channel ?? ''} ${hit.relevance} ${hit.lexical ?? ''} ${res.mode}`
    : res.notes?.join() ?? ''
  const answer: Answer = await store.ask('what?')
  const cited = answer.citations.map((c: Citation) => `[${c.index}] ${c.docUid} ${c.span?.[0] ?? ''}`).join()
  const timed = `${answer.timings.totalMs} ${answer.invalidCitations?.length ?? 0} ${answer.verification?.checked ?? ''} ${answer.notEnoughEvidence}`
  // @ts-expect-error an answer's timings are in milliseconds: `totalMs`
  void answer.timings.total
  const ev: MemoryEvent = await store.memory.add({ content: { text: 'hello', user_id: 7 }, metadata: { tag_list: ['a'] }, expiresAt: '2030-01-01T00:00:00Z' })
  const page: MemoryPage = await store.memory.search({ vectorQuery: 'hello', tsStart: '2025-01-01T00:00:00Z', limit: 5, mode: 'lexical' })
  const events = page.data.map((e) => `${e.id} ${e.timestamp} ${e.similarityScore ?? ''} ${e.rankScore ?? ''} ${e.content.user_id}`).join()
  const remembered = `${ev.expiresAt ?? ''} ${ev.metadata.tag_list} ${page.meta.totalHits ?? '?'} ${page.meta.mode} ${page.meta.thresholdFallback}`
  // @ts-expect-error the keys are camelCase: `similarityScore`, not `similarity_score`
  void ev.similarity_score
  const stats: Stats = await store.stats()
  const doc: StoredDocument | null = await store.get('a')
  await store.close()
  return `${ingested} ${searched} ${cited} ${timed} ${events} ${remembered} ${stats.store.documents} ${stats.store.embedder?.dim ?? ''} ${doc?.source ?? ''}`
}
