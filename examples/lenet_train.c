/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The freednn Authors
 *
 * lenet_train: trains a small LeNet-style network through the cuDNN 8.2 C API alone, in C99.
 *
 *   input 1x16x16 -> conv 5x5 (8) + bias -> ReLU -> max pool 2x2
 *                 -> conv 3x3 (16) -> batch norm -> ReLU -> max pool 2x2
 *                 -> fully connected 256->64 + bias -> ReLU -> fully connected 64->10 + bias -> log softmax
 *
 * The fully connected layers are convolutions whose filter covers the whole input. Every layer, forward and
 * backward, is a cuDNN call; the loss gradient is cudnnSoftmaxBackward of the log softmax; SGD with momentum
 * is cudnnAddTensor. The data set is drawn by the program: ten stroke-built digit glyphs, randomly scaled,
 * rotated, sheared, shifted, thickened and noised. One line per epoch; the exit status is non-zero when the
 * final test accuracy is below --min-accuracy, so the program doubles as an end-to-end test.
 *
 * All tensors live in "device" memory obtained through dev_alloc/dev_copy: GPU memory and freednn's CUDA backend
 * when the program was built with CUDA and a GPU is present (unless FREEDNN_BACKEND=cpu), else host memory and
 * the CPU backend.
 *
 * Options: --epochs N (default 4), --seed S, --threads T (sets OMP_NUM_THREADS), --min-accuracy PERCENT (default 80),
 *          --train N and --test N (images, default 8192 and 2048). */
#include <cudnn.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef LENET_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    cudnnStatus_t s_ = (call);                                                                         \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudnnGetErrorString(s_));   \
      fprintf(stderr, "rerun with CUDNN_LOGERR_DBG=1 CUDNN_LOGDEST_DBG=stderr for the reason\n");      \
      exit(2);                                                                                         \
    }                                                                                                  \
  } while (0)

enum { IMG = 16, CLASSES = 10, BATCH = 64 };
static const float ONE = 1.0f, ZERO = 0.0f;

/* ---------------------------------------------------------------- memory: the only place that knows where */
typedef enum { TO_DEVICE, TO_HOST } CopyDir;

static int on_gpu = 0; /* set once in main, before the first allocation */

static void* dev_alloc(size_t bytes) {
  void* p = NULL;
#ifdef LENET_WITH_CUDA
  if (on_gpu) {
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess || cudaMemset(p, 0, bytes) != cudaSuccess) p = NULL;
  } else
#endif
    p = calloc(bytes ? bytes : 1, 1);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}
static void dev_free(void* p) {
#ifdef LENET_WITH_CUDA
  if (on_gpu) {
    cudaFree(p);
    return;
  }
#endif
  free(p);
}
static void dev_copy(void* dst, const void* src, size_t bytes, CopyDir dir) {
#ifdef LENET_WITH_CUDA
  if (on_gpu) {
    if (cudaMemcpy(dst, src, bytes, dir == TO_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) !=
        cudaSuccess) {
      fprintf(stderr, "cudaMemcpy failed\n");
      exit(2);
    }
    return;
  }
#endif
  (void)dir;
  memcpy(dst, src, bytes);
}

/* GPU when built with CUDA, a device is present and FREEDNN_BACKEND does not say cpu. */
static void choose_memory(void) {
#ifdef LENET_WITH_CUDA
  const char* want = getenv("FREEDNN_BACKEND");
  int devices = 0;
  if ((!want || strcmp(want, "cpu") != 0) && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    on_gpu = 1;
    setenv("FREEDNN_BACKEND", "cuda", 1);
    return;
  }
#endif
  setenv("FREEDNN_BACKEND", "cpu", 1); /* the tensors are host memory */
}

/* ---------------------------------------------------------------- random numbers */
static unsigned long long rng_state;
static unsigned rng_u32(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng_state >> 33);
}
static double rng_uniform(void) { return (rng_u32() + 0.5) / 2147483648.0; } /* (0, 1) */
static double rng_range(double lo, double hi) { return lo + (hi - lo) * rng_uniform(); }
static double rng_normal(void) {
  return sqrt(-2.0 * log(rng_uniform())) * cos(6.283185307179586 * rng_uniform());
}

/* ---------------------------------------------------------------- the data set: drawn digit glyphs */
typedef struct {
  int n;
  float seg[48][4]; /* x0 y0 x1 y1 in a unit box, y down */
} Glyph;

static void glyph_line(Glyph* g, const float* pts, int npts) {
  for (int i = 0; i + 1 < npts; ++i) {
    float* s = g->seg[g->n++];
    s[0] = pts[2 * i];
    s[1] = pts[2 * i + 1];
    s[2] = pts[2 * i + 2];
    s[3] = pts[2 * i + 3];
  }
}
/* elliptic arc from angle a0 to a1 (degrees, 0 = right, 90 = down), in 'steps' segments */
static void glyph_arc(Glyph* g, float cx, float cy, float rx, float ry, float a0, float a1, int steps) {
  float pts[2 * 17];
  for (int i = 0; i <= steps; ++i) {
    float a = (a0 + (a1 - a0) * (float)i / (float)steps) * 3.14159265f / 180.0f;
    pts[2 * i] = cx + rx * cosf(a);
    pts[2 * i + 1] = cy + ry * sinf(a);
  }
  glyph_line(g, pts, steps + 1);
}

static Glyph glyphs[CLASSES];
static void make_glyphs(void) {
  memset(glyphs, 0, sizeof glyphs);
  glyph_arc(&glyphs[0], 0.5f, 0.5f, 0.32f, 0.48f, 0, 360, 16);
  { const float p[] = {0.3f, 0.2f, 0.55f, 0.0f, 0.55f, 1.0f}; glyph_line(&glyphs[1], p, 3); }
  glyph_arc(&glyphs[2], 0.5f, 0.28f, 0.3f, 0.28f, 180, 380, 10);
  { const float p[] = {0.78f, 0.38f, 0.2f, 1.0f, 0.82f, 1.0f}; glyph_line(&glyphs[2], p, 3); }
  glyph_arc(&glyphs[3], 0.5f, 0.25f, 0.28f, 0.25f, 200, 450, 10);
  glyph_arc(&glyphs[3], 0.5f, 0.74f, 0.3f, 0.26f, 270, 520, 10);
  { const float p[] = {0.65f, 1.0f, 0.65f, 0.0f, 0.15f, 0.68f, 0.85f, 0.68f}; glyph_line(&glyphs[4], p, 4); }
  { const float p[] = {0.8f, 0.0f, 0.28f, 0.0f, 0.24f, 0.45f}; glyph_line(&glyphs[5], p, 3); }
  glyph_arc(&glyphs[5], 0.48f, 0.68f, 0.3f, 0.3f, 230, 480, 12);
  { const float p[] = {0.72f, 0.02f, 0.38f, 0.3f, 0.2f, 0.68f}; glyph_line(&glyphs[6], p, 3); }
  glyph_arc(&glyphs[6], 0.5f, 0.7f, 0.3f, 0.28f, 0, 360, 14);
  { const float p[] = {0.18f, 0.0f, 0.82f, 0.0f, 0.42f, 1.0f}; glyph_line(&glyphs[7], p, 3); }
  { const float p[] = {0.35f, 0.52f, 0.7f, 0.52f}; glyph_line(&glyphs[7], p, 2); }
  glyph_arc(&glyphs[8], 0.5f, 0.24f, 0.24f, 0.24f, 0, 360, 12);
  glyph_arc(&glyphs[8], 0.5f, 0.74f, 0.3f, 0.26f, 0, 360, 14);
  glyph_arc(&glyphs[9], 0.5f, 0.3f, 0.3f, 0.28f, 0, 360, 14);
  { const float p[] = {0.8f, 0.32f, 0.62f, 0.7f, 0.3f, 1.0f}; glyph_line(&glyphs[9], p, 3); }
}

static float seg_dist2(float px, float py, const float* s) {
  float dx = s[2] - s[0], dy = s[3] - s[1];
  float len2 = dx * dx + dy * dy, t = 0.0f;
  if (len2 > 0.0f) t = ((px - s[0]) * dx + (py - s[1]) * dy) / len2;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  float ex = s[0] + t * dx - px, ey = s[1] + t * dy - py;
  return ex * ex + ey * ey;
}

/* draws one random instance of digit 'cls' into img[IMG*IMG], values about in [-0.3, 1.5] */
static void draw_digit(int cls, float* img) {
  const Glyph* g = &glyphs[cls];
  const double height = rng_range(9.0, 13.0), width = height * rng_range(0.55, 0.8);
  const double angle = rng_range(-0.25, 0.25), shear = rng_range(-0.25, 0.25);
  const double cx = IMG / 2.0 + rng_range(-2.0, 2.0), cy = IMG / 2.0 + rng_range(-1.5, 1.5);
  const double thick = rng_range(0.5, 1.3), noise = rng_range(0.05, 0.25);
  const double ca = cos(angle), sa = sin(angle);
  float segs[48][4];
  for (int i = 0; i < g->n; ++i) /* unit box -> pixels: center, scale, shear, rotate, shift */
    for (int e = 0; e < 2; ++e) {
      double u = (g->seg[i][2 * e] - 0.5) * width, v = (g->seg[i][2 * e + 1] - 0.5) * height;
      u += shear * v;
      segs[i][2 * e] = (float)(cx + ca * u - sa * v);
      segs[i][2 * e + 1] = (float)(cy + sa * u + ca * v);
    }
  for (int y = 0; y < IMG; ++y)
    for (int x = 0; x < IMG; ++x) {
      float best = 1e30f;
      for (int i = 0; i < g->n; ++i) {
        float d = seg_dist2((float)x + 0.5f, (float)y + 0.5f, segs[i]);
        if (d < best) best = d;
      }
      double ink = 1.0 - (sqrt(best) - thick); /* one pixel of anti-aliasing */
      ink = ink < 0.0 ? 0.0 : (ink > 1.0 ? 1.0 : ink);
      img[y * IMG + x] = (float)(ink + noise * rng_normal() - 0.2);
    }
  for (int k = rng_u32() % 3; k > 0; --k) img[rng_u32() % (IMG * IMG)] += 0.8f; /* specks */
}

typedef struct {
  int count;
  float* images; /* host, count * IMG * IMG */
  int* labels;
} DataSet;

static DataSet make_dataset(int count) {
  DataSet d;
  d.count = count;
  d.images = malloc((size_t)count * IMG * IMG * sizeof(float));
  d.labels = malloc((size_t)count * sizeof(int));
  for (int i = 0; i < count; ++i) {
    d.labels[i] = (int)(rng_u32() % CLASSES);
    draw_digit(d.labels[i], d.images + (size_t)i * IMG * IMG);
  }
  return d;
}

/* ---------------------------------------------------------------- tensors and parameters */
typedef struct {
  int n, c, h, w;
  cudnnTensorDescriptor_t desc;
  float *x, *dx; /* value and gradient, device memory */
} Tensor;

static Tensor tensor(int n, int c, int h, int w) {
  Tensor t = {n, c, h, w, NULL, NULL, NULL};
  size_t bytes = (size_t)n * c * h * w * sizeof(float);
  CHECK(cudnnCreateTensorDescriptor(&t.desc));
  CHECK(cudnnSetTensor4dDescriptor(t.desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  t.x = dev_alloc(bytes);
  t.dx = dev_alloc(bytes);
  return t;
}
static void tensor_free(Tensor* t) {
  cudnnDestroyTensorDescriptor(t->desc);
  dev_free(t->x);
  dev_free(t->dx);
}

/* a learnable array: value, gradient, momentum; 'flat' describes it as 1 x count x 1 x 1 for the updates */
typedef struct {
  int count, decay;
  float *w, *g, *v;
  cudnnTensorDescriptor_t flat;
} Param;

enum { MAX_PARAMS = 16 };
static Param* params[MAX_PARAMS];
static int nparams;

static void param_init(cudnnHandle_t h, Param* p, int count, int decay, double init_std, float init_value) {
  float* host = malloc((size_t)count * sizeof(float));
  for (int i = 0; i < count; ++i) host[i] = init_std > 0.0 ? (float)(init_std * rng_normal()) : init_value;
  p->count = count;
  p->decay = decay;
  p->w = dev_alloc((size_t)count * sizeof(float));
  p->g = dev_alloc((size_t)count * sizeof(float));
  p->v = dev_alloc((size_t)count * sizeof(float));
  dev_copy(p->w, host, (size_t)count * sizeof(float), TO_DEVICE);
  free(host);
  CHECK(cudnnCreateTensorDescriptor(&p->flat));
  CHECK(cudnnSetTensor4dDescriptor(p->flat, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, count, 1, 1));
  CHECK(cudnnSetTensor(h, p->flat, p->v, &ZERO));
  params[nparams++] = p;
}
static void param_free(Param* p) {
  cudnnDestroyTensorDescriptor(p->flat);
  dev_free(p->w);
  dev_free(p->g);
  dev_free(p->v);
}

/* SGD with momentum and L2 decay: g += decay*w; v = momentum*v - lr*g; w += v */
static void sgd_step(cudnnHandle_t h, float lr, float momentum, float weight_decay) {
  const float neg_lr = -lr;
  for (int i = 0; i < nparams; ++i) {
    Param* p = params[i];
    if (p->decay) CHECK(cudnnAddTensor(h, &weight_decay, p->flat, p->w, &ONE, p->flat, p->g));
    CHECK(cudnnAddTensor(h, &neg_lr, p->flat, p->g, &momentum, p->flat, p->v));
    CHECK(cudnnAddTensor(h, &ONE, p->flat, p->v, &ONE, p->flat, p->w));
  }
}

/* ---------------------------------------------------------------- convolution layer (+ optional bias) */
typedef struct {
  const char* name;
  cudnnFilterDescriptor_t wDesc;
  cudnnConvolutionDescriptor_t conv;
  cudnnTensorDescriptor_t biasDesc;
  cudnnConvolutionFwdAlgo_t fwd;
  cudnnConvolutionBwdDataAlgo_t bwd_data;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter;
  int has_bias, need_dx;
  Param W, B;
} Conv;

static size_t workspace_bytes;

/* sets up the layer for in -> out (out's shape must be what the convolution produces) and picks algorithms */
static void conv_init(cudnnHandle_t h, Conv* L, const char* name, const Tensor* in, const Tensor* out, int r,
                      int pad, int has_bias, int need_dx) {
  int n, c, oh, ow, count, i;
  size_t ws;
  L->name = name;
  L->has_bias = has_bias;
  L->need_dx = need_dx;
  CHECK(cudnnCreateFilterDescriptor(&L->wDesc));
  CHECK(cudnnSetFilter4dDescriptor(L->wDesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, out->c, in->c, r, r));
  CHECK(cudnnCreateConvolutionDescriptor(&L->conv));
  CHECK(cudnnSetConvolution2dDescriptor(L->conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CHECK(cudnnGetConvolution2dForwardOutputDim(L->conv, in->desc, L->wDesc, &n, &c, &oh, &ow));
  if (n != out->n || c != out->c || oh != out->h || ow != out->w) {
    fprintf(stderr, "%s: output %dx%dx%dx%d, expected %dx%dx%dx%d\n", name, n, c, oh, ow, out->n, out->c, out->h,
            out->w);
    exit(2);
  }
  param_init(h, &L->W, out->c * in->c * r * r, 1, sqrt(2.0 / (in->c * r * r)), 0.0f); /* He init */
  if (has_bias) {
    param_init(h, &L->B, out->c, 0, 0.0, 0.0f);
    CHECK(cudnnCreateTensorDescriptor(&L->biasDesc));
    CHECK(cudnnSetTensor4dDescriptor(L->biasDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, out->c, 1, 1));
  }

  /* algorithms: the first one the library ranks as usable, and its workspace */
  {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, in->desc, L->wDesc, L->conv, out->desc,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
    for (i = 0; i < count && perf[i].status != CUDNN_STATUS_SUCCESS; ++i) {}
    if (i == count) { fprintf(stderr, "%s: no forward algorithm\n", name); exit(2); }
    L->fwd = perf[i].algo;
    CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, in->desc, L->wDesc, L->conv, out->desc, L->fwd, &ws));
    if (ws > workspace_bytes) workspace_bytes = ws;
  }
  {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, in->desc, out->desc, L->conv, L->wDesc,
                                                        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf));
    for (i = 0; i < count && perf[i].status != CUDNN_STATUS_SUCCESS; ++i) {}
    if (i == count) { fprintf(stderr, "%s: no backward filter algorithm\n", name); exit(2); }
    L->bwd_filter = perf[i].algo;
    CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, in->desc, out->desc, L->conv, L->wDesc, L->bwd_filter,
                                                         &ws));
    if (ws > workspace_bytes) workspace_bytes = ws;
  }
  if (need_dx) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, L->wDesc, out->desc, L->conv, in->desc,
                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf));
    for (i = 0; i < count && perf[i].status != CUDNN_STATUS_SUCCESS; ++i) {}
    if (i == count) { fprintf(stderr, "%s: no backward data algorithm\n", name); exit(2); }
    L->bwd_data = perf[i].algo;
    CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, L->wDesc, out->desc, L->conv, in->desc, L->bwd_data, &ws));
    if (ws > workspace_bytes) workspace_bytes = ws;
  }
  printf("  %-6s %2dx%2dx%2d -> %2dx%2dx%2d  filter %dx%d%s  algos fwd %d, bwd filter %d, bwd data ", name, in->c,
         in->h, in->w, out->c, out->h, out->w, r, r, has_bias ? " + bias" : "       ", (int)L->fwd,
         (int)L->bwd_filter);
  if (need_dx) printf("%d\n", (int)L->bwd_data);
  else printf("-\n");
}

static void conv_forward(cudnnHandle_t h, Conv* L, const Tensor* in, Tensor* out, void* ws) {
  CHECK(cudnnConvolutionForward(h, &ONE, in->desc, in->x, L->wDesc, L->W.w, L->conv, L->fwd, ws, workspace_bytes,
                                &ZERO, out->desc, out->x));
  if (L->has_bias) CHECK(cudnnAddTensor(h, &ONE, L->biasDesc, L->B.w, &ONE, out->desc, out->x));
}

static void conv_backward(cudnnHandle_t h, Conv* L, Tensor* in, const Tensor* out, void* ws) {
  if (L->has_bias) CHECK(cudnnConvolutionBackwardBias(h, &ONE, out->desc, out->dx, &ZERO, L->biasDesc, L->B.g));
  CHECK(cudnnConvolutionBackwardFilter(h, &ONE, in->desc, in->x, out->desc, out->dx, L->conv, L->bwd_filter, ws,
                                       workspace_bytes, &ZERO, L->wDesc, L->W.g));
  if (L->need_dx)
    CHECK(cudnnConvolutionBackwardData(h, &ONE, L->wDesc, L->W.w, out->desc, out->dx, L->conv, L->bwd_data, ws,
                                       workspace_bytes, &ZERO, in->desc, in->dx));
}

static void conv_free(Conv* L) {
  cudnnDestroyFilterDescriptor(L->wDesc);
  cudnnDestroyConvolutionDescriptor(L->conv);
  param_free(&L->W);
  if (L->has_bias) {
    cudnnDestroyTensorDescriptor(L->biasDesc);
    param_free(&L->B);
  }
}

/* ---------------------------------------------------------------- the network */
typedef struct {
  Tensor x, c1, a1, p1, c2, b2, a2, p2, f1, g1, logits, logp;
  Conv conv1, conv2, fc1, fc2;
  Param gamma, beta;
  cudnnTensorDescriptor_t bnDesc;
  float *run_mean, *run_var, *save_mean, *save_invvar;
  cudnnActivationDescriptor_t relu;
  cudnnPoolingDescriptor_t pool;
  void* ws;
} Net;

static const double BN_EPS = 1e-5;

static void net_init(cudnnHandle_t h, Net* m) {
  const int n = BATCH;
  m->x = tensor(n, 1, IMG, IMG);
  m->c1 = tensor(n, 8, IMG, IMG);
  m->a1 = tensor(n, 8, IMG, IMG);
  m->p1 = tensor(n, 8, IMG / 2, IMG / 2);
  m->c2 = tensor(n, 16, IMG / 2, IMG / 2);
  m->b2 = tensor(n, 16, IMG / 2, IMG / 2);
  m->a2 = tensor(n, 16, IMG / 2, IMG / 2);
  m->p2 = tensor(n, 16, IMG / 4, IMG / 4);
  m->f1 = tensor(n, 64, 1, 1);
  m->g1 = tensor(n, 64, 1, 1);
  m->logits = tensor(n, CLASSES, 1, 1);
  m->logp = tensor(n, CLASSES, 1, 1);

  printf("network (batch %d):\n", n);
  conv_init(h, &m->conv1, "conv1", &m->x, &m->c1, 5, 2, 1, 0);
  conv_init(h, &m->conv2, "conv2", &m->p1, &m->c2, 3, 1, 0, 1); /* no bias: batch norm follows */
  conv_init(h, &m->fc1, "fc1", &m->p2, &m->f1, IMG / 4, 0, 1, 1);
  conv_init(h, &m->fc2, "fc2", &m->g1, &m->logits, 1, 0, 1, 1);
  printf("  conv1: ReLU, 2x2 max pool; conv2: batch norm, ReLU, 2x2 max pool; fc1: ReLU; fc2: log softmax\n");
  printf("  workspace %zu bytes\n", workspace_bytes);
  m->ws = dev_alloc(workspace_bytes);

  CHECK(cudnnCreateTensorDescriptor(&m->bnDesc));
  CHECK(cudnnDeriveBNTensorDescriptor(m->bnDesc, m->c2.desc, CUDNN_BATCHNORM_SPATIAL));
  param_init(h, &m->gamma, m->c2.c, 0, 0.0, 1.0f);
  param_init(h, &m->beta, m->c2.c, 0, 0.0, 0.0f);
  m->run_mean = dev_alloc(m->c2.c * sizeof(float));
  m->run_var = dev_alloc(m->c2.c * sizeof(float));
  m->save_mean = dev_alloc(m->c2.c * sizeof(float));
  m->save_invvar = dev_alloc(m->c2.c * sizeof(float));
  CHECK(cudnnSetTensor(h, m->bnDesc, m->run_mean, &ZERO));
  CHECK(cudnnSetTensor(h, m->bnDesc, m->run_var, &ONE));

  CHECK(cudnnCreateActivationDescriptor(&m->relu));
  CHECK(cudnnSetActivationDescriptor(m->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  CHECK(cudnnCreatePoolingDescriptor(&m->pool));
  CHECK(cudnnSetPooling2dDescriptor(m->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
}

static void net_free(Net* m) {
  Tensor* ts[] = {&m->x, &m->c1, &m->a1, &m->p1, &m->c2, &m->b2, &m->a2, &m->p2, &m->f1, &m->g1, &m->logits, &m->logp};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; ++i) tensor_free(ts[i]);
  conv_free(&m->conv1);
  conv_free(&m->conv2);
  conv_free(&m->fc1);
  conv_free(&m->fc2);
  param_free(&m->gamma);
  param_free(&m->beta);
  cudnnDestroyTensorDescriptor(m->bnDesc);
  dev_free(m->run_mean);
  dev_free(m->run_var);
  dev_free(m->save_mean);
  dev_free(m->save_invvar);
  cudnnDestroyActivationDescriptor(m->relu);
  cudnnDestroyPoolingDescriptor(m->pool);
  dev_free(m->ws);
}

static void relu_fwd(cudnnHandle_t h, Net* m, const Tensor* in, Tensor* out) {
  CHECK(cudnnActivationForward(h, m->relu, &ONE, in->desc, in->x, &ZERO, out->desc, out->x));
}
static void relu_bwd(cudnnHandle_t h, Net* m, Tensor* in, const Tensor* out) {
  CHECK(cudnnActivationBackward(h, m->relu, &ONE, out->desc, out->x, out->desc, out->dx, in->desc, in->x, &ZERO,
                                in->desc, in->dx));
}
static void pool_fwd(cudnnHandle_t h, Net* m, const Tensor* in, Tensor* out) {
  CHECK(cudnnPoolingForward(h, m->pool, &ONE, in->desc, in->x, &ZERO, out->desc, out->x));
}
static void pool_bwd(cudnnHandle_t h, Net* m, Tensor* in, const Tensor* out) {
  CHECK(cudnnPoolingBackward(h, m->pool, &ONE, out->desc, out->x, out->desc, out->dx, in->desc, in->x, &ZERO,
                             in->desc, in->dx));
}

/* forward pass of the batch in m->x; training uses batch statistics and updates the running ones */
static void net_forward(cudnnHandle_t h, Net* m, int training, double bn_factor) {
  conv_forward(h, &m->conv1, &m->x, &m->c1, m->ws);
  relu_fwd(h, m, &m->c1, &m->a1);
  pool_fwd(h, m, &m->a1, &m->p1);
  conv_forward(h, &m->conv2, &m->p1, &m->c2, m->ws);
  if (training)
    CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &ONE, &ZERO, m->c2.desc, m->c2.x,
                                                 m->b2.desc, m->b2.x, m->bnDesc, m->gamma.w, m->beta.w, bn_factor,
                                                 m->run_mean, m->run_var, BN_EPS, m->save_mean, m->save_invvar));
  else
    CHECK(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &ONE, &ZERO, m->c2.desc, m->c2.x,
                                                  m->b2.desc, m->b2.x, m->bnDesc, m->gamma.w, m->beta.w,
                                                  m->run_mean, m->run_var, BN_EPS));
  relu_fwd(h, m, &m->b2, &m->a2);
  pool_fwd(h, m, &m->a2, &m->p2);
  conv_forward(h, &m->fc1, &m->p2, &m->f1, m->ws);
  relu_fwd(h, m, &m->f1, &m->g1);
  conv_forward(h, &m->fc2, &m->g1, &m->logits, m->ws);
  CHECK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &ONE, m->logits.desc, m->logits.x,
                            &ZERO, m->logp.desc, m->logp.x));
}

/* backward pass; m->logp.dx holds d(loss)/d(log p) */
static void net_backward(cudnnHandle_t h, Net* m) {
  /* log softmax backward turns -onehot/N into (p - onehot)/N, the cross-entropy gradient of the logits */
  CHECK(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &ONE, m->logp.desc, m->logp.x,
                             m->logp.desc, m->logp.dx, &ZERO, m->logits.desc, m->logits.dx));
  conv_backward(h, &m->fc2, &m->g1, &m->logits, m->ws);
  relu_bwd(h, m, &m->f1, &m->g1);
  conv_backward(h, &m->fc1, &m->p2, &m->f1, m->ws);
  pool_bwd(h, m, &m->a2, &m->p2);
  relu_bwd(h, m, &m->b2, &m->a2);
  CHECK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &ONE, &ZERO, &ONE, &ZERO, m->c2.desc, m->c2.x,
                                        m->b2.desc, m->b2.dx, m->c2.desc, m->c2.dx, m->bnDesc, m->gamma.w,
                                        m->gamma.g, m->beta.g, BN_EPS, m->save_mean, m->save_invvar));
  conv_backward(h, &m->conv2, &m->p1, &m->c2, m->ws);
  pool_bwd(h, m, &m->a1, &m->p1);
  relu_bwd(h, m, &m->c1, &m->a1);
  conv_backward(h, &m->conv1, &m->x, &m->c1, m->ws);
}

/* ---------------------------------------------------------------- driver */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* loss and correct count of the batch whose labels are given, from m->logp */
static double batch_stats(Net* m, const int* labels, float* host_logp, int* correct) {
  double loss = 0.0;
  dev_copy(host_logp, m->logp.x, (size_t)BATCH * CLASSES * sizeof(float), TO_HOST);
  for (int i = 0; i < BATCH; ++i) {
    const float* row = host_logp + i * CLASSES;
    int best = 0;
    for (int k = 1; k < CLASSES; ++k)
      if (row[k] > row[best]) best = k;
    *correct += best == labels[i];
    loss -= row[labels[i]];
  }
  return loss;
}

static double evaluate(cudnnHandle_t h, Net* m, const DataSet* d, float* host_logp) {
  int correct = 0, batches = d->count / BATCH;
  for (int b = 0; b < batches; ++b) {
    dev_copy(m->x.x, d->images + (size_t)b * BATCH * IMG * IMG, (size_t)BATCH * IMG * IMG * sizeof(float),
             TO_DEVICE);
    net_forward(h, m, 0, 0.0);
    batch_stats(m, d->labels + b * BATCH, host_logp, &correct);
  }
  return 100.0 * correct / (batches * BATCH);
}

static void usage(const char* prog) {
  fprintf(stderr,
          "usage: %s [--epochs N] [--seed S] [--threads T] [--min-accuracy PERCENT] [--train N] [--test N]\n",
          prog);
  exit(2);
}

int main(int argc, char** argv) {
  int epochs = 4, threads = 0, train_count = 8192, test_count = 2048;
  unsigned long long seed = 1;
  double min_accuracy = 80.0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (i + 1 >= argc) usage(argv[0]);
    if (!strcmp(a, "--epochs")) epochs = atoi(argv[++i]);
    else if (!strcmp(a, "--seed")) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--threads")) threads = atoi(argv[++i]);
    else if (!strcmp(a, "--min-accuracy")) min_accuracy = atof(argv[++i]);
    else if (!strcmp(a, "--train")) train_count = atoi(argv[++i]);
    else if (!strcmp(a, "--test")) test_count = atoi(argv[++i]);
    else usage(argv[0]);
  }
  if (epochs < 1 || train_count < BATCH || test_count < BATCH) usage(argv[0]);

  /* The OpenMP runtime reads its environment when it loads, before main: to change it, the program runs itself
   * again with the new environment. Threads sleep rather than spin while they wait (OMP_WAIT_POLICY=passive,
   * unless set): spinning costs little on an idle machine but is ten times slower on a busy one. */
  {
    int restart = 0;
    if (!getenv("OMP_WAIT_POLICY")) {
      setenv("OMP_WAIT_POLICY", "passive", 1);
      restart = 1;
    }
    if (threads > 0) {
      char want[32];
      const char* have = getenv("OMP_NUM_THREADS");
      snprintf(want, sizeof want, "%d", threads);
      if (!have || strcmp(have, want) != 0) {
        setenv("OMP_NUM_THREADS", want, 1);
        restart = 1;
      }
    }
    if (restart) {
      fflush(stdout);
      execv("/proc/self/exe", argv);
      fprintf(stderr, "warning: could not restart with the OpenMP settings; using the defaults\n");
    }
  }
  choose_memory();

  cudnnHandle_t h;
  CHECK(cudnnCreate(&h));
  printf("lenet_train: cuDNN API version %zu, backend %s, OMP_NUM_THREADS %s, seed %llu\n", cudnnGetVersion(),
         getenv("FREEDNN_BACKEND"), getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "unset", seed);

  rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
  make_glyphs();
  double t0 = now_s();
  DataSet train = make_dataset(train_count), test = make_dataset(test_count);
  printf("data: %d training and %d test images of %dx%d digits, drawn in %.2f s\n", train.count, test.count, IMG,
         IMG, now_s() - t0);

  Net m;
  net_init(h, &m);

  float* host_logp = malloc((size_t)BATCH * CLASSES * sizeof(float));
  float* host_dlogp = malloc((size_t)BATCH * CLASSES * sizeof(float));
  int* order = malloc((size_t)train.count * sizeof(int));
  int* batch_labels = malloc(BATCH * sizeof(int));
  float* batch_images = malloc((size_t)BATCH * IMG * IMG * sizeof(float));
  for (int i = 0; i < train.count; ++i) order[i] = i;

  const int batches = train.count / BATCH;
  const float momentum = 0.9f, weight_decay = 5e-4f;
  double test_acc = 0.0, t_start = now_s();
  long long step = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    /* learning rate: short warm-up, then cosine decay over the run */
    double loss = 0.0, t_epoch = now_s();
    int correct = 0;
    for (int i = train.count - 1; i > 0; --i) { /* shuffle */
      int j = (int)(rng_u32() % (unsigned)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int b = 0; b < batches; ++b, ++step) {
      const double progress = (double)step / ((double)epochs * batches);
      const float lr = (float)(0.05 * (step < 50 ? (step + 1) / 50.0 : 1.0) * 0.5 * (1.0 + cos(3.14159265 * progress)));
      for (int i = 0; i < BATCH; ++i) {
        int k = order[b * BATCH + i];
        batch_labels[i] = train.labels[k];
        memcpy(batch_images + (size_t)i * IMG * IMG, train.images + (size_t)k * IMG * IMG,
               IMG * IMG * sizeof(float));
      }
      dev_copy(m.x.x, batch_images, (size_t)BATCH * IMG * IMG * sizeof(float), TO_DEVICE);
      net_forward(h, &m, 1, 0.1);
      loss += batch_stats(&m, batch_labels, host_logp, &correct);
      /* loss = -mean(log p[label]): its gradient with respect to log p is -onehot / N */
      memset(host_dlogp, 0, (size_t)BATCH * CLASSES * sizeof(float));
      for (int i = 0; i < BATCH; ++i) host_dlogp[i * CLASSES + batch_labels[i]] = -1.0f / BATCH;
      dev_copy(m.logp.dx, host_dlogp, (size_t)BATCH * CLASSES * sizeof(float), TO_DEVICE);
      net_backward(h, &m);
      sgd_step(h, lr, momentum, weight_decay);
    }
    double train_s = now_s() - t_epoch;
    test_acc = evaluate(h, &m, &test, host_logp);
    printf("epoch %2d/%d  loss %.4f  train accuracy %5.1f%%  test accuracy %5.1f%%  %6.0f images/s  (%.1f s)\n",
           epoch, epochs, loss / (batches * BATCH), 100.0 * correct / (batches * BATCH), test_acc,
           batches * BATCH / train_s, now_s() - t_epoch);
    fflush(stdout);
  }
  printf("trained %d epochs in %.1f s; final test accuracy %.1f%% (threshold %.1f%%): %s\n", epochs,
         now_s() - t_start, test_acc, min_accuracy, test_acc >= min_accuracy ? "PASSED" : "FAILED");

  free(host_logp);
  free(host_dlogp);
  free(order);
  free(batch_labels);
  free(batch_images);
  free(train.images);
  free(train.labels);
  free(test.images);
  free(test.labels);
  net_free(&m);
  CHECK(cudnnDestroy(h));
  return test_acc >= min_accuracy ? 0 : 1;
}
