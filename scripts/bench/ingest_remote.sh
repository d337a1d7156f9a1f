#!/usr/bin/env bash
# SciFact ingest with an OpenAI-compatible embedder that answers at once: what
# Verity's own path (reading, chunking, the OpenAiEmbedder client, the
# embedding cache, SQLite writes, HNSW insertion) costs when embedding is
# someone else's GPU. The embedder is verity-embed's `fake_openai_server`
# example on loopback (hashed word features, one vector per text, answered
# at once), reached through `--embedder openai:fake-embed` and OPENAI_BASE_URL,
# the real client path. Not part of CI.
#
#   scripts/bench/ingest_remote.sh                   # 1,000 and 5,183 abstracts
#   SIZES="1000 2000 5183" REPS=3 scripts/bench/ingest_remote.sh
#   VERITY_BIN=/path/to/verity scripts/bench/ingest_remote.sh   # another build
#   NDCG=1 scripts/bench/ingest_remote.sh            # also `verity eval beir` (train)
#   DELAY_MS=33 scripts/bench/ingest_remote.sh       # a server taking 33 ms a request
#
# Prints per size: wall seconds (median of REPS), vectors stored, vectors/s,
# and a checksum of the stored vectors (same vectors ⇔ same checksum).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/common.sh

DATA=${VERITY_DATA_DIR:-$(cd .. && pwd)/shared/data}
SIZES=${SIZES:-"1000 5183"}
REPS=${REPS:-1}
DELAY_MS=${DELAY_MS:-0}
BIN=$(verity_bin)
cargo build --quiet --release -p verity-embed --example fake_openai_server
TARGET="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
WORK=$(mktemp -d)
FAKE_PID=
cleanup() {
  [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

"$TARGET/release/examples/fake_openai_server" 0 384 "$DELAY_MS" > "$WORK/fake.url" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$WORK/fake.url" ] && break; sleep 0.1; done
URL=$(head -n1 "$WORK/fake.url")
echo "fake embedder at $URL (delay ${DELAY_MS} ms per request); binary $BIN"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

vectors_of() { # home → "vectors checksum"
  python3 - "$1/verity.db" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
h, n = hashlib.sha256(), 0
for uid, idx, v in db.execute(
        "SELECT d.uid, c.idx, c.vector FROM chunks c JOIN documents d ON d.id = c.doc_id "
        "WHERE c.vector IS NOT NULL ORDER BY d.uid, c.idx"):
    h.update(uid.encode()); h.update(str(idx).encode()); h.update(v)
    n += len(v) // (4 * 384)
print(n, h.hexdigest()[:16])
PY
}

for n in $SIZES; do
  head -n "$n" "$DATA/scifact/corpus.jsonl" > "$WORK/corpus-$n.jsonl"
  times=()
  for r in $(seq "$REPS"); do
    home="$WORK/home-$n-$r"
    start=$(date +%s.%N)
    VERITY_HOME="$home" OPENAI_BASE_URL="$URL" OPENAI_API_KEY=unused \
      "$BIN" --quiet --json --embedder openai:fake-embed ingest "$WORK/corpus-$n.jsonl" > "$WORK/out.json"
    end=$(date +%s.%N)
    times+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
    read -r vectors sum < <(vectors_of "$home")
    [ "$r" = "$REPS" ] || rm -rf "$home"
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  rate=$(python3 -c "print(f'{$vectors / $median:.0f}')")
  echo "abstracts=$n  wall=${median}s (runs: ${times[*]})  vectors=$vectors  vectors/s=$rate  checksum=$sum"
  rm -rf "$WORK/home-$n-"*
done

if [ -n "${NDCG:-}" ]; then
  echo "==> nDCG@10, SciFact train, same embedder"
  VERITY_HOME="$WORK/eval" OPENAI_BASE_URL="$URL" OPENAI_API_KEY=unused \
    "$BIN" --quiet --embedder openai:fake-embed eval beir "$DATA/scifact" --split train
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
