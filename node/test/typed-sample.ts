// Type-checked (not run) by `tsc --noEmit`: the declared API in use.
import { Verity, VerityError, fetch, type AddReferenceResult, type Answer, type CheckReport, type Hit, type KnowledgeEntry, type ResearchReport, type SearchResults } from '../index.js'

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
  const verdicts: string[] = report.results.map((r) => `${r.verdict} ${r.source_quote ?? ''}`)
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
  const replayed: ResearchReport = await store.research(null, { replay: true, runDir: r.run_dir })
  return `${r.planner} ${r.coverage} ${refs.join()} ${entry?.title ?? ''} ${added.indexed} ${replayed.coverage}`
}
