"""A typed sample checked by mypy --strict against the stubs."""

from __future__ import annotations

import asyncio
import datetime
from typing import TYPE_CHECKING, Optional

import verity

if TYPE_CHECKING:
    from verity._verity import AddReferenceResult, CheckReport, KnowledgeEntry, ResearchReport


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
        store.search("x", mode="bad")
    except verity.InvalidInput as e:
        code: str = e.code
        transient: bool = e.transient
        print(code, transient)


def verdicts(store: verity.Store, doc: str) -> list[str]:
    r: CheckReport = store.check(doc, content_type="markdown", judge="local")
    return [x["verdict"] + x.get("source_quote", "") for x in r["results"]]


def research_summary(store: verity.Store, syllabus: str) -> str:
    r: ResearchReport = store.research(syllabus, allow_private=False)
    refs = ", ".join(x.get("url") or x.get("filename") or x["title"] for x in r["references"])
    entry: Optional[KnowledgeEntry] = store.find_by_name("notes.md")
    added: AddReferenceResult = store.add_reference(filename="notes.md")
    return f"{r['planner']} {r['coverage']:.2f} {refs} {entry} {added['indexed']}"
