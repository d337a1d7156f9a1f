#!/usr/bin/env bash
# schemathesis (all checks) against a live `verity serve` on a free loopback
# port with a temporary store. Installs schemathesis in its own venv under
# ~/.cache/verity/venv-schemathesis. Exit status: schemathesis's.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${VERITY_SCHEMATHESIS_VENV:-$HOME/.cache/verity/venv-schemathesis}"
if [ ! -x "$VENV/bin/schemathesis" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet "schemathesis>=4,<5"
fi

# Same selection as the test build (no feature re-unification, no rebuild).
cargo build --quiet --workspace --lib --bins --tests --examples
BIN="${CARGO_TARGET_DIR:-target}/debug/verity"
[ -x "$BIN" ] || BIN="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/verity"

TMP="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
TOKEN="schemathesis-token-$(date +%s)-0123456789"
cat > "$TMP/verity.toml" <<TOML
addr = "127.0.0.1:$PORT"
tokens = ["$TOKEN"]
sync_ingest_max = 20
[rate_limit]
per_second = 100000
burst = 100000
[verity]
home = "$TMP/store"
embedder = "auto"
generator = "extractive"
TOML

"$BIN" serve --config "$TMP/verity.toml" --log-format json 2> "$TMP/server.log" &
PID=$!
cleanup() { kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && break
  sleep 0.2
done
# Some documents so that retrieval and answers have something to find.
curl -sf -X POST "http://127.0.0.1:$PORT/v1/ingest" \
  -H "Authorization: Bearer $TOKEN" -H 'X-API-Version: 2025-10-15' -H 'Content-Type: application/json' \
  -d '{"documents":[{"uid":"seed-1","source":"amboss","content":"Routing fees are a base fee plus a fee rate in ppm."},{"uid":"seed-2","source":"lnbits","content":"Channels are rebalanced when drained."}]}' >/dev/null

# Every check runs: `not_a_server_error`, the response-schema checks, and
# positive/negative data acceptance (the server reads bodies against the
# schemas it publishes; see crates/verity-server/src/conform.rs). Semantic
# refusals of schema-valid bodies are 400, never 422 (scripts/schemathesis.toml).
"$VENV/bin/schemathesis" --config-file scripts/schemathesis.toml \
  run "http://127.0.0.1:$PORT/v1/openapi.json" \
  --checks all \
  --header "Authorization: Bearer $TOKEN" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --phases examples,coverage,fuzzing \
  --suppress-health-check all \
  --request-timeout 30 \
  "$@"
