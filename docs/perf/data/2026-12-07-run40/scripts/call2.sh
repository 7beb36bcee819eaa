#!/usr/bin/env bash
# Run 40 call 4: this session's mends (aux fork rejoin, dgrad prepare's stream count, Find's fills on the handle's
# stream, the FFT plans' cross-stream wait, the new Dgrad16StrideGraphCapture test) through the whole gpu suite;
# ncu of the TF32 NCHW 7x7 and 14x14 3x3 forwards: main's plain persistent kernel, and the stream-K branch's
# library (build/h200/src/ref_sk) with the form on (why it was slower: L2 or tensor bound?); the ops batch.
# Run: OUT=$OUT PARTS="suite ncu ops" bash .devrun/call2.sh 2>&1 | tee $OUT/log.txt | tail -80   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PARTS=${PARTS:-suite ncu ops}
want() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
export FREEDNN_BACKEND=cuda
if want suite; then
  timeout 60 $T --gtest_filter='ConvSm90.Dgrad16StrideGraphCapture:ConvSm90.*GraphCapture' > $OUT/capture.txt 2>&1
  echo "capture tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|seed" $OUT/capture.txt | head -8
  (cd $build && timeout 200 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
  grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
  echo "suite at $(el) s"
fi
if want ncu; then
  printf '%s\n' "conv fwd f32 nchw g1mb64ic512ih7iw7oc512kh3kw3sh1sw1ph1pw1" \
    "conv fwd f32 nchw g1mb64ic256ih14iw14oc256kh3kw3sh1sw1ph1pw1" > /tmp/sk.txt
  O="--dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_fprop"
  BENCH=$build/tools/bench/freednn-bench COUNT=5 DETAIL=1 timeout 100 tools/gpu/kernel_times.sh /tmp/sk.txt $O \
    > $OUT/ncu_main.txt 2>&1
  FREEDNN_SM90_STREAMK=1 BENCH=$build/tools/bench/freednn-bench COUNT=6 DETAIL=1 timeout 100 tools/gpu/kernel_times.sh \
    /tmp/sk.txt $O --lib=$build/src/ref_sk/libcudnn.so.8.2.0 > $OUT/ncu_sk.txt 2>&1
  for f in main sk; do echo "== $f"; grep -E "^==|^  [A-Za-z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)|Grid Size|Warp Cycles Per Issued" $OUT/ncu_$f.txt | cut -c1-110 | head -40; done
  echo "ncu at $(el) s"
fi
if want ops; then
  PREBUILT=1 MAX_MS=40 OUT=$OUT/ops timeout 230 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
  tail -4 $OUT/ops_log.txt
  rm -f $OUT/ops/gpu-results.tgz
  python3 tools/ops_bars.py $OUT/ops/ops_f32_nchw.json $OUT/ops/ops_f16_nhwc.json $OUT/ops/ops_bf16_nhwc.json 2>&1 | tail -12
fi
echo "done at $(el) s"
pack
