// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// libFuzzer target: the input bytes become a sequence of tensor / filter descriptor setter and getter calls
// and small calls on host buffers sized from the descriptors (CPU handle): cudnnAddTensor / cudnnScaleTensor /
// cudnnSetTensor, cudnnOpTensor, cudnnTransformTensor, and the forward passes of activation, softmax, pooling and
// LRN with fuzzed descriptors of their own; convolution descriptors with their output-dim, workspace and _v7
// queries (no convolution is computed: its cost grows with the filter too). Whatever the arguments, the library must not crash, leak into UB or read / write
// outside the buffers it is given. Built with -DFREEDNN_BUILD_FUZZERS=ON (tools/run_fuzzer.sh).
#include <cudnn.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kTensors = 3;
constexpr size_t kMaxBuffer = size_t(1) << 20;  // larger tensors are described but not computed on
// Nor tensors of more elements than this: overlapping strides give a small buffer billions of elements, whose
// legitimate but slow loops ran past libFuzzer's 10 s limit (the fourteenth session's fuzzing found one; the
// forty-second's, a 3.3M-element cudnnTransformTensor through the generic strided path: 11.7 s under ASan).
constexpr int64_t kMaxElements = int64_t(1) << 20;

// The logical element count of a set descriptor (0 when it cannot be read).
int64_t element_count(cudnnTensorDescriptor_t d) {
  int dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX], nb = 0;
  cudnnDataType_t t;
  if (cudnnGetTensorNdDescriptor(d, CUDNN_DIM_MAX, &t, &nb, dims, strides) != CUDNN_STATUS_SUCCESS) return 0;
  int64_t n = 1;
  for (int i = 0; i < nb && i < CUDNN_DIM_MAX; ++i) n *= dims[i] > 0 ? dims[i] : 1;
  return n;
}

struct State {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t t[kTensors] = {};
  cudnnFilterDescriptor_t f = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  cudnnLRNDescriptor_t lrn = nullptr;
  cudnnOpTensorDescriptor_t op = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
};

// Mostly small valid-looking values, sometimes edge cases and arbitrary ints.
int pick_dim(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return in.ConsumeIntegral<int>();
    case 1: return in.PickValueInArray({0, -1, 1, 65536, 2147483647, -2147483647 - 1, 46341});
    default: return in.ConsumeIntegralInRange<int>(1, 5);
  }
}
cudnnDataType_t pick_type(FuzzedDataProvider& in) {
  return static_cast<cudnnDataType_t>(in.ConsumeIntegralInRange<int>(-1, 16));
}
cudnnTensorFormat_t pick_format(FuzzedDataProvider& in) {
  return static_cast<cudnnTensorFormat_t>(in.ConsumeIntegralInRange<int>(-1, 3));
}
// An enum value: mostly in [0, n), sometimes just outside it.
template <class E>
E pick_enum(FuzzedDataProvider& in, int n) {
  return static_cast<E>(in.ConsumeIntegralInRange<int>(-1, n));
}
void pick_dims(FuzzedDataProvider& in, int* a, int n) {
  for (int i = 0; i < n; ++i) a[i] = pick_dim(in);
}

// A host buffer for a tensor argument: sized from the descriptor when it is valid and small, else a small
// dummy (the library must reject the descriptor before it touches the data).
struct Buffer {
  std::vector<unsigned char> bytes;
  bool ok = false;
  // A valid descriptor whose data would exceed kMaxBuffer: the op must not be called with a short buffer
  // (the library trusts the caller's buffer sizes, as cuDNN does). Invalid descriptors still get a small
  // buffer, to exercise the error paths.
  bool too_big = false;
  Buffer(FuzzedDataProvider& in, cudnnTensorDescriptor_t d) {
    size_t size = 0;
    const bool sized = cudnnGetTensorSizeInBytes(d, &size) == CUDNN_STATUS_SUCCESS;
    ok = sized && size <= kMaxBuffer && element_count(d) <= kMaxElements;
    too_big = sized && !ok;
    bytes.resize(ok ? (size ? size : 1) : 16);
    const std::vector<uint8_t> fill = in.ConsumeBytes<uint8_t>(bytes.size());
    if (!fill.empty()) std::memcpy(bytes.data(), fill.data(), fill.size());
  }
  void* data() { return bytes.data(); }
};

// A scaling factor good for either reading (float, or double for DOUBLE data).
union Scale {
  double d;
  float f;
  unsigned char raw[8];
};
Scale pick_scale(FuzzedDataProvider& in) {
  Scale s;
  s.d = 0;
  if (in.ConsumeBool()) {
    const std::vector<uint8_t> b = in.ConsumeBytes<uint8_t>(8);
    if (!b.empty()) std::memcpy(s.raw, b.data(), b.size());
  } else {
    const float v = static_cast<float>(in.ConsumeIntegralInRange<int>(-2, 2));
    if (in.ConsumeBool()) s.d = v; else s.f = v;
  }
  return s;
}

void step(State& s, FuzzedDataProvider& in) {
  cudnnTensorDescriptor_t& td = s.t[in.ConsumeIntegralInRange<int>(0, kTensors - 1)];
  int dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
  cudnnDataType_t dt;
  cudnnTensorFormat_t fmt;
  int n, c, h, w, ns, cs, hs, ws, nb;
  size_t size;
  cudnnTensorDescriptor_t other = s.t[in.ConsumeIntegralInRange<int>(0, kTensors - 1)];
  switch (in.ConsumeIntegralInRange<int>(0, 22)) {
    case 0:
      cudnnSetTensor4dDescriptor(td, pick_format(in), pick_type(in), pick_dim(in), pick_dim(in), pick_dim(in),
                                 pick_dim(in));
      break;
    case 1:
      cudnnSetTensor4dDescriptorEx(td, pick_type(in), pick_dim(in), pick_dim(in), pick_dim(in), pick_dim(in),
                                   pick_dim(in), pick_dim(in), pick_dim(in), pick_dim(in));
      break;
    case 2: {
      const int nbd = in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX + 1);
      pick_dims(in, dims, CUDNN_DIM_MAX);
      pick_dims(in, strides, CUDNN_DIM_MAX);
      cudnnSetTensorNdDescriptor(td, pick_type(in), nbd, dims, strides);
      break;
    }
    case 3: {
      const int nbd = in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX + 1);
      pick_dims(in, dims, CUDNN_DIM_MAX);
      cudnnSetTensorNdDescriptorEx(td, pick_format(in), pick_type(in), nbd, dims);
      break;
    }
    case 4:
      cudnnGetTensor4dDescriptor(td, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws);
      break;
    case 5:
      cudnnGetTensorNdDescriptor(td, in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX), &dt, &nb, dims, strides);
      break;
    case 6:
      cudnnGetTensorSizeInBytes(td, &size);
      break;
    case 7:
      cudnnSetFilter4dDescriptor(s.f, pick_type(in), pick_format(in), pick_dim(in), pick_dim(in), pick_dim(in),
                                 pick_dim(in));
      break;
    case 8: {
      const int nbd = in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX + 1);
      pick_dims(in, dims, CUDNN_DIM_MAX);
      cudnnSetFilterNdDescriptor(s.f, pick_type(in), pick_format(in), nbd, dims);
      break;
    }
    case 9:
      cudnnGetFilter4dDescriptor(s.f, &dt, &fmt, &n, &c, &h, &w);
      cudnnGetFilterNdDescriptor(s.f, in.ConsumeIntegralInRange<int>(0, CUDNN_DIM_MAX), &dt, &fmt, &nb, dims);
      cudnnGetFilterSizeInBytes(s.f, &size);
      break;
    case 10: {
      cudnnTensorDescriptor_t a = s.t[in.ConsumeIntegralInRange<int>(0, kTensors - 1)];
      cudnnTensorDescriptor_t cd = s.t[in.ConsumeIntegralInRange<int>(0, kTensors - 1)];
      Buffer A(in, a), C(in, cd);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (!A.too_big && !C.too_big) cudnnAddTensor(s.handle, &alpha, a, A.data(), &beta, cd, C.data());
      break;
    }
    case 11: {
      Buffer Y(in, td);
      const Scale alpha = pick_scale(in);
      if (!Y.too_big) cudnnScaleTensor(s.handle, td, Y.data(), &alpha);
      break;
    }
    case 12: {
      Buffer Y(in, td);
      const Scale value = pick_scale(in);
      if (!Y.too_big) cudnnSetTensor(s.handle, td, Y.data(), &value);
      break;
    }
    case 13:  // a fresh, never-set descriptor
      cudnnDestroyTensorDescriptor(td);
      td = nullptr;
      cudnnCreateTensorDescriptor(&td);
      break;
    case 14: {  // the same descriptor on both sides, in place
      Buffer Y(in, td);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (!Y.too_big) cudnnAddTensor(s.handle, &alpha, td, Y.data(), &beta, td, Y.data());
      break;
    }
    case 15:  // NULL arguments
      cudnnSetTensor4dDescriptor(nullptr, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
      cudnnGetTensorNdDescriptor(td, CUDNN_DIM_MAX, nullptr, nullptr, nullptr, nullptr);
      cudnnGetTensorSizeInBytes(td, nullptr);
      cudnnAddTensor(s.handle, nullptr, td, nullptr, nullptr, td, nullptr);
      break;
    case 16: {  // activation forward, x -> y or in place
      const double coef = in.ConsumeBool() ? 0.0 : static_cast<double>(in.ConsumeIntegralInRange<int>(-4, 4)) / 2;
      cudnnSetActivationDescriptor(s.act, pick_enum<cudnnActivationMode_t>(in, 6),
                                   pick_enum<cudnnNanPropagation_t>(in, 2), coef);
      Buffer X(in, td), Y(in, other);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (X.too_big || Y.too_big) break;
      if (in.ConsumeBool()) cudnnActivationForward(s.handle, s.act, &alpha, td, X.data(), &beta, other, Y.data());
      else cudnnActivationForward(s.handle, s.act, &alpha, td, X.data(), &beta, td, X.data());
      break;
    }
    case 17: {  // softmax forward
      Buffer X(in, td), Y(in, other);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (!X.too_big && !Y.too_big)
        cudnnSoftmaxForward(s.handle, pick_enum<cudnnSoftmaxAlgorithm_t>(in, 3), pick_enum<cudnnSoftmaxMode_t>(in, 2),
                            &alpha, td, X.data(), &beta, other, Y.data());
      break;
    }
    case 18: {  // pooling: a fuzzed descriptor, the output dims it gives, then the forward
      int win[CUDNN_DIM_MAX], pad[CUDNN_DIM_MAX], str[CUDNN_DIM_MAX];
      const int nbd = in.ConsumeIntegralInRange<int>(-1, 4);
      for (int i = 0; i < CUDNN_DIM_MAX; ++i) {
        win[i] = in.ConsumeIntegralInRange<int>(-1, 5);
        pad[i] = in.ConsumeIntegralInRange<int>(-1, 3);
        str[i] = in.ConsumeIntegralInRange<int>(-1, 4);
      }
      cudnnSetPoolingNdDescriptor(s.pool, pick_enum<cudnnPoolingMode_t>(in, 4), pick_enum<cudnnNanPropagation_t>(in, 2),
                                  nbd, win, pad, str);
      cudnnGetPoolingNdForwardOutputDim(s.pool, td, in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX), dims);
      Buffer X(in, td), Y(in, other);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (!X.too_big && !Y.too_big)
        cudnnPoolingForward(s.handle, s.pool, &alpha, td, X.data(), &beta, other, Y.data());
      break;
    }
    case 19: {  // LRN across channels
      cudnnSetLRNDescriptor(s.lrn, static_cast<unsigned>(in.ConsumeIntegralInRange<int>(0, 17)),
                            static_cast<double>(in.ConsumeIntegralInRange<int>(-1, 4)) * 1e-4,
                            static_cast<double>(in.ConsumeIntegralInRange<int>(-1, 3)) * 0.25,
                            static_cast<double>(in.ConsumeIntegralInRange<int>(-1, 3)));
      Buffer X(in, td), Y(in, other);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (!X.too_big && !Y.too_big)
        cudnnLRNCrossChannelForward(s.handle, s.lrn, pick_enum<cudnnLRNMode_t>(in, 1), &alpha, td, X.data(), &beta,
                                    other, Y.data());
      break;
    }
    case 20: {  // op tensor: A, B (possibly broadcast) -> C
      cudnnTensorDescriptor_t b = s.t[in.ConsumeIntegralInRange<int>(0, kTensors - 1)];
      cudnnSetOpTensorDescriptor(s.op, pick_enum<cudnnOpTensorOp_t>(in, 6), pick_type(in),
                                 pick_enum<cudnnNanPropagation_t>(in, 2));
      Buffer A(in, td), B(in, b), C(in, other);
      const Scale a1 = pick_scale(in), a2 = pick_scale(in), beta = pick_scale(in);
      if (!A.too_big && !B.too_big && !C.too_big)
        cudnnOpTensor(s.handle, s.op, &a1, td, A.data(), &a2, b, B.data(), &beta, other, C.data());
      break;
    }
    case 22: {  // convolution descriptor: output dims, the algorithm queries and workspace sizes (no compute)
      int pad[CUDNN_DIM_MAX], str[CUDNN_DIM_MAX], dil[CUDNN_DIM_MAX];
      const int len = in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX - 1);
      pick_dims(in, pad, CUDNN_DIM_MAX);
      pick_dims(in, str, CUDNN_DIM_MAX);
      pick_dims(in, dil, CUDNN_DIM_MAX);
      if (in.ConsumeBool())
        cudnnSetConvolution2dDescriptor(s.conv, pad[0], pad[1], str[0], str[1], dil[0], dil[1],
                                        pick_enum<cudnnConvolutionMode_t>(in, 2), pick_type(in));
      else
        cudnnSetConvolutionNdDescriptor(s.conv, len, pad, str, dil, pick_enum<cudnnConvolutionMode_t>(in, 2),
                                        pick_type(in));
      cudnnSetConvolutionGroupCount(s.conv, pick_dim(in));
      cudnnSetConvolutionMathType(s.conv, pick_enum<cudnnMathType_t>(in, 4));
      cudnnGetConvolution2dForwardOutputDim(s.conv, td, s.f, &n, &c, &h, &w);
      cudnnGetConvolutionNdForwardOutputDim(s.conv, td, s.f, in.ConsumeIntegralInRange<int>(-1, CUDNN_DIM_MAX), dims);
      const auto fwd = pick_enum<cudnnConvolutionFwdAlgo_t>(in, 8);
      const auto bwd_data = pick_enum<cudnnConvolutionBwdDataAlgo_t>(in, 6);
      const auto bwd_filter = pick_enum<cudnnConvolutionBwdFilterAlgo_t>(in, 7);
      cudnnGetConvolutionForwardWorkspaceSize(s.handle, td, s.f, s.conv, other, fwd, &size);
      cudnnGetConvolutionBackwardDataWorkspaceSize(s.handle, s.f, other, s.conv, td, bwd_data, &size);
      cudnnGetConvolutionBackwardFilterWorkspaceSize(s.handle, td, other, s.conv, s.f, bwd_filter, &size);
      cudnnConvolutionFwdAlgoPerf_t perf[3];
      int got = 0;
      cudnnGetConvolutionForwardAlgorithm_v7(s.handle, td, s.f, s.conv, other, in.ConsumeIntegralInRange<int>(-1, 3),
                                             &got, perf);
      break;
    }
    case 21: {  // transform between two layouts
      Buffer X(in, td), Y(in, other);
      const Scale alpha = pick_scale(in), beta = pick_scale(in);
      if (!X.too_big && !Y.too_big) cudnnTransformTensor(s.handle, &alpha, td, X.data(), &beta, other, Y.data());
      break;
    }
  }
}

State& state() {
  static State* s = [] {
    setenv("FREEDNN_BACKEND", "cpu", 1);
    auto* st = new State;
    if (cudnnCreate(&st->handle) != CUDNN_STATUS_SUCCESS) std::abort();
    if (cudnnCreateFilterDescriptor(&st->f) != CUDNN_STATUS_SUCCESS) std::abort();
    if (cudnnCreateActivationDescriptor(&st->act) != CUDNN_STATUS_SUCCESS) std::abort();
    if (cudnnCreatePoolingDescriptor(&st->pool) != CUDNN_STATUS_SUCCESS) std::abort();
    if (cudnnCreateLRNDescriptor(&st->lrn) != CUDNN_STATUS_SUCCESS) std::abort();
    if (cudnnCreateOpTensorDescriptor(&st->op) != CUDNN_STATUS_SUCCESS) std::abort();
    if (cudnnCreateConvolutionDescriptor(&st->conv) != CUDNN_STATUS_SUCCESS) std::abort();
    return st;
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  State& s = state();
  for (auto& t : s.t) {
    cudnnDestroyTensorDescriptor(t);
    t = nullptr;
    if (cudnnCreateTensorDescriptor(&t) != CUDNN_STATUS_SUCCESS) std::abort();
  }
  FuzzedDataProvider in(data, size);
  for (int i = 0; i < 64 && in.remaining_bytes() > 0; ++i) step(s, in);
  return 0;
}
