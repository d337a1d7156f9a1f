#!/usr/bin/env bash
# Load benchmark of `verity serve` on loopback (a benchmark, not a test):
# /v1/retrieve lexical and hybrid, /v1/rag extractive, each for a bounded
# time with wrk (Debian package), then RSS before/after >= 100k requests.
#
#   scripts/bench/server.sh                 # release build, SciFact subset
#   BENCH_SECS=20 BENCH_DOCS=2000 BENCH_CONNS=32 scripts/bench/server.sh
#   BENCH_HOME=/path/to/store scripts/bench/server.sh   # reuse an ingested store
#
# Needs: wrk (apt-get install wrk), the SciFact corpus under ../shared/data
# (or VERITY_SCIFACT), the local embedding model for the hybrid row.
set -euo pipefail
cd "$(dirname "$0")/../.."

SECS="${BENCH_SECS:-15}"
DOCS="${BENCH_DOCS:-1000}"
CONNS="${BENCH_CONNS:-32}"
THREADS="${BENCH_THREADS:-2}"
TOTAL="${BENCH_TOTAL:-100000}"
# BENCH_CACHE=false: every request reaches the store (the rows repeat one
# query, which the retrieval cache otherwise answers after the first).
CACHE="${BENCH_CACHE:-true}"
SCIFACT="${VERITY_SCIFACT:-../shared/data/scifact}"
. scripts/bench/common.sh
require_wrk
[ -f "$SCIFACT/corpus.jsonl" ] || { echo "SciFact corpus not found at $SCIFACT" >&2; exit 2; }

# VERITY_BIN: an already built release binary (skips the build).
BIN="$(verity_bin)"

TMP="$(mktemp -d)"
PORT="$(free_port)"
TOKEN="bench-token-0123456789abcdef"
EMBEDDER=auto
# BENCH_HOME: a store already holding the SciFact subset (ingesting with the
# local embedder takes minutes on a loaded machine); it is only read.
if [ -n "${BENCH_HOME:-}" ]; then
  STORE="$BENCH_HOME"
  echo "==> reusing the store at $STORE"
else
  STORE="$TMP/store"
  head -n "$DOCS" "$SCIFACT/corpus.jsonl" > "$TMP/corpus.jsonl"
  echo "==> ingest $DOCS SciFact abstracts ($EMBEDDER embedder)"
  "$BIN" --home "$STORE" --embedder "$EMBEDDER" --quiet ingest "$TMP/corpus.jsonl" >/dev/null
fi

cat > "$TMP/verity.toml" <<TOML
addr = "127.0.0.1:$PORT"
tokens = ["$TOKEN"]
[rate_limit]
enabled = false
[verity]
home = "$STORE"
embedder = "$EMBEDDER"
generator = "extractive"
cache = $CACHE
TOML
RUST_LOG=warn "$BIN" serve --config "$TMP/verity.toml" 2> "$TMP/server.log" &
PID=$!
cleanup() { kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && break
  sleep 0.2
done

lua() { # $1 path, $2 JSON body
  cat <<LUA
wrk.method = "POST"
wrk.path = "$1"
wrk.body = '$2'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
wrk.headers["X-API-Version"] = "2025-10-15"
LUA
}
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$PID/status"; }

run() { # name path body seconds
  lua "$2" "$3" > "$TMP/s.lua"
  # One warm-up request that must succeed.
  curl -sf -X POST "http://127.0.0.1:$PORT$2" -H "Authorization: Bearer $TOKEN" \
    -H 'X-API-Version: 2025-10-15' -H 'Content-Type: application/json' -d "$3" >/dev/null
  echo "==> $1 ($4 s, $CONNS connections, $THREADS threads)"
  wrk -t"$THREADS" -c"$CONNS" -d"$4"s --latency -s "$TMP/s.lua" "http://127.0.0.1:$PORT" | tee "$TMP/$1.txt"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc), cache: $CACHE"
echo "RSS after ingest and start: $(rss)"
run retrieve-lexical /v1/retrieve '{"query":"vitamin D deficiency and bone fractures","k":8,"mode":"lexical"}' "$SECS"
run retrieve-hybrid /v1/retrieve '{"query":"vitamin D deficiency and bone fractures","k":8,"mode":"hybrid"}' "$SECS"
# MCP over streamable HTTP: one session, then `tools/call search` under load.
MCP_HEADERS=(-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
SESSION="$(curl -si -X POST "http://127.0.0.1:$PORT/mcp" "${MCP_HEADERS[@]}" \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}' \
  | awk -F': ' 'tolower($1)=="mcp-session-id" {print $2}' | tr -d '\r')"
curl -sf -X POST "http://127.0.0.1:$PORT/mcp" "${MCP_HEADERS[@]}" -H "Mcp-Session-Id: $SESSION" \
  -H 'MCP-Protocol-Version: 2025-06-18' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
MCP_CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"vitamin D deficiency and bone fractures","k":8,"mode":"lexical"}}}'
# The answer must carry hits before the load starts.
curl -sf -X POST "http://127.0.0.1:$PORT/mcp" "${MCP_HEADERS[@]}" -H "Mcp-Session-Id: $SESSION" \
  -H 'MCP-Protocol-Version: 2025-06-18' -d "$MCP_CALL" | grep -q '"hits"'
{
  lua /mcp "$MCP_CALL"
  echo "wrk.headers[\"Accept\"] = \"application/json, text/event-stream\""
  echo "wrk.headers[\"Mcp-Session-Id\"] = \"$SESSION\""
  echo "wrk.headers[\"MCP-Protocol-Version\"] = \"2025-06-18\""
} > "$TMP/mcp.lua"
echo "==> mcp-tools-call-search ($SECS s, $CONNS connections, $THREADS threads)"
wrk -t"$THREADS" -c"$CONNS" -d"$SECS"s --latency -s "$TMP/mcp.lua" "http://127.0.0.1:$PORT" | tee "$TMP/mcp.txt"

run rag-extractive /v1/rag '{"question":"Does vitamin D deficiency increase fracture risk?","k":8,"mode":"lexical"}' "$SECS"
echo "RSS before the ${TOTAL}-request run: $(rss)"
# Enough time for TOTAL requests at the measured lexical rate (bounded at 10 min).
RATE="$(awk '/Requests\/sec/ {print int($2)}' "$TMP/retrieve-lexical.txt")"
LONG=$(( (TOTAL / (RATE > 0 ? RATE : 1)) + 2 )); [ "$LONG" -gt 600 ] && LONG=600
run memory-lexical /v1/retrieve '{"query":"vitamin D deficiency and bone fractures","k":8,"mode":"lexical"}' "$LONG"
echo "RSS after: $(rss)"
run memory-lexical-2 /v1/retrieve '{"query":"vitamin D deficiency and bone fractures","k":8,"mode":"lexical"}' "$LONG"
echo "RSS after a second run of the same size: $(rss)"
