#!/usr/bin/env bash
# Run 44's fifth call: memcheck over the convolution suites whose kernels changed since run 42's sanitizer pass
# (Winograd's split over K and row stores, on by default since run 43; FFT) and the sm90 suite (the new dispatch).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
LIMIT=${LIMIT:-150}
left() { echo $(( LIMIT - $(el) )); }
[ -x $build/tests/freednn_tests ] || PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
cat .prebuilt/REV
FREEDNN_BACKEND=cuda SUITES="ConvGpuWinograd|ConvGpuFft|ConvSm90" BUDGET=$(( $(left) - 15 )) \
  OUT=$OUT/mem timeout $(( $(left) - 5 )) tools/gpu/sanitize.sh memcheck > $OUT/mem_log.txt 2>&1
echo "memcheck rc=$?"; tail -8 $OUT/mem_log.txt
echo "done at $(el) s"
pack
