#!/usr/bin/env bash
# End-to-end latency of the event memory over REST (`GET /v1/search/`, seed
# 004) on loopback — a benchmark, not a test. The store-side figures of the
# same searches come from `cargo bench -p verity-benches --bench memory`;
# this script runs that bench with MEMORY_BENCH_HOME so that the 50k-event
# store and its queries stay on disk, serves that home with `verity serve`,
# and replays each search case with wrk:
#
#   * one connection (a client waiting for each answer): p50 / p95 / p99;
#   * BENCH_CONNS connections (default 16): requests/s.
#
# Cases: the bench's vector, vector + metadata + time and metadata + time
# searches with the query vector sent as JSON (query embedding excluded, as
# in the store figures), the vector + metadata + time search with the claim
# text (the server embeds it), and hybrid with the claim text.
#
#   scripts/bench/memory_rest.sh
#   BENCH_SECS=10 VERITY_BIN=target/release/verity MEMORY_BENCH_BIN=… scripts/bench/memory_rest.sh
#
# Needs: wrk (apt-get install wrk), SciFact under ../shared/data (or
# VERITY_DATA_DIR), the local embedding model (scripts/fetch-models.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

SECS="${BENCH_SECS:-10}"
CONNS="${BENCH_CONNS:-16}"
export VERITY_DATA_DIR="${VERITY_DATA_DIR:-$(cd .. && pwd)/shared/data}"
. scripts/bench/common.sh
require_wrk
[ -f "$VERITY_DATA_DIR/scifact/corpus.jsonl" ] || { echo "SciFact not found under $VERITY_DATA_DIR" >&2; exit 2; }

# VERITY_BIN: an already built release binary (skips the build).
BIN="$(verity_bin)"

TMP="$(mktemp -d)"
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

echo "==> store-side bench, 50k events kept in $TMP/home"
# MEMORY_BENCH_BIN: an already built bench binary (`cargo bench --no-run` prints its path).
if [ -n "${MEMORY_BENCH_BIN:-}" ]; then
  MEMORY_BENCH_HOME="$TMP/home" "$MEMORY_BENCH_BIN" --bench
else
  MEMORY_BENCH_HOME="$TMP/home" cargo bench --quiet -p verity-benches --bench memory
fi

PORT="$(free_port)"
TOKEN="bench-token-0123456789abcdef"
cat > "$TMP/verity.toml" <<TOML
addr = "127.0.0.1:$PORT"
tokens = ["$TOKEN"]
[rate_limit]
enabled = false
[verity]
home = "$TMP/home"
embedder = "auto"
generator = "extractive"
TOML
RUST_LOG=warn "$BIN" serve --config "$TMP/verity.toml" 2> "$TMP/server.log" &
PID=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && break
  sleep 0.2
done

# One file of request paths per case (URL-encoded query strings).
python3 - "$TMP/home/bench-queries.jsonl" "$TMP" <<'PY'
import json, sys, urllib.parse
src, out = sys.argv[1], sys.argv[2]
cases = {}
for line in open(src):
    q = json.loads(line)
    cases.setdefault(q["case"], []).append(q)
def write(name, rows, text=False, mode=None):
    with open(f"{out}/{name}.paths", "w") as f:
        for q in rows:
            p = dict(q["params"])
            if text:
                p["vector_query"] = q["text"]
            if mode:
                p["mode"] = mode
            f.write("/v1/search/?" + urllib.parse.urlencode(p) + "\n")
names = list(cases)
write("vector", cases[names[0]])
write("vector_meta_time", cases[names[1]])
write("meta_time", cases[names[2]])
write("vector_meta_time_text", cases[names[1]], text=True)
write("hybrid_text", cases[names[3]], text=True, mode="hybrid")
PY

cat > "$TMP/rotate.lua" <<LUA
local paths = {}
for line in io.lines(os.getenv("PATHS_FILE")) do paths[#paths + 1] = line end
local i = 0
local headers = { ["Authorization"] = "Bearer $TOKEN" }
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], headers)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests %d  req/s %.0f  p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  non-2xx %d  socket errors %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
LUA

for c in vector vector_meta_time meta_time vector_meta_time_text hybrid_text; do
  first="$(head -n 1 "$TMP/$c.paths")"
  code="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT$first")"
  [ "$code" = 200 ] || { echo "warm-up request of $c answered $code" >&2; tail -n 20 "$TMP/server.log" >&2; exit 1; }
  echo "==> $c, 1 connection, $SECS s"
  PATHS_FILE="$TMP/$c.paths" wrk -t1 -c1 -d"${SECS}s" -s "$TMP/rotate.lua" "http://127.0.0.1:$PORT" | grep RESULT
  echo "==> $c, $CONNS connections, $SECS s"
  PATHS_FILE="$TMP/$c.paths" wrk -t2 -c"$CONNS" -d"${SECS}s" -s "$TMP/rotate.lua" "http://127.0.0.1:$PORT" | grep RESULT
done
