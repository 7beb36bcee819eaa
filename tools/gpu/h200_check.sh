#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# One batched run on a GPU machine: build with CUDA, run the gpu-labelled tests, and time the ops batch side by
# side with NVIDIA's cuDNN 9 (found in PyTorch's Python packages). Results go to $OUT (or ./gpu-out).
# Usage: tools/gpu/h200_check.sh [tests|bench|all] [extra bench args]
set -uo pipefail
what=${1:-all}; shift || true
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
nv=$(python3 -c 'import nvidia.cudnn as m;print(list(m.__path__)[0]+"/lib")' 2>/dev/null)
[ -e "$nv/libcudnn.so.9" ] || nv=$(dirname "$(ls /usr/lib/x86_64-linux-gnu/libcudnn.so.9 2>/dev/null || echo /x/y)")
for d in "$nv"/../../*/lib; do export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee "$out/gpu.txt"
cmake --preset default > "$out/configure.txt" 2>&1 || { tail -30 "$out/configure.txt"; exit 1; }
cmake --build --preset default -j"$(nproc)" > "$out/build.txt" 2>&1 || { grep -E "error" -A3 "$out/build.txt" | head -60; exit 1; }
B=build/default/tools/bench/freednn-bench
if [ "$what" = tests ] || [ "$what" = all ]; then
  (cd build/default && timeout 400 ctest -L gpu -j8 --timeout 120 > "$out/gpu_ctest.txt" 2>&1)
  grep -E "tests passed|\*\*\*|Failed|Not Run" "$out/gpu_ctest.txt" | head -60
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  for cfg in "f32 nchw" "f16 nhwc" "bf16 nhwc"; do
    read -r dt layout <<< "$cfg"
    timeout 200 $B --mode=P --dt="$dt" --layout="$layout" --max-ms=150 --vs="$nv/libcudnn.so.9" \
      --batch=tools/bench/batches/ops_resnet50.txt --json="$out/ops_${dt}_$layout.json" "$@" \
      > "$out/ops_${dt}_$layout.txt" 2>&1
    tail -3 "$out/ops_${dt}_$layout.txt"
  done
fi
