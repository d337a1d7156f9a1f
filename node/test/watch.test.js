'use strict'
// store.watch: the technology watch (seed 000) through typed methods over
// the library's request and response types.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Verity, VerityError } = require('..')
const { tmpHome } = require('./helpers')

const code = (c) => (e) => e instanceof VerityError && e.code === c
const open = () => Verity.open({ home: tmpHome(), embedder: 'none' })

test('watch: rules round trip', async () => {
  const w = (await open()).watch
  const r = await w.updateVeilleRule({
    name: 'local-llm', type: 'include', keywords: ['ollama', 'local llm'], scoreModifier: 3, priority: 'high',
  })
  assert.equal(r.created, true)
  assert.deepEqual(r.rule, {
    name: 'local-llm', type: 'include', keywords: ['ollama', 'local llm'], score_modifier: 3, priority: 'high', active: true,
  })
  const again = await w.updateVeilleRule({ name: 'local-llm', type: 'include', keywords: ['ollama'] })
  assert.equal(again.created, false)
  assert.equal(again.rule.score_modifier, 2)
  await w.updateVeilleRule({ name: 'crypto', type: 'exclude', keywords: ['bitcoin'] })
  const inc = await w.getVeilleRules({ type: 'include' })
  assert.deepEqual(inc.rules.map((x) => x.name), ['local-llm'])
  assert.deepEqual(inc.rules[0].keywords, ['ollama'])
  assert.ok('base_score' in inc.scoring_guide)
  const all = (await w.getVeilleRules()).rules.map((x) => x.name).sort()
  assert.deepEqual(all, ['crypto', 'local-llm'])
})

test('watch: scoreArticle explains the matched rules', async () => {
  const w = (await open()).watch
  await w.updateVeilleRule({ name: 'local-llm', type: 'include', keywords: ['ollama'], scoreModifier: 3 })
  await w.updateVeilleRule({ name: 'crypto', type: 'exclude', keywords: ['bitcoin'] })
  const s = await w.scoreArticle({ title: 'Ollama 0.5 ships', content: 'Run models locally with Ollama.' })
  assert.deepEqual(s.matched_rules.map((m) => m.rule), ['local-llm'])
  assert.equal(s.matched_rules[0].keywords[0].count, 2)
  assert.equal(s.raw_score, s.scoring_guide.base_score + 3)
  assert.ok(s.explanation.some((l) => l.includes('local-llm')), s.explanation.join('\n'))
  const bad = await w.scoreArticle({ title: 'Bitcoin and Ollama' })
  assert.equal(bad.excluded, true)
  assert.equal(bad.valid, false)
})

test('watch: checkArticleExists finds a tracking-parameter variant; logArticle is idempotent', async () => {
  const w = (await open()).watch
  const url = 'https://blog.example.com/posts/ollama-0-5?id=7'
  assert.equal((await w.checkArticleExists({ url })).exists, false)
  const first = await w.logArticle({
    url, title: 'Ollama 0.5', source: 'Ollama blog', sourceType: 'rss', qwenScore: 8, phiValidated: true,
  })
  assert.equal(first.created, true)
  const variant = 'https://blog.example.com/posts/ollama-0-5?utm_source=newsletter&id=7&utm_medium=email'
  const seen = await w.checkArticleExists({ url: variant })
  assert.equal(seen.exists, true)
  assert.equal(seen.matched_by, 'url')
  assert.equal(seen.article.id, first.article_id)
  const again = await w.logArticle({ url: variant, title: 'Ollama 0.5', source: 'Ollama blog', sourceType: 'rss' })
  assert.equal(again.article_id, first.article_id)
  assert.equal(again.created, false)
  const arts = await w.getArticles({ days: 1 })
  assert.equal(arts.total, 1)
  assert.equal(arts.articles[0].source_type, 'rss')
})

test('watch: logVeilleDecision then read back', async () => {
  const w = (await open()).watch
  const art = await w.logArticle({ url: 'https://example.org/a', title: 'A', source: 'Example', sourceType: 'hn' })
  const d = await w.logVeilleDecision({
    articleId: art.article_id, llm: 'qwen', decisionType: 'score', decision: '8/10', confidence: 0.8,
    toolsUsed: ['score_article'],
  })
  await w.logVeilleDecision({ llm: 'phi', decisionType: 'validate', decision: 'general note' })
  const back = await w.getVeilleDecisions({ articleId: art.article_id })
  assert.equal(back.total, 1)
  assert.equal(back.decisions[0].id, d.decision_id)
  assert.equal(back.decisions[0].decision_type, 'score')
  assert.deepEqual(back.decisions[0].tools_used, ['score_article'])
  assert.equal((await w.getVeilleDecisions({ days: 1 })).total, 2)
})

test('watch: a bad enum value is invalid_input naming the allowed values', async () => {
  const w = (await open()).watch
  await assert.rejects(
    w.logArticle({ url: 'https://example.org/b', title: 'B', source: 'E', sourceType: 'blog' }),
    (e) => code('invalid_input')(e) && ['rss', 'youtube', 'reddit', 'hn'].every((x) => e.message.includes(x)),
  )
  await assert.rejects(
    w.logVeilleDecision({ llm: 'gpt', decisionType: 'score', decision: 'x' }),
    (e) => code('invalid_input')(e) && /qwen/.test(e.message) && /phi/.test(e.message),
  )
  await assert.rejects(w.getVeilleRules({ type: 'sometimes' }), (e) => code('invalid_input')(e) && /include/.test(e.message))
  await assert.rejects(
    w.updateVeilleRule({ name: 'r', type: 'include', keywords: ['x'], scoreModifier: 99 }),
    (e) => code('invalid_input')(e) && /score_modifier/.test(e.message),
  )
  await assert.rejects(w.webSearch('ollama', { timeRange: 'decade' }), code('invalid_input'))
  await assert.rejects(w.scoreArticle('not an object'), code('invalid_input'))
  await assert.rejects(w.crawlUrl('http://127.0.0.1:9/page'), (e) => e instanceof VerityError && e.code !== 'internal')
})
