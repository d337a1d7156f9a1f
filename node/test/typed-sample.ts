// Type-checked (not run) by `tsc --noEmit`: the declared API in use.
import { Verity, VerityError, AnswerStream, fetch, type AddReferenceResult, type FetchedSource, type PageSpan, type Answer, type CheckReport, type Hit, type KnowledgeEntry, type ResearchReport, type SearchResults, type ScoreResult, type CheckArticleResult, type WatchDecisionsResponse, type NextTasksResult, type QueryContextResult, type Task } from '../index.js'

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
