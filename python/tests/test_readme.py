"""The README's Python snippet, run as written (in a scratch directory that
has the repository's ``examples/``), so that what a new user copies works."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_block(heading: str, fence: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split(heading, 1)[1]
    return after.split(f"```{fence}\n", 1)[1].split("```", 1)[0]


def test_readme_python_snippet_runs_as_written(tmp_path: pathlib.Path) -> None:
    code = readme_block("### From Python", "python")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERITY_", "REDIS_URL", "OPENAI_"))}
    for keep in ("VERITY_MODEL_DIR", "VERITY_CACHE"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    out = subprocess.run(
        [sys.executable, "snippet.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    assert "invalid_input" in out.stdout, out.stdout
    assert "\nfetched " in out.stdout, out.stdout
    assert (tmp_path / ".verity").is_dir()
