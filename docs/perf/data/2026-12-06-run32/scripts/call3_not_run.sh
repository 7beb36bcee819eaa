#!/usr/bin/env bash
# Run 32 call 3: wgrad1x1_tf32 on two warpgroups along k where K > 128 (x rows read from L2 half as often); its
# tests and memcheck, an A/B of two warpgroups / one (FREEDNN_WGRAD1X1_WM=1) / the slot GEMMs, then the 1x1
# backward filters against NVIDIA (Find against Find; their times replace call 2's table rows in tools/best_of.py).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 100 ctest -L gpu -R 'ConvGpuGemm1x1|ConvFind' -j14 --timeout 90 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
PER_TEST=1 SUITES=ConvGpuGemm1x1 ONLY='ConvGpuGemm1x1\.NchwTf32' TESTS=$build/tests/freednn_tests BUDGET=60 \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep "^conv bwd_w" tools/bench/batches/resnet50.txt | grep "kh1kw1" | sort -u > /tmp/w1.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_w1 MAX_MS=5 timeout 150 tools/gpu/ab.sh /tmp/w1.txt \
  "" "FREEDNN_WGRAD1X1_WM=1" "FREEDNN_WGRAD1X1_WGMMA=0" -- --dt=f32 --layout=nchw --math=default \
  --impl=cuda:gemm_1x1 | tail -18
echo "ab at $(el) s"
timeout 60 $build/tools/bench/freednn-bench --mode=P --no-yardsticks --max-ms=8 --dt=f32 --layout=nchw \
  --math=default --algo=any --vs=$nv/libcudnn.so.9 --batch=/tmp/w1.txt --json=$OUT/w1_vs.json > $OUT/w1_vs.txt 2>&1
grep "^tests:" $OUT/w1_vs.txt
echo "done at $(el) s"
pack
