#!/usr/bin/env bash
# Not run (run 24 ended with 198 s of device time, too little to start a machine): the next session's first call.
# Prebuilt (tools/gpu/prebuilt.sh pack) at the final commit: the batch-norm and pooling tests (bn_cluster's row
# loops folded into one helper and the tests' log capture moved to ft::InfoLog after their last GPU run), memcheck of
# the tiled inference, its A/B (FREEDNN_BN_INFER=8), and ncu's source view of bn_cluster (where its 18.6 us go: the
# memory phases alone would take about 7 us), and ncu's warp states of the one-pass max-pooling backward (62 % of
# the copy bandwidth), and the f16 ops batch with batch norm's bytes counted by freednn itself
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 60 ctest -L gpu -R "BatchNorm|Pool" -j14 --timeout 55 --output-on-failure > $OUT/ctest6.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest6.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=8 PER_TEST=1 \
  ONLY='BatchNorm\.(InferLeanKernels|ClusterKernel)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep "^bn " tools/bench/batches/ops_bn_reduce.txt > /tmp/bn.txt
cat > /tmp/ab.txt <<AB
/tmp/bn.txt f16:nhwc -;FREEDNN_BN_INFER=8;FREEDNN_BN_CLUSTER=0
/tmp/bn.txt bf16:nhwc -;FREEDNN_BN_INFER=8
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=60 MAX_MS=5 timeout 125 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -18 | cut -c1-140; done
echo "ab at $(el) s"
timeout 60 ncu --clock-control none -k regex:bn_cluster -c 1 --set full --import-source yes --page source --csv \
  --print-source sass $build/tools/bench/freednn-bench --mode=P --no-yardsticks --iters=1 --max-ms=1 --dt=f16 \
  --layout=nhwc "bn train mode=spatial x=f16:64x2048x7x7" > $OUT/ncu_src.csv 2>&1
python3 - "$OUT/ncu_src.csv" <<'PY' | head -40
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: sys.exit(print("no source rows"))
h = rows[0]
key = next((i for i, n in enumerate(h) if "Warp Stall Sampling (All" in n), None)
src = next((i for i, n in enumerate(h) if n in ("Source", "# Address")), 0)
if key is None: sys.exit(print("columns:", h[:20]))
top = sorted(rows[1:], key=lambda r: -float(r[key] or 0))[:30]
for r in top: print(r[key], r[src][:110])
PY
grep "pool bwd mode=max" tools/bench/batches/pool_ab.txt | head -1 > /tmp/kp.txt
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 40 tools/gpu/kernel_times.sh /tmp/kp.txt --dt=f16 \
  --layout=nhwc > $OUT/ncu_pool.txt 2>&1   # run 24 call 1's try was cut off by the call's limit
grep -E "Duration|DRAM Thr|Stall|Warp Cycles|Eligible|Occupancy" $OUT/ncu_pool.txt | head -12
# the f16 ops batch against NVIDIA, its batch norms now counted by freednn (freednnGetLastCallBytesMoved)
PREBUILT=1 CONFIGS="f16:nhwc" MAX_MS=40 OUT=$OUT/ops timeout 90 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
python3 tools/ops_bars.py $OUT/ops/ops_f16_nhwc.json 2>&1 | head -40
rm -f $OUT/ops/gpu-results.tgz
echo "done at $(el) s"
pack
