#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Builds fuzz/descriptor_fuzzer with clang (libFuzzer + ASan + UBSan, library included) in build/fuzz and runs
# it for N seconds (default 60) on a copy of the seed corpus fuzz/corpus/. Crash inputs land in
# build/fuzz/artifacts/; replay one with: build/fuzz/fuzz/descriptor_fuzzer <file>
# Usage: tools/run_fuzzer.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
build="$repo/build/fuzz"
jobs=${FREEDNN_FUZZ_BUILD_JOBS:-2}

CC=clang CXX=clang++ CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo} cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFREEDNN_BUILD_FUZZERS=ON -DFREEDNN_BUILD_TESTS=OFF \
  -DFREEDNN_ENABLE_CUDA=OFF > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo} cmake --build "$build" -j"$jobs" --target descriptor_fuzzer

corpus="$build/corpus"
mkdir -p "$corpus" "$build/artifacts"
cp -n "$repo"/fuzz/corpus/* "$corpus"/ 2>/dev/null || true
export FREEDNN_BACKEND=cpu OMP_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$build/fuzz/descriptor_fuzzer" -max_total_time="$seconds" -max_len=512 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$@" "$corpus"
