#!/usr/bin/env bash
# run 27 call 1b, on call 1a's warm machine: build/h200 kept from call 1a (the new pool kernel); .prebuilt/old.tar.xz
# (08fcb55: the two-chunk bn_cluster, FREEDNN_BN_CLUSTER_SUB=2; its pooling code is 7b92fcc's) in build/old.
# The pool backward A/B (new against old library, NVIDIA beside, interleaved); the two-chunk bn_cluster on the old
# build: tests, memcheck, A/B, kernel times (run 26's call4-not-run.sh).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
ls $build/src/libcudnn.so.8.2.0 || exit 1
mkdir -p build/old && tar xJf .prebuilt/old.tar.xz -C build/old
sed -i "s#[^ \"]*/build/h200#$PWD/build/old#g" $(find build/old -name CTestTestfile.cmake) build/old/tests/*.cmake
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
grep "pool bwd mode=max" tools/bench/batches/ops_resnet50.txt > /tmp/pool.txt
for rep in 1 2; do for dt in f16 bf16; do for lib in new old; do
  extra=(); [ $lib = old ] && extra=(--lib=build/old/src/libcudnn.so.8.2.0)
  timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc --max-ms=40 --vs="$nv/libcudnn.so.9" \
    --batch=/tmp/pool.txt "${extra[@]}" > $OUT/pool_${dt}_${lib}_$rep.txt 2>&1
  echo "$rep $dt $lib: $(grep -E "pool bwd" $OUT/pool_${dt}_${lib}_$rep.txt | tail -1 | cut -c1-220)"
done; done; done
BENCH=$build/tools/bench/freednn-bench COUNT=3 timeout 40 tools/gpu/kernel_times.sh /tmp/pool.txt --dt=f16 --layout=nhwc > $OUT/kt_pool_new.txt 2>&1; tail -3 $OUT/kt_pool_new.txt | cut -c1-120
BENCH=build/old/tools/bench/freednn-bench COUNT=3 timeout 40 tools/gpu/kernel_times.sh /tmp/pool.txt --dt=f16 --layout=nhwc > $OUT/kt_pool_old.txt 2>&1; tail -3 $OUT/kt_pool_old.txt | cut -c1-120
echo "pool A/B at $(el) s"
build=build/old
export LD_LIBRARY_PATH=$PWD/build/old/src:$LD_LIBRARY_PATH  # the old test binary's RUNPATH names build/h200/src
(cd $build && timeout 40 ctest -L gpu -R "BatchNorm" -j14 --timeout 35 --output-on-failure > $OUT/ctest_bn.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest_bn.txt | head -10
OUT=$OUT/bnmem TESTS=$build/tests/freednn_tests BUDGET=20 SUITE_TIMEOUT=18 PARALLEL=2 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel' tools/gpu/sanitize.sh memcheck > $OUT/bn_memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/bnmem/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "(train|bwd) .*64x(2048x7x7|1024x14x14)" > /tmp/bnc.txt
FREEDNN_BN_CLUSTER_SUB=2 CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 30 $build/tools/bench/freednn-bench \
  --mode=C --dt=f16 --layout=nhwc --batch=/tmp/bnc.txt > $OUT/sub2_check.txt 2>&1
grep -E "PASSED|FAILED|NOT_SUP" $OUT/sub2_check.txt | cut -c1-50; grep "cluster kernel" $OUT/sub2_check.txt | sort -u | cut -c1-170 | head -4
cat > /tmp/ab.txt <<AB
/tmp/bnc.txt f16:nhwc -;FREEDNN_BN_CLUSTER_SUB=2
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=30 MAX_MS=5 timeout 35 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -7 | cut -c1-140; done
BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 30 tools/gpu/kernel_times.sh /tmp/bnc.txt --dt=f16 --layout=nhwc > $OUT/kt_sub1.txt 2>&1
FREEDNN_BN_CLUSTER_SUB=2 BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 30 tools/gpu/kernel_times.sh /tmp/bnc.txt --dt=f16 --layout=nhwc > $OUT/kt_sub2.txt 2>&1
paste -d'|' <(cut -c1-60 $OUT/kt_sub1.txt) <(cut -c1-60 $OUT/kt_sub2.txt) | head -16
echo "done at $(el) s"
pack
