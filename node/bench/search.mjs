// Binding overhead of `search` from Node (see docs/benchmarks.d/bindings.md).
//   node node/bench/search.mjs [N_CALLS]
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const { Verity } = require(join(here, '..'))
const N = Number(process.argv[2] ?? 10000)
const Q = 'routing fees base fee'
const opts = { mode: 'lexical' }

const store = await Verity.open({ home: mkdtempSync(join(tmpdir(), 'verity-bench-')), embedder: 'none', cache: false })
await store.ingestPaths([join(here, '..', '..', 'examples', 'data')])
for (let i = 0; i < 200; i++) await store.search(Q, opts)
const rust = (await store._benchSearch(Q, N, opts)) / N
let t = process.hrtime.bigint()
for (let i = 0; i < N; i++) await store.search(Q, opts)
const seq = Number(process.hrtime.bigint() - t) / 1e9 / N
console.log(JSON.stringify({ calls: N, rust_us: rust * 1e6, node_us: seq * 1e6, overhead_us: (seq - rust) * 1e6 }))
