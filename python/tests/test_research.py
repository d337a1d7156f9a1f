"""Store.research / find_by_name / add_reference: the fixture syllabus of
crates/verity-research, its pages served on loopback, the whole run offline."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator, Optional

import pytest

import verity
from conftest import same_as_plain, serve_pages

FIXTURES = Path(__file__).resolve().parents[2] / "crates" / "verity-research" / "tests" / "fixtures"


def _page(path: str) -> Optional[tuple[str, bytes]]:
    file = FIXTURES / "web" / path.lstrip("/")
    if ".." in path or not file.is_file():
        return None
    return "text/html; charset=utf-8", file.read_bytes()


@pytest.fixture()
def base() -> Iterator[str]:
    with serve_pages(_page) as url:
        yield url


def _setup(tmp: Path, base: str) -> tuple[Path, Path]:
    syllabus = tmp / "syllabus.md"
    syllabus.write_text((FIXTURES / "syllabus.md").read_text().replace("{BASE}", base))
    kb = tmp / "kb"
    kb.mkdir()
    shutil.copy(FIXTURES / "kb" / "Prompt_Engineering_for_Developers.md", kb)
    return syllabus, kb


def test_research_returns_the_checked_report(tmp_path: Path, base: str) -> None:
    syllabus, kb = _setup(tmp_path, base)
    store = verity.Store.open(tmp_path / "store", embedder="none", generator="extractive")
    run = tmp_path / "run"
    r = store.research(syllabus, run_dir=run, knowledge_dir=kb, allow_private=True)
    assert r.planner == "deterministic"
    assert r.coverage == 1.0
    assert r.unresolved_citations == 0
    assert r.supported_share >= 0.95, r
    assert not r.degraded, r.missing
    refs = r.markdown.split("## References")[1]
    assert f"{base}/agents.html" in refs
    assert any(x.filename == "Prompt_Engineering_for_Developers.md" for x in r.references)
    assert {t.step for t in r.timings} >= {"brief", "plan", "execute", "write", "check"}
    assert (run / "trace.jsonl").is_file()
    assert isinstance(r, verity.ResearchReport) and isinstance(r.themes[0], verity.ThemeCoverage)
    assert same_as_plain(r) > len(r.references) + len(r.timings)
    # The knowledge base was filled; find_by_name reads it from disk.
    entry = store.find_by_name("Prompt_Engineering_for_Developers.md", knowledge_dir=kb)
    assert entry is not None and entry.summary and entry.file_id
    assert isinstance(entry, verity.KnowledgeEntry) and same_as_plain(entry) == 1
    assert store.find_by_name("nope.md", knowledge_dir=kb) is None
    # Replayed from the trace, offline.
    again = store.research(run_dir=run, knowledge_dir=kb, replay=True)
    assert again.coverage == 1.0
    assert any("replayed" in n for n in again.notes)


def test_loopback_references_need_allow_private(tmp_path: Path, base: str) -> None:
    syllabus, kb = _setup(tmp_path, base)
    store = verity.Store.open(tmp_path / "store", embedder="none", generator="extractive")
    r = store.research(syllabus, run_dir=tmp_path / "run", knowledge_dir=kb)
    assert r.degraded
    assert any("/agents.html" in m for m in r.missing), r.missing
    assert "Prompt_Engineering_for_Developers.md" in r.markdown


def test_add_reference_and_bad_input(tmp_path: Path, base: str) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    store = verity.Store.open(tmp_path / "store", embedder="none", generator="extractive")
    added = store.add_reference(f"{base}/rag.html", knowledge_dir=kb, allow_private=True, keywords=["rag"])
    assert added.downloaded and added.indexed
    assert added.entry.keywords == ["rag"]
    twice = store.add_reference(f"{base}/rag.html", knowledge_dir=kb, allow_private=True)
    assert not twice.downloaded and not twice.indexed
    with pytest.raises(verity.InvalidInput):
        store.add_reference(knowledge_dir=kb)
    with pytest.raises(verity.InvalidInput):
        store.add_reference("ftp://example.com/x", knowledge_dir=kb)
    with pytest.raises(verity.InvalidInput):
        store.add_reference(filename="../etc/passwd", knowledge_dir=kb)
    with pytest.raises(verity.InvalidInput):
        store.research()
    with pytest.raises(verity.VerityError):
        store.research(tmp_path / "missing.md", run_dir=tmp_path / "r2", knowledge_dir=kb)


def test_aresearch(tmp_path: Path, base: str) -> None:
    import asyncio

    syllabus, kb = _setup(tmp_path, base)
    store = verity.Store.open(tmp_path / "store", embedder="none", generator="extractive")

    async def go() -> float:
        r = await store.aresearch(syllabus, run_dir=tmp_path / "run", knowledge_dir=kb, allow_private=True)
        return r.coverage

    assert asyncio.run(go()) == 1.0


def test_options_are_the_api_research_options(tmp_path: Path, base: str) -> None:
    """The keywords are the fields of `verity::api::research::ResearchOptions`
    (read through serde): each reaches the run, a wrong one is a TypeError
    naming it, a refused value an InvalidInput naming the field."""
    import asyncio

    syllabus, kb = _setup(tmp_path, base)
    store = verity.Store.open(tmp_path / "store", embedder="none", generator="extractive")
    run = tmp_path / "run"
    r = store.research(str(syllabus), run_dir=str(run), knowledge_dir=kb, allow_private=True,
                       judge="local", budget_secs=120, remove_unsupported=True)
    assert "local" in r.judge, r.judge
    assert r.run_dir == str(run)
    for call, name in [
        (lambda: store.research(syllabus, knowledge_dir=kb, colour="blue"), "colour"),
        (lambda: store.research(syllabus, runDir=run), "runDir"),
        (lambda: store.find_by_name("x.md", knowledge_dir=kb, replay=True), "replay"),
        (lambda: store.add_reference(f"{base}/rag.html", run_dir=run), "run_dir"),
        (lambda: store.add_reference(f"{base}/rag.html", colour="blue"), "colour"),
        (lambda: store.aresearch(syllabus, colour="blue"), "colour"),
        (lambda: store.aadd_reference(f"{base}/rag.html", colour="blue"), "colour"),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        assert f"'{name}'" in str(e.value), str(e.value)
    with pytest.raises(TypeError) as e:
        store.add_reference(f"{base}/rag.html", colour="blue")
    assert "knowledge_dir" in str(e.value) and "title" in str(e.value), str(e.value)
    with pytest.raises(TypeError, match="'replay'"):
        store.research(syllabus, replay="yes")
    for call, field in [
        (lambda: store.research(syllabus, judge="oracle"), "judge"),
        (lambda: store.research(syllabus, budget_secs=0), "budget_secs"),
        (lambda: store.research(replay=True), "run_dir"),
        (lambda: store.find_by_name("  ", knowledge_dir=kb), "filename"),
    ]:
        with pytest.raises(verity.InvalidInput) as e:
            call()
        assert field in str(e.value), (field, str(e.value))
        assert e.value.code == "invalid_input"

    async def twins() -> tuple[object, object, object]:
        entry = await store.afind_by_name("Prompt_Engineering_for_Developers.md", knowledge_dir=kb)
        added = await store.aadd_reference(f"{base}/europa.html", knowledge_dir=kb, allow_private=True,
                                           title="Europa", description="A moon.", keywords=["moon"])
        with pytest.raises(verity.InvalidInput):
            await store.aresearch(replay=True)
        return entry, added, store.find_by_name("Prompt_Engineering_for_Developers.md", knowledge_dir=kb)

    entry, added, same = asyncio.run(twins())
    assert entry is not None and same is not None and entry.to_dict() == same.to_dict()
    assert isinstance(added, verity.AddReferenceResult)
    assert added.downloaded and added.indexed
    assert added.entry.title == "Europa" and added.entry.keywords == ["moon"]
    assert added.entry.summary == "A moon."
    assert store.find_by_name(added.entry.filename, knowledge_dir=kb) is not None
