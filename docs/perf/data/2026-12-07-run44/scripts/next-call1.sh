#!/usr/bin/env bash
# Run 45's first call: the whole gpu suite on main after run 44 (the scalar bias_act pass, the scratch event's
# chaining, the stronger capture and unaligned tests), then compute-sanitizer memcheck over the suites whose kernels
# changed since run 42's pass over 49 suites (Winograd's split over K and row stores, on by default since run 43; the
# FMA fused pass; the odd-pointer hand-over; batch norm with PIPE on and the TMA stash), racecheck over Winograd, an
# A/B of FREEDNN_BN_CLUSTER_TMA=1 over the 16-bit bn lines, and the ops batch.
# Run: LIMIT=540 OUT=$OUT bash .devrun/run45-call1.sh 2>&1 | tee $OUT/log.txt | tail -60
#   carry .prebuilt (tools/gpu/prebuilt.sh pack), or .deps/cutlass to build on the device (~4 min of device time).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
LIMIT=${LIMIT:-540}
left() { echo $(( LIMIT - $(el) )); }
PB=keep; [ -f .prebuilt/h200.tar.xz ] && PB=1
if [ $PB = 1 ]; then
  PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1; cat .prebuilt/REV
else
  OUT=$OUT/build tools/gpu/h200_check.sh none > /dev/null 2>&1 || { tail -20 $OUT/build/build.txt; pack; exit 1; }
  echo "built here at $(el) s: $(git rev-parse --short HEAD 2>/dev/null)"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && FREEDNN_BACKEND=cuda timeout 220 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -12
echo "suite at $(el) s"
FREEDNN_BACKEND=cuda SUITES="ConvGpuWinograd|ConvGpuFft|ConvCutlassSimt|ConvGpuUnaligned|BatchNorm" \
  BUDGET=$(( $(left) - 200 )) OUT=$OUT/mem timeout $(( $(left) - 190 )) tools/gpu/sanitize.sh memcheck > $OUT/mem_log.txt 2>&1
echo "memcheck rc=$?"; tail -8 $OUT/mem_log.txt
echo "memcheck at $(el) s"
FREEDNN_BACKEND=cuda SUITES="ConvGpuWinograd" BUDGET=$(( $(left) - 110 > 90 ? 90 : $(left) - 110 )) \
  OUT=$OUT/race timeout $(( $(left) - 100 )) tools/gpu/sanitize.sh racecheck > $OUT/race_log.txt 2>&1
echo "racecheck rc=$?"; tail -4 $OUT/race_log.txt
: > /tmp/bn.txt
for d in train bwd; do for l in 64x2048x7x7 64x1024x14x14; do echo "bn $d mode=spatial x=f32:$l" >> /tmp/bn.txt; done; done
if [ $(left) -gt 190 ]; then  # the TMA stash (written after run 44) against the cp.async one
  # both forms: the cluster form's 32-64-byte row boxes are a weak shape for TMA (helper review)
  REPS=3 MAX_MS=10 OUT=$OUT/ab_tma timeout 110 tools/gpu/ab.sh /tmp/bn.txt "" "FREEDNN_BN_CLUSTER_TMA=1" \
    "FREEDNN_BN_CLUSTER_GRID=1" "FREEDNN_BN_CLUSTER_GRID=1 FREEDNN_BN_CLUSTER_TMA=1" \
    -- --dt=f16 --layout=nhwc > /dev/null 2>&1
  echo "ab tma rc=$?"; grep -v "^#" $OUT/ab_tma/ab.txt | tail -9
fi
if [ $(left) -gt 70 ]; then
  PREBUILT=$PB MAX_MS=40 OUT=$OUT/ops timeout $(left) tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
  rm -f $OUT/ops/gpu-results.tgz
  python3 tools/ops_bars.py $OUT/ops/ops_f32_nchw.json $OUT/ops/ops_f16_nhwc.json $OUT/ops/ops_bf16_nhwc.json 2>&1 | grep -E "^==|PASS|FAIL" | tail -5
fi
echo "done at $(el) s"
pack
