'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Verity, VerityError, fetch } = require('..')
const { DATA, DOCS, tmpHome, modelDir, assertDeclared } = require('./helpers')

async function filled() {
  const s = await Verity.open({ home: tmpHome(), embedder: 'none' })
  await s.ingest(DOCS)
  return s
}

test('open, stats, home', async () => {
  const home = tmpHome()
  const s = await Verity.open({ home, embedder: 'none' })
  assert.equal(s.home, home)
  const st = await s.stats()
  assert.equal(st.store.documents, 0)
  assert.equal(st.embedder, null)
  assert.ok(Array.isArray(s.notes))
})

test('ingest, re-ingest is a no-op', async () => {
  const s = await Verity.open({ home: tmpHome(), embedder: 'none' })
  const r = await s.ingest(DOCS)
  assert.equal(r.inserted, 3)
  assert.ok(r.chunks >= 3)
  assert.equal(r.lexicalOnly, true)
  const again = await s.ingest(DOCS)
  assert.equal(again.unchanged, 3)
  assert.equal(again.reprocessed, 0)
  assert.equal(again.inserted, 0)
})

test('search returns hits with chunk, doc and scores', async () => {
  const s = await filled()
  const res = await s.search('routing fee rate', { k: 2, mode: 'lexical' })
  assert.equal(res.mode, 'lexical')
  assert.ok(res.hits.length >= 1 && res.hits.length <= 2)
  const top = res.hits[0]
  assert.equal(top.doc.uid, 'fees-1')
  assert.equal(top.doc.title, 'Routing fees')
  assert.ok(DOCS[0].content.includes(top.chunk.text))
  assert.ok(top.score > 0 && top.relevance >= 0 && top.relevance <= 1)
  assert.equal(typeof top.lexical, 'number')
  assert.deepEqual(JSON.parse(JSON.stringify(res)), res)
})

test('search filters', async () => {
  const s = await filled()
  const uids = async (q, o) => new Set((await s.search(q, { mode: 'lexical', ...o })).hits.map((h) => h.doc.uid))
  assert.deepEqual(await uids('frais de routage', { langs: ['fr'] }), new Set(['fr-1']))
  assert.deepEqual(await uids('channel fee', { metadata: { channel: 7 } }), new Set(['fees-1']))
  for (const u of await uids('fees', { sources: ['amboss'] })) assert.equal(u, 'liq-1')
  for (const u of await uids('fees', { tags: ['fees'] })) assert.ok(['fees-1', 'fr-1'].includes(u))
  assert.deepEqual(await uids('liquidity rebalancing', { until: '2024-12-31T00:00:00Z' }), new Set(['liq-1']))
  const recent = await uids('fees routage', { since: '2025-01-01T00:00:00Z' })
  assert.ok(recent.size > 0 && !recent.has('liq-1'))
  assert.deepEqual(await uids('frais', { uids: ['fr-1'] }), new Set(['fr-1']))
  assert.deepEqual(await uids('fees', { uids: ['liq-1'] }), new Set())
})

test('ask answers with citations or says evidence is thin', async () => {
  const s = await filled()
  const a = await s.ask('What is the proportional fee rate of a Lightning channel?', { mode: 'lexical' })
  assert.ok(a.model)
  if (!a.notEnoughEvidence) {
    assert.ok(a.citations.length > 0)
    assert.ok(a.text.includes(`[${a.citations[0].index}]`))
  }
  const none = await s.ask('zebra migration patterns in the serengeti', { mode: 'lexical', noCache: true })
  assert.equal(none.notEnoughEvidence, true)
  assert.deepEqual(none.citations, [])
})

test('ask: the verification holds the declared camelCase keys', async () => {
  const s = await filled()
  const a = await s.ask('How are routing fees set?', { verify: 'flag' })
  assertDeclared(a, 'Answer')
  assertDeclared(a.verification, 'AnswerVerification')
  assert.ok(a.verification.sentences.length > 0)
  for (const v of a.verification.sentences) assertDeclared(v, 'SentenceVerdict')
  assert.ok(a.verification.sentences.some((v) => 'sourceQuote' in v), JSON.stringify(a.verification))
  assert.ok(!('verification' in await s.ask('How are routing fees set?', { verify: 'off' })))
})

test('get and delete', async () => {
  const s = await filled()
  const d = await s.get('fees-1')
  assert.equal(d.uid, 'fees-1')
  assert.deepEqual(d.metadata, { channel: 7 })
  assert.equal(d.content, DOCS[0].content)
  assert.equal(await s.get('missing'), null)
  assert.equal(await s.delete(['fees-1', 'missing']), 1)
  assert.equal(await s.get('fees-1'), null)
})

test('ingestPaths and strict mode', async () => {
  const s = await Verity.open({ home: tmpHome(), embedder: 'none' })
  const out = await s.ingestPaths([DATA])
  assert.ok(out.inserted >= 8)
  assert.deepEqual(out.readErrors, [])
  const bad = path.join(tmpHome(), 'bad.jsonl')
  fs.writeFileSync(bad, '{"uid":"ok","content":"fine"}\n{not json\n')
  const lenient = await s.ingestPaths([bad])
  assert.equal(lenient.readErrors.length, 1)
  await assert.rejects(s.ingestPaths([bad], true), VerityError)
})

test('fetch parses a local file', async () => {
  const src = await fetch(path.join(DATA, 'caching.md'))
  assert.equal(src.status, 'fetched')
  assert.ok(src.parsed.document.content.includes('rag:retrieval'))
})

test('local model: dense search', { skip: process.env.VERITY_REQUIRE_DATA !== '1' && !fs.existsSync(modelDir()) && `local model missing at ${modelDir()}` }, async () => {
  const s = await Verity.open({ home: tmpHome(), embedder: `local:${modelDir()}` })
  const r = await s.ingest(DOCS)
  assert.equal(r.lexicalOnly, false)
  const res = await s.search('how much does forwarding a payment cost', { mode: 'dense', k: 3 })
  assert.equal(res.mode, 'dense')
  assert.ok(['fees-1', 'fr-1'].includes(res.hits[0].doc.uid))
})
