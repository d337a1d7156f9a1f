"""store.watch: the technology watch (seed 000) through typed methods over
the library's request and response types."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import gzip
import json
import os
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

import verity


def test_rules_round_trip(store: verity.Store) -> None:
    w = store.watch
    r = w.update_veille_rule(
        "local-llm", "include", ["ollama", "local llm"], score_modifier=3, priority="high",
        description="Local inference",
    )
    assert r.updated and r.created
    assert r.rule.to_dict() == {
        "name": "local-llm", "type": "include", "keywords": ["ollama", "local llm"],
        "score_modifier": 3, "priority": "high", "active": True, "description": "Local inference",
    }
    again = w.update_veille_rule("local-llm", "include", ["ollama"])
    assert again.created is False
    assert again.rule.score_modifier == 2  # the include default, the rule replaced
    w.update_veille_rule("crypto", "exclude", ["bitcoin"])
    includes = w.get_veille_rules("include")
    assert [x.name for x in includes.rules] == ["local-llm"]
    assert includes.rules[0].keywords == ["ollama"]
    assert {"base_score", "min_valid_score", "max_score"} <= set(includes.scoring_guide.to_dict())
    every = {x.name for x in w.get_veille_rules().rules}
    assert {"local-llm", "crypto"} <= every
    assert [x.name for x in w.get_veille_rules("exclude", priority="medium").rules] == ["crypto"]


def test_score_explains_matched_rules(store: verity.Store) -> None:
    w = store.watch
    w.update_veille_rule("local-llm", "include", ["ollama"], score_modifier=3, priority="high")
    w.update_veille_rule("crypto", "exclude", ["bitcoin"])
    s = w.score_article(title="Ollama 0.5 ships", content="Run models locally with Ollama.")
    guide = s.scoring_guide
    assert [m.rule for m in s.matched_rules] == ["local-llm"]
    m = s.matched_rules[0]
    assert m.type == "include" and m.score_modifier == 3
    assert m.keywords[0].keyword == "ollama" and m.keywords[0].count == 2
    assert set(m.keywords[0].fields) == {"title", "content"}
    assert s.raw_score == guide.base_score + 3
    assert any("local-llm" in line for line in s.explanation)
    assert not s.excluded
    bad = w.score_article(title="Bitcoin and Ollama")
    assert bad.excluded and not bad.valid
    assert {m.rule for m in bad.matched_rules} == {"local-llm", "crypto"}


def test_check_finds_tracking_variant_and_log_is_idempotent(store: verity.Store) -> None:
    w = store.watch
    url = "https://blog.example.com/posts/ollama-0-5?id=7"
    assert w.check_article_exists(url).exists is False
    first = w.log_article(
        url, "Ollama 0.5", "Ollama blog", "rss", qwen_score=8, qwen_keywords=["ollama"],
        phi_validated=True, phi_confidence=0.9, hashtags=["#llm"],
    )
    assert first.logged and first.created
    variant = "https://blog.example.com/posts/ollama-0-5?utm_source=newsletter&id=7&utm_medium=email"
    seen = w.check_article_exists(variant)
    assert seen.exists is True and seen.matched_by == "url"
    assert seen.article.id == first.article_id
    assert seen.canonical_url == first.canonical_url
    again = w.log_article(variant, "Ollama 0.5", "Ollama blog", "rss", qwen_score=8)
    assert again.article_id == first.article_id and again.created is False
    arts = w.get_articles(days=1)
    assert arts.total == 1 and arts.articles[0].id == first.article_id
    assert arts.articles[0].source_type == "rss"


def test_decision_read_back(store: verity.Store) -> None:
    w = store.watch
    art = w.log_article("https://example.org/a", "A", "Example", "hn")
    d = w.log_veille_decision(
        "qwen", "score", "8/10: relevant", article_id=art.article_id, confidence=0.8,
        reasoning="matches local-llm", tools_used=["get_veille_rules", "score_article"],
    )
    assert d.logged
    w.log_veille_decision("phi", "validate", "general note")
    back = w.get_veille_decisions(article_id=art.article_id)
    assert back.total == 1
    got = back.decisions[0]
    assert got.id == d.decision_id and got.llm == "qwen" and got.decision_type == "score"
    assert got.tools_used == ["get_veille_rules", "score_article"]
    assert got.confidence == 0.8 and got.reasoning == "matches local-llm"
    since = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    assert w.get_veille_decisions(since=since).total == 2
    assert w.get_veille_decisions(until="2000-01-01T00:00:00Z").total == 0


def test_bad_enum_names_allowed_values(store: verity.Store) -> None:
    w = store.watch
    with pytest.raises(verity.InvalidInput) as e:
        w.log_article("https://example.org/b", "B", "Example", "blog")
    assert e.value.code == "invalid_input"
    for allowed in ("rss", "youtube", "reddit", "hn"):
        assert allowed in str(e.value)
    with pytest.raises(verity.InvalidInput) as e:
        w.log_veille_decision("gpt", "score", "x")
    assert "qwen" in str(e.value) and "phi" in str(e.value)
    with pytest.raises(verity.InvalidInput) as e:
        w.get_veille_rules("sometimes")
    assert "include" in str(e.value) and "all" in str(e.value)
    with pytest.raises(verity.InvalidInput) as e:
        w.update_veille_rule("r", "include", ["x"], score_modifier=99)
    assert "score_modifier" in str(e.value)
    with pytest.raises(verity.InvalidInput):
        w.get_veille_decisions(since="yesterday")
    assert w.get_articles(days=30, validated_only=False).total == 0  # nothing was logged


def test_web_tools_give_typed_errors(store: verity.Store) -> None:
    w = store.watch
    with pytest.raises(verity.VerityError) as e:
        w.crawl_url("http://127.0.0.1:9/page")
    assert e.value.code != "internal"
    with pytest.raises(verity.InvalidInput):
        w.web_search("ollama", time_range="decade")


def test_async_variants(store: verity.Store) -> None:
    w = store.watch

    async def flow() -> tuple[bool, int, int, int]:
        await w.aupdate_veille_rule("local-llm", "include", ["ollama"])
        s = await w.ascore_article(title="Ollama")
        logged = await w.alog_article("https://example.net/x?utm_campaign=y", "X", "Net", "reddit")
        seen = await w.acheck_article_exists("https://example.net/x")
        await w.alog_veille_decision("phi", "reject", "off topic", article_id=logged.article_id)
        back = await w.aget_veille_decisions(article_id=logged.article_id)
        rules = await w.aget_veille_rules()
        return seen.exists, len(s.matched_rules), back.total, len(rules.rules)

    assert asyncio.run(flow()) == (True, 1, 1, 1)


# ---------------------------------------------------------------- web tools on loopback fakes

# The evaluation pages (CI: ../shared/data relative to the repository root).
ARTICLES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "article-extraction"
WEWORK = "06e5123e4ef7cfb4533250dc45d1e03d0838fc66223f45c583c4d12f48b4da85"
DELHI = "076f4f33bf75059db581bedf36e76fb65e89a8f7752db3339aa3ea11c5122f32"


def _article_dir() -> Path:
    env = os.environ.get("VERITY_DATA_DIR")
    base = Path(env) / "article-extraction" if env else ARTICLES
    if not (base / "html" / f"{WEWORK}.html.gz").is_file():
        why = f"article pages not found under {base} (../shared/data/article-extraction)"
        if os.environ.get("VERITY_REQUIRE_DATA") == "1":
            pytest.fail(f"{why}; VERITY_REQUIRE_DATA=1: a missing input fails the test")
        pytest.skip(why)
    return base


@dataclasses.dataclass
class Web:
    base: str
    searches: list[dict[str, list[str]]]


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[Web]:
    """Real article pages at /page/<id> and a SearXNG-format /search on loopback;
    the store's watch is configured (from the environment) to use them. The
    environment is read when a store opens, so tests list `web` before `store`."""
    html = _article_dir() / "html"
    pages = {k: gzip.decompress((html / f"{k}.html.gz").read_bytes()) for k in (WEWORK, DELHI)}
    searches: list[dict[str, list[str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            u = urllib.parse.urlparse(self.path)
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if u.path.startswith("/page/") and u.path[6:] in pages:
                body, ctype = pages[u.path[6:]], "text/html; charset=utf-8"
            elif u.path == "/search":
                q = urllib.parse.parse_qs(u.query)
                searches.append(q)
                results = [
                    {"url": f"{base}/page/{WEWORK}", "title": "NY attorney general investigating WeWork",
                     "content": "The New York State Attorney General is investigating WeWork...",
                     "engine": "duckduckgo", "engines": ["duckduckgo"]},
                    {"url": f"{base}/page/{DELHI}", "title": "Air quality apps for Delhi-NCR",
                     "content": "Apps to find out the latest air quality index...", "engine": "bing"},
                ]
                body = json.dumps({"query": q.get("q", [""])[0], "number_of_results": 2,
                                   "results": results}).encode()
                ctype = "application/json"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    monkeypatch.setenv("VERITY_SEARXNG_URL", base)
    monkeypatch.setenv("VERITY_ALLOW_PRIVATE", "1")
    try:
        yield Web(base, searches)
    finally:
        srv.shutdown()
        srv.server_close()


def test_web_search_returns_searxng_results(web: Web, store: verity.Store) -> None:
    base = web.base
    r = store.watch.web_search("wework attorney general", num_results=2, time_range="month")
    assert r.query == "wework attorney general" and r.total_found == 2
    assert [x.url for x in r.results] == [f"{base}/page/{WEWORK}", f"{base}/page/{DELHI}"]
    assert r.results[0].title == "NY attorney general investigating WeWork"
    assert r.results[0].snippet.startswith("The New York State Attorney General")
    assert r.results[0].source
    sent = web.searches[-1]
    assert sent["q"] == ["wework attorney general"] and sent["format"] == ["json"]
    assert store.watch.web_search("wework", num_results=1).total_found == 1


def test_crawl_url_extracts_the_article(web: Web, store: verity.Store) -> None:
    base = web.base
    body = json.loads((_article_dir() / "ground-truth.json").read_text())[WEWORK]["articleBody"]
    page = store.watch.crawl_url(f"{base}/page/{WEWORK}")
    assert page.url == f"{base}/page/{WEWORK}"
    assert page.word_count > 100 and page.extracted_at
    assert "WeWork" in page.title
    # The article's own sentences are in the extracted content.
    first = body.split("\n")[0].replace("(Reuters) — ", "")[:80]
    assert first[:40] in page.content, (first, page.content[:500])
    assert "A spokesperson for the NYAG declined to comment." in page.content


def test_verify_fact_reads_the_pages_and_quotes_them(web: Web, store: verity.Store) -> None:
    base = web.base
    w = store.watch
    claim = "The New York State Attorney General is investigating WeWork."
    r = w.verify_fact(claim, context="WeWork")
    assert r.claim == claim and r.searched and "WeWork" in r.searched
    assert r.verdict == "SUPPORTED" and r.verified is True and not r.not_enough_evidence
    assert 0 < r.confidence <= 1 and r.judge
    urls = [s.url for s in r.sources]
    assert urls[0] == f"{base}/page/{WEWORK}", urls
    assert set(urls) <= {f"{base}/page/{WEWORK}", f"{base}/page/{DELHI}"}
    texts = {u: w.crawl_url(u).content for u in set(urls)}
    for s in r.sources:
        # Verbatim from its page as a reader sees it: crawl_url's content is
        # Markdown (emphasis markers), the excerpt is the page's own text.
        assert s.excerpt and s.excerpt in texts[s.url].replace("*", ""), s
    assert "Attorney General" in r.sources[0].excerpt
    assert r.sources[0].verdict == "SUPPORTED"
    # Given pages, no search; an unreadable one is reported, not fatal.
    r2 = w.verify_fact(claim, urls=[f"{base}/page/{WEWORK}", f"{base}/missing"])
    assert r2.searched is None and r2.verified
    assert [u.url for u in r2.unavailable] == [f"{base}/missing"]
