"""Error mapping: Rust error codes → exception classes, Python type errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import verity


def test_hierarchy() -> None:
    assert issubclass(verity.InvalidInput, verity.VerityError)
    assert issubclass(verity.InvalidInput, ValueError)
    for cls in (verity.NotFound, verity.Unavailable, verity.EmbedderMismatch, verity.ConfigError):
        assert issubclass(cls, verity.VerityError)


def test_bad_mode(filled: verity.Store) -> None:
    with pytest.raises(verity.InvalidInput) as e:
        filled.search("fees", mode="psychic")
    assert e.value.code == "invalid_input"
    assert e.value.transient is False
    assert "psychic" in str(e.value)
    with pytest.raises(ValueError):
        filled.ask("fees?", mode="psychic")


def test_bad_filters(filled: verity.Store) -> None:
    with pytest.raises(verity.InvalidInput):
        filled.search("fees", since="last tuesday")
    with pytest.raises(TypeError):
        filled.search("fees", metadata={"k": object()})
    with pytest.raises(TypeError):
        filled.search("fees", metadata={1: "x"})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        filled.search("fees", sources="internal")  # a str is not a list of str
    with pytest.raises(ValueError):
        filled.search("fees", metadata={"k": float("nan")})


def test_bad_config(tmp_path: Path) -> None:
    with pytest.raises(verity.ConfigError) as e:
        verity.Store.open(tmp_path, embedder="telepathy")
    assert e.value.code == "config_error"
    with pytest.raises(verity.ConfigError):
        verity.Store.open(tmp_path, embedder="none", generator="oracle")


def test_missing_local_model_is_config_error(tmp_path: Path) -> None:
    with pytest.raises(verity.ConfigError):
        verity.Store.open(tmp_path, embedder=f"local:{tmp_path / 'no-such-model'}")


def test_wrong_types(store: verity.Store) -> None:
    with pytest.raises(TypeError):
        store.search(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.search(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.ingest("not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.ingest([42])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        store.get(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.delete("uid")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.search("x", k="many")  # type: ignore[arg-type]
    with pytest.raises((OverflowError, TypeError, ValueError)):
        store.search("x", k=-1)


def test_malformed_documents(store: verity.Store) -> None:
    bad: list[Any] = [
        {"content": "no uid"},
        {"uid": "u", "content": 12},
        {"uid": "u", "content": "x", "ts": "not a date"},
        {"uid": "u", "content": "x", "tags": 12},
    ]
    for doc in bad:
        with pytest.raises(verity.InvalidInput):
            store.ingest([doc])
    with pytest.raises(TypeError):
        store.ingest([{"uid": "u", "content": b"bytes"}])
    assert store.stats()["store"]["documents"] == 0
    # One tag given as a string is kept as that tag (every ingest path reads
    # records the same way), never dropped.
    store.ingest([{"uid": "one", "content": "x", "tags": "fees"}])
    one = store.get("one")
    assert one is not None and one.tags == ["fees"]


def test_empty_content_is_rejected_not_crashed(store: verity.Store) -> None:
    rep = store.ingest([{"uid": "e", "content": ""}, {"uid": "ok", "content": "fine text"}])
    assert rep["inserted"] == 1
    assert len(rep["rejected"]) == 1


def test_non_utf8_and_surrogates(filled: verity.Store) -> None:
    with pytest.raises(TypeError):
        filled.search(b"\xff\xfe")  # type: ignore[arg-type]
    with pytest.raises(UnicodeEncodeError):
        filled.search("bad \udcff surrogate")
    with pytest.raises(UnicodeEncodeError):
        filled.ingest([{"uid": "s", "content": "lone \ud800"}])


def test_huge_strings(filled: verity.Store) -> None:
    big = "fees " * 400_000  # 2 MB query
    try:
        res = filled.search(big, k=3, mode="lexical")
        assert len(res) <= 3
    except verity.InvalidInput as e:  # refusing is fine, crashing is not
        assert e.code == "invalid_input"
    doc = {"uid": "big", "content": "routing " * 200_000}
    rep = filled.ingest([doc])
    assert rep["inserted"] == 1 and rep["chunks"] > 10


def test_empty_uid_delete(filled: verity.Store) -> None:
    with pytest.raises(verity.InvalidInput):
        filled.delete([""])


def test_empty_query(filled: verity.Store) -> None:
    try:
        res = filled.search("", mode="lexical")
        assert len(res) == 0 or res.not_enough_evidence
    except verity.InvalidInput:
        pass


def test_fetch_errors(tmp_path: Path) -> None:
    with pytest.raises(verity.VerityError) as e:
        verity.fetch(str(tmp_path / "nope.md"))
    assert e.value.code
    # The SSRF guard refuses private addresses: reported as a status, not raised.
    blocked = verity.fetch("http://127.0.0.1:9/x")
    assert blocked["status"] == "blocked" and "loopback" in blocked["detail"]
    with pytest.raises(verity.VerityError):
        verity.fetch("http://[::1")


def test_error_table_names_existing_classes() -> None:
    import verity.errors as errors

    table = verity._verity._error_table()
    codes = {row["code"] for row in table}
    assert {"invalid_input", "not_found", "unavailable", "config_error", "internal"} <= codes
    for row in table:
        cls = getattr(errors, row["python_class"])
        assert issubclass(cls, verity.VerityError), row
        assert row["js_code"] == row["code"]


def test_errors_follow_the_table(filled: verity.Store, tmp_path: Path) -> None:
    table = {row["code"]: row for row in verity._verity._error_table()}
    cases: list[Any] = [
        lambda: filled.search("fees", mode="psychic"),
        lambda: filled.search("fees", k=0),
        lambda: verity.Store.open(tmp_path / "x", embedder="telepathy"),
        lambda: filled.delete([""]),
    ]
    for call in cases:
        with pytest.raises(verity.VerityError) as e:
            call()
        assert type(e.value).__name__ == table[e.value.code]["python_class"], e.value


def test_k_bounds(filled: verity.Store) -> None:
    for k in (0, 1001):
        with pytest.raises(verity.InvalidInput) as e:
            filled.search("fees", k=k)
        assert "between 1 and 1000" in str(e.value)
        with pytest.raises(verity.InvalidInput):
            filled.ask("fees?", k=k)
