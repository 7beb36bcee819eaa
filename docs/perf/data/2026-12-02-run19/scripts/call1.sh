#!/usr/bin/env bash
# call 1 (prebuilt): gpu suite, A/B queue, a short --vs check of the interleaved timing, then memcheck (long units first)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 TESTS_TIMEOUT=170 AB_TIMEOUT=40 AB_TOTAL_TIMEOUT=250 tools/gpu/h200_check.sh tests ab
echo "tests+ab done at $(( $(date +%s) - t0 )) s"
timeout 60 $build/tools/bench/freednn-bench --mode=P --dt=f16 --layout=nhwc --max-ms=20 --vs="$nv/libcudnn.so.9" \
  --batch=tools/bench/batches/ops_bn_reduce.txt --json=$OUT/vs_check.json > $OUT/vs_check.txt 2>&1
echo "vs check rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "^tests:" $OUT/vs_check.txt
left=$(( 555 - ($(date +%s) - t0) ))
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 SPLIT="$LONG" PARTS=4 \
  FIRST="$LONG" tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
echo "memcheck: $(awk '{print $3}' $OUT/sanitize/summary.txt | sort | uniq -c | tr '\n' ' ') at $(( $(date +%s) - t0 )) s"
grep -v " PASS " $OUT/sanitize/summary.txt | head -20
pack
