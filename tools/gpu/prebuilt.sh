#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# A GPU call that builds spends ~4 of the session's 30 device minutes on a cold machine. This builds the CUDA
# targets here instead (sm_90a, build/h200, ccache; ~30 minutes on 2 cores the first time, seconds after a small
# change) and packs what a run needs (~16 MB: the library, the test and bench binaries, ctest's files) into
# .prebuilt/h200.tar.xz. On the GPU machine, carry .prebuilt and run with PREBUILT=1 tools/gpu/h200_check.sh ...,
# which unpacks it into build/h200 instead of building (same absolute paths: both checkouts are /work/main).
# Usage: tools/gpu/prebuilt.sh pack | unpack
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/h200
case "${1:-}" in
  pack)
    cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > /dev/null
    cmake --build $build -j"$(nproc)" --target cudnn freednn_tests freednn-bench lenet_train
    mkdir -p .prebuilt
    (cd $build && tar cJf ../../.prebuilt/h200.tar.xz src/libcudnn.so src/libcudnn.so.8 src/libcudnn.so.8.2.0 \
      tests/freednn_tests tools/bench/freednn-bench examples/lenet_train tests/*.cmake \
      $(find . -name CTestTestfile.cmake))
    ls -la .prebuilt/h200.tar.xz
    ;;
  unpack)
    mkdir -p $build && tar xJf .prebuilt/h200.tar.xz -C $build
    ;;
  *) sed -n 4,10p "$0"; exit 2 ;;
esac
