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
    name: 'local-llm', type: 'include', keywords: ['ollama', 'local llm'], scoreModifier: 3, priority: 'high', active: true,
  })
  const again = await w.updateVeilleRule({ name: 'local-llm', type: 'include', keywords: ['ollama'] })
  assert.equal(again.created, false)
  assert.equal(again.rule.scoreModifier, 2)
  await w.updateVeilleRule({ name: 'crypto', type: 'exclude', keywords: ['bitcoin'] })
  const inc = await w.getVeilleRules({ type: 'include' })
  assert.deepEqual(inc.rules.map((x) => x.name), ['local-llm'])
  assert.deepEqual(inc.rules[0].keywords, ['ollama'])
  assert.ok('baseScore' in inc.scoringGuide)
  const all = (await w.getVeilleRules()).rules.map((x) => x.name).sort()
  assert.deepEqual(all, ['crypto', 'local-llm'])
})

test('watch: scoreArticle explains the matched rules', async () => {
  const w = (await open()).watch
  await w.updateVeilleRule({ name: 'local-llm', type: 'include', keywords: ['ollama'], scoreModifier: 3 })
  await w.updateVeilleRule({ name: 'crypto', type: 'exclude', keywords: ['bitcoin'] })
  const s = await w.scoreArticle({ title: 'Ollama 0.5 ships', content: 'Run models locally with Ollama.' })
  assert.deepEqual(s.matchedRules.map((m) => m.rule), ['local-llm'])
  assert.equal(s.matchedRules[0].keywords[0].count, 2)
  assert.equal(s.rawScore, s.scoringGuide.baseScore + 3)
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
  assert.equal(seen.matchedBy, 'url')
  assert.equal(seen.article.id, first.articleId)
  const again = await w.logArticle({ url: variant, title: 'Ollama 0.5', source: 'Ollama blog', sourceType: 'rss' })
  assert.equal(again.articleId, first.articleId)
  assert.equal(again.created, false)
  const arts = await w.getArticles({ days: 1 })
  assert.equal(arts.total, 1)
  assert.equal(arts.articles[0].sourceType, 'rss')
})

test('watch: logVeilleDecision then read back', async () => {
  const w = (await open()).watch
  const art = await w.logArticle({ url: 'https://example.org/a', title: 'A', source: 'Example', sourceType: 'hn' })
  const d = await w.logVeilleDecision({
    articleId: art.articleId, llm: 'qwen', decisionType: 'score', decision: '8/10', confidence: 0.8,
    toolsUsed: ['score_article'],
  })
  await w.logVeilleDecision({ llm: 'phi', decisionType: 'validate', decision: 'general note' })
  const back = await w.getVeilleDecisions({ articleId: art.articleId })
  assert.equal(back.total, 1)
  assert.equal(back.decisions[0].id, d.decisionId)
  assert.equal(back.decisions[0].decisionType, 'score')
  assert.deepEqual(back.decisions[0].toolsUsed, ['score_article'])
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

// ------------------------------------------------------------ web tools on loopback fakes

const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const zlib = require('node:zlib')

// The evaluation pages (CI: ../shared/data relative to the repository root).
const ARTICLES = process.env.VERITY_DATA_DIR
  ? path.join(process.env.VERITY_DATA_DIR, 'article-extraction')
  : path.resolve(__dirname, '..', '..', '..', 'shared', 'data', 'article-extraction')
const WEWORK = '06e5123e4ef7cfb4533250dc45d1e03d0838fc66223f45c583c4d12f48b4da85'
const DELHI = '076f4f33bf75059db581bedf36e76fb65e89a8f7752db3339aa3ea11c5122f32'

// Real article pages at /page/<id> and a SearXNG-format /search on loopback;
// the watch of stores opened inside `fn` uses them (configured from the environment).
async function withWeb(t, fn) {
  const html = path.join(ARTICLES, 'html')
  if (!fs.existsSync(path.join(html, `${WEWORK}.html.gz`))) {
    const why = `article pages not found under ${ARTICLES} (set VERITY_DATA_DIR)`
    if (process.env.VERITY_REQUIRE_DATA === '1') throw new Error(`${why}; VERITY_REQUIRE_DATA=1: a missing input fails the test`)
    t.skip(why)
    return
  }
  const pages = Object.fromEntries([WEWORK, DELHI].map((k) => [k, zlib.gunzipSync(fs.readFileSync(path.join(html, `${k}.html.gz`)))]))
  const searches = []
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, base)
    const id = u.pathname.startsWith('/page/') ? u.pathname.slice(6) : null
    if (id && pages[id]) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      res.end(pages[id])
    } else if (u.pathname === '/search') {
      searches.push(u.searchParams)
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({
        query: u.searchParams.get('q'),
        number_of_results: 2,
        results: [
          { url: `${base}/page/${WEWORK}`, title: 'NY attorney general investigating WeWork', content: 'The New York State Attorney General is investigating WeWork...', engine: 'duckduckgo' },
          { url: `${base}/page/${DELHI}`, title: 'Air quality apps for Delhi-NCR', content: 'Apps to find out the latest air quality index...', engine: 'bing' },
        ],
      }))
    } else {
      res.writeHead(404)
      res.end()
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  const saved = [process.env.VERITY_SEARXNG_URL, process.env.VERITY_ALLOW_PRIVATE]
  process.env.VERITY_SEARXNG_URL = base
  process.env.VERITY_ALLOW_PRIVATE = '1'
  try {
    await fn({ base, searches, w: (await open()).watch })
  } finally {
    if (saved[0] === undefined) delete process.env.VERITY_SEARXNG_URL
    else process.env.VERITY_SEARXNG_URL = saved[0]
    if (saved[1] === undefined) delete process.env.VERITY_ALLOW_PRIVATE
    else process.env.VERITY_ALLOW_PRIVATE = saved[1]
    await new Promise((resolve) => server.close(resolve))
  }
}

test('watch: webSearch returns the SearXNG results', (t) => withWeb(t, async ({ base, searches, w }) => {
  const r = await w.webSearch('wework attorney general', { numResults: 2, timeRange: 'month' })
  assert.equal(r.query, 'wework attorney general')
  assert.equal(r.totalFound, 2)
  assert.deepEqual(r.results.map((x) => x.url), [`${base}/page/${WEWORK}`, `${base}/page/${DELHI}`])
  assert.equal(r.results[0].title, 'NY attorney general investigating WeWork')
  assert.match(r.results[0].snippet, /^The New York State Attorney General/)
  assert.equal(searches.at(-1).get('q'), 'wework attorney general')
  assert.equal(searches.at(-1).get('format'), 'json')
  assert.equal((await w.webSearch('wework', { numResults: 1 })).totalFound, 1)
}))

test('watch: crawlUrl extracts the article', (t) => withWeb(t, async ({ base, w }) => {
  const page = await w.crawlUrl(`${base}/page/${WEWORK}`)
  assert.equal(page.url, `${base}/page/${WEWORK}`)
  assert.ok(page.wordCount > 100, `${page.wordCount}`)
  assert.match(page.title, /WeWork/)
  assert.ok(page.content.includes('A spokesperson for the NYAG declined to comment.'), page.content.slice(0, 500))
}))

test('watch: verifyFact reads the pages and quotes them verbatim', (t) => withWeb(t, async ({ base, w }) => {
  const claim = 'The New York State Attorney General is investigating WeWork.'
  const r = await w.verifyFact({ claim, context: 'WeWork' })
  assert.equal(r.claim, claim)
  assert.match(r.searched, /WeWork/)
  assert.equal(r.verdict, 'SUPPORTED')
  assert.equal(r.verified, true)
  assert.equal(r.notEnoughEvidence, false)
  assert.equal(r.sources[0].url, `${base}/page/${WEWORK}`)
  assert.match(r.sources[0].excerpt, /Attorney General/)
  for (const s of r.sources) {
    const text = (await w.crawlUrl(s.url)).content
    // Verbatim from the page as a reader sees it (crawlUrl's content is Markdown).
    assert.ok(s.excerpt && text.replaceAll('*', '').includes(s.excerpt), `${s.url}: ${s.excerpt}`)
  }
  const r2 = await w.verifyFact({ claim, urls: [`${base}/page/${WEWORK}`, `${base}/missing`] })
  assert.equal(r2.searched, undefined)
  assert.equal(r2.verified, true)
  assert.deepEqual(r2.unavailable.map((u) => u.url), [`${base}/missing`])
}))
