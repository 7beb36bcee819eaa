#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# A GPU call that builds spends ~4 of the session's 30 device minutes on a cold machine. This builds the CUDA
# targets here instead (sm_90a, build/h200, ccache; ~30 minutes on 2 cores the first time, seconds after a small
# change) and packs what a run needs (~17 MB: the library, the test and bench binaries, ctest's files) into
# .prebuilt/h200.tar.xz, with the commit in .prebuilt/REV. On the GPU machine, carry .prebuilt and run with
# PREBUILT=1 tools/gpu/h200_check.sh ..., which unpacks it into build/h200 instead of building (same absolute
# paths: both checkouts are /work/main).
# Reference libraries for an A/B in one call: `keep NAME` saves the library just built as build/refs/NAME; `pack`
# adds every kept one as build/h200/src/ref_NAME/libcudnn.so.8.2.0 (run freednn-bench --lib=that path). The
# archive is compressed with a 192 MiB window, so a kept library costs ~1 MB where it differs little from the new
# one. The carry limit (64 MiB) counts the working tree too, with per-file overhead (~25 MiB after run 32, when the
# older runs' raw data became one archive each): keep the archive under ~20 MB.
# `trace NAME` keeps a library whose bn_cluster prints per-block phase stamps (-DFREEDNN_BN_CLUSTER_TRACE=ON; read
# them with tools/gpu/bn_trace_summary.py) and rebuilds the normal one.
# Usage: tools/gpu/prebuilt.sh pack | unpack | keep NAME | drop NAME | trace NAME
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/h200
# the commit, marked when the library's sources differ from it
source_rev() {
  local rev
  rev="$(git rev-parse --short HEAD)"
  git diff --quiet HEAD -- src include || rev="$rev+uncommitted"
  echo "$rev"
}
case "${1:-}" in
  pack)
    cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
      -DFREEDNN_BN_CLUSTER_TRACE=OFF > /dev/null
    cmake --build $build -j"$(nproc)" --target cudnn freednn_tests freednn-bench lenet_train
    mkdir -p .prebuilt
    refs=()
    rm -rf $build/src/ref_*
    for d in build/refs/*/; do
      [ -f "$d/libcudnn.so.8.2.0" ] || continue
      name=$(basename "$d")
      mkdir -p "$build/src/ref_$name" && cp "$d/libcudnn.so.8.2.0" "$build/src/ref_$name/"
      refs+=("src/ref_$name/libcudnn.so.8.2.0")
    done
    (cd $build && tar cf - src/libcudnn.so src/libcudnn.so.8 src/libcudnn.so.8.2.0 "${refs[@]}" \
      tests/freednn_tests tools/bench/freednn-bench examples/lenet_train tests/*.cmake \
      $(find . -name CTestTestfile.cmake) | xz -T2 --lzma2=preset=6,dict=192MiB > ../../.prebuilt/h200.tar.xz)
    echo "$(source_rev)${refs[*]:+ (refs: ${refs[*]})}" > .prebuilt/REV
    ls -la .prebuilt/h200.tar.xz && cat .prebuilt/REV
    # the tree as an archive would hold it: tracked and untracked-not-ignored files, each rounded up to 512 bytes
    # plus a 512-byte header (run 32: a tree of 62.0 MiB of file bytes in ~2800 files was refused as over 64 MiB)
    tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null |
      awk '{s += int(($1 + 511) / 512) * 512 + 512} END {print s}')
    total=$(( tree + $(stat -c %s .prebuilt/h200.tar.xz) ))
    echo "carry: working tree $(( tree >> 20 )) MiB + archive = $(( total >> 20 )) MiB of the 64 MiB limit"
    [ $total -lt $(( 62 << 20 )) ] || echo "warning: too close to the carry limit: drop a kept reference" >&2
    ;;
  unpack)
    mkdir -p $build && tar xJf .prebuilt/h200.tar.xz -C $build
    ;;
  keep)
    name="${2:?a name}"
    mkdir -p "build/refs/$name" && cp "$build/src/libcudnn.so.8.2.0" "build/refs/$name/"
    # the library is the last pack's build: its commit is .prebuilt/REV's, not the source tree's (changed since)
    { cut -d' ' -f1 .prebuilt/REV 2>/dev/null || source_rev; } > "build/refs/$name/REV" && echo "kept $build's library as build/refs/$name ($(cat "build/refs/$name/REV"))"
    ;;
  drop)
    rm -rf "build/refs/${2:?a name}"
    ;;
  trace)
    name="${2:?a name}"
    cmake -S . -B $build -G Ninja -DFREEDNN_BN_CLUSTER_TRACE=ON > /dev/null
    cmake --build $build -j"$(nproc)" --target cudnn
    mkdir -p "build/refs/$name" && cp "$build/src/libcudnn.so.8.2.0" "build/refs/$name/"
    echo "$(source_rev) with -DFREEDNN_BN_CLUSTER_TRACE" > "build/refs/$name/REV"
    cmake -S . -B $build -G Ninja -DFREEDNN_BN_CLUSTER_TRACE=OFF > /dev/null
    cmake --build $build -j"$(nproc)" --target cudnn
    echo "kept a phase-stamping library as build/refs/$name"
    ;;
  *) sed -n 4,16p "$0"; exit 2 ;;
esac
