#!/usr/bin/env bash
# call 2 (prebuilt): the changed suites; the A/B lines (wgmma 1 / 3 groups, pooling one pass); then ResNet-50's 3x3
# backward filter (f16, bf16) and MobileNet-v2's depthwise (f16) against NVIDIA and PyTorch, with the wgmma variant
# the A/B chose.
set -u
mkdir -p $OUT
t0=$(date +%s)
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1   # unpack only
build=build/h200
(cd $build && timeout 120 ctest -L gpu -R "ConvGpuHaloWgrad|ConvGpuDepthwise|Pooling" -j16 --timeout 140 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*|Failed" $OUT/ctest2.txt | head -20
echo "tests done at $(( $(date +%s) - t0 )) s"
nv=$(python3 -c 'import nvidia.cudnn as m;print(list(m.__path__)[0]+"/lib")' 2>/dev/null)
for d in "$nv"/../../*/lib; do export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=55 timeout 200 tools/gpu/ab_pending.sh
(cd $OUT && tar czf results2.tgz ab ctest2.txt 2>/dev/null)
echo "ab done at $(( $(date +%s) - t0 )) s"
# the wgmma variant with the lowest f16 geomean, if below 0.97 of the mma.sync kernel's time
pick=$(grep -E '^\[[12]\]' $OUT/ab/ab_1/ab.txt 2>/dev/null | sed -E 's/^\[([12])\].*geomean ([0-9.]+).*/\2 \1/' | sort -n | head -1)
g=${pick% *}; v=${pick#* }
if [ -n "$pick" ] && awk -v g="$g" 'BEGIN{exit !(g < 0.97)}'; then
  [ "$v" = 1 ] && export FREEDNN_HALO_WGRAD_WGMMA=1 || export FREEDNN_HALO_WGRAD_WGMMA=3
fi
echo "measuring with FREEDNN_HALO_WGRAD_WGMMA=${FREEDNN_HALO_WGRAD_WGMMA:-0} (pick: $pick)" | tee $OUT/pick.txt
OUT=$OUT/rn PREBUILT=1 CONV_BATCH=tools/bench/batches/resnet50_3x3_bwd_w.txt CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" \
  MAX_MS=20 CONV_TIMEOUT=70 TORCH_TIMEOUT=70 tools/gpu/h200_check.sh conv 2>&1 | grep -v "^NVIDIA"
(cd $OUT && tar czf results2.tgz ab rn ctest2.txt pick.txt 2>/dev/null)
echo "resnet done at $(( $(date +%s) - t0 )) s"
OUT=$OUT/mb PREBUILT=1 CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt CONV_CONFIGS="f16:nhwc:tensor" \
  MAX_MS=20 CONV_TIMEOUT=110 TORCH_TIMEOUT=100 tools/gpu/h200_check.sh conv 2>&1 | grep -v "^NVIDIA"
echo "mobilenet done at $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf results2.tgz ab rn mb ctest2.txt pick.txt 2>/dev/null; ls $OUT
