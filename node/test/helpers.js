'use strict'
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const REPO = path.resolve(__dirname, '..', '..')
const DATA = path.join(REPO, 'examples', 'data')

const DOCS = [
  {
    uid: 'fees-1', source: 'internal', ts: '2025-09-12T08:00:00Z', lang: 'en', title: 'Routing fees',
    content: 'Each Lightning channel advertises a fee policy: a base fee in millisatoshis and a proportional fee rate in parts per million of the forwarded amount.',
    tags: ['fees', 'lightning'], metadata: { channel: 7 },
  },
  {
    uid: 'liq-1', source: 'amboss', ts: '2024-03-15T12:00:00Z', lang: 'en', title: 'Liquidity',
    content: 'Circular rebalancing moves liquidity between your own channels so that outbound capacity is available where payments need it.',
    tags: ['liquidity'], metadata: { channel: 8 },
  },
  {
    uid: 'fr-1', source: 'internal', ts: '2025-01-01T00:00:00Z', lang: 'fr', title: 'Frais de routage',
    content: 'Les frais de routage combinent des frais de base et un taux proportionnel au montant transféré par le canal.',
    tags: ['fees'],
  },
]

// Temporary homes live until this test file's process exits, then go;
// scripts/test-node.sh also puts them under VERITY_TEST_TMP and removes that
// afterwards (a store may flush its index during the process's teardown).
const homes = []
process.on('exit', () => {
  for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true })
})

function tmpHome() {
  const dir = fs.mkdtempSync(path.join(process.env.VERITY_TEST_TMP || os.tmpdir(), 'verity-node-'))
  homes.push(dir)
  return dir
}

function modelDir() {
  const root = process.env.VERITY_MODEL_DIR || path.join(os.homedir(), '.cache', 'verity', 'models')
  return path.join(root, 'all-MiniLM-L6-v2')
}

// A throw-away Redis with search + JSON on a free port, found as
// crates/verity-redis/src/server.rs finds it. Resolves to { url, stop } or, when
// it cannot start, to null — unless VERITY_REQUIRE_REDIS=1 (CI), where it throws.
async function startRedis() {
  const { spawn } = require('node:child_process')
  const net = require('node:net')
  const cache = process.env.VERITY_CACHE || path.join(os.homedir(), '.cache', 'verity')
  const server = process.env.VERITY_REDIS_SERVER || path.join(cache, 'redis', 'bin', 'redis-server')
  const spec = process.env.VERITY_REDIS_MODULES || path.join(cache, 'redis', 'modules')
  const modules = fs.existsSync(spec) && fs.statSync(spec).isDirectory()
    ? [path.join(spec, 'redisearch.so'), path.join(spec, 'rejson.so')]
    : spec.split(':').filter(Boolean)
  const unavailable = (why) => {
    if (process.env.VERITY_REQUIRE_REDIS === '1') throw new Error(`VERITY_REQUIRE_REDIS=1 but Redis cannot start: ${why}`)
    console.log(`# SKIPPED: cannot start a local Redis with search+JSON (scripts/redis.sh): ${why}`)
    return null
  }
  const missing = [server, ...modules].filter((p) => !fs.existsSync(p))
  if (missing.length || !modules.length) return unavailable(`missing ${missing.join(', ') || 'modules'}`)
  const port = await new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
    s.on('error', reject)
  })
  const dir = tmpHome()
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]
  for (const m of modules) args.push('--loadmodule', m)
  const child = spawn(server, args, { stdio: 'ignore' })
  const ping = () => new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => c.write('PING\r\n'))
    c.on('data', (d) => { c.destroy(); resolve(d.toString().startsWith('+PONG')) })
    c.on('error', () => resolve(false))
  })
  const deadline = Date.now() + 20000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return unavailable(`redis-server exited with ${child.exitCode}`)
    if (await ping()) return { url: `redis://127.0.0.1:${port}/`, stop: () => child.kill() }
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill()
  return unavailable('no answer within 20 s')
}

// The keys an interface of index.d.ts declares (`{ required, optional,
// types }`, `types` mapping each key to its type as written), read from its
// multi-line `export interface Name { key?: type }` block (with those of
// the interface it extends), so that a test can hold a runtime result to its
// declared type.
function declaredKeys(name) {
  const dts = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8')
  const m = new RegExp(`^export interface ${name}(?: extends (\\w+))? \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(dts)
  if (!m) throw new Error(`index.d.ts declares no multi-line interface ${name}`)
  const { required, optional, types } = m[1]
    ? declaredKeys(m[1])
    : { required: new Set(), optional: new Set(), types: new Map() }
  for (const line of m[2].split('\n')) {
    const k = /^ {2}(\w+)(\??): (.*)$/.exec(line)
    if (!k) continue
    ;(k[2] ? optional : required).add(k[1])
    types.set(k[1], k[3].trim())
  }
  return { required, optional, types }
}

// `value` has every required key of interface `name` and no key it does not declare.
function assertDeclared(value, name) {
  const { required, optional } = declaredKeys(name)
  const keys = Object.keys(value)
  const undeclared = keys.filter((k) => !required.has(k) && !optional.has(k))
  const missing = [...required].filter((k) => !(k in value))
  if (undeclared.length || missing.length) {
    throw new Error(`${name}: undeclared keys [${undeclared}], missing keys [${missing}] (has ${keys})`)
  }
}

module.exports = { DATA, DOCS, tmpHome, modelDir, startRedis, declaredKeys, assertDeclared }
