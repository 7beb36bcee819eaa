#!/usr/bin/env bash
# calls 2.. (prebuilt): compute-sanitizer goes on from the carried summary (.devrun/summary_in.txt; its TIMEOUT lines
# dropped so that units cut by the last call's end run again): memcheck over every unit, then racecheck over the
# shared-memory families, long units first, split in PARTS processes. MEM_END / RACE_END: seconds into the call.
set -u
mkdir -p $OUT/sanitize; t0=$(date +%s); . .devrun/common.sh
grep -v " TIMEOUT " .devrun/summary_in.txt > $OUT/sanitize/summary.txt 2>/dev/null || true
[ -x $build/tests/freednn_tests ] || PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1   # unpack when cold
[ -n "${EXPORTS:-}" ] && export $EXPORTS
left=$(( ${MEM_END:-300} - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  SPLIT="$LONG" PARTS=4 FIRST="$LONG" tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
echo "memcheck ended at $(( $(date +%s) - t0 )) s"
left=$(( ${RACE_END:-555} - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  SPLIT="$LONG" PARTS=4 SUITES="$SHARED" FIRST="$LONG" tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
echo "racecheck ended at $(( $(date +%s) - t0 )) s"
for t in memcheck racecheck; do echo "$t: $(grep "^$t " $OUT/sanitize/summary.txt | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')"; done
grep -v " PASS " $OUT/sanitize/summary.txt | head -30
pack
