#!/usr/bin/env bash
# run 20 call 3 (prebuilt; new defaults: every small sm90 tile at 4 stages, the 16-bit stride phases on): the gpu
# suite; the A/B of the phases on 128x64 tiles; ResNet-50 f16 / bf16 NHWC against NVIDIA (Find vs Find) and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
cat > /tmp/ab3.txt <<'AB'
tools/bench/batches/resnet50_bwd_d_s2.txt f16:nhwc:any:tensor FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad;FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad,FREEDNN_SM90_DGRAD16_NARROW=1
tools/bench/batches/resnet50_bwd_d_s2.txt bf16:nhwc:any:tensor FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad;FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad,FREEDNN_SM90_DGRAD16_NARROW=1
AB
PREBUILT=1 TESTS_TIMEOUT=150 OUT=$OUT/t tools/gpu/h200_check.sh tests
rm -f $OUT/t/gpu-results.tgz
echo "tests at $(( $(date +%s) - t0 )) s"
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=40 timeout 90 tools/gpu/ab_pending.sh /tmp/ab3.txt
echo "ab at $(( $(date +%s) - t0 )) s"
PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" \
  OUT=$OUT/rn tools/gpu/h200_check.sh conv
echo "resnet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz
pack
