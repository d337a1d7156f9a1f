'use strict'
// callTool: a registry tool by name answers the same camelCase shapes as the
// typed methods (one serde type per operation), user data kept as written.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Verity, VerityError } = require('..')
const { tmpHome, DOCS } = require('./helpers')

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
