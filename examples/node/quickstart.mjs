// Verity from Node: ingest the sample corpus, search, ask with citations.
//   scripts/test-node.sh --build-only && node examples/node/quickstart.mjs
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const { Verity, VerityError } = require(join(here, '..', '..', 'node'))

const store = await Verity.open({ home: mkdtempSync(join(tmpdir(), 'verity-')), embedder: 'auto' })
console.log(await store.ingestPaths([join(here, '..', 'data')]))

const { hits } = await store.search('how are routing fees computed?', { k: 3 })
for (const h of hits) console.log(h.score.toFixed(3), h.uid, h.title)

const answer = await store.ask('How are Lightning routing fees computed?')
console.log(answer.text)
for (const c of answer.citations) console.log(`  [${c.index}] ${c.docUid} ${c.title ?? ''}`)

try {
  await store.search('fees', { mode: 'psychic' })
} catch (e) {
  if (e instanceof VerityError) console.log('error:', e.code, e.message)
}
