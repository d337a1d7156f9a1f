# Helpers shared by the loopback benchmarks (sourced by server.sh and
# memory_rest.sh, not run on its own).

# wrk (Debian package) must be installed.
require_wrk() {
  command -v wrk >/dev/null || { echo "wrk not found: apt-get install wrk" >&2; exit 2; }
}

# Path of the release `verity` binary: VERITY_BIN when set (no build),
# otherwise built now in the workspace's target directory.
verity_bin() {
  if [ -n "${VERITY_BIN:-}" ]; then
    echo "$VERITY_BIN"
    return
  fi
  cargo build --quiet --release -p verity-ai-cli --bin verity >&2 || exit 1
  local target
  target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  echo "$target/release/verity"
}

# A free TCP port on loopback.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
