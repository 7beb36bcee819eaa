#!/usr/bin/env bash
# run 21 call 2: where do the grouped kernel's tests hang? (ctest timed out in both tests that use it)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
echo "setup at $(( $(date +%s) - t0 )) s"
T=$build/tests/freednn_tests; B=$build/tools/bench/freednn-bench
for f in PersistentForward Dgrad16StridePhases; do
  FREEDNN_LOG_CMD=1 timeout -s KILL 15 $T --gtest_filter=ConvSm90.$f > $OUT/log_$f.txt 2>&1; echo "$f rc=$?"
  grep -c "freednn-bench" $OUT/log_$f.txt; grep "freednn-bench" $OUT/log_$f.txt | tail -2
done
run() { local env=$1 impl=$2 beta=$3 mode=$4; shift 4
  env $env timeout -s KILL 12 $B --impl=$impl --beta=$beta --mode=$mode --iters=3 --no-yardsticks "$@" > $OUT/b.txt 2>&1
  echo "rc=$? $env beta=$beta $mode $*"; grep -iE "fail|pass|error|mismatch" $OUT/b.txt | head -3; }
P=FREEDNN_SM90_PERSISTENT=1; G=FREEDNN_SM90_PHASES_GROUPED=1
F=cuda:cutlass_sm90_fprop; D=cuda:cutlass_sm90_dgrad
for beta in 0 0.75; do
  run $P $F $beta C "conv fwd f16 nhwc g1mb6ic8ih56iw56oc64kh3kw3sh1sw1ph1pw1"
  run $P $F $beta C "conv fwd f16 nhwc g1mb2ic64ih16iw16oc64kh3kw3sh1sw1ph1pw1"
  run $P $F $beta C "conv fwd f16 nhwc g1mb2ic64ih16iw16oc128kh3kw3sh1sw1ph1pw1"
  run $P $F $beta P "conv fwd f16 nhwc g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1"
  run $G $D $beta C "conv bwd_d f16 nhwc g1mb3ic128ih13iw15oc96kh3kw3sh2sw2ph1pw1"
  run $G $D $beta P "conv bwd_d f16 nhwc g1mb64ic128ih56iw56oc128kh3kw3sh2sw2ph1pw1"
done
echo "done at $(( $(date +%s) - t0 )) s"
