'use strict'
// verity.research / findByName / addReference: the fixture syllabus of
// crates/verity-research, its pages served on loopback, the run offline.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { Verity, VerityError } = require('..')
const { tmpHome } = require('./helpers')

const FIXTURES = path.resolve(__dirname, '..', '..', 'crates', 'verity-research', 'tests', 'fixtures')

async function pages() {
  const server = http.createServer((req, res) => {
    const file = path.join(FIXTURES, 'web', req.url.replace(/^\/+/, ''))
    if (!req.url.includes('..') && fs.existsSync(file) && fs.statSync(file).isFile()) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(fs.readFileSync(file))
    } else {
      res.writeHead(404)
      res.end('not found')
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, base: `http://127.0.0.1:${server.address().port}` }
}

function setup(dir, base) {
  const syllabus = path.join(dir, 'syllabus.md')
  fs.writeFileSync(syllabus, fs.readFileSync(path.join(FIXTURES, 'syllabus.md'), 'utf8').replaceAll('{BASE}', base))
  const kb = path.join(dir, 'kb')
  fs.mkdirSync(kb)
  fs.copyFileSync(path.join(FIXTURES, 'kb', 'Prompt_Engineering_for_Developers.md'), path.join(kb, 'Prompt_Engineering_for_Developers.md'))
  return { syllabus, kb }
}

test('research: the checked report, the knowledge base, the replay', async () => {
  const { server, base } = await pages()
  try {
    const dir = tmpHome()
    const { syllabus, kb } = setup(dir, base)
    const s = await Verity.open({ home: path.join(dir, 'store'), embedder: 'none', generator: 'extractive' })
    const runDir = path.join(dir, 'run')
    const r = await s.research(syllabus, { runDir, knowledgeDir: kb, allowPrivate: true, judge: 'local', budgetSecs: 120 })
    assert.ok(r.judge.includes('local'), r.judge)
    assert.equal(r.planner, 'deterministic')
    assert.equal(r.coverage, 1)
    assert.equal(r.unresolvedCitations, 0)
    assert.ok(r.supportedShare >= 0.95, JSON.stringify(r))
    assert.equal(r.degraded, false, r.missing.join('; '))
    assert.ok(r.markdown.split('## References')[1].includes(`${base}/agents.html`))
    assert.ok(r.references.some((x) => x.filename === 'Prompt_Engineering_for_Developers.md'))
    assert.ok(fs.existsSync(path.join(runDir, 'trace.jsonl')))

    const entry = await s.findByName('Prompt_Engineering_for_Developers.md', { knowledgeDir: kb })
    assert.ok(entry && entry.summary.length > 0 && entry.fileId)
    assert.equal(await s.findByName('nope.md', { knowledgeDir: kb }), null)

    const again = await s.research(null, { replay: true, runDir, knowledgeDir: kb })
    assert.equal(again.coverage, 1)
    assert.ok(again.notes.some((n) => n.includes('replayed')))

    // Without allowPrivate the loopback references are refused and reported missing.
    const guarded = await s.research(syllabus, { runDir: path.join(dir, 'run2'), knowledgeDir: path.join(dir, 'kb2') })
    assert.equal(guarded.degraded, true)
    assert.ok(guarded.missing.some((m) => m.includes('/agents.html')), guarded.missing.join('; '))
  } finally {
    server.close()
  }
})

test('addReference and bad input', async () => {
  const { server, base } = await pages()
  try {
    const dir = tmpHome()
    const kb = path.join(dir, 'kb')
    fs.mkdirSync(kb)
    const s = await Verity.open({ home: path.join(dir, 'store'), embedder: 'none', generator: 'extractive' })
    const opts = { knowledgeDir: kb, allowPrivate: true }
    const added = await s.addReference({ url: `${base}/rag.html`, keywords: ['rag'] }, opts)
    assert.equal(added.downloaded, true)
    assert.equal(added.indexed, true)
    assert.deepEqual(added.entry.keywords, ['rag'])
    const twice = await s.addReference({ url: `${base}/rag.html` }, opts)
    assert.equal(twice.downloaded, false)
    const titled = await s.addReference({ url: `${base}/europa.html`, title: 'Europa', description: 'A moon.' }, opts)
    assert.equal(titled.entry.title, 'Europa')
    assert.equal(titled.entry.summary, 'A moon.')
    const found = await s.findByName(titled.entry.filename, { knowledgeDir: kb })
    assert.equal(found.title, 'Europa')
    const invalid = (e) => e instanceof VerityError && e.code === 'invalid_input'
    await assert.rejects(s.addReference({}, { knowledgeDir: kb }), invalid)
    await assert.rejects(s.addReference({ filename: '../etc/passwd' }, { knowledgeDir: kb }), invalid)
    await assert.rejects(s.addReference({ url: `${base}/rag.html`, colour: 'blue' }), invalid)
    // The request is the api's AddReferenceRequest: options go in the second argument.
    await assert.rejects(s.addReference({ url: `${base}/rag.html`, knowledgeDir: kb }), /knowledge_dir/)
    await assert.rejects(s.addReference({ url: `${base}/rag.html` }, { colour: 'blue' }), /colour/)
    await assert.rejects(s.findByName('x.md', { knowledgeDir: kb, colour: 'blue' }), /colour/)
    await assert.rejects(s.findByName(' ', { knowledgeDir: kb }), invalid)
    await assert.rejects(s.research(null), invalid)
    await assert.rejects(s.research('x.md', { replay: 'yes' }), invalid)
    // The options object is the api's ResearchOptions (camelCase keys).
    await assert.rejects(s.research('x.md', { judge: 'oracle' }), invalid)
    await assert.rejects(s.research('x.md', { budgetSecs: 0 }), /budget_secs/)
    await assert.rejects(s.research(null, { replay: true }), /run_dir/)
    await assert.rejects(s.research('x.md', { colour: 'blue' }), /colour/)
  } finally {
    server.close()
  }
})
