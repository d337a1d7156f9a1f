#!/usr/bin/env bash
# The main job on the embedded default (SQLite + HNSW + local models, no server):
# fetch the local models, ingest the sample corpus in examples/data, search it
# and ask a question answered only from it, with citations.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/fetch-models.sh
cargo build --release -p verity-ai-cli
verity=target/release/verity
home="${VERITY_HOME:-$(mktemp -d)/verity-demo}"
export VERITY_HOME="$home"

echo "==> verity ingest examples/data   (store: $home)"
"$verity" ingest examples/data || [ $? -eq 7 ]
echo
echo "==> verity search \"how are routing fees computed\""
"$verity" search "how are routing fees computed" -k 3
echo
echo "==> verity ask \"How is the fee of a Lightning forward computed?\""
"$verity" ask "How is the fee of a Lightning forward computed?"
echo
echo "==> verity ask \"What is the boiling point of mercury?\"   (not in the sources)"
"$verity" ask "What is the boiling point of mercury?"
echo
"$verity" stats
