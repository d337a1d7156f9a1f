"""store.projects: the AuraCore project tools (seed 000) through typed
methods over the library's request and response types."""

from __future__ import annotations

import asyncio

import pytest

import verity


def test_project_round_trip(store: verity.Store) -> None:
    p = store.projects
    prj = p.create_project("verity", description="Source of truth", tags=["rust", "rust", " llm "])
    assert prj.id.startswith("prj") and prj.status == "active"
    assert prj.tags == ["rust", "llm"] and prj.description == "Source of truth"
    other = p.create_project("side", status="paused")
    listed = p.list_projects()
    assert listed.total == 2 and [x.id for x in listed.projects] == [prj.id, other.id]
    assert [x.id for x in p.list_projects(status="paused").projects] == [other.id]
    up = p.update_project(prj.id, status="completed", tags=["done"])
    assert up.status == "completed" and up.tags == ["done"]
    assert up.name == "verity" and up.description == "Source of truth"  # untouched
    over = p.get_project(prj.id)
    assert over.project == up
    assert over.tasks == [] and over.context_entries == 0 and over.recent_decisions == []


def test_next_tasks_follow_dependencies_and_priority(store: verity.Store) -> None:
    p = store.projects
    prj = p.create_project("release").id
    design = p.create_task(prj, "design", priority="low")
    build = p.create_task(prj, "build", priority="critical", depends_on=[design.id])
    docs = p.create_task(prj, "docs", priority="high")
    ship = p.create_task(prj, "ship", priority="critical", depends_on=[build.id, docs.id])
    assert ship.depends_on == [build.id, docs.id]
    nxt = p.get_next_tasks(prj)
    # build and ship wait on open dependencies; of the ready ones, high before low.
    assert [t.title for t in nxt.tasks] == ["docs", "design"]
    assert nxt.waiting == 2 and nxt.blocked == 0
    p.update_task(design.id, status="done")
    assert [t.title for t in p.get_next_tasks(prj).tasks] == ["build", "docs"]
    p.update_task(docs.id, status="in_progress")
    assert [t.title for t in p.get_next_tasks(prj, limit=1).tasks] == ["docs"]  # started first
    p.update_task(build.id, status="done")
    p.update_task(docs.id, status="cancelled")  # cancelled counts as finished
    assert [t.title for t in p.get_next_tasks(prj).tasks] == ["ship"]
    with pytest.raises(verity.InvalidInput) as e:
        p.update_task(design.id, depends_on=[ship.id])
    assert "cycle" in str(e.value)
    assert len(p.get_project(prj).tasks) == 4


def test_context_store_query_delete(store: verity.Store) -> None:
    p = store.projects
    prj = p.create_project("storage").id
    sqlite = p.store_context(prj, "The embedded backend keeps everything in one SQLite file.", title="Backend")
    redis = p.store_context(prj, "Redis 8 with search and JSON modules serves many processes.", tags=["ops"])
    assert sqlite.stored and sqlite.context_id != redis.context_id
    hits = p.query_context(prj, "which SQLite file", limit=5)
    assert hits.ran in ("index", "lexical")
    assert hits.results and hits.results[0].entry.id == sqlite.context_id
    assert hits.results[0].entry.title == "Backend"
    assert hits.results[0].score > 0
    assert p.get_project(prj).context_entries == 2
    gone = p.delete_context(sqlite.context_id)
    assert gone.deleted and gone.context_id == sqlite.context_id
    after = p.query_context(prj, "which SQLite file")
    assert sqlite.context_id not in [h.entry.id for h in after.results]
    assert p.get_project(prj).context_entries == 1
    with pytest.raises(verity.NotFound):
        p.delete_context(sqlite.context_id)


def test_decisions_log_and_read(store: verity.Store) -> None:
    p = store.projects
    prj = p.create_project("arch").id
    first = p.log_decision(prj, "SQLite by default", reasoning="zero setup", alternatives=["Postgres", "Redis"])
    assert first.logged and first.decision_id
    p.log_decision(prj, "Redis for many processes", tags=["ops"])
    back = p.get_decisions(prj)
    assert back.total == 2
    assert [d.decision for d in back.decisions] == ["SQLite by default", "Redis for many processes"]
    d0 = back.decisions[0]
    assert d0.id == first.decision_id and d0.reasoning == "zero setup"
    assert d0.alternatives == ["Postgres", "Redis"] and d0.project_id == prj
    assert [d.decision for d in p.get_decisions(prj, limit=1).decisions] == ["Redis for many processes"]
    assert len(p.get_project(prj).recent_decisions) == 2


def test_bad_inputs(store: verity.Store) -> None:
    p = store.projects
    for call in (
        lambda: p.get_project("prj_missing"),
        lambda: p.update_project("prj_missing", name="x"),
        lambda: p.store_context("prj_missing", "text"),
        lambda: p.query_context("prj_missing", "text"),
        lambda: p.create_task("prj_missing", "t"),
        lambda: p.get_next_tasks("prj_missing"),
        lambda: p.log_decision("prj_missing", "d"),
        lambda: p.get_decisions("prj_missing"),
        lambda: p.update_task("tsk_missing", status="done"),
    ):
        with pytest.raises(verity.NotFound) as nf:
            call()
        assert nf.value.code == "not_found" and "missing" in str(nf.value)
    with pytest.raises(verity.InvalidInput) as e:
        p.create_project("x", status="frozen")
    assert all(s in str(e.value) for s in ("active", "paused", "completed", "archived"))
    prj = p.create_project("ok").id
    with pytest.raises(verity.InvalidInput) as e:
        p.create_task(prj, "t", priority="urgent")
    assert all(s in str(e.value) for s in ("critical", "high", "medium", "low"))
    with pytest.raises(verity.InvalidInput) as e:
        p.create_task(prj, "t", status="started")
    assert "in_progress" in str(e.value) and "cancelled" in str(e.value)
    with pytest.raises(verity.NotFound):
        p.create_task(prj, "t", depends_on=["tsk_nope"])
    with pytest.raises(verity.InvalidInput):
        p.create_project("   ")
    with pytest.raises(verity.InvalidInput):
        p.query_context(prj, "x", limit=0)
    assert p.get_project(prj).tasks == []  # nothing was half-created


def test_async_variants(store: verity.Store) -> None:
    p = store.projects

    async def flow() -> tuple[list[str], int, int, str]:
        prj = (await p.acreate_project("async")).id
        a = await p.acreate_task(prj, "a")
        await p.acreate_task(prj, "b", depends_on=[a.id])
        await p.aupdate_task(a.id, status="done")
        nxt = await p.aget_next_tasks(prj)
        await p.astore_context(prj, "asyncio drives the event loop")
        hits = await p.aquery_context(prj, "event loop")
        await p.alog_decision(prj, "use asyncio")
        dec = await p.aget_decisions(prj)
        await p.aupdate_project(prj, name="renamed")
        listed = await p.alist_projects()
        over = await p.aget_project(prj)
        return [t.title for t in nxt.tasks], len(hits.results), dec.total + listed.total, over.project.name

    assert asyncio.run(flow()) == (["b"], 1, 2, "renamed")
