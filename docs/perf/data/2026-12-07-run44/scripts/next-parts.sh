#!/usr/bin/env bash
# The parts of a measuring call (run 41 on; PREBUILT=keep where no .prebuilt is carried: run 44):
#  suite:     the whole gpu suite
#  table:     the ResNet-50 tables (CONFIGS, default TF32 NCHW) with NVIDIA cuDNN 9.19 and PyTorch
#  mobilenet: MobileNet-v2 depthwise f16 NHWC
#  ops:       the ops batch (issue 5) and its bars
#  san:       compute-sanitizer memcheck over the suites with the time left
# LIMIT (s, default 540) caps the steps so that pack always runs.
# Run: OUT=$OUT PARTS="suite table" CONFIGS="f32:nchw:default f16:nhwc:tensor" bash .devrun/parts.sh 2>&1 | tee $OUT/log.txt | tail -60
#      (carry .prebuilt; on an H200 the four tables take ~450 s: split them over two calls)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PARTS=${PARTS:-suite table}
# .prebuilt when carried, else the build tree an earlier call on this warm machine left (run44-call1.sh builds one)
PB=keep; [ -f .prebuilt/h200.tar.xz ] && PB=1
LIMIT=${LIMIT:-540}
want() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
left() { echo $(( LIMIT - 30 - $(el) )); }
PREBUILT=$PB tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
export FREEDNN_BACKEND=cuda
if want suite; then
  (cd $build && timeout 200 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
  grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
  echo "suite at $(el) s"
fi
if want table && [ $(left) -gt 100 ]; then
  TORCH=1 PREBUILT=$PB TORCH_TIMEOUT=90 CONV_TIMEOUT=200 CONV_CONFIGS="${CONFIGS:-f32:nchw:default}" \
    OUT=$OUT/rn timeout $(left) tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log.txt | tail -8
  rm -f $OUT/rn/gpu-results.tgz
fi
if want mobilenet && [ $(left) -gt 60 ]; then
  TORCH=1 PREBUILT=$PB TORCH_TIMEOUT=60 CONV_TIMEOUT=100 CONV_CONFIGS="f16:nhwc:tensor" \
    CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt OUT=$OUT/mb timeout $(left) tools/gpu/h200_check.sh conv > $OUT/mb_log.txt 2>&1
  grep -v "^NVIDIA" $OUT/mb_log.txt | tail -4
  rm -f $OUT/mb/gpu-results.tgz
fi
if want ops && [ $(left) -gt 60 ]; then
  PREBUILT=$PB MAX_MS=40 OUT=$OUT/ops timeout $(left) tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
  rm -f $OUT/ops/gpu-results.tgz
  python3 tools/ops_bars.py $OUT/ops/ops_f32_nchw.json $OUT/ops/ops_f16_nhwc.json $OUT/ops/ops_bf16_nhwc.json 2>&1 | grep -E "^==|PASS|FAIL" | tail -5
fi
if want san && [ $(left) -gt 60 ]; then
  PREBUILT=$PB SANITIZE_BUDGET=$(left) OUT=$OUT/san timeout $(( $(left) + 20 )) tools/gpu/h200_check.sh sanitize > $OUT/san_log.txt 2>&1
  grep -v PASS $OUT/san_log.txt | tail -8
fi
echo "done at $(el) s"
pack
