'use strict'
// store.projects: the AuraCore project tools (seed 000) through typed
// methods over the library's request and response types.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Verity, VerityError } = require('..')
const { tmpHome } = require('./helpers')

const code = (c) => (e) => e instanceof VerityError && e.code === c
const open = () => Verity.open({ home: tmpHome(), embedder: 'none' })

test('projects: round trip', async () => {
  const p = (await open()).projects
  const prj = await p.createProject({ name: 'verity', description: 'Source of truth', tags: ['rust', 'rust', ' llm '] })
  assert.match(prj.id, /^prj/)
  assert.equal(prj.status, 'active')
  assert.deepEqual(prj.tags, ['rust', 'llm'])
  const other = await p.createProject({ name: 'side', status: 'paused' })
  const listed = await p.listProjects()
  assert.equal(listed.total, 2)
  assert.deepEqual(listed.projects.map((x) => x.id), [prj.id, other.id])
  assert.deepEqual((await p.listProjects({ status: 'paused' })).projects.map((x) => x.id), [other.id])
  const up = await p.updateProject({ projectId: prj.id, status: 'completed', tags: ['done'] })
  assert.equal(up.status, 'completed')
  assert.deepEqual(up.tags, ['done'])
  assert.equal(up.description, 'Source of truth')
  const over = await p.getProject(prj.id)
  assert.deepEqual(over.project, up)
  assert.deepEqual([over.tasks, over.contextEntries, over.recentDecisions], [[], 0, []])
})

test('projects: getNextTasks follows dependencies, then status and priority', async () => {
  const p = (await open()).projects
  const prj = (await p.createProject({ name: 'release' })).id
  const design = await p.createTask({ projectId: prj, title: 'design', priority: 'low' })
  const build = await p.createTask({ projectId: prj, title: 'build', priority: 'critical', dependsOn: [design.id] })
  const docs = await p.createTask({ projectId: prj, title: 'docs', priority: 'high' })
  const ship = await p.createTask({ projectId: prj, title: 'ship', priority: 'critical', dependsOn: [build.id, docs.id] })
  assert.deepEqual(ship.dependsOn, [build.id, docs.id])
  const titles = async (limit) => (await p.getNextTasks({ projectId: prj, limit })).tasks.map((t) => t.title)
  const first = await p.getNextTasks({ projectId: prj })
  assert.deepEqual(first.tasks.map((t) => t.title), ['docs', 'design'])
  assert.equal(first.waiting, 2)
  await p.updateTask({ taskId: design.id, status: 'done' })
  assert.deepEqual(await titles(), ['build', 'docs'])
  await p.updateTask({ taskId: docs.id, status: 'in_progress' })
  assert.deepEqual(await titles(1), ['docs'])
  await p.updateTask({ taskId: build.id, status: 'done' })
  await p.updateTask({ taskId: docs.id, status: 'cancelled' })
  assert.deepEqual(await titles(), ['ship'])
  await assert.rejects(
    p.updateTask({ taskId: design.id, dependsOn: [ship.id] }),
    (e) => code('invalid_input')(e) && /cycle/.test(e.message),
  )
})

test('projects: storeContext, queryContext, deleteContext', async () => {
  const p = (await open()).projects
  const prj = (await p.createProject({ name: 'storage' })).id
  const sqlite = await p.storeContext({ projectId: prj, content: 'The embedded backend keeps everything in one SQLite file.', title: 'Backend' })
  const redis = await p.storeContext({ projectId: prj, content: 'Redis 8 with search and JSON modules serves many processes.' })
  assert.equal(sqlite.stored, true)
  assert.notEqual(sqlite.contextId, redis.contextId)
  const hits = await p.queryContext({ projectId: prj, query: 'which SQLite file', limit: 5 })
  assert.ok(['index', 'lexical'].includes(hits.ran))
  assert.equal(hits.results[0].entry.id, sqlite.contextId)
  assert.equal(hits.results[0].entry.title, 'Backend')
  assert.ok(hits.results[0].score > 0)
  assert.deepEqual(await p.deleteContext(sqlite.contextId), { deleted: true, contextId: sqlite.contextId })
  const after = await p.queryContext({ projectId: prj, query: 'which SQLite file' })
  assert.ok(!after.results.some((h) => h.entry.id === sqlite.contextId))
  assert.equal((await p.getProject(prj)).contextEntries, 1)
  await assert.rejects(p.deleteContext(sqlite.contextId), code('not_found'))
})

test('projects: logDecision then getDecisions', async () => {
  const p = (await open()).projects
  const prj = (await p.createProject({ name: 'arch' })).id
  const first = await p.logDecision({ projectId: prj, decision: 'SQLite by default', reasoning: 'zero setup', alternatives: ['Postgres', 'Redis'] })
  assert.equal(first.logged, true)
  await p.logDecision({ projectId: prj, decision: 'Redis for many processes', tags: ['ops'] })
  const back = await p.getDecisions({ projectId: prj })
  assert.equal(back.total, 2)
  assert.deepEqual(back.decisions.map((d) => d.decision), ['SQLite by default', 'Redis for many processes'])
  assert.equal(back.decisions[0].id, first.decisionId)
  assert.deepEqual(back.decisions[0].alternatives, ['Postgres', 'Redis'])
  assert.deepEqual((await p.getDecisions({ projectId: prj, limit: 1 })).decisions.map((d) => d.decision), ['Redis for many processes'])
})

test('projects: unknown ids are not_found, bad enums name the allowed values', async () => {
  const p = (await open()).projects
  for (const call of [
    () => p.getProject('prj_missing'),
    () => p.updateProject({ projectId: 'prj_missing', name: 'x' }),
    () => p.storeContext({ projectId: 'prj_missing', content: 'text' }),
    () => p.queryContext({ projectId: 'prj_missing', query: 'text' }),
    () => p.createTask({ projectId: 'prj_missing', title: 't' }),
    () => p.getNextTasks({ projectId: 'prj_missing' }),
    () => p.logDecision({ projectId: 'prj_missing', decision: 'd' }),
    () => p.getDecisions({ projectId: 'prj_missing' }),
    () => p.updateTask({ taskId: 'tsk_missing', status: 'done' }),
  ]) {
    await assert.rejects(call(), (e) => code('not_found')(e) && /missing/.test(e.message))
  }
  await assert.rejects(
    p.createProject({ name: 'x', status: 'frozen' }),
    (e) => code('invalid_input')(e) && ['active', 'paused', 'completed', 'archived'].every((s) => e.message.includes(s)),
  )
  const prj = (await p.createProject({ name: 'ok' })).id
  await assert.rejects(
    p.createTask({ projectId: prj, title: 't', priority: 'urgent' }),
    (e) => code('invalid_input')(e) && ['critical', 'high', 'medium', 'low'].every((s) => e.message.includes(s)),
  )
  await assert.rejects(
    p.createTask({ projectId: prj, title: 't', status: 'started' }),
    (e) => code('invalid_input')(e) && /in_progress/.test(e.message),
  )
  await assert.rejects(p.createTask({ projectId: prj, title: 't', dependsOn: ['tsk_nope'] }), code('not_found'))
  await assert.rejects(p.createProject({ name: '   ' }), code('invalid_input'))
  await assert.rejects(p.createProject('not an object'), code('invalid_input'))
  await assert.rejects(p.queryContext({ projectId: prj, query: 'x', limit: 0 }), code('invalid_input'))
  assert.deepEqual((await p.getProject(prj)).tasks, [])
})
