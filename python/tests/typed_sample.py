"""A typed sample checked by mypy --strict against the stubs."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any, Optional

import verity

def top_titles(store: verity.Store, q: str) -> list[Optional[str]]:
    res: verity.SearchResults = store.search(q, k=3, mode="lexical", since=datetime.date(2024, 1, 1))
    return [h.title for h in res]


async def answer(store: verity.Store, q: str) -> str:
    a: verity.Answer = await store.aask(q, lang="en")
    cites: list[verity.Citation] = a.citations
    return a.text + "".join(f" [{c.index}] {c.url or c.doc_uid}" for c in cites)


def main(path: str) -> None:
    store = verity.Store.open(path, embedder="none")
    store.ingest([{"uid": "a", "content": "text"}, verity.Document("b", "more text", tags=["t"])])
    doc: Optional[verity.Document] = store.get("a")
    n: int = store.delete(["a"])
    print(top_titles(store, "text"), doc, n, asyncio.run(answer(store, "text?")))
    try:
        store.search("x", mode="bad")  # type: ignore[arg-type]  # mypy knows the modes too
    except verity.InvalidInput as e:
        code: str = e.code
        transient: bool = e.transient
        print(code, transient)


def verdicts(store: verity.Store, doc: str) -> list[str]:
    r: verity.CheckReport = store.check(doc, content_type="markdown", judge="local")
    first: verity.CheckResult = r.results[0]
    where = f"line {first.location.line}, {r.summary.supported}/{r.summary.total} supported"
    quote = first.quote_context.quote if first.quote_context else ""
    return [x.verdict + (x.source_quote or "") for x in r.results] + [where, quote, r.statistics.judge]


def research_summary(store: verity.Store, syllabus: str) -> str:
    r: verity.ResearchReport = store.research(syllabus, allow_private=False)
    refs = ", ".join(x.url or x.filename or x.title for x in r.references)
    themes = [f"{t.id}: {t.covered}" for t in r.themes]
    entry: Optional[verity.KnowledgeEntry] = store.find_by_name("notes.md")
    added: verity.AddReferenceResult = store.add_reference(filename="notes.md")
    title = entry.title if entry else ""
    return f"{r.planner} {r.coverage:.2f} {refs} {themes} {title} {added.indexed} {added.entry.filename}"


def watch_round(store: verity.Store, url: str) -> str:
    w: verity.Watch = store.watch
    w.update_veille_rule("local-llm", "include", ["ollama"], score_modifier=3, priority="high")
    s: verity.ScoreResult = w.score_article(title="Ollama 0.5", url=url)
    lines = [m.rule + str(m.score_modifier) for m in s.matched_rules] + s.explanation
    seen: verity.CheckArticleResult = w.check_article_exists(url)
    if not seen.exists:
        logged = w.log_article(url, "Ollama 0.5", "blog", "rss", qwen_score=s.score)
        w.log_veille_decision("qwen", "score", f"{s.score}", article_id=logged.article_id)
    back: verity.WatchDecisionsResponse = w.get_veille_decisions(since=datetime.datetime(2024, 1, 1))
    found = seen.article
    fact: verity.VerifyFactResult = w.verify_fact("Ollama 0.5 was released", urls=[url])
    excerpts = [f"{src.verdict}: {src.excerpt}" for src in fact.sources]
    return f"{lines} {found.id if found else ''} {back.total} {back.decisions[0].llm} {excerpts}"


async def watch_async(store: verity.Store) -> int:
    r = await store.watch.aget_veille_rules("include", priority="high")
    return len(r.rules) + r.scoring_guide.max_score


def project_round(store: verity.Store) -> str:
    p: verity.Projects = store.projects
    prj: verity.Project = p.create_project("verity", status="active", tags=["rust"])
    first: verity.Task = p.create_task(prj.id, "design", priority="high")
    p.create_task(prj.id, "build", depends_on=[first.id])
    p.update_task(first.id, status="done")
    nxt: verity.NextTasksResult = p.get_next_tasks(prj.id, limit=3)
    ctx = p.store_context(prj.id, "SQLite by default", title="storage")
    found: verity.QueryContextResult = p.query_context(prj.id, "sqlite")
    p.delete_context(ctx.context_id)
    p.log_decision(prj.id, "SQLite", alternatives=["Postgres"])
    overview = p.get_project(prj.id)
    best = found.results[0].entry.content if found.results else ""
    return f"{[t.title for t in nxt.tasks]} {found.ran} {overview.context_entries} {overview.project.status} {best}"


async def project_async(store: verity.Store) -> int:
    prj = await store.projects.acreate_project("x")
    d = await store.projects.aget_decisions(prj.id, limit=5)
    return d.total + len(d.decisions)


def fetched_title(target: str) -> str:
    src: verity.FetchedSource = verity.fetch(target, allow_private=False)
    if src.parsed is None:
        return f"{src.status}: {src.detail or ''} (HTTP {src.http_status})"
    parsed: verity.ParsedDocument = src.parsed
    spans: list[verity.PageSpan] = parsed.pages
    return f"{parsed.document.title or src.final_url} {parsed.format} {len(spans)} {src.fetched_at}"


async def fetched_size(target: str) -> int:
    src = await verity.afetch(target)
    return len(src.parsed.document.content) if src.parsed else 0


def as_plain_data(store: verity.Store, doc: str) -> int:
    # Every result converts to plain data, and reads as a dict for older code.
    r = store.check(doc)
    plain: dict[str, Any] = r.to_dict()
    total: int = r["summary"]["total"]
    tool: dict[str, Any] = store.call_tool("score_article", {"title": "Ollama 0.5"})
    return total + len(plain["results"]) + int(tool["raw_score"])
