#!/usr/bin/env bash
# Run 40 call 5: why the stream-K kernel took 78.5 us against the plain kernel's 49.5 us on the TF32 7x7 3x3 forward
# (call 4's ncu: L2 throughput 64.7 % against 52.6 %, i.e. about twice the L2 bytes; SM throughput 38 % against 62 %):
# L2 sectors by operation, DRAM bytes, instructions, and the warp stall details, for both kernels.
# Run: OUT=$OUT bash .devrun/call3.sh 2>&1 | tee $OUT/log.txt | tail -80   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export FREEDNN_BACKEND=cuda
B=$build/tools/bench/freednn-bench
P="conv fwd f32 nchw g1mb64ic512ih7iw7oc512kh3kw3sh1sw1ph1pw1"
O="--dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_fprop --mode=P --no-yardsticks --iters=1 --max-ms=1"
M=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__cycles_active.avg,lts__t_sectors.sum,lts__t_requests.sum
for v in main sk; do
  L=""; [ $v = sk ] && L="--lib=$build/src/ref_sk/libcudnn.so.8.2.0"
  FREEDNN_SM90_STREAMK=1 timeout 60 ncu --clock-control none -k regex:conv_grouped --metrics $M -c 1 $B $O $L "$P" > $OUT/m_$v.txt 2>&1
  echo "== $v metrics rc=$?"; grep -E "^  [a-z_].*\(|lts__|dram__|smsp__|sm__|ERROR" $OUT/m_$v.txt | cut -c1-120 | head -14
  FREEDNN_SM90_STREAMK=1 timeout 90 ncu --clock-control none -k regex:conv_grouped --section WarpStateStats \
    --section MemoryWorkloadAnalysis_Tables --section SchedulerStats --print-details all -c 1 $B $O $L "$P" > $OUT/d_$v.txt 2>&1
  echo "== $v details rc=$?"; grep -E "Stall|stall|Warp Cycles|Eligible|Issued|ERROR" $OUT/d_$v.txt | cut -c1-120 | head -30
done
echo "done at $(el) s"
pack
