#!/usr/bin/env bash
# Run 37's call script (run 36's call1.sh with PARTS): stream-K on the float persistent kernel
# (FREEDNN_SM90_STREAMK): its test, A/B against whole tiles on the TF32 forwards / backward data cutlass_sm90
# serves, the whole gpu suite, the TF32 NCHW ResNet-50 table (Find against Find, NVIDIA cuDNN 9.19 and PyTorch in
# the same call), memcheck of the new test.
# Sized to the device time left: LIMIT (s, default 540) caps the suite's, the table's and memcheck's timeouts so that
# pack always runs; SUITE_R narrows the suite (e.g. ConvSm90); REPS (default 1) repeats the A/B; PARTS (default all
# of "sk ab ab16 suite table memcheck") picks the steps, so that a short first call (PARTS="sk ab", LIMIT=200) can
# come back before the machine is taken back and later calls run the rest.
# Run: OUT=$OUT LIMIT=540 bash .devrun/call1.sh 2>&1 | tee $OUT/log.txt | tail -70   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PARTS=${PARTS:-sk ab ab16 suite table memcheck}
want() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
if want sk; then
  timeout 90 $T --gtest_filter='ConvSm90.Tf32StreamK:StreamK*' > $OUT/sk_tests.txt 2>&1
  rc=$?; echo "stream-K test rc=$rc"; [ $rc = 124 ] && { echo "HUNG: stream-K off for the rest"; export FREEDNN_SM90_STREAMK=0; }
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  +(OK|FAILED) +\]|seed" $OUT/sk_tests.txt | tail -8
  grep -B2 -A10 "Failure" $OUT/sk_tests.txt | head -30
  echo "tests at $(el) s"
fi
# main's library, kept beside the new one (tools/gpu/prebuilt.sh keep main): the third variant of each A/B, so that
# the stream-K binary with stream-K off is compared with main too (its float kernel has 255 registers, main's 166)
REF=--lib=$build/src/ref_main/libcudnn.so.8.2.0
if want ab; then
  B=tools/bench/batches/resnet50.txt
  grep -E "^conv fwd " $B | sort -u | grep -v ic3ih224 | grep -E "kh3|ih7iw7|sh2|ih14iw14" > /tmp/fwd.txt
  grep -E "^conv bwd_d " $B | sort -u | grep -v ic3ih224 | grep "sh1sw1" | grep -E "kh3|ih7iw7|ih14iw14" > /tmp/bwd.txt
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_fwd MAX_MS=3 REPS=${REPS:-1} timeout 100 tools/gpu/ab.sh /tmp/fwd.txt \
    "" "FREEDNN_SM90_STREAMK=0" "$REF" -- --dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_fprop | tail -18
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_bwd MAX_MS=3 REPS=${REPS:-1} timeout 60 tools/gpu/ab.sh /tmp/bwd.txt \
    "" "FREEDNN_SM90_STREAMK=0" "$REF" -- --dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_dgrad | tail -14
  echo "ab at $(el) s"
fi
if want ab16; then  # the f16 grouped kernels against main's (they compile as without stream-K: 160 / 95 registers)
  grep -E "^conv (fwd|bwd_d) " tools/bench/batches/resnet50.txt | sort -u | grep -v ic3ih224 | grep -E "kh3" > /tmp/h.txt
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_f16 MAX_MS=3 REPS=${REPS:-1} timeout 60 tools/gpu/ab.sh /tmp/h.txt \
    "" "$REF" -- --dt=f16 --layout=nhwc --math=tensor | tail -6
  echo "ab16 at $(el) s"
fi
if want suite; then
  st=$(( ${LIMIT:-540} - 15 - $(el) )); [ $st -gt 150 ] && st=150; [ $st -lt 10 ] && st=10
  (cd $build && timeout $st ctest -L gpu ${SUITE_R:+-R $SUITE_R} -j14 --timeout 60 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
  grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
  echo "suite at $(el) s"
fi
LIMIT=${LIMIT:-540}
left=$(( LIMIT - 60 - $(el) ))
if want table && [ $left -gt 100 ]; then
  torch=1; [ $left -gt 230 ] || torch=0
  TORCH=$torch PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="f32:nchw:default" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_f32.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_f32.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
fi
echo "table at $(el) s"
left=$(( LIMIT - $(el) ))
want memcheck && [ $left -gt 20 ] && timeout $left compute-sanitizer --tool memcheck --print-limit 5 $T --gtest_filter='ConvSm90.Tf32StreamK' > $OUT/memcheck.txt 2>&1
[ -f $OUT/memcheck.txt ] && tail -3 $OUT/memcheck.txt
echo "done at $(el) s"
pack
