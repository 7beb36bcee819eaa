#!/usr/bin/env bash
# run 24 call 5 (prebuilt at .prebuilt/REV): bn_cluster with 512-thread blocks (tests, memcheck, A/B) and the flat
# to_chwn copy now on by default (ConvSm90 tests, memcheck, A/B on the 7x7 TF32 backward-filter layers)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 80 ctest -L gpu -R "BatchNorm|ConvSm90" -j14 --timeout 75 --output-on-failure > $OUT/ctest5.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest5.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=8 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel|ConvSm90\.Tf32DgradFlatChwnCopy|ConvSm90\.Tf32WgradShapesAndLayouts' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "64x(2048x7x7|1024x14x14)" | grep -v infer > /tmp/bns.txt
grep -E "bwd_w .*ih7iw7" tools/bench/batches/resnet50.txt > /tmp/w7.txt
cat > /tmp/ab.txt <<AB
/tmp/bns.txt f16:nhwc -;FREEDNN_BN_CLUSTER_THREADS=512;FREEDNN_BN_CLUSTER=0
/tmp/bns.txt bf16:nhwc -;FREEDNN_BN_CLUSTER_THREADS=512;FREEDNN_BN_CLUSTER=0
/tmp/w7.txt f32:nchw:any:default FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_wgrad,FREEDNN_CHWN_FLAT=0;FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_wgrad
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=60 MAX_MS=5 timeout 130 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -9 | cut -c1-140; done
echo "done at $(el) s"
pack
