#!/usr/bin/env bash
# Attack suite against live `verity serve` instances, all on loopback, every
# family bounded in count (a few minutes in all): cross-site simple requests,
# DNS rebinding, foreign origins, bad credentials, file roots, SSRF URL forms,
# malformed input, bounded work (limits, CPU after a 504), MCP sessions; then
# load with wrk (bounded by duration) and the server's memory before/after.
# Prints tried/refused per family; exit 1 on any finding.
#
#   scripts/test-security.sh            # the whole suite
#   SECURITY_LOAD=0 scripts/test-security.sh   # without the load figures
set -euo pipefail
cd "$(dirname "$0")/.."

# Same selection as the test build (no feature re-unification, no rebuild).
cargo build --quiet --workspace --lib --bins --tests --examples
BIN="${CARGO_TARGET_DIR:-target}/debug/verity"
[ -x "$BIN" ] || BIN="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/verity"

TMP="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A root with notes, a symlink and a symlinked directory leading outside, a FIFO.
mkdir -p "$TMP/root/sub" "$TMP/outside"
printf '# Secret\n\nThe vault combination is swordfish.\n' > "$TMP/outside/secret.md"
printf '# Fees\n\nRouting fees are a base fee plus a fee rate in ppm.\n' > "$TMP/root/notes.md"
ln -s "$TMP/outside/secret.md" "$TMP/root/link.md"
ln -s "$TMP/outside" "$TMP/root/linkdir"
mkfifo "$TMP/root/fifo.md"

TOKEN="security-token-a-$(date +%s)-0123456789"
TOKEN2="security-token-b-$(date +%s)-0123456789"

# open: the documented default (loopback, no token); token: two tokens;
# private: allow_private_* on (metadata addresses must stay refused).
start() { # name, extra TOML
  local name="$1" extra="$2" p
  p="$(port)"
  cat > "$TMP/$name.toml" <<TOML
addr = "127.0.0.1:$p"
roots = ["$TMP/root"]
request_timeout_secs = ${TIMEOUT:-5.0}
$extra
[verity]
home = "$TMP/$name-store"
embedder = "${SECURITY_EMBEDDER:-auto}"
generator = "extractive"
TOML
  "$BIN" serve --config "$TMP/$name.toml" --log-format json 2> "$TMP/$name.log" &
  PIDS+=("$!")
  for _ in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$p/v1/health" >/dev/null 2>&1 && break
    sleep 0.2
  done
  ADDR="127.0.0.1:$p"
  PID="${PIDS[-1]}"
}

start open ''
OPEN="$ADDR" OPEN_PID="$PID"
start token "tokens = [\"$TOKEN\", \"$TOKEN2\"]
[rate_limit]
per_second = 100000
burst = 100000"
TOKENED="$ADDR" TOKEN_PID="$PID"
# A longer timeout: its control verifies a whole page of this server.
TIMEOUT=60.0 start private 'allow_private = true'
PRIVATE="$ADDR"

CFG=$(python3 -c 'import json,sys; a=sys.argv; print(json.dumps({"open":a[1],"token":a[2],"private":a[3],"tokens":[a[4],a[5]],"root":a[6],"outside":a[7],"open_pid":int(a[8]),"token_pid":int(a[9])}))' \
  "$OPEN" "$TOKENED" "$PRIVATE" "$TOKEN" "$TOKEN2" "$TMP/root" "$TMP/outside" "$OPEN_PID" "$TOKEN_PID")
status=0
python3 scripts/security/attack.py "$CFG" || status=$?

if [ "${SECURITY_LOAD:-1}" != 0 ]; then
  if ! command -v wrk >/dev/null 2>&1; then
    echo "wrk missing (Debian: apt-get install wrk): load figures skipped" >&2
  else
    rss() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
    docs=$(python3 -c 'import json; print(json.dumps({"documents":[{"uid":f"d{i}","source":"s","content":f"Routing fees on channel {i} are a base fee plus a fee rate in ppm; rebalancing {i}."} for i in range(100)]}))')
    curl -sf -X POST "http://$TOKENED/v1/ingest" -H "Authorization: Bearer $TOKEN" \
      -H 'X-API-Version: 2025-10-15' -H 'Content-Type: application/json' -d "$docs" >/dev/null
    cat > "$TMP/same.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"query":"routing fees rebalancing"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-API-Version"] = "2025-10-15"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
    cat > "$TMP/distinct.lua" <<LUA
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"query":"routing fees channel %d rebalancing %d"}', n, n * 7)
  return wrk.format("POST", "/v1/retrieve", {["Content-Type"]="application/json",
    ["X-API-Version"]="2025-10-15", ["Authorization"]="Bearer $TOKEN"}, body)
end
LUA
    echo "== load: /v1/retrieve, one query (wrk -t1 -c8 -d${SECURITY_LOAD_SECS:-10}s, client on the same cores)"
    echo "RSS before: $(rss "$TOKEN_PID") MiB"
    wrk -t1 -c8 -d"${SECURITY_LOAD_SECS:-10}s" --latency -s "$TMP/same.lua" "http://$TOKENED/v1/retrieve" \
      | grep -E 'requests in|Non-2xx|Socket errors|Latency|  50%|  99%|Requests/sec'
    echo "RSS after: $(rss "$TOKEN_PID") MiB"
    echo "== load: /v1/retrieve, distinct queries"
    wrk -t1 -c8 -d"${SECURITY_LOAD_SECS:-10}s" --latency -s "$TMP/distinct.lua" "http://$TOKENED/v1/retrieve" \
      | grep -E 'requests in|Non-2xx|Socket errors|Latency|  50%|  99%|Requests/sec'
    echo "RSS after: $(rss "$TOKEN_PID") MiB"
  fi
fi

# No server died during the run.
for p in "${PIDS[@]}"; do
  if ! kill -0 "$p" 2>/dev/null; then
    echo "FINDING: server $p exited during the run" >&2
    status=1
  fi
done
if grep -h '"level":"ERROR"' "$TMP"/*.log | grep -v 'store failure' | grep -q .; then
  echo "server errors logged:" >&2
  grep -h '"level":"ERROR"' "$TMP"/*.log | head -20 >&2
fi
exit "$status"
