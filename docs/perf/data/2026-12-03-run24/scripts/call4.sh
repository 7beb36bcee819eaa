#!/usr/bin/env bash
# run 24 call 4 (prebuilt at .prebuilt/REV): the tests that reach batch norm through other APIs, ncu stall sampling
# of the cluster batch norm (7x7 f16 training and backward), the queued flat to_chwn A/B on the two 7x7 1x1 layers
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 90 ctest -L gpu -R "FusedOps|Normaliz|BatchNorm|Backend" -j14 --timeout 80 --output-on-failure > $OUT/ctest4.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest4.txt | head -10
echo "tests at $(el) s"
bench=$build/tools/bench/freednn-bench
for p in "bn train mode=spatial x=f16:64x2048x7x7" "bn bwd mode=spatial x=f16:64x2048x7x7"; do
  timeout 45 ncu --clock-control none -k regex:bn_cluster -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --section SchedulerStats --section MemoryWorkloadAnalysis \
    $bench --mode=P --no-yardsticks --iters=1 --max-ms=1 --dt=f16 --layout=nhwc "$p" > "$OUT/ncu_$(echo $p | cut -d' ' -f2).txt" 2>&1
done
grep -E "Stall|stall|Warp Cycles|Issued|Eligible|Active Warps|Duration|DRAM Thr" $OUT/ncu_train.txt | head -30 | cut -c1-150
echo "ncu at $(el) s"
grep -E "bwd_d .*ih7iw7.*kh1kw1" tools/bench/batches/resnet50.txt > /tmp/k7.txt
echo "/tmp/k7.txt f32:nchw:any:default FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad;FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad,FREEDNN_CHWN_FLAT=1" > /tmp/ab.txt
BENCH=$bench OUT=$OUT/ab AB_TIMEOUT=100 MAX_MS=5 timeout 105 tools/gpu/ab_pending.sh /tmp/ab.txt
grep -v "NOT_SUP" $OUT/ab/ab_1/ab.txt 2>/dev/null | cut -c1-140
echo "done at $(el) s"
pack
