'use strict'
// verity.check: citation verification with the cited page served on loopback.
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { Verity, VerityError } = require('..')
const { tmpHome } = require('./helpers')

const SOURCE = '<!DOCTYPE html><html><head><title>AI survey 2023</title></head><body><article><h1>AI survey 2023</h1>' +
  '<p>The survey asked executives at 1,500 companies across industries about their use of artificial intelligence in daily operations.</p>' +
  '<p>In 2023, 78 % of companies had adopted AI in at least one business function, up from 55 % a year earlier.</p>' +
  '<p>Adoption was highest in technology and financial services, where most firms reported several uses of the technology.</p></article></body></html>'

test('check: verdicts with verbatim quotes; bad input is a VerityError', async () => {
  const server = http.createServer((req, res) => {
    if (req.url === '/survey') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(SOURCE)
    } else {
      res.writeHead(404)
      res.end('not found')
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  try {
    const s = await Verity.open({ home: tmpHome(), embedder: 'none' })
    const content = 'In 2023, 78 % of companies had adopted AI in at least one business function [1].\n\n' +
      'According to the survey, 85 % of companies had adopted AI in at least one business function [1].\n\n' +
      `## References\n1. AI survey. ${base}/survey\n`
    const r = await s.check({ content, contentType: 'markdown', allowPrivate: true, judge: 'local' })
    assert.deepEqual(r.results.map((x) => x.verdict), ['SUPPORTED', 'PARTIAL'])
    assert.equal(r.summary.supported, 1)
    assert.ok(SOURCE.includes(r.results[0].sourceQuote), r.results[0].sourceQuote)
    assert.match(r.results[1].explanation, /78/)

    // Without the opt-in the loopback source is refused by the SSRF guard.
    const guarded = await s.check({ content, judge: 'local' })
    assert.equal(guarded.summary.unavailable, 2)

    await assert.rejects(s.check({ content: 'x', url: `${base}/survey` }), (e) => e instanceof VerityError && e.code === 'invalid_input')
    await assert.rejects(s.check({ url: `${base}/survey` }), (e) => e instanceof VerityError && e.code === 'invalid_input')
  } finally {
    server.close()
  }
})
