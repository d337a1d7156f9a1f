'use strict'
// The same API on Redis: `Verity.open({ url: 'redis://…' })`.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Verity } = require('..')
const { DOCS, startRedis } = require('./helpers')

test('a store on Redis through the same API', async (t) => {
  const redis = await startRedis()
  if (!redis) return t.skip('no local Redis with search+JSON')
  try {
    const s = await Verity.open({ url: redis.url, embedder: 'none', minRelevance: 0 })
    assert.ok(s.home.startsWith('redis://'))
    const st = await s.stats()
    assert.equal(st.store.backend, 'redis')
    assert.equal((await s.ingest(DOCS)).inserted, 3)
    const res = await s.search('fee rate parts per million', { k: 2 })
    assert.equal(res.hits[0].doc.uid, 'fees-1')
    assert.equal(res.mode, 'lexical')
    assert.ok(res.notes.some((n) => n.includes('lexical')))
    const q = 'How is the fee rate of a Lightning channel expressed?'
    const first = await s.ask(q)
    assert.equal(first.citations[0].docUid, 'fees-1')
    assert.equal((await s.ask(q)).cached, true)
    assert.equal(await s.delete(['fees-1', 'nope']), 1)
    assert.equal((await s.ask(q)).cached, false, 'deleting a cited document busts the cached answer')
    assert.equal((await s.stats()).store.documents, 2)
  } finally {
    redis.stop()
  }
})
