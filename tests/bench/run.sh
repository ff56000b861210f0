#!/usr/bin/env bash
# `make bench` (after `make native site`): times the native core, the
# WebAssembly core, NumPy and plain JavaScript on the same workloads and
# writes docs/benchmarks.md. How long it takes: tests/bench/README.md.
#
# NumPy is timed twice when OpenBLAS can be had: as Debian installs it (on the
# reference BLAS, unless the machine has switched libblas.so.3 to OpenBLAS)
# and on OpenBLAS, which is what a pip-installed NumPy brings. OpenBLAS is
# taken from the system if installed, else unpacked from Debian's
# libopenblas0-pthread into build/bench/ (apt-get download: nothing is
# installed, the machine's BLAS is left alone). Set POSLAB_OPENBLAS_DIR to a
# folder holding OpenBLAS's libblas.so.3 to use another, or to "none" to skip.
set -euo pipefail
cd "$(dirname "$0")/../.."

for f in build/native/bench_core build/native/poslab build/site/poslab.js build/site/poslab.wasm; do
  [ -e "$f" ] || { echo "bench: $f is missing; run 'make native site' first" >&2; exit 1; }
done

if [ -z "${POSLAB_OPENBLAS_DIR:-}" ]; then
  system=/usr/lib/x86_64-linux-gnu/openblas-pthread
  local_dir=build/bench/openblas
  if [ -e "$system/libblas.so.3" ]; then
    POSLAB_OPENBLAS_DIR=$system
  else
    if [ ! -e "$local_dir/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3" ]; then
      echo "bench: fetching Debian's libopenblas0-pthread into $local_dir (not installed)" >&2
      rm -rf "$local_dir" && mkdir -p "$local_dir"
      if (cd "$local_dir" && apt-get download -q libopenblas0-pthread >/dev/null 2>&1) &&
         dpkg -x "$local_dir"/libopenblas0-pthread_*.deb "$local_dir"; then :; else
        echo "bench: could not fetch OpenBLAS; NumPy runs on the system BLAS only" >&2
      fi
    fi
    POSLAB_OPENBLAS_DIR=$PWD/$local_dir/usr/lib/x86_64-linux-gnu/openblas-pthread
  fi
fi
export POSLAB_OPENBLAS_DIR

exec node tests/bench/run.mjs "$@"
