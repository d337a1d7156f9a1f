"""store.watch: the technology watch (seed 000) through typed methods over
the library's request and response types."""

from __future__ import annotations

import asyncio
import datetime

import pytest

import verity


def test_rules_round_trip(store: verity.Store) -> None:
    w = store.watch
    r = w.update_veille_rule(
        "local-llm", "include", ["ollama", "local llm"], score_modifier=3, priority="high",
        description="Local inference",
    )
    assert r["updated"] and r["created"]
    assert r["rule"] == {
        "name": "local-llm", "type": "include", "keywords": ["ollama", "local llm"],
        "score_modifier": 3, "priority": "high", "active": True, "description": "Local inference",
    }
    again = w.update_veille_rule("local-llm", "include", ["ollama"])
    assert again["created"] is False
    assert again["rule"]["score_modifier"] == 2  # the include default, the rule replaced
    w.update_veille_rule("crypto", "exclude", ["bitcoin"])
    includes = w.get_veille_rules("include")
    assert [x["name"] for x in includes["rules"]] == ["local-llm"]
    assert includes["rules"][0]["keywords"] == ["ollama"]
    assert {"base_score", "min_valid_score", "max_score"} <= set(includes["scoring_guide"])
    every = {x["name"] for x in w.get_veille_rules()["rules"]}
    assert {"local-llm", "crypto"} <= every
    assert [x["name"] for x in w.get_veille_rules("exclude", priority="medium")["rules"]] == ["crypto"]


def test_score_explains_matched_rules(store: verity.Store) -> None:
    w = store.watch
    w.update_veille_rule("local-llm", "include", ["ollama"], score_modifier=3, priority="high")
    w.update_veille_rule("crypto", "exclude", ["bitcoin"])
    s = w.score_article(title="Ollama 0.5 ships", content="Run models locally with Ollama.")
    guide = s["scoring_guide"]
    assert [m["rule"] for m in s["matched_rules"]] == ["local-llm"]
    m = s["matched_rules"][0]
    assert m["type"] == "include" and m["score_modifier"] == 3
    assert m["keywords"][0]["keyword"] == "ollama" and m["keywords"][0]["count"] == 2
    assert set(m["keywords"][0]["fields"]) == {"title", "content"}
    assert s["raw_score"] == guide["base_score"] + 3
    assert any("local-llm" in line for line in s["explanation"])
    assert not s["excluded"]
    bad = w.score_article(title="Bitcoin and Ollama")
    assert bad["excluded"] and not bad["valid"]
    assert {m["rule"] for m in bad["matched_rules"]} == {"local-llm", "crypto"}


def test_check_finds_tracking_variant_and_log_is_idempotent(store: verity.Store) -> None:
    w = store.watch
    url = "https://blog.example.com/posts/ollama-0-5?id=7"
    assert w.check_article_exists(url)["exists"] is False
    first = w.log_article(
        url, "Ollama 0.5", "Ollama blog", "rss", qwen_score=8, qwen_keywords=["ollama"],
        phi_validated=True, phi_confidence=0.9, hashtags=["#llm"],
    )
    assert first["logged"] and first["created"]
    variant = "https://blog.example.com/posts/ollama-0-5?utm_source=newsletter&id=7&utm_medium=email"
    seen = w.check_article_exists(variant)
    assert seen["exists"] is True and seen["matched_by"] == "url"
    assert seen["article"]["id"] == first["article_id"]
    assert seen["canonical_url"] == first["canonical_url"]
    again = w.log_article(variant, "Ollama 0.5", "Ollama blog", "rss", qwen_score=8)
    assert again["article_id"] == first["article_id"] and again["created"] is False
    arts = w.get_articles(days=1)
    assert arts["total"] == 1 and arts["articles"][0]["id"] == first["article_id"]
    assert arts["articles"][0]["source_type"] == "rss"


def test_decision_read_back(store: verity.Store) -> None:
    w = store.watch
    art = w.log_article("https://example.org/a", "A", "Example", "hn")
    d = w.log_veille_decision(
        "qwen", "score", "8/10: relevant", article_id=art["article_id"], confidence=0.8,
        reasoning="matches local-llm", tools_used=["get_veille_rules", "score_article"],
    )
    assert d["logged"]
    w.log_veille_decision("phi", "validate", "general note")
    back = w.get_veille_decisions(article_id=art["article_id"])
    assert back["total"] == 1
    got = back["decisions"][0]
    assert got["id"] == d["decision_id"] and got["llm"] == "qwen" and got["decision_type"] == "score"
    assert got["tools_used"] == ["get_veille_rules", "score_article"]
    assert got["confidence"] == 0.8 and got["reasoning"] == "matches local-llm"
    since = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    assert w.get_veille_decisions(since=since)["total"] == 2
    assert w.get_veille_decisions(until="2000-01-01T00:00:00Z")["total"] == 0


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
    assert w.get_articles(days=30, validated_only=False)["total"] == 0  # nothing was logged


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
        await w.alog_veille_decision("phi", "reject", "off topic", article_id=logged["article_id"])
        back = await w.aget_veille_decisions(article_id=logged["article_id"])
        rules = await w.aget_veille_rules()
        return seen["exists"], len(s["matched_rules"]), back["total"], len(rules["rules"])

    assert asyncio.run(flow()) == (True, 1, 1, 1)
