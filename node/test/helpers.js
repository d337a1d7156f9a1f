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

function tmpHome() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'verity-node-'))
}

function modelDir() {
  const root = process.env.VERITY_MODEL_DIR || path.join(os.homedir(), '.cache', 'verity', 'models')
  return path.join(root, 'all-MiniLM-L6-v2')
}

module.exports = { DATA, DOCS, tmpHome, modelDir }
