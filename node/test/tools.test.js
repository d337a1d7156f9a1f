'use strict'
// callTool: a registry tool by name answers the same camelCase shapes as the
// typed methods (one serde type per operation), user data kept as written.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Verity, VerityError } = require('..')
const { tmpHome, DOCS, declaredKeys, assertDeclared } = require('./helpers')

const open = () => Verity.open({ home: tmpHome(), embedder: 'none' })

test('callTool: results have camelCase keys, like the watch methods', async () => {
  const v = await open()
  const up = await v.callTool('update_veille_rule', {
    name: 'local-llm', type: 'include', keywords: ['ollama'], score_modifier: 3, priority: 'high',
  })
  assert.deepEqual(up.rule, {
    name: 'local-llm', type: 'include', keywords: ['ollama'], scoreModifier: 3, priority: 'high', active: true,
  })
  const r = await v.callTool('score_article', { title: 'Ollama 0.5 ships', content: 'Run models with Ollama.' })
  assert.equal(r.rawScore, r.scoringGuide.baseScore + 3)
  assert.equal(r.matchedRules[0].scoreModifier, 3)
  assert.ok(!('raw_score' in r) && !('matched_rules' in r))
  assert.deepEqual(r, await v.watch.scoreArticle({ title: 'Ollama 0.5 ships', content: 'Run models with Ollama.' }))
  await v.close()
})

test('callTool: camelCase argument names are accepted, snake_case too', async () => {
  const v = await open()
  const url = 'https://blog.example.com/posts/ollama-0-5'
  const logged = await v.callTool('log_article', { url, title: 'Ollama 0.5', source: 'blog', sourceType: 'rss', qwenScore: 8 })
  assert.equal(logged.created, true)
  assert.match(logged.articleId, /\S/)
  const seen = await v.callTool('check_article_exists', { url: `${url}?utm_source=x` })
  assert.equal(seen.exists, true)
  assert.equal(seen.matchedBy, 'url')
  assert.equal(seen.article.id, logged.articleId)
  assert.equal(seen.article.qwenScore, 8)
  const d = await v.callTool('log_veille_decision', {
    llm: 'qwen', decision_type: 'score', decision: '8/10', articleId: logged.articleId, toolsUsed: ['score_article'],
  })
  const back = await v.callTool('get_veille_decisions', { articleId: logged.articleId })
  assert.equal(back.decisions[0].id, d.decisionId)
  assert.deepEqual(back.decisions[0].toolsUsed, ['score_article'])
  await v.close()
})

test('callTool: project tools answer the typed methods\' shapes', async () => {
  const v = await open()
  const prj = await v.callTool('create_project', { name: 'verity', tags: ['rust'] })
  assert.match(prj.createdAt, /^\d{4}-/)
  const design = await v.callTool('create_task', { projectId: prj.id, title: 'design', priority: 'high' })
  await v.callTool('create_task', { projectId: prj.id, title: 'build', dependsOn: [design.id] })
  const next = await v.callTool('get_next_tasks', { projectId: prj.id })
  assert.deepEqual(next.tasks.map((t) => t.title), ['design'])
  assert.equal(next.waiting, 1)
  assert.deepEqual(next.tasks[0].dependsOn, [])
  assert.deepEqual(await v.callTool('get_project', { projectId: prj.id }), await v.projects.getProject(prj.id))
  await v.close()
})

test('callTool: user data keeps its keys; errors keep their codes', async () => {
  const v = await open()
  await v.ingest(DOCS)
  const doc = await v.callTool('get_document', { uid: 'fees-1' })
  assert.deepEqual(doc.document.metadata, { channel: 7 })
  assert.equal(doc.document.uid, 'fees-1')
  const added = await v.callTool('remember', { text: 'cache keys carry a write generation', metadata: { node_pubkey: '02ab' } })
  assert.ok('embeddingSource' in added && !('embedding_source' in added), Object.keys(added).join(', '))
  assert.deepEqual(added.event.metadata, { node_pubkey: '02ab' })
  await assert.rejects(v.callTool('no_such_tool', {}), (e) => e instanceof VerityError && e.code === 'unknown_tool')
  await assert.rejects(v.callTool('get_project', { projectId: 'prj_missing' }), (e) => e instanceof VerityError && e.code === 'not_found')
  await v.close()
})

test('callTool: ToolResults of index.d.ts names every registry tool', async () => {
  const v = await open()
  const e = await v.callTool('no_such_tool', {}).then(() => null, (err) => err)
  const available = /available: (.*)$/.exec(e.message)[1].split(', ').sort()
  assert.ok(available.length >= 30, e.message)
  assert.deepEqual([...declaredKeys('ToolResults').required].sort(), available)
  await v.close()
})

test('callTool: the store tools resolve to their declared ToolResults types', async () => {
  const kb = tmpHome()
  fs.writeFileSync(path.join(kb, 'notes.md'), '# Routing fees\n\nA base fee and a proportional rate, per channel.\n')
  const v = await Verity.open({ home: tmpHome(), embedder: 'none', knowledgeDir: kb })
  const types = declaredKeys('ToolResults').types
  const calls = {
    ingest: { documents: DOCS },
    search: { query: 'routing fee rate', k: 2 },
    ask: { question: 'How are routing fees set?' },
    get_document: { uid: 'fees-1' },
    stats: {},
    remember: { text: 'cache keys carry a write generation', metadata: { node_pubkey: '02ab' } },
    recall: { query: 'cache keys' },
    forget: { filterMetadata: { node_pubkey: '02ab' } },
    verify_citations: { content: 'Fees are set per channel, says the operator.' },
    add_reference: { filename: 'notes.md' },
    find_by_name: { filename: 'notes.md' },
  }
  const out = {}
  let searched
  for (const [name, args] of Object.entries(calls)) {
    out[name] = await v.callTool(name, args)
    assertDeclared(out[name], types.get(name))
    if (name === 'search') searched = (await v.search(args.query, { k: args.k })).hits.map((h) => h.chunkId)
  }
  assert.ok(out.ingest.inserted === 3 && out.search.hits.length >= 1)
  for (const h of out.search.hits) {
    assertDeclared(h, 'ScoredChunk')
    assertDeclared(h.chunk, 'Chunk')
  }
  assert.deepEqual(out.search.hits.map((h) => h.chunk.id), searched)
  assert.equal(out.get_document.document.uid, 'fees-1')
  assert.equal((await v.callTool('get_document', { uid: 'nope' })).document, null)
  assert.equal(out.stats.store.documents, 3)
  assertDeclared(out.remember.event, 'MemoryEvent')
  assert.deepEqual(out.remember.embeddingSource, { kind: 'none' })
  assert.equal(out.recall.data[0].id, out.remember.event.id)
  assert.equal(out.forget.deleted, 1)
  assert.equal(out.verify_citations.results.length, 0)
  assert.equal(out.add_reference.entry.filename, 'notes.md')
  assert.ok(out.find_by_name.found)
  assertDeclared(out.find_by_name.entry, 'KnowledgeEntry')
  await v.close()
})
