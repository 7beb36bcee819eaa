#!/usr/bin/env bash
# run 26 call 2a (tests after the shift-step fix, clusters of 16 A/B, nsys of a 7x7 training call); was: ResNet-50 TF32 NCHW against NVIDIA and PyTorch (first since to_chwn's flat tiles went default),
# and the queued A/B of to_chwn's plane tiles on the TF32 wgrad (150 s)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 70 ctest -L gpu -R "ConvSm90\.Tf32|BatchNorm|Normaliz|FusedOps" -j14 --timeout 60 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest2.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=8 PER_TEST=1 \
  ONLY='BatchNorm\.(ClusterKernel|BackwardRandom|ForwardTrainingRandom)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
# where a 7x7 training call's time goes: kernel durations and the gaps between them, the host's launch cost
NS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NS"
grep "^bn train" tools/bench/batches/ops_bn_reduce.txt | grep 2048x7x7 | head -1 > /tmp/b7.txt
[ -n "$NS" ] && timeout 90 $NS profile -o /tmp/b7 --force-overwrite true -t cuda $build/tools/bench/freednn-bench --mode=P \
  --no-yardsticks --max-ms=20 --dt=f16 --layout=nhwc --batch=/tmp/b7.txt > $OUT/nsys_run.txt 2>&1 && \
  timeout 60 $NS stats -r cuda_gpu_trace,cuda_api_sum -f csv -o $OUT/b7 /tmp/b7.nsys-rep > /dev/null 2>&1
ls $OUT
python3 - $OUT/b7_cuda_gpu_trace.csv <<'PY'
import csv, sys, statistics
try: rows = list(csv.DictReader(open(sys.argv[1])))
except Exception as e: sys.exit(print("no trace", e))
ks = [r for r in rows if "bn_cluster" in r.get("Name", "")]
st = [int(r["Start (ns)"]) for r in ks]; du = [int(r["Duration (ns)"]) for r in ks]
gaps = [st[i + 1] - st[i] - du[i] for i in range(len(ks) - 1)]
print(len(ks), "bn_cluster kernels; median duration", statistics.median(du), "ns; median start-to-start", statistics.median([st[i+1]-st[i] for i in range(len(st)-1)]), "ns; median gap", statistics.median(gaps), "ns")
PY
grep -E "LaunchKernel|EventRecord|Memcpy|Memset" $OUT/b7_cuda_api_sum.csv | cut -c1-160 | head -8
# clusters of 16 (non-portable; chunks of 256 channels, 512-byte row pieces) against the plan's choice
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "(train|bwd) .*64x(2048x7x7|1024x14x14)" > /tmp/bnc.txt
FREEDNN_BN_CLUSTER_G=16 CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 60 $build/tools/bench/freednn-bench --mode=C --dt=f16 --layout=nhwc \
  --batch=/tmp/bnc.txt > $OUT/g16_check.txt 2>&1
grep -E "PASSED|FAILED|NOT_SUP" $OUT/g16_check.txt | cut -c1-60; grep -m4 "cluster kernel" $OUT/g16_check.txt | cut -c1-160
cat > /tmp/abg.txt <<AB
/tmp/bnc.txt f16:nhwc -;FREEDNN_BN_CLUSTER_G=16
/tmp/bnc.txt bf16:nhwc -;FREEDNN_BN_CLUSTER_G=16
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/abg AB_TIMEOUT=40 MAX_MS=5 timeout 90 tools/gpu/ab_pending.sh /tmp/abg.txt
for f in $OUT/abg/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -8 | cut -c1-150; done
FREEDNN_BN_CLUSTER_G=16 BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 30 tools/gpu/kernel_times.sh /tmp/bnc.txt --dt=f16 --layout=nhwc > $OUT/kt_g16.txt 2>&1
cut -c1-120 $OUT/kt_g16.txt | head -14
echo "g16 at $(el) s"
echo "done at $(el) s"
rm -f $OUT/rn/gpu-results.tgz
pack
