# sourced by the call scripts: library paths, the build, the long tests' regex
build=build/h200
nv=$(python3 -c 'import nvidia.cudnn as m;print(list(m.__path__)[0]+"/lib")' 2>/dev/null)
for d in "$nv"/../../*/lib; do export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
export OMP_NUM_THREADS=2
LONG='ConvGpuDepthwise\.(BackwardFilter|Tile)|BatchNorm\.(InferLean|Coop)|Pooling\.(NhwcMax|GlobalAverage)|ReduceTensor\.(PlaneSums|ChannelColumns)|TensorOps\.Transform|Softmax\.ShortRows'
SHARED="Softmax|Pool|BatchNorm|Reduce|ConvGpuDepthwise|ConvGpuHaloWgrad|Lrn|Dropout|SpatialTransformer|TensorOps|Normalization"
# pack everything under $OUT into one archive (only 8 files come back) plus the sanitizer summary
pack() { (cd "$OUT" && tar czf /tmp/results.tgz --exclude=results.tgz . && mv /tmp/results.tgz results.tgz
  cp sanitize/summary.txt summary.txt 2>/dev/null; find . -mindepth 1 -maxdepth 1 ! -name results.tgz ! -name summary.txt ! -name log.txt -exec rm -rf {} +) ; }
