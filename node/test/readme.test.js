'use strict'
// The README's Node snippet, run as written: saved as an ES module in a
// scratch directory where `verity-ai` resolves to this package and
// `examples/` is the repository's, then executed with node.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const ROOT = path.resolve(__dirname, '..', '..')

function readmeBlock(heading, fence) {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const after = text.split(heading)[1]
  return after.split('```' + fence + '\n')[1].split('```')[0]
}

test('the README Node snippet runs as written (ES module)', () => {
  const dir = fs.mkdtempSync(path.join(process.env.VERITY_TEST_TMP || os.tmpdir(), 'verity-readme-'))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(path.join(ROOT, 'node'), path.join(dir, 'node_modules', 'verity-ai'), 'dir')
  fs.symlinkSync(path.join(ROOT, 'examples'), path.join(dir, 'examples'), 'dir')
  fs.writeFileSync(path.join(dir, 'quickstart.mjs'), readmeBlock('### From Node / TypeScript', 'js'))
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) =>
    !k.startsWith('VERITY_') || ['VERITY_MODEL_DIR', 'VERITY_CACHE', 'VERITY_NODE_ADDON'].includes(k)))
  const out = spawnSync(process.execPath, ['quickstart.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 600_000 })
  assert.equal(out.status, 0, out.stderr)
  assert.match(out.stdout, /invalid_input/)
  assert.match(out.stdout, /^fetched /m)
  assert.ok(fs.existsSync(path.join(dir, '.verity')))
})

test('CommonJS and ES module entry points export the same classes', async () => {
  const cjs = require('verity-ai')
  const esm = await import('verity-ai')
  assert.equal(esm.Verity, cjs.Verity)
  assert.equal(esm.VerityError, cjs.VerityError)
  assert.equal(typeof esm.fetch, 'function')
})
