'use strict'
// fetch: the `FetchedSource` of index.d.ts, camelCase keys like every result,
// for a local file, a PDF with its page map, a page served on loopback and a
// fetch the network guard refuses; each object holds exactly the declared keys.
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const path = require('node:path')
const { fetch } = require('..')
const { DATA, assertDeclared } = require('./helpers')

const PDF = path.join(__dirname, '..', '..', 'crates', 'verity-extract', 'tests', 'fixtures', 'pdf', 'single.pdf')

const PAGE = '<!DOCTYPE html><html lang="en"><head><title>Channel fees explained</title>' +
  '<meta name="author" content="Ada Lovelace"></head><body><nav>Home | Blog</nav><article>' +
  '<h1>Channel fees explained</h1>' +
  '<p>Each Lightning channel advertises a fee policy made of a base fee in millisatoshis and a ' +
  'proportional fee rate expressed in parts per million of the forwarded amount.</p>' +
  '<p>Nodes that route many payments tune both values to keep their channels balanced, raising ' +
  'the rate on channels whose outbound liquidity runs low.</p>' +
  '</article><footer>Copyright</footer></body></html>'

async function serve() {
  const server = http.createServer((req, res) => {
    if (req.url === '/fees') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(PAGE)
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found')
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, base: `http://127.0.0.1:${server.address().port}` }
}

// The source and its nested objects hold the declared keys only.
function assertFetchedSource(src) {
  assertDeclared(src, 'FetchedSource')
  if (src.parsed) {
    assertDeclared(src.parsed, 'ParsedDocument')
    assertDeclared(src.parsed.document, 'Document')
    assert.equal(typeof src.parsed.document.source, 'string')
    for (const p of src.parsed.pages ?? []) assertDeclared(p, 'PageSpan')
  }
}

test('fetch of a local file: typed fields, camelCase keys', async () => {
  const src = await fetch(path.join(DATA, 'caching.md'))
  assertFetchedSource(src)
  assert.equal(src.status, 'fetched')
  assert.match(src.url, /^file:\/\/.*\/examples\/data\/caching\.md$/)
  assert.equal(src.finalUrl, src.url)
  assert.ok(!('final_url' in src) && !('fetched_at' in src))
  assert.ok(!('httpStatus' in src) && !('detail' in src))
  assert.ok(!Number.isNaN(Date.parse(src.fetchedAt)))
  assert.equal(src.parsed.format, 'markdown')
  assert.ok(!('pages' in src.parsed))
  assert.ok(src.parsed.document.content.includes('rag:retrieval'))
  assert.equal(typeof src.parsed.document.title, 'string')
})

test('fetch of a PDF: its page map', async () => {
  const src = await fetch(PDF)
  assertFetchedSource(src)
  assert.equal(src.parsed.format, 'pdf')
  const pages = src.parsed.pages
  assert.ok(pages.length >= 1)
  assert.deepEqual(pages.map((p) => p.page), pages.map((_, i) => i + 1))
  assert.equal(pages[0].start, 0)
  assert.ok(pages.every((p) => Number.isInteger(p.start) && p.start < p.end))
  assert.ok(pages.at(-1).end <= Buffer.byteLength(src.parsed.document.content))
})

test('fetch of a page on loopback, and of a missing one', async () => {
  const { server, base } = await serve()
  try {
    const src = await fetch(`${base}/fees`, { allowPrivate: true })
    assertFetchedSource(src)
    assert.equal(src.status, 'fetched', src.detail)
    assert.equal(src.url, `${base}/fees`)
    assert.equal(src.finalUrl, `${base}/fees`)
    assert.equal(src.httpStatus, 200)
    assert.match(src.contentType, /^text\/html/)
    assert.equal(src.parsed.format, 'html')
    assert.equal(src.parsed.document.title, 'Channel fees explained')
    assert.ok(src.parsed.document.content.includes('proportional fee rate'))
    assert.ok(!src.parsed.document.content.includes('Copyright'))

    const missing = await fetch(`${base}/gone`, { allowPrivate: true })
    assertFetchedSource(missing)
    assert.equal(missing.status, 'not_found')
    assert.equal(missing.httpStatus, 404)
    assert.ok(!('parsed' in missing))
  } finally {
    server.close()
  }
})

test('fetch refused by the network guard: a typed status with its reason', async () => {
  const { server, base } = await serve()
  try {
    const src = await fetch(`${base}/fees`)
    assertFetchedSource(src)
    assert.equal(src.status, 'blocked')
    assert.equal(typeof src.detail, 'string')
    assert.ok(src.detail.length > 0)
    assert.ok(!('parsed' in src) && !('httpStatus' in src))
  } finally {
    server.close()
  }
})
