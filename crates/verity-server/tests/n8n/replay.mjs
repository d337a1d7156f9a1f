// Replays an n8n workflow's nodes the way n8n runs them, for one RSS item,
// against a live Verity server: expressions (`={{ … }}` with `$json`,
// `$('Node').item.json`, `$env`, `$prevNode`) evaluated in JavaScript as n8n
// does, HTTP Request nodes sending their JSON bodies with the bearer token
// of the workflow's Header Auth credential, IF and Set nodes, error outputs
// of nodes set to `continueErrorOutput`. Prints the trace as JSON.
//
//   node replay.mjs WORKFLOW.json VERITY_URL TOKEN '{"link": …, "title": …}'
//
// Supported node types: scheduleTrigger, rssFeedRead (the given item), httpRequest,
// if (boolean operations), set (manual assignments), stopAndError. Anything else
// fails the replay, so a workflow edit that this replay cannot follow is noticed.
import { readFileSync } from 'node:fs'

const [file, baseUrl, token, itemJson] = process.argv.slice(2)
const workflow = JSON.parse(readFileSync(file, 'utf8'))
const rssItem = JSON.parse(itemJson)
const byName = new Map(workflow.nodes.map((n) => [n.name, n]))
const outputs = new Map() // node name -> json of its (single) output item
const trace = []

function evaluate(value, ctx) {
  if (typeof value !== 'string' || !value.startsWith('=')) return value
  const text = value.slice(1)
  const run = (expr) => {
    const fn = new Function('$', '$json', '$env', '$prevNode', `return (${expr})`)
    return fn(ctx.$, ctx.$json, ctx.$env, ctx.$prevNode)
  }
  const whole = /^\{\{([\s\S]*)\}\}$/.exec(text.trim())
  if (whole && !whole[1].includes('}}')) return run(whole[1])
  return text.replace(/\{\{([\s\S]*?)\}\}/g, (_, e) => String(run(e)))
}

function context(input, prev) {
  return {
    $: (name) => {
      if (!outputs.has(name)) throw new Error(`expression refers to node "${name}", which has not run`)
      return { item: { json: outputs.get(name) }, first: () => ({ json: outputs.get(name) }), isExecuted: true }
    },
    $json: input,
    $env: { VERITY_URL: baseUrl },
    $prevNode: { name: prev },
  }
}

async function http(node, ctx) {
  const p = node.parameters
  const url = evaluate(p.url, ctx)
  const headers = { Accept: 'application/json' }
  if (p.authentication === 'genericCredentialType' && p.genericAuthType === 'httpHeaderAuth') {
    headers.Authorization = `Bearer ${token}`
  }
  let body
  if (p.sendBody && p.specifyBody === 'json') {
    const raw = evaluate(p.jsonBody, ctx)
    body = typeof raw === 'string' ? raw : JSON.stringify(raw)
    JSON.parse(body) // n8n refuses a body that is not JSON
    headers['Content-Type'] = 'application/json'
  }
  const resp = await fetch(url, { method: p.method || 'GET', headers, body })
  const text = await resp.text()
  let json
  try { json = JSON.parse(text) } catch { json = { data: text } }
  trace.push({ node: node.name, method: p.method || 'GET', url, body: body ? JSON.parse(body) : null, status: resp.status, response: json })
  if (resp.ok) return { output: 0, json }
  // n8n's HTTP Request node fails on 4xx/5xx; its error item carries the message.
  return { output: 1, json: { error: { message: `${resp.status} - ${text}`, httpCode: String(resp.status) } }, failed: true }
}

function ifNode(node, ctx) {
  const c = node.parameters.conditions
  const results = c.conditions.map((cond) => {
    const left = evaluate(cond.leftValue, ctx)
    const op = cond.operator
    if (op.type !== 'boolean') throw new Error(`IF operator type ${op.type} is not replayed`)
    if (op.operation === 'true') return left === true
    if (op.operation === 'false') return left === false
    if (op.operation === 'equals') return left === evaluate(cond.rightValue, ctx)
    throw new Error(`IF operation ${op.operation} is not replayed`)
  })
  const pass = c.combinator === 'or' ? results.some(Boolean) : results.every(Boolean)
  trace.push({ node: node.name, result: pass })
  return { output: pass ? 0 : 1, json: ctx.$json }
}

function setNode(node, ctx) {
  const json = node.parameters.includeOtherFields ? { ...ctx.$json } : {}
  for (const a of node.parameters.assignments.assignments) json[a.name] = evaluate(a.value, ctx)
  trace.push({ node: node.name, json })
  return { output: 0, json }
}

async function run(name, input, prev) {
  const node = byName.get(name)
  if (!node) throw new Error(`connection to unknown node "${name}"`)
  const ctx = context(input, prev)
  let result
  switch (node.type) {
    case 'n8n-nodes-base.scheduleTrigger': result = { output: 0, json: {} }; break
    case 'n8n-nodes-base.rssFeedRead': result = { output: 0, json: rssItem }; trace.push({ node: name, json: rssItem }); break
    case 'n8n-nodes-base.httpRequest': {
      result = await http(node, ctx)
      if (result.failed && node.onError !== 'continueErrorOutput') {
        trace.push({ node: name, stopped: 'the node failed and has no error branch' })
        return false
      }
      break
    }
    case 'n8n-nodes-base.if': result = ifNode(node, ctx); break
    case 'n8n-nodes-base.set': result = setNode(node, ctx); break
    case 'n8n-nodes-base.stopAndError':
      trace.push({ node: name, stopped: evaluate(node.parameters.errorMessage, ctx) })
      return false
    default: throw new Error(`node type ${node.type} is not replayed`)
  }
  outputs.set(name, result.json)
  const next = ((workflow.connections[name] || {}).main || [])[result.output] || []
  for (const c of next) {
    if (!(await run(c.node, result.json, name))) return false
  }
  return true
}

const trigger = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger')
const completed = await run(trigger.name, {}, null)
process.stdout.write(JSON.stringify({ completed, trace }, null, 2) + '\n')
