#!/usr/bin/env bash
# llama.cpp vs Verity's local generator, same GGUF, same prompt lengths, 1 and 2
# threads (docs/benchmarks.d/generate.md). Not part of CI.
#
# 1. llama.cpp's sources come from PyPI: the llama-cpp-python sdist vendors them
#    (LLAMA_CPP_PYTHON=0.3.36 by default). Built with CMake, native CPU detection
#    off, AVX2/FMA/F16C/BMI2 on — the same options .cargo/config.toml gives the
#    llama-cpp-sys-2 build Verity links — into ~/.cache/verity/llama/.
# 2. llama-bench: pp$PROMPT and tg$GEN, threads 1 and 2, $REPS repetitions.
# 3. Verity: the gen_speed example (release) on both engines, same lengths.
#
#   scripts/bench/llama_cpp.sh                 # everything
#   PROMPT=405 GEN=64 REPS=5 scripts/bench/llama_cpp.sh
#   SKIP_VERITY=1 scripts/bench/llama_cpp.sh   # llama.cpp only
#
# Needs cmake and a C++ compiler (apt-get install cmake g++) and pip.
set -euo pipefail
cd "$(dirname "$0")/../.."

MODEL=${MODEL:-$HOME/.cache/verity/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf}
WORK=${LLAMA_BENCH_DIR:-$HOME/.cache/verity/llama}
VERSION=${LLAMA_CPP_PYTHON:-0.3.36}
PROMPT=${PROMPT:-405}
GEN=${GEN:-64}
REPS=${REPS:-5}

[ -f "$MODEL" ] || { echo "model not found: $MODEL (scripts/fetch-models.sh)" >&2; exit 2; }
command -v cmake >/dev/null || { echo "cmake not found: apt-get install cmake" >&2; exit 2; }

SRC="$WORK/sdist/llama_cpp_python-$VERSION/vendor/llama.cpp"
if [ ! -f "$SRC/CMakeLists.txt" ]; then
  echo "==> llama.cpp sources (llama-cpp-python $VERSION sdist from PyPI)"
  mkdir -p "$WORK/sdist"
  pip download --quiet --no-deps --no-binary :all: -d "$WORK/sdist" "llama-cpp-python==$VERSION"
  tar -xzf "$WORK/sdist/llama_cpp_python-$VERSION.tar.gz" -C "$WORK/sdist"
fi

BUILD="$WORK/build-avx2"
if [ ! -x "$BUILD/bin/llama-bench" ]; then
  echo "==> building llama-bench (GGML_NATIVE=OFF, AVX2/FMA/F16C/BMI2 on)"
  cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
    -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" --target llama-bench >/dev/null
fi

echo "==> load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "==> llama.cpp (llama-bench), pp$PROMPT / tg$GEN, threads 1,2, $REPS repetitions"
"$BUILD/bin/llama-bench" -m "$MODEL" -p "$PROMPT" -n "$GEN" -t 1,2 -r "$REPS" -o md

if [ -z "${SKIP_VERITY:-}" ]; then
  echo "==> Verity (gen_speed example, release), same lengths"
  cargo build --quiet --release -p verity-llm --features llama-cpp --example gen_speed
  TARGET="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  for t in 1 2; do
    # candle sizes its thread pool once per process: one process per thread count.
    RAYON_NUM_THREADS=$t ENGINES=llama.cpp,candle THREADS=$t REPS="$REPS" PROMPT="$PROMPT" GEN="$GEN" \
      "$TARGET/release/examples/gen_speed"
  done
fi
echo "==> load average: $(cut -d' ' -f1-3 /proc/loadavg)"
