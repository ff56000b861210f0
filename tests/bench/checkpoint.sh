#!/usr/bin/env bash
# Checkpoint benchmarks (not part of make test or make bench's default run):
# on a checkpoint with GPT-2 small's shapes and vocabulary (548 MB, random
# weights, made by tests/make_checkpoints.py --gpt2 into build/bench/ the
# first time), times loading from disk natively and in WebAssembly, peak
# memory against the file's size, and one run of both sentences at 3 and at
# 64 tokens natively, in WebAssembly and in the NumPy reference, beside
# NumPy's DGEMM on OpenBLAS with one thread for the same products. Writes
# build/bench-checkpoint.md (and prints it). Needs `make native site`.
#   bash tests/bench/checkpoint.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
REPS=${1:-5}
for f in build/native/bench_checkpoint build/site/poslab.js build/site/poslab-checkpoint.wasm; do
  [ -e "$f" ] || { echo "bench: $f is missing; run 'make native site' first" >&2; exit 1; }
done
DIR=build/bench/checkpoints/gpt2-small
if [ ! -e "$DIR/model.safetensors" ]; then
  echo "bench: writing $DIR (548 MB)" >&2
  /usr/bin/python3 -c "import sys; sys.path.insert(0, 'tests'); import make_checkpoints as m; m.gpt2_small('build/bench/checkpoints')"
fi
# OpenBLAS as run.sh finds it: the system's, or Debian's package unpacked
# into build/bench/openblas (nothing installed)
if [ -z "${POSLAB_OPENBLAS_DIR:-}" ]; then
  POSLAB_OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
  if [ ! -e "$POSLAB_OPENBLAS_DIR/libblas.so.3" ]; then
    local_dir=build/bench/openblas
    if [ ! -e "$local_dir/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3" ]; then
      rm -rf "$local_dir" && mkdir -p "$local_dir"
      (cd "$local_dir" && apt-get download -q libopenblas0-pthread >/dev/null 2>&1) &&
        dpkg -x "$local_dir"/libopenblas0-pthread_*.deb "$local_dir" || echo "bench: no OpenBLAS; NumPy on the system BLAS" >&2
    fi
    POSLAB_OPENBLAS_DIR=$PWD/$local_dir/usr/lib/x86_64-linux-gnu/openblas-pthread
  fi
fi

A3="dog bites man"
B3="man bites dog"
# 64 words, each one GPT-2 token after a space; B is A reversed
WORDS="the cat sat on the mat and the dog ran to a big red house in the small town where the man saw an old tree near the river with green grass under the blue sky every day"
A64=$(echo $WORDS $WORDS | cut -d' ' -f1-64)
B64=$(echo $A64 | tr ' ' '\n' | tac | tr '\n' ' ')
native=$(build/native/bench_checkpoint "$DIR" "$REPS" "$A3" "$B3" "$A64" "$B64")
wasm=$(node tests/bench/checkpoint_wasm.mjs "$DIR" "$REPS" "$A3" "$B3" "$A64" "$B64")
numpy=$(OPENBLAS_NUM_THREADS=1 LD_LIBRARY_PATH="$POSLAB_OPENBLAS_DIR" /usr/bin/python3 tests/bench/checkpoint_numpy.py \
        "$DIR" "$REPS" "$A3" "$B3" "$A64" "$B64")
node tests/bench/checkpoint_report.mjs "$DIR" "$native" "$wasm" "$numpy" | tee build/bench-checkpoint.md
