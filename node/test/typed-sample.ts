// Type-checked (not run) by `tsc --noEmit`: the declared API in use.
import { Verity, VerityError, fetch, type Answer, type CheckReport, type Hit, type SearchResults } from '../index.js'

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
