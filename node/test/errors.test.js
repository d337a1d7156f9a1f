'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const { Verity, VerityError, fetch } = require('..')
const { DOCS, tmpHome } = require('./helpers')

async function filled() {
  const s = await Verity.open({ home: tmpHome(), embedder: 'none' })
  await s.ingest(DOCS)
  return s
}

const code = (c) => (e) => e instanceof VerityError && e.code === c

test('bad mode and filters are invalid_input', async () => {
  const s = await filled()
  await assert.rejects(s.search('fees', { mode: 'psychic' }), (e) => code('invalid_input')(e) && /psychic/.test(e.message) && e.transient === false)
  await assert.rejects(s.search('fees', { since: 'last tuesday' }), code('invalid_input'))
  await assert.rejects(s.search('fees', { bogusOption: 1 }), code('invalid_input'))
  await assert.rejects(s.search('fees', { k: 'many' }), code('invalid_input'))
  await assert.rejects(s.search('fees', { k: -1 }), code('invalid_input'))
  await assert.rejects(s.ask('fees?', { mode: 'psychic' }), code('invalid_input'))
})

test('bad config is config_error', async () => {
  await assert.rejects(Verity.open({ home: tmpHome(), embedder: 'telepathy' }), code('config_error'))
  await assert.rejects(Verity.open({ home: tmpHome(), embedder: 'none', generator: 'oracle' }), code('config_error'))
  await assert.rejects(Verity.open({ home: tmpHome(), embedder: 'local:/no/such/model' }), code('config_error'))
  await assert.rejects(Verity.open({ home: tmpHome(), embedder: 'none', colour: 'blue' }), code('invalid_input'))
})

test('wrong argument types are TypeErrors', async () => {
  const s = await filled()
  await assert.rejects(s.search(42), TypeError)
  await assert.rejects(s.search(null), TypeError)
  await assert.rejects(s.search(Buffer.from([0xff, 0xfe])), TypeError)
  await assert.rejects(s.get(undefined), TypeError)
  await assert.rejects(s.delete('uid'), TypeError)
  await assert.rejects(s.ingestPaths('examples'), TypeError)
  assert.throws(() => new Verity({}), TypeError)
})

test('malformed documents are invalid_input and write nothing', async () => {
  const s = await Verity.open({ home: tmpHome(), embedder: 'none' })
  for (const d of [{ content: 'no uid' }, { uid: 'u', content: 12 }, { uid: 'u', content: 'x', ts: 'nope' }, { uid: 'u', content: 'x', tags: 12 }]) {
    await assert.rejects(s.ingest([d]), code('invalid_input'))
  }
  await assert.rejects(s.ingest('not a list'), code('invalid_input'))
  assert.equal((await s.stats()).store.documents, 0)
  const r = await s.ingest([{ uid: 'e', content: '' }, { uid: 'ok', content: 'fine text' }])
  assert.equal(r.inserted, 1)
  assert.equal(r.rejected.length, 1)
  // One tag given as a string is kept as that tag, never dropped.
  await s.ingest([{ uid: 'one', content: 'x', tags: 'fees' }])
  assert.deepEqual((await s.get('one')).tags, ['fees'])
})

test('empty uid delete, huge strings, lone surrogates', async () => {
  const s = await filled()
  await assert.rejects(s.delete(['']), code('invalid_input'))
  const big = 'fees '.repeat(400_000)
  try {
    const res = await s.search(big, { k: 3, mode: 'lexical' })
    assert.ok(res.hits.length <= 3)
  } catch (e) {
    assert.ok(code('invalid_input')(e), e)
  }
  const r = await s.ingest([{ uid: 'big', content: 'routing '.repeat(200_000) }])
  assert.equal(r.inserted, 1)
  assert.ok(r.chunks > 10)
  // Lone surrogates are replaced (U+FFFD) by Node-API's UTF-8 conversion: no crash.
  const res = await s.search('bad \udcff surrogate', { mode: 'lexical' })
  assert.ok(Array.isArray(res.hits))
})

test('fetch errors carry a code', async () => {
  await assert.rejects(fetch('/no/such/file.md'), (e) => e instanceof VerityError && e.code.length > 0)
  const blocked = await fetch('http://127.0.0.1:9/x') // SSRF guard: a status, not a rejection
  assert.equal(blocked.status, 'blocked')
  await assert.rejects(fetch('http://[::1'), (e) => e instanceof VerityError)
  // The options object is the api's FetchRequest: unknown keys are refused.
  await assert.rejects(fetch('http://127.0.0.1:9/x', { allowPrivat: true }), (e) => e.code === 'invalid_input' && /allow_privat/.test(e.message))
  await assert.rejects(fetch('http://127.0.0.1:9/x', { target: 'x' }), (e) => e.code === 'invalid_input')
})

test('concurrent calls on one store', async () => {
  const s = await filled()
  const qs = Array.from({ length: 40 }, (_, i) => ['fees', 'liquidity', 'routage', 'channel'][i % 4])
  const writes = Array.from({ length: 5 }, (_, i) => s.ingest([{ uid: `c-${i}`, content: `concurrent write ${i} about routing fees` }]))
  const all = await Promise.all([...qs.map((q) => s.search(q, { mode: 'lexical' })), ...writes])
  assert.equal(all.length, 45)
  assert.deepEqual(all[0].mode, 'lexical')
  assert.equal((await s.stats()).store.documents, DOCS.length + 5)
})

test('errors follow the shared error table', async () => {
  const { errorTable } = require('..')
  const table = new Map(errorTable().map((r) => [r.code, r]))
  for (const c of ['invalid_input', 'not_found', 'unavailable', 'config_error', 'internal']) assert.ok(table.has(c), c)
  const s = await filled()
  const cases = [
    () => s.search('fees', { mode: 'psychic' }),
    () => s.search('fees', { k: 0 }),
    () => s.search('fees', { k: 1001 }),
    () => s.ask('fees?', { k: 0 }),
    () => Verity.open({ home: tmpHome(), embedder: 'telepathy' }),
    () => s.delete(['']),
  ]
  for (const call of cases) {
    await assert.rejects(call(), (e) => e instanceof VerityError && table.has(e.code) && table.get(e.code).jsCode === e.code)
  }
  await assert.rejects(s.search('fees', { k: 0 }), (e) => /between 1 and 1000/.test(e.message))
})

test('a date-only until includes that day', async () => {
  const s = await filled()
  const uids = async (until) => (await s.search('fee rate', { until, mode: 'lexical' })).hits.map((h) => h.doc.uid)
  assert.ok((await uids('2025-09-12')).includes('fees-1'))
  assert.ok(!(await uids('2025-09-12T00:00:00Z')).includes('fees-1'))
})
