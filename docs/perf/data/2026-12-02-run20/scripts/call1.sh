#!/usr/bin/env bash
# run 20 call 2 (prebuilt): the gpu suite on the new defaults (16-bit small tiles at 4 stages) and the new
# PipelineDepths test; the A/B list (big tiles at 3 stages, 16-bit stride phases, TF32 tiles); the sanitizers
# over ConvSm90 (the new kernels)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 TESTS_TIMEOUT=170 AB_TIMEOUT=60 AB_TOTAL_TIMEOUT=300 OUT=$OUT/t tools/gpu/h200_check.sh tests ab
rm -f $OUT/t/gpu-results.tgz
echo "tests+ab at $(( $(date +%s) - t0 )) s"
left=$(( 470 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  ONLY='ConvSm90' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
left=$(( 560 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  ONLY='ConvSm90\.(PipelineDepths|Dgrad16|RandomResNet|TileEdges)' tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
for t in memcheck racecheck; do echo "$t: $(grep "^$t " $OUT/sanitize/summary.txt | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')"; done
grep -v " PASS " $OUT/sanitize/summary.txt | head -20
echo "done at $(( $(date +%s) - t0 )) s"
pack
