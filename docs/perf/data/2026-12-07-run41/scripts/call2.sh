#!/usr/bin/env bash
# Run 41 call 2: the CUDA AddTensor INT32 mend (3b646aa) through its test and the TensorOps suite; ncu of the TF32
# NCHW ResNet stem's forward (cuda:patch_fprop) and backward data (cuda:patch_dgrad): where their time goes.
# Run: OUT=$OUT bash .devrun/call2.sh 2>&1 | tee $OUT/log.txt | tail -60   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
B=$build/tools/bench/freednn-bench
export FREEDNN_BACKEND=cuda
(cd $build && timeout 100 ctest -L gpu -R "TensorOps" -j14 --timeout 60 --output-on-failure > $OUT/tensorops.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|Failed  " $OUT/tensorops.txt | head -5
O="--dt=f32 --layout=nchw --math=default"
for d in fwd:cuda:patch_fprop bwd_d:cuda:patch_dgrad; do
  dir=${d%%:*}; impl=${d#*:}
  prob="conv $dir f32 nchw g1mb64ic3ih224iw224oc64kh7kw7sh2sw2ph3pw3"
  timeout 60 $B --mode=P $O --impl=$impl "$prob" 2>&1 | grep TIMED | cut -c1-250
  timeout 150 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis --section InstructionStats \
    --section SourceCounters --section MemoryWorkloadAnalysis_Tables -k regex:patch_ -c 2 \
    $B --mode=P --no-yardsticks --iters=1 --max-ms=1 $O --impl=$impl "$prob" > $OUT/ncu_$dir.txt 2>&1
  grep -E "Duration|Compute \(SM\) Th|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occ|Theoretical Occ|Registers Per|Stall|Issue Slots|Executed Ipc A|Shared Memory Configuration Size|Bank" $OUT/ncu_$dir.txt | head -30
  echo "$dir at $(el) s"
done
echo "done at $(el) s"
pack
