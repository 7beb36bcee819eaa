#!/usr/bin/env bash
# run 24 call 1 (prebuilt at aa26b84): the tests of what changed since run 23 call 3 and their sanitizers, the
# queued A/B lines (flat to_chwn on 7x7, pooling depth 3), ncu of max-pool backward and of the small 16-bit batch norms
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
# built here (the CPU machine's build is not done): pack it and send it back for the next calls
tools/gpu/prebuilt.sh pack > $OUT/build.txt 2>&1 || { grep -E "error" -A3 $OUT/build.txt | head; }
mkdir -p $OUT/pb && split -b 12M .prebuilt/h200.tar.xz $OUT/pb/h200.tar.xz.part_ && ls -la $OUT/pb
echo "built at $(el) s"
(cd $build && timeout 90 ctest -L gpu -R "ConvSm90|Pool|BatchNorm" -j14 --timeout 90 --output-on-failure > $OUT/ctest1.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest1.txt | head -20
echo "tests at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=10 PER_TEST=1 \
  ONLY='ConvSm90\.Tf32DgradFlatChwnCopy|Pooling\.NhwcMaxBackwardOnePass.*' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=35 SUITE_TIMEOUT=30 PARALLEL=4 PER_TEST=1 \
  ONLY='Pooling\.NhwcMaxBackwardOnePass' tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "sanitizers at $(el) s"
grep -E "bwd_d .*ih7iw7" tools/bench/batches/resnet50.txt > /tmp/k7.txt
cat > /tmp/ab.txt <<AB
/tmp/k7.txt f32:nchw:any:default FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad;FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad,FREEDNN_CHWN_FLAT=1
tools/bench/batches/pool_ab.txt f16:nhwc -;FREEDNN_POOL_BWD_DEPTH=3;FREEDNN_POOL_BWD_DEPTH=3,FREEDNN_POOL_BWD_STRIPS=2
tools/bench/batches/pool_ab.txt bf16:nhwc -;FREEDNN_POOL_BWD_DEPTH=3
AB
grep "^bn " tools/bench/batches/ops_bn_reduce.txt > /tmp/bn.txt
echo "/tmp/bn.txt f16:nhwc -;FREEDNN_BN_COOP_MAX_MB=100000;FREEDNN_BN_NO_COOP=1,FREEDNN_BN_INFER=4" >> /tmp/ab.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=50 MAX_MS=5 timeout 110 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -24 | cut -c1-150; done
echo "ab at $(el) s"
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad FREEDNN_CHWN_FLAT=1 BENCH=$build/tools/bench/freednn-bench COUNT=3 \
  timeout 30 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_flat.txt 2>&1
cut -c1-120 $OUT/kt_flat.txt | head -12
grep "pool bwd mode=max" tools/bench/batches/pool_ab.txt | head -1 > /tmp/kp.txt
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 40 tools/gpu/kernel_times.sh /tmp/kp.txt --dt=f16 --layout=nhwc > $OUT/ncu_pool.txt 2>&1
echo "ncu pool at $(el) s"
grep -E "64x(2048x7x7|512x28x28|64x112x112)" /tmp/bn.txt > /tmp/bns.txt
BENCH=$build/tools/bench/freednn-bench COUNT=6 timeout 40 tools/gpu/kernel_times.sh /tmp/bns.txt --dt=f16 --layout=nhwc > $OUT/kt_bn.txt 2>&1
FREEDNN_BN_COOP_MAX_MB=100000 BENCH=$build/tools/bench/freednn-bench COUNT=6 timeout 40 tools/gpu/kernel_times.sh /tmp/bns.txt --dt=f16 --layout=nhwc > $OUT/kt_bn_coop.txt 2>&1
cut -c1-140 $OUT/kt_bn.txt; cut -c1-140 $OUT/kt_bn_coop.txt
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 80 tools/gpu/kernel_times.sh /tmp/bns.txt --dt=f16 --layout=nhwc > $OUT/ncu_bn.txt 2>&1
DETAIL=1 FREEDNN_BN_COOP_MAX_MB=100000 BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 40 tools/gpu/kernel_times.sh /tmp/bns.txt --dt=f16 --layout=nhwc > $OUT/ncu_bn_coop.txt 2>&1
echo "done at $(el) s"
(cd "$OUT" && tar czf /tmp/results.tgz --exclude=results.tgz --exclude=./pb . && mv /tmp/results.tgz results.tgz
  cp sanitize/summary.txt summary.txt 2>/dev/null
  find . -mindepth 1 -maxdepth 1 ! -name results.tgz ! -name summary.txt ! -name pb -exec rm -rf {} +)
ls -la $OUT $OUT/pb
