"""Typed results: every operation returns the class of its `verity::api`
type (attributes named as the REST/MCP JSON keys), checked by mypy --strict
the way a user's own code is."""

from __future__ import annotations

from pathlib import Path

import pytest

import verity
from conftest import run_mypy, same_as_plain

PYTHON_DIR = Path(__file__).resolve().parents[1]


def test_mypy_reads_result_attributes(tmp_path: Path) -> None:
    ok = run_mypy(tmp_path, """
        import verity

        def report(store: verity.Store, doc: str) -> list[str]:
            r = store.check(doc, judge="local")
            verdict: str = r.results[0].verdict
            line: int = r.results[0].location.line
            rule = store.watch.score_article(title="Ollama").matched_rules[0]
            task = store.projects.create_task("prj_1", "design")
            return [verdict, str(line), rule.type, task.status, r.summary.message]
    """)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = run_mypy(tmp_path, """
        import verity

        def report(store: verity.Store, doc: str) -> int:
            r = store.check(doc)
            return r.results[0].verdikt + r.summary.total
    """)
    assert bad.returncode == 1
    assert '"CheckResult" has no attribute "verdikt"' in bad.stdout, bad.stdout


def test_mypy_reads_the_generated_search_answer_ingest_and_memory_types(tmp_path: Path) -> None:
    ok = run_mypy(tmp_path, """
        import datetime
        import verity

        def use(store: verity.Store) -> str:
            out = store.ingest([{"uid": "a", "content": "x"}])
            hit = store.search("x", k=3).hits[0]
            a = store.ask("x?")
            ev = store.memory.add({"text": "x"}, metadata={"k": 1}, expires_at=datetime.datetime.now())
            page = store.memory.search("x", ts_start="2025-01-01T00:00:00Z", limit=5, mode="lexical")
            title: str | None = hit.doc.get("title")
            total: float = a.timings["total_ms"]
            return f"{out.read_errors} {out.partial} {hit.chunk.heading_path} {title} {total} {a.citations[0].span} {ev.expires_at} {page.total_hits} {page[0].id}"
    """)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = run_mypy(tmp_path, """
        import verity

        def use(store: verity.Store) -> object:
            store.memory.add({"text": "x"}, expires="soon")
            store.memory.search(limit="5")
            return store.search("x").hits[0].chunk_idd
    """)
    assert bad.returncode == 1
    for expected in ['Unexpected keyword argument "expires"', '"limit" to "search" of "Memory" has incompatible type "str"',
                     '"Hit" has no attribute "chunk_idd"']:
        assert expected in bad.stdout, bad.stdout


def test_watch_and_projects_results_are_typed(store: verity.Store) -> None:
    w = store.watch
    up = w.update_veille_rule("local-llm", "include", ["ollama"], priority="high")
    assert isinstance(up, verity.UpdateRuleResponse) and isinstance(up.rule, verity.RelevanceRule)
    assert up.rule.type == "include" and up.rule.priority == "high" and up.rule.description is None
    s = w.score_article(title="Ollama 0.5 ships", content="ollama runs locally")
    assert isinstance(s, verity.ScoreResult) and s.valid
    m = s.matched_rules[0]
    assert isinstance(m, verity.RuleMatch) and isinstance(m.keywords[0], verity.KeywordHit)
    assert m.keywords[0].fields == ["title", "content"] and s.scoring_guide.max_score == 10
    logged = w.log_article("https://blog.example/o", "Ollama 0.5", "blog", "rss", qwen_score=8)
    seen = w.check_article_exists("https://blog.example/o?utm_source=x")
    assert seen.exists and seen.matched_by == "url"
    assert isinstance(seen.article, verity.ArticleBrief) and seen.article.id == logged.article_id
    arts = w.get_articles(validated_only=False)
    assert isinstance(arts.articles[0], verity.Article) and arts.articles[0].qwen_score == 8

    p = store.projects
    prj = p.create_project("verity", tags=["rust"])
    assert isinstance(prj, verity.Project) and prj.status == "active" and prj.tags == ["rust"]
    design = p.create_task(prj.id, "design", priority="high")
    assert isinstance(design, verity.Task) and design.depends_on == []
    over = p.get_project(prj.id)
    assert isinstance(over, verity.ProjectOverview)
    assert over.project == prj and over.tasks == [design]
    assert p.get_next_tasks(prj.id).tasks[0].title == "design"
    assert p.list_projects().projects == [prj]


def test_answer_verification_is_typed(filled: verity.Store) -> None:
    a = filled.ask("How are routing fees set?", verify="flag")
    v = a.verification
    assert isinstance(v, verity.AnswerVerification) and v.mode == "flag"
    assert v.checked == len([s for s in v.sentences if s.citations])
    for s in v.sentences:
        assert isinstance(s, verity.SentenceVerdict) and isinstance(s.text, str)
    assert filled.ask("How are routing fees set?", verify="off").verification is None


@pytest.mark.parametrize("name", ["CheckReport", "ResearchReport", "VerifyFactResult", "ProjectOverview"])
def test_result_classes_are_exported(name: str) -> None:
    cls = getattr(verity, name)
    assert cls.__module__ == "verity" and name in verity.__all__


def test_attributes_hold_the_serialized_values(store: verity.Store) -> None:
    w, p = store.watch, store.projects
    w.update_veille_rule("local-llm", "include", ["ollama"], description="Local inference")
    logged = w.log_article("https://blog.example/o", "Ollama 0.5", "blog", "rss", qwen_score=8,
                           phi_confidence=0.9, hashtags=["#llm"])
    w.log_veille_decision("qwen", "score", "8/10", article_id=logged.article_id, confidence=0.25)
    prj = p.create_project("verity", description="truth", tags=["rust"])
    t = p.create_task(prj.id, "design", priority="high")
    p.create_task(prj.id, "build", depends_on=[t.id])
    p.store_context(prj.id, "SQLite by default", title="storage")
    p.log_decision(prj.id, "SQLite", reasoning="zero setup", alternatives=["Postgres"])
    results = [
        w.get_veille_rules(), w.score_article(title="Ollama", content="ollama"),
        w.check_article_exists("https://blog.example/o"), w.get_articles(validated_only=False),
        w.get_veille_decisions(), p.get_project(prj.id), p.list_projects(), p.get_next_tasks(prj.id),
        p.query_context(prj.id, "sqlite"), p.get_decisions(prj.id),
    ]
    assert sum(same_as_plain(r) for r in results) > 20


def test_call_tool_answers_the_typed_methods_plain_data(store: verity.Store) -> None:
    store.watch.update_veille_rule("local-llm", "include", ["ollama"])
    typed = store.watch.score_article(title="Ollama 0.5", content="ollama")
    plain = store.call_tool("score_article", {"title": "Ollama 0.5", "content": "ollama"})
    assert plain == typed.to_dict() and plain["raw_score"] == typed.raw_score
    prj = store.projects.create_project("verity")
    assert store.call_tool("get_project", {"project_id": prj.id}) == store.projects.get_project(prj.id).to_dict()


def _stub_properties() -> dict[str, set[str]]:
    import ast

    tree = ast.parse((PYTHON_DIR / "verity" / "_verity.pyi").read_text())
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = {
                f.name for f in node.body
                if isinstance(f, ast.FunctionDef) and any(
                    isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list)
            }
    return out


def test_stubs_list_the_attributes_the_classes_have() -> None:
    stubs = _stub_properties()
    checked = 0
    for name in verity.__all__:
        cls = getattr(verity, name)
        if not isinstance(cls, type) or not hasattr(cls, "to_dict"):
            continue
        runtime = {k for k, v in vars(cls).items() if type(v).__name__ == "getset_descriptor"}
        assert stubs.get(name) == runtime, f"{name}: stub {sorted(stubs.get(name, set()) ^ runtime)}"
        checked += 1
    assert checked >= 50


def test_generated_stub_classes_exist_with_their_attributes() -> None:
    """The stub's generated section (from the api schemas) declares no class
    or attribute the extension lacks: the result classes of
    `bindings/python/src/results.rs` and the schemas agree."""
    import ast

    import verity._verity as native

    stub = Path(native.__file__).with_name("_verity.pyi").read_text()
    begin = stub.index("# ---- generated from the verity::api schemas")
    end = stub.index("# ---- generated (end) ----")
    tree = ast.parse(stub[begin:end])
    classes = [c for c in tree.body if isinstance(c, ast.ClassDef) and not c.name.startswith("_")]
    assert len(classes) > 60
    for name in ["Document", "Chunk", "Hit", "SearchResults", "Citation", "Answer", "IngestOutcome",
                 "StoreStats", "Stats", "Event", "EventPage"]:
        assert name in {c.name for c in classes}, f"{name} is not generated"
    for c in classes:
        cls = getattr(native, c.name)
        props = [f.name for f in c.body if isinstance(f, ast.FunctionDef) and f.decorator_list]
        missing = [p for p in props if not hasattr(cls, p)]
        assert not missing, f"{c.name} lacks {missing}"
        extra = {a for a in dir(cls) if not a.startswith("_")} - set(props) - {"to_dict"}
        assert not extra, f"{c.name} has attributes the schema does not list: {extra}"
        # Every method the stub declares (`__getitem__`, `__len__`, the
        # constructor, …) is one the class has.
        methods = [f.name for f in c.body if isinstance(f, ast.FunctionDef) and not f.decorator_list]
        lacking = [m for m in methods if m not in vars(cls) and m != "__init__"]
        assert not lacking, f"{c.name} lacks {lacking}"
        if "__init__" in methods:
            assert "__new__" in vars(cls), f"{c.name} declares a constructor it does not have"


def _typed_dict_keys(name: str) -> tuple[set[str], set[str]]:
    """The keys of a generated `TypedDict` of the stub: (required, all)."""
    import ast

    tree = ast.parse((PYTHON_DIR / "verity" / "_verity.pyi").read_text())
    node = next(c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == name)
    fields = [f for f in node.body if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)]
    required = {f.target.id for f in fields  # type: ignore[union-attr]
                if not ast.unparse(f.annotation).startswith("NotRequired")}
    return required, {f.target.id for f in fields}  # type: ignore[union-attr]


def test_plain_data_attributes_have_the_keys_their_typed_dicts_declare(filled: verity.Store) -> None:
    """Attributes the binding hands out as dicts (a hit's `doc`, an answer's
    `timings`) hold the keys of their generated `TypedDict`s."""
    hit = filled.search("routing fees", k=1).hits[0]
    answer = filled.ask("How are routing fees set?")
    for value, typed in [(hit.doc, "_DocumentMeta"), (answer.timings, "_Timings")]:
        required, declared = _typed_dict_keys(typed)
        assert isinstance(value, dict) and required <= set(value) <= declared, (typed, sorted(value))
    assert hit["chunk_id"] == hit.chunk_id and answer["model"] == answer.model
