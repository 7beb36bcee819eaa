#!/usr/bin/env bash
# run 23 call 1 (prebuilt at f4916cd): first GPU run of the TF32 NCHW plane GEMMs (FREEDNN_GEMM1X1_PLANES=1):
# tests, memcheck on the new test, the standalone probe, the queued A/B
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 120 ctest -L gpu -R "ConvSm90|ConvGpuGemm1x1" -j14 --timeout 100 --output-on-failure > $OUT/ctest1.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  " $OUT/ctest1.txt | head -20
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=60 SUITE_TIMEOUT=55 PARALLEL=4 PER_TEST=1 \
  ONLY='ConvSm90\.Tf32NchwPlaneGemm' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
timeout 60 .devrun/tf32_nchw_probe > $OUT/probe.txt 2>&1; echo "probe rc $?"; cat $OUT/probe.txt | cut -c1-170
echo "probe at $(( $(date +%s) - t0 )) s"
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=110 timeout 240 tools/gpu/ab_pending.sh
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; tail -12 $f | cut -c1-170; done
echo "done at $(( $(date +%s) - t0 )) s"
pack
