'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const { Verity, VerityError } = require('..')
const { tmpHome } = require('./helpers')

test('memory: add, get, search, updateMetadata, delete', async () => {
  const { memory } = await Verity.open({ home: tmpHome(), embedder: 'none' })
  const a = await memory.add({
    content: { text: 'event zero' },
    metadata: { event_type: 'decision', tags: ['a', 'b'] },
    embedding: [1, 0.05, 0.05, 0.05],
    timestamp: '2025-03-01T10:00:00Z',
  })
  const b = await memory.add({ content: { text: 'event one' }, embedding: [0.05, 1, 0.05, 0.05], timestamp: '2025-04-01T10:00:00Z' })
  assert.equal((await memory.get(a.id)).metadata.event_type, 'decision')
  let page = await memory.search({ vectorQuery: [1, 0, 0, 0] })
  assert.equal(page.data[0].id, a.id)
  assert.ok(page.data[0].similarityScore < 0.1)
  page = await memory.search({ filterMetadata: { tags: ['b'] }, tsStart: '2025-01-01T00:00:00Z' })
  assert.deepEqual(page.data.map((e) => e.id), [a.id])
  assert.equal(page.meta.totalHits, 1)
  const upd = await memory.updateMetadata(a.id, { reviewed: true })
  assert.deepEqual(upd.metadata, { event_type: 'decision', tags: ['a', 'b'], reviewed: true })
  await memory.delete(b.id)
  await assert.rejects(memory.get(b.id), (e) => e instanceof VerityError && e.code === 'not_found')
})

test('memory: bad input is a VerityError naming the field', async () => {
  const { memory } = await Verity.open({ home: tmpHome(), embedder: 'none' })
  await memory.add({ content: { text: 'x' }, embedding: [1, 0] })
  const cases = [
    [() => memory.add({ content: { text: 'y' }, embedding: [1, 0, 0] }), 'embedding'],
    [() => memory.add({ content: { text: 'y' }, timestamp: '2025-01-01T10:00:00' }), 'timestamp'],
    [() => memory.add({ metadata: {} }), 'content'],
    [() => memory.search({ limit: 0 }), 'limit'],
    [() => memory.search({ filterMetadata: '{bad' }), 'filter_metadata'],
    [() => memory.get('not-a-uuid'), 'id'],
    [() => memory.forget({}), 'id'],
  ]
  for (const [call, field] of cases) {
    await assert.rejects(call(), (e) => e instanceof VerityError && e.code === 'invalid_input' && e.message.includes(field), field)
  }
  assert.equal((await memory.search({ limit: 100 })).meta.totalHits, 1)
})

test('memory: remember, recall, forget', async () => {
  const { memory } = await Verity.open({ home: tmpHome(), embedder: 'none' })
  const ev = await memory.remember('We chose SQLite for the demo', { metadata: { session_id: 's1' }, ttlSeconds: 3600 })
  assert.ok(ev.expiresAt)
  await memory.remember('SQLite again, other session', { metadata: { session_id: 's2' } })
  const page = await memory.recall({ query: 'SQLite', filterMetadata: { session_id: 's1' } })
  assert.deepEqual(page.data.map((e) => e.id), [ev.id])
  assert.equal(await memory.forget({ filterMetadata: { session_id: 's2' } }), 1)
  assert.equal(await memory.forget({ id: ev.id }), 1)
  assert.equal((await memory.recall()).data.length, 0)
})

test('memory: add reads the declared camelCase keys (expiresAt), content and metadata as written', async () => {
  const { memory } = await Verity.open({ home: tmpHome(), embedder: 'none' })
  const ev = await memory.add({ content: { text: 'x', user_id: 7 }, metadata: { session_id: 's1' }, expiresAt: '2030-01-01T00:00:00Z' })
  assert.equal(ev.expiresAt, '2030-01-01T00:00:00Z')
  assert.deepEqual([ev.content.user_id, ev.metadata.session_id], [7, 's1'])
  await assert.rejects(memory.add({ content: { text: 'y' }, expiresAt: 'soon' }), (e) => e.code === 'invalid_input' && e.message.includes('expires_at'))
})
