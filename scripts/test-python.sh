#!/usr/bin/env bash
# Build the Python bindings (PyO3 + maturin, debug profile) into a venv under
# ~/.cache/verity/venv, then run pytest, mypy on the stubs and a typed sample,
# and execute the quickstart notebook. Exits non-zero on any failure.
#   scripts/test-python.sh [--build-only] [--release]
# (VERITY_PY_MATURIN=1 builds the debug extension with maturin instead.)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${VERITY_VENV:-$HOME/.cache/verity/venv}
PY=${PYTHON:-python3}
BUILD_ONLY=0
PROFILE=()
for a in "$@"; do
  case $a in
    --build-only) BUILD_ONLY=1 ;;
    --release) PROFILE=(--release) ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done

if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating venv $VENV"
  "$PY" -m venv "$VENV"
fi
# shellcheck disable=SC1091
source "$VENV/bin/activate"
STAMP="$VENV/.verity-deps-1"
if [ ! -f "$STAMP" ]; then
  echo "==> installing maturin, pytest, mypy, nbclient, ipykernel"
  pip install --quiet --upgrade pip
  pip install --quiet "maturin>=1.7,<2" pytest mypy nbclient nbformat ipykernel
  touch "$STAMP"
fi

if [ "${#PROFILE[@]}" -eq 0 ] && [ "${VERITY_PY_MATURIN:-0}" != 1 ]; then
  # Debug: the test build's own artifact (after `cargo nextest run --workspace`
  # this rebuilds nothing; `maturin develop` would re-resolve features for the
  # one package and recompile much of the tree), put where `import verity`
  # finds it, the checkout's python/ on the venv's path.
  echo "==> building the extension (cargo build --workspace, debug)"
  cargo build --workspace --lib --bins --tests --examples
  TARGET="$(cargo metadata --format-version 1 --no-deps | python -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  cp -f "$TARGET/debug/lib_verity.so" python/verity/_verity.abi3.so
  SITE="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$ROOT/python" > "$SITE/verity.pth"
else
  echo "==> building the extension (maturin develop ${PROFILE[*]:-debug})"
  (cd python && maturin develop --quiet "${PROFILE[@]}")
fi
[ "$BUILD_ONLY" = 1 ] && exit 0

echo "==> pytest"
(cd python && python -m pytest -q -rs tests)

echo "==> mypy"
(cd python && python -m mypy)

echo "==> notebooks"
# Each notebook is executed; its committed copy must carry the outputs of
# such a run (VERITY_SAVE_NOTEBOOKS=1 writes the fresh outputs back).
python - "$ROOT"/python/notebooks/*.ipynb <<'PYEOF'
import copy, os, sys, time
import nbformat
from nbclient import NotebookClient
save = os.environ.get("VERITY_SAVE_NOTEBOOKS") == "1"
for path in sys.argv[1:]:
    committed = nbformat.read(path, as_version=4)
    nb = copy.deepcopy(committed)
    t = time.time()
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": path.rsplit("/", 1)[0]}}).execute()
    code = [(c, k) for c, k in zip(nb.cells, committed.cells) if c.cell_type == "code"]
    if save:
        for c in nb.cells:
            c.metadata.pop("execution", None)
        nbformat.write(nb, path)
    else:
        missing = [i for i, (run, kept) in enumerate(code) if run.outputs and not kept.outputs]
        if missing:
            sys.exit(f"{path}: code cells {missing} have no saved outputs: run "
                     "VERITY_SAVE_NOTEBOOKS=1 scripts/test-python.sh and commit the notebook")
    print(f"notebook OK: {len(code)} code cells executed in {time.time() - t:.1f}s ({path})")
PYEOF
