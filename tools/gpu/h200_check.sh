#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# One batched run on a GPU machine: build with CUDA, run the gpu-labelled tests, and time the ops batch side by
# side with NVIDIA's cuDNN 9 (found in PyTorch's Python packages). Results go to $OUT (or ./gpu-out).
# Usage: tools/gpu/h200_check.sh [tests|bench|conv|ab|profile|diagnose|torchk|sanitize|all]...  (several modes may
# be given; conv, ab, profile, diagnose, torchk and sanitize only when named; torchk: tools/gpu/torch_kernels.sh and
# kernel_times.sh DETAIL=1 over TORCHK_BATCH (default tools/bench/batches/profile_run15.txt), f16 NHWC; ab: tools/gpu/ab_pending.sh; diagnose: ncu's
# sections for the cases of tools/bench/batches/profile_run11.txt). conv writes Find logs (findlog_*.txt) for tools/calibrate_conv.py;
# profile writes per-kernel times (tools/gpu/kernel_times.sh); everything is also archived in gpu-results.tgz.
# Environment: PREBUILT=1 (unpack .prebuilt/h200.tar.xz from tools/gpu/prebuilt.sh instead of building) or keep (the
# build tree an earlier call on the same warm machine left), ARCH (CUDA
# architectures, default "90a"), CONFIGS (bench dtype:layout list, default
# "f32:nchw f16:nhwc bf16:nhwc"), MAX_MS (timing budget per case and library, default 150),
# BATCH (default tools/bench/batches/ops_resnet50.txt); for the conv mode CONV_CONFIGS (dtype:layout:math list,
# default "f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:default f32:nchw:fma"), CONV_BATCH (default
# tools/bench/batches/resnet50.txt), CONV_ALGO (default any: Find; v7 times the heuristic's first choice), TORCH=0 (TORCH_TIMEOUT: seconds per config, 120)
# to skip PyTorch; for sanitize SANITIZE_BUDGET / RACE_BUDGET (seconds)
# and RACE_SUITES (see tools/gpu/sanitize.sh).
set -uo pipefail
modes=" ${*:-all} "
has() { [[ "$modes" == *" $1 "* || "$modes" == *" all "* ]]; }
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
nv=$(python3 -c 'import nvidia.cudnn as m;print(list(m.__path__)[0]+"/lib")' 2>/dev/null)
[ -e "$nv/libcudnn.so.9" ] || nv=$(dirname "$(ls /usr/lib/x86_64-linux-gnu/libcudnn.so.9 2>/dev/null || echo /x/y)")
for d in "$nv"/../../*/lib; do export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee "$out/gpu.txt"
build=build/h200
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64:/usr/local/cuda/lib"
if [ "${PREBUILT:-0}" = 1 ]; then  # binaries built and packed by tools/gpu/prebuilt.sh, carried in .prebuilt
  tools/gpu/prebuilt.sh unpack || exit 1
elif [ "${PREBUILT:-0}" = keep ]; then  # the build tree an earlier call on this (warm) machine left
  [ -x $build/tests/freednn_tests ] || { echo "PREBUILT=keep: no build tree in $build" >&2; exit 1; }
else
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90a}" \
    > "$out/configure.txt" 2>&1 || { tail -30 "$out/configure.txt"; exit 1; }
  cmake --build $build -j"$(nproc)" --target cudnn freednn_tests freednn-bench lenet_train > "$out/build.txt" 2>&1 ||
    { grep -E "error" -A3 "$out/build.txt" | head -60; exit 1; }
fi
if has tests; then
  (cd $build && timeout "${TESTS_TIMEOUT:-240}" ctest -L gpu -j"$(nproc)" --timeout 90 --output-on-failure > "$out/gpu_ctest.txt" 2>&1)
  grep -E "tests passed|\*\*\*|Failed|Not Run" "$out/gpu_ctest.txt" | head -60
fi
if has bench; then
  for cfg in ${CONFIGS:-f32:nchw f16:nhwc bf16:nhwc}; do
    dt=${cfg%%:*}; layout=${cfg##*:}
    timeout 150 $build/tools/bench/freednn-bench --mode=P --dt="$dt" --layout="$layout" --max-ms="${MAX_MS:-150}" \
      --vs="$nv/libcudnn.so.9" --batch="${BATCH:-tools/bench/batches/ops_resnet50.txt}" \
      --json="$out/ops_${dt}_$layout.json" > "$out/ops_${dt}_$layout.txt" 2>&1
    grep -E "^tests:" "$out/ops_${dt}_$layout.txt"
  done
fi
if [[ "$modes" == *" conv "* ]]; then
  # Convolutions: both libraries choose with Find (--algo=any), same math type; then PyTorch (cudnn.benchmark).
  for cfg in ${CONV_CONFIGS:-f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:default f32:nchw:fma}; do
    IFS=: read -r dt layout math <<< "$cfg"; tag=${dt}_${layout}_${math}${CONV_ALGO:+_$CONV_ALGO}
    FREEDNN_FIND_LOG="$out/findlog_$tag.txt" \
      timeout "${CONV_TIMEOUT:-200}" $build/tools/bench/freednn-bench --mode=P --algo="${CONV_ALGO:-any}" --dt="$dt" --layout="$layout" \
      --math="$math" --max-ms="${MAX_MS:-20}" --vs="$nv/libcudnn.so.9" --batch="${CONV_BATCH:-tools/bench/batches/resnet50.txt}" \
      --json="$out/conv_$tag.json" > "$out/conv_$tag.txt" 2>&1
    echo "conv $tag rc=$?"; grep -E "^tests:" "$out/conv_$tag.txt"
    if [ "${TORCH:-1}" = 1 ]; then
      timeout "${TORCH_TIMEOUT:-120}" python3 tools/bench_torch.py --batch="${CONV_BATCH:-tools/bench/batches/resnet50.txt}" --dt="$dt" \
        --layout="$layout" --math="$math" --max-ms="${MAX_MS:-20}" --json="$out/torch_$tag.json" > "$out/torch_$tag.txt" 2>&1
      echo "torch $tag rc=$?"
    fi
  done
fi
if [[ "$modes" == *" ab "* ]]; then
  # Every A/B comparison still to be timed (tools/gpu/ab_pending.txt).
  BENCH=$build/tools/bench/freednn-bench OUT="$out/ab" timeout "${AB_TOTAL_TIMEOUT:-400}" tools/gpu/ab_pending.sh
fi
if [[ "$modes" == *" profile "* ]]; then
  # Per-kernel times (ncu) of the slow cases, f16 NHWC and f32 NCHW.
  for cfg in f16:nhwc f32:nchw; do
    BENCH=$build/tools/bench/freednn-bench COUNT=8 timeout 120 tools/gpu/kernel_times.sh \
      tools/bench/batches/profile_slow.txt --dt="${cfg%%:*}" --layout="${cfg##*:}" > "$out/kernels_${cfg/:/_}.txt" 2>&1
  done
fi
if [[ "$modes" == *" diagnose "* ]]; then
  # Why the slowest cases are slow: ncu's speed-of-light, memory, occupancy and stall sections per kernel.
  BENCH=$build/tools/bench/freednn-bench COUNT=6 DETAIL=1 timeout "${DIAGNOSE_TIMEOUT:-240}" tools/gpu/kernel_times.sh \
    "${DIAGNOSE_BATCH:-tools/bench/batches/profile_run11.txt}" > "$out/diagnose.txt" 2>&1
  echo "diagnose: $(grep -c '^==' "$out/diagnose.txt") cases"
fi
if [[ "$modes" == *" torchk "* ]]; then
  # Which engines NVIDIA's best path (PyTorch, cudnn.benchmark) runs for the cases below the bars, under ncu.
  DETAIL="${TORCHK_DETAIL:-1}" timeout "${TORCHK_TIMEOUT:-150}" tools/gpu/torch_kernels.sh \
    "${TORCHK_BATCH:-tools/bench/batches/profile_run15.txt}" --dt=f16 --layout=nhwc > "$out/torch_kernels.txt" 2>&1
  echo "torchk: $(grep -c 'prof' "$out/torch_kernels.txt") profiled lines"
  BENCH=$build/tools/bench/freednn-bench COUNT=6 DETAIL=1 timeout "${TORCHK_TIMEOUT:-150}" tools/gpu/kernel_times.sh \
    "${TORCHK_BATCH:-tools/bench/batches/profile_run15.txt}" --dt=f16 --layout=nhwc --algo=v7 > "$out/ours_kernels.txt" 2>&1
fi
if [[ "$modes" == *" sanitize "* ]]; then
  # compute-sanitizer suite by suite (tools/gpu/sanitize.sh: per-suite logs and a summary; suites already in the
  # summary are skipped, so repeated calls with the same OUT cover the whole suite): memcheck everywhere, racecheck
  # over the families whose kernels share memory between threads.
  OUT="$out" TESTS=$build/tests/freednn_tests BUDGET="${SANITIZE_BUDGET:-300}" tools/gpu/sanitize.sh memcheck
  OUT="$out" TESTS=$build/tests/freednn_tests BUDGET="${RACE_BUDGET:-150}" \
    SUITES="${RACE_SUITES:-Softmax|Pool|BatchNorm|Reduce|ConvGpuDepthwise}" tools/gpu/sanitize.sh racecheck
fi
# Only a few files come back from a lent machine: everything also goes into one archive.
(cd "$out" && tar czf ../gpu-results.tgz . && mv ../gpu-results.tgz .) 2>/dev/null || true
