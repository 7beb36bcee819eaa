#!/usr/bin/env bash
# call 1 (device build): the wgmma probe, build, the whole gpu suite, the queued A/B lines
set -u
mkdir -p $OUT
(.devrun/wgmma_probe > $OUT/probe.txt 2>&1; echo "rc=$?" >> $OUT/probe.txt)
tail -4 $OUT/probe.txt
t0=$(date +%s)
TESTS_TIMEOUT=150 AB_TIMEOUT=55 AB_TOTAL_TIMEOUT=210 tools/gpu/h200_check.sh tests ab
echo "check took $(( $(date +%s) - t0 )) s"
grep -E "Failed|\*\*\*" $OUT/gpu_ctest.txt | head -20
