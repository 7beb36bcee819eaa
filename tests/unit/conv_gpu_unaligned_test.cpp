// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolutions whose data pointers sit one element past a cudaMalloc'd base (2 bytes for 16-bit data, 4 for float),
// as a sliced tensor's do. The tensor-core implementations that need 16-byte aligned operands (TMA, 16-byte
// cp.async, vector loads) decline such pointers before they queue anything, and the call runs on another
// implementation of the same algorithm (conv::settle), on the caller's workspace or else the handle's scratch; before
// that, such calls returned NOT_SUPPORTED wherever a CUTLASS or halo kernel was the choice. ResNet-like 3x3 and 1x1
// layers (stride 1 and 2) in f16 NHWC and float (TF32 allowed) NCHW and NHWC, every direction with the algorithms
// frameworks run (IMPLICIT_PRECOMP_GEMM, BWD_DATA_ALGO_1, BWD_FILTER_ALGO_1), the workspace the query asks for;
// the fused forward with z and bias at odd offsets too; and a FindEx on such pointers, which must not record its
// fallback as what the algorithm means for the problem. Default dispatch (no implementation forced). GPU suite only.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#ifdef FT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <freednn.h>

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::Problem;
using ft_conv::Shape;

#define SKIP_UNLESS_GPU() \
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU suite only (FREEDNN_BACKEND=cuda)"

#ifdef FT_WITH_CUDA

constexpr auto kFwd = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr auto kBwdData = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr auto kBwdFilter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

// TF32 products keep 10 mantissa bits: the bound of the other TF32 tests (conv_gpu_sm90_test.cpp), relative to the
// largest reference magnitude. 16-bit outputs: twice the type's rounding (float sums of a few thousand terms).
constexpr double kTf32Tol = 5e-3;
double tol16() { return ft::tolerance(CUDNN_DATA_HALF) * 2; }

// ResNet-50's layer kinds, N and planes cut down for the double reference; C and K multiples of 8 and 32, so that
// the tensor-core kernels (and the halo backward filter, for the 3x3) accept the problems and the pointers decide.
std::vector<Shape> layers() {
  return {
      {"3x3", 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"1x1", 2, 64, 256, 1, {14, 14}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"3x3s2", 2, 64, 128, 1, {14, 14}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"1x1s2", 2, 128, 64, 1, {14, 14}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
}

// A device copy of t's bytes `shift` bytes past a cudaMalloc'd base (which is 256-byte aligned): the odd offset.
class OddCopy {
 public:
  OddCopy(const ft::HostTensor& t, size_t shift) : shift_(shift), bytes_(t.bytes.size()) {
    if (cudaMalloc(&base_, bytes_ + 16) != cudaSuccess) {
      base_ = nullptr;
      return;
    }
    ft::sync_device();  // t lives in managed memory: the device's last writes first
    ok_ = cudaMemcpy(ptr(), t.data(), bytes_, cudaMemcpyDefault) == cudaSuccess;
  }
  ~OddCopy() {
    if (base_ != nullptr) (void)cudaFree(base_);
  }
  OddCopy(const OddCopy&) = delete;
  OddCopy& operator=(const OddCopy&) = delete;
  bool ok() const { return ok_; }
  void* ptr() const { return static_cast<char*>(base_) + shift_; }
  // Back into t (after the library's work on the handle's stream is done).
  bool copy_to(ft::HostTensor& t) const {
    ft::sync_device();
    return cudaMemcpy(t.data(), ptr(), bytes_, cudaMemcpyDefault) == cudaSuccess;
  }

 private:
  void* base_ = nullptr;
  size_t shift_, bytes_;
  bool ok_ = false;
};

// The workspace a caller allocates for the size the query gave (cudaMalloc'd: aligned).
class Workspace {
 public:
  explicit Workspace(size_t bytes) : size_(bytes) {
    if (bytes > 0 && cudaMalloc(&p_, bytes) != cudaSuccess) p_ = nullptr;
  }
  ~Workspace() {
    if (p_ != nullptr) (void)cudaFree(p_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  bool ok() const { return size_ == 0 || p_ != nullptr; }
  void* ptr() const { return p_; }
  size_t size() const { return size_; }

 private:
  void* p_ = nullptr;
  size_t size_;
};

ref::Tensor as_ref(const ft::HostTensor& t) { return ft_conv_check::as_ref(t); }

// Each direction of p with every operand one element past its base, the output poisoned (beta 0) or random prior
// data blended (beta != 0), against the double reference. p's data type is half or float (float scales).
void check_odd(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta, double tol) {
  const size_t shift = ft::type_size(p.dt);
  const std::string what = p.str() + " shift=" + std::to_string(shift) + " alpha=" + std::to_string(alpha) +
                           " beta=" + std::to_string(beta);
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);

  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  std::vector<double> prior = ft_conv_check::output_before(p.y, rng, beta);
  {
    size_t ws = 0;
    ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, kFwd, &ws), CUDNN_STATUS_SUCCESS)
        << what;
    Workspace buf(ws);
    OddCopy x(p.x, shift), w(p.w, shift), y(p.y, shift);
    ASSERT_TRUE(buf.ok() && x.ok() && w.ok() && y.ok()) << what;
    ASSERT_EQ(cudnnConvolutionForward(h, &af, p.xd, x.ptr(), p.wd, w.ptr(), p.cd, kFwd, buf.ptr(), ws, &bf, p.yd,
                                      y.ptr()),
              CUDNN_STATUS_SUCCESS)
        << "fwd " << what;
    ASSERT_TRUE(y.copy_to(p.y)) << what;
  }
  const auto yref = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
  EXPECT_TRUE(ft::near(p.y.values(), ref::blend(yref.v, prior, alpha, beta), tol, "fwd y: " + what));

  p.y.fill_uniform(rng, -1, 1);  // dy
  p.w.fill_uniform(rng, -1, 1);
  prior = ft_conv_check::output_before(p.x, rng, beta);
  {
    size_t ws = 0;
    ASSERT_EQ(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd, kBwdData, &ws),
              CUDNN_STATUS_SUCCESS)
        << what;
    Workspace buf(ws);
    OddCopy w(p.w, shift), dy(p.y, shift), dx(p.x, shift);
    ASSERT_TRUE(buf.ok() && w.ok() && dy.ok() && dx.ok()) << what;
    ASSERT_EQ(cudnnConvolutionBackwardData(h, &af, p.wd, w.ptr(), p.yd, dy.ptr(), p.cd, kBwdData, buf.ptr(), ws, &bf,
                                           p.xd, dx.ptr()),
              CUDNN_STATUS_SUCCESS)
        << "bwd_data " << what;
    ASSERT_TRUE(dx.copy_to(p.x)) << what;
  }
  const auto dxref = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
  EXPECT_TRUE(ft::near(p.x.values(), ref::blend(dxref.v, prior, alpha, beta), tol, "bwd_data dx: " + what));

  p.x.fill_uniform(rng, -1, 1);
  p.y.fill_uniform(rng, -1, 1);  // dy
  prior = ft_conv_check::output_before(p.w, rng, beta);
  {
    size_t ws = 0;
    ASSERT_EQ(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd, kBwdFilter, &ws),
              CUDNN_STATUS_SUCCESS)
        << what;
    Workspace buf(ws);
    OddCopy x(p.x, shift), dy(p.y, shift), dw(p.w, shift);
    ASSERT_TRUE(buf.ok() && x.ok() && dy.ok() && dw.ok()) << what;
    ASSERT_EQ(cudnnConvolutionBackwardFilter(h, &af, p.xd, x.ptr(), p.yd, dy.ptr(), p.cd, kBwdFilter, buf.ptr(), ws,
                                             &bf, p.wd, dw.ptr()),
              CUDNN_STATUS_SUCCESS)
        << "bwd_filter " << what;
    ASSERT_TRUE(dw.copy_to(p.w)) << what;
  }
  const auto dwref = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
  EXPECT_TRUE(ft::near(p.w.values(), ref::blend(dwref.v, prior, alpha, beta), tol, "bwd_filter dw: " + what));
}

#endif  // FT_WITH_CUDA

TEST(ConvGpuUnaligned, EveryDirectionF16Nhwc) {
  SKIP_UNLESS_GPU();
#ifdef FT_WITH_CUDA
  ft::Handle h;
  auto rng = ft::make_rng();
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  int i = 0;
  for (const Shape& s : layers()) {
    const bool blend = i++ % 2 == 1;
    Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
    if (major == 9 && minor == 0) {  // on an H100 / H200 the aligned call runs a TMA kernel: the odd one must not
      char id[128] = {};
      ASSERT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, kFwd, id, sizeof id),
                CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(std::strncmp(id, "cuda:cutlass_sm90", 17), 0)
          << s.name << ": the aligned forward runs " << id << ", so this case no longer tests the hand-over";
    }
    check_odd(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0, tol16());
  }
#endif
}

// Float data with TF32 allowed (the fixture sets CUDNN_FMA_MATH for float in GPU mode): NCHW (the sm90 kernels stage
// every operand, so they take the pointers) and NHWC (in place: they must hand the call on).
TEST(ConvGpuUnaligned, EveryDirectionTf32) {
  SKIP_UNLESS_GPU();
#ifdef FT_WITH_CUDA
  ft::Handle h;
  auto rng = ft::make_rng();
  const std::vector<Shape> all = layers();
  for (bool nhwc : {false, true}) {
    for (const Shape& s : {all[0], all[1]}) {
      Problem p(s, CUDNN_DATA_FLOAT, nhwc, false, false, rng);
      ASSERT_EQ(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH), CUDNN_STATUS_SUCCESS);
      check_odd(h, p, rng, 1.0, nhwc ? 0.5 : 0.0, kTf32Tol);
    }
  }
#endif
}

// The data aligned, the workspace 4 bytes off a cudaMalloc'd base (the size the query gave, plus the 4 bytes):
// kernels that write 16-byte partial sums there (halo_wgrad, patch_wgrad) hand the call on instead of failing.
TEST(ConvGpuUnaligned, BackwardFilterWorkspaceOffset) {
  SKIP_UNLESS_GPU();
#ifdef FT_WITH_CUDA
  ft::Handle h;
  auto rng = ft::make_rng();
  for (const Shape& s : layers()) {
    Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
    const std::string what = p.str() + " workspace+4";
    p.x.fill_uniform(rng, -1, 1);
    p.y.fill_uniform(rng, -1, 1);  // dy
    p.w.poison();
    size_t ws = 0;
    ASSERT_EQ(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd, kBwdFilter, &ws),
              CUDNN_STATUS_SUCCESS)
        << what;
    Workspace buf(ws + 4);
    ASSERT_TRUE(buf.ok()) << what;
    const float one = 1.f, zero = 0.f;
    ASSERT_EQ(cudnnConvolutionBackwardFilter(h, &one, p.xd, p.x.data(), p.yd, p.y.data(), p.cd, kBwdFilter,
                                             static_cast<char*>(buf.ptr()) + 4, ws, &zero, p.wd, p.w.data()),
              CUDNN_STATUS_SUCCESS)
        << what;
    ft::sync_device();
    const auto dwref = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
    EXPECT_TRUE(ft::near(p.w.values(), dwref.v, tol16(), "bwd_filter dw: " + what));
  }
#endif
}

// cudnnConvolutionBiasActivationForward with x, w, z, bias and y one element off: y = relu(alpha1 conv + alpha2 z +
// bias), z a tensor of its own or y itself.
TEST(ConvGpuUnaligned, FusedBiasReluF16) {
  SKIP_UNLESS_GPU();
#ifdef FT_WITH_CUDA
  ft::Handle h;
  auto rng = ft::make_rng();
  cudnnActivationDescriptor_t act = nullptr;
  ASSERT_EQ(cudnnCreateActivationDescriptor(&act), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
            CUDNN_STATUS_SUCCESS);
  const std::vector<Shape> all = layers();
  const size_t shift = 2;
  for (const Shape& s : {all[0], all[1]}) {
    for (bool z_is_y : {false, true}) {
      Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
      const std::string what = p.str() + (z_is_y ? " z=y" : " z") + " shift=2";
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      ft::HostTensor z = p.y, bias(CUDNN_DATA_HALF, {1, s.k, 1, 1}, false);
      z.fill_uniform(rng, -1, 1);
      bias.fill_uniform(rng, -1, 1);
      if (z_is_y) p.y = z;  // y holds z's values before the call
      else p.y.poison();
      ft::TensorDesc zd(z), bd(bias);
      const float a1 = 0.75f, a2 = -0.5f;
      {
        size_t ws = 0;
        ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, kFwd, &ws), CUDNN_STATUS_SUCCESS)
            << what;
        Workspace buf(ws);
        OddCopy x(p.x, shift), w(p.w, shift), zc(z, shift), b(bias, shift), y(p.y, shift);
        ASSERT_TRUE(buf.ok() && x.ok() && w.ok() && zc.ok() && b.ok() && y.ok()) << what;
        ASSERT_EQ(cudnnConvolutionBiasActivationForward(h, &a1, p.xd, x.ptr(), p.wd, w.ptr(), p.cd, kFwd, buf.ptr(), ws,
                                                        &a2, zd, z_is_y ? y.ptr() : zc.ptr(), bd, b.ptr(), act, p.yd,
                                                        y.ptr()),
                  CUDNN_STATUS_SUCCESS)
            << what;
        ASSERT_TRUE(y.copy_to(p.y)) << what;
      }
      auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
      const std::vector<double> zv = z.values(), bv = bias.values();
      const int64_t plane = r.count() / (r.dims[0] * r.dims[1]);
      for (int64_t i = 0; i < r.count(); ++i)
        r[i] = std::max(0.0, a1 * r[i] + a2 * zv[static_cast<size_t>(i)] + bv[static_cast<size_t>((i / plane) % s.k)]);
      EXPECT_TRUE(ft::near(p.y.values(), r.v, tol16() * 2, "fused " + what));
    }
  }
  cudnnDestroyActivationDescriptor(act);
#endif
}

// A FindEx on odd pointers times only the implementations that take them. IMPLICIT_PRECOMP_GEMM must still come
// back measured (its fallback), and where the algorithm meant a CUTLASS kernel before, it must mean the same one
// after: the fallback measured on odd pointers is not what aligned calls should run.
TEST(ConvGpuUnaligned, FindExOnOddPointersKeepsTheChoice) {
  SKIP_UNLESS_GPU();
#ifdef FT_WITH_CUDA
  ft::ScopedEnv no_db("FREEDNN_DB_DISABLE", "1");
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(layers()[0], CUDNN_DATA_HALF, true, false, false, rng);
  char before[128] = {}, after[128] = {};
  ASSERT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, kFwd, before, sizeof before),
            CUDNN_STATUS_SUCCESS);
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  p.y.poison();
  size_t ws = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, kFwd, &ws), CUDNN_STATUS_SUCCESS);
  Workspace buf(ws);
  OddCopy x(p.x, 2), w(p.w, 2), y(p.y, 2);
  ASSERT_TRUE(buf.ok() && x.ok() && w.ok() && y.ok());
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {};
  int n = 0;
  ASSERT_EQ(cudnnFindConvolutionForwardAlgorithmEx(h, p.xd, x.ptr(), p.wd, w.ptr(), p.cd, p.yd, y.ptr(),
                                                   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf, buf.ptr(), ws),
            CUDNN_STATUS_SUCCESS);
  bool found = false;
  for (int i = 0; i < n; ++i) {
    if (perf[i].algo != kFwd) continue;
    found = true;
    EXPECT_EQ(perf[i].status, CUDNN_STATUS_SUCCESS) << "IMPLICIT_PRECOMP_GEMM on odd pointers, was " << before;
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, kFwd, after, sizeof after),
            CUDNN_STATUS_SUCCESS);
  if (std::strncmp(before, "cuda:cutlass_", 13) == 0) EXPECT_STREQ(after, before);
#endif
}

}  // namespace
