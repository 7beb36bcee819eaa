// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "problem/conv.h"

#include "core/dtype.h"
#include "core/status.h"

namespace fd {
namespace {

bool is_float_family(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

// "nchw" / "nhwc" for packed tensors in those orders, "nchw_vect_c" for vector types, "any" otherwise.
std::string layout_of(const cudnnTensorStruct& t) {
  if (t.vect() > 1) return t.is_packed() ? "nchw_vect_c" : "any";
  if (!t.is_packed()) return "any";
  int64_t s = 1;
  bool nchw = true;
  for (int i = t.nb_dims - 1; i >= 0; --i) {
    nchw = nchw && (t.dims[i] == 1 || t.strides[i] == s);
    s *= t.dims[i];
  }
  if (nchw) return "nchw";
  s = 1;
  bool nhwc = t.dims[1] == 1 || t.strides[1] == 1;
  if (t.dims[1] != 1) s = t.dims[1];
  for (int i = t.nb_dims - 1; i >= 2; --i) {
    nhwc = nhwc && (t.dims[i] == 1 || t.strides[i] == s);
    s *= t.dims[i];
  }
  nhwc = nhwc && (t.dims[0] == 1 || t.strides[0] == s);
  return nhwc ? "nhwc" : "any";
}

std::string filter_layout_of(const cudnnFilterStruct& f) {
  return f.format == CUDNN_TENSOR_NHWC ? "nhwc" : f.format == CUDNN_TENSOR_NCHW_VECT_C ? "nchw_vect_c" : "nchw";
}

// Forward data type configurations of cuDNN 8.2 (x, w, y, compute).
cudnnStatus_t check_forward_types(cudnnDataType_t x, cudnnDataType_t w, cudnnDataType_t y, cudnnDataType_t ct) {
  if (is_float_family(x) && is_float_family(w) && is_float_family(y)) {
    FD_CHECK_PARAM(x == w && x == y, "data types of x (%s), w (%s) and y (%s) do not match", dtype_short_name(x),
                   dtype_short_name(w), dtype_short_name(y));
    const bool ok = (x == CUDNN_DATA_FLOAT && ct == CUDNN_DATA_FLOAT) ||
                    (x == CUDNN_DATA_DOUBLE && ct == CUDNN_DATA_DOUBLE) ||
                    (x == CUDNN_DATA_HALF && (ct == CUDNN_DATA_HALF || ct == CUDNN_DATA_FLOAT)) ||
                    (x == CUDNN_DATA_BFLOAT16 && ct == CUDNN_DATA_FLOAT);
    FD_CHECK_SUPPORTED(ok, "compute type %s is not supported for %s data", dtype_short_name(ct), dtype_short_name(x));
    return CUDNN_STATUS_SUCCESS;
  }
  // INT8*_CONFIG and INT8*_EXT_CONFIG: int8 (or uint8) x, int8 w, int32 compute, y int8 or float.
  const bool s8 = (x == CUDNN_DATA_INT8 || x == CUDNN_DATA_UINT8) && w == CUDNN_DATA_INT8 &&
                  (y == CUDNN_DATA_INT8 || y == CUDNN_DATA_FLOAT);
  const bool s8x4 = (x == CUDNN_DATA_INT8x4 || x == CUDNN_DATA_UINT8x4) && w == CUDNN_DATA_INT8x4 &&
                    (y == CUDNN_DATA_INT8x4 || y == CUDNN_DATA_FLOAT);
  const bool s8x32 = x == CUDNN_DATA_INT8x32 && w == CUDNN_DATA_INT8x32 &&
                     (y == CUDNN_DATA_INT8x32 || y == CUDNN_DATA_FLOAT);
  FD_CHECK_SUPPORTED(s8 || s8x4 || s8x32,
                     "data types x=%s w=%s y=%s are not a supported convolution configuration", dtype_short_name(x),
                     dtype_short_name(w), dtype_short_name(y));
  FD_CHECK_SUPPORTED(ct == CUDNN_DATA_INT32, "int8 convolutions need compute type s32, not %s", dtype_short_name(ct));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_backward_types(cudnnDataType_t x, cudnnDataType_t w, cudnnDataType_t y, cudnnDataType_t ct) {
  FD_CHECK_SUPPORTED(is_float_family(x) && is_float_family(w) && is_float_family(y),
                     "backward convolution supports f32, f64, f16 and bf16 only, not x=%s w=%s y=%s",
                     dtype_short_name(x), dtype_short_name(w), dtype_short_name(y));
  return check_forward_types(x, w, y, ct);
}

}  // namespace

const char* conv_dir_name(ConvDir d) {
  switch (d) {
    case ConvDir::fwd: return "fwd";
    case ConvDir::bwd_data: return "bwd_d";
    case ConvDir::bwd_filter: return "bwd_w";
  }
  return "?";
}

cudnnStatus_t ConvProblem::make(ConvDir dir, const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                                const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y, ConvProblem* out) {
  const char* xn = dir == ConvDir::bwd_data ? "dxDesc" : "xDesc";
  const char* wn = dir == ConvDir::bwd_filter ? "dwDesc" : "wDesc";
  const char* yn = dir == ConvDir::fwd ? "yDesc" : "dyDesc";
  FD_TRY(check_tensor(x, xn));
  FD_TRY(check_filter(w, wn));
  FD_TRY(check_convolution(conv, "convDesc"));
  FD_TRY(check_tensor(y, yn));
  const int nd = conv->array_length + 2;
  FD_CHECK_PARAM(x->nb_dims == nd && w->nb_dims == nd && y->nb_dims == nd,
                 "%s has %d dims, %s %d, %s %d; the convolution has %d spatial dims (needs %d)", xn, x->nb_dims, wn,
                 w->nb_dims, yn, y->nb_dims, conv->array_length, nd);
  FD_CHECK_SUPPORTED(nd == 4 || nd == 5, "only 2-D and 3-D convolutions (4-D or 5-D tensors) are supported, not %d-D",
                     nd);
  ConvProblem p;
  p.dir = dir;
  p.x = x;
  p.w = w;
  p.y = y;
  p.conv = conv;
  p.xdt = x->dtype;
  p.wdt = w->dtype;
  p.ydt = y->dtype;
  p.compute = conv->compute_type;
  p.mode = conv->mode;
  p.math = conv->math_type;
  p.nsp = nd - 2;
  p.g = conv->group_count;
  p.mb = x->dims[0];
  p.ic = x->dims[1];
  p.oc = w->dims[0];
  FD_CHECK_PARAM(x->dims[1] == w->dims[1] * p.g, "%s has %lld channels, %s %lld per group x %lld groups", xn,
                 static_cast<long long>(x->dims[1]), wn, static_cast<long long>(w->dims[1]),
                 static_cast<long long>(p.g));
  FD_CHECK_PARAM(p.oc % p.g == 0, "%s has %lld output channels, not a multiple of the group count %lld", wn,
                 static_cast<long long>(p.oc), static_cast<long long>(p.g));
  FD_CHECK_PARAM(y->dims[0] == p.mb && y->dims[1] == p.oc, "%s is %lldx%lldx..., expected %lldx%lldx... (N of %s, K of %s)",
                 yn, static_cast<long long>(y->dims[0]), static_cast<long long>(y->dims[1]),
                 static_cast<long long>(p.mb), static_cast<long long>(p.oc), xn, wn);
  int64_t* in[3] = {&p.id, &p.ih, &p.iw};
  int64_t* o[3] = {&p.od, &p.oh, &p.ow};
  int64_t* k[3] = {&p.kd, &p.kh, &p.kw};
  int* s[3] = {&p.sd, &p.sh, &p.sw};
  int* pad[3] = {&p.pd, &p.ph, &p.pw};
  int* dil[3] = {&p.dd, &p.dh, &p.dw};
  const int first = 3 - p.nsp;  // 2-D problems use the (h, w) slots
  for (int i = 0; i < p.nsp; ++i) {
    const int j = first + i;
    *in[j] = x->dims[2 + i];
    *k[j] = w->dims[2 + i];
    *s[j] = conv->stride[i];
    *pad[j] = conv->pad[i];
    *dil[j] = conv->dilation[i];
    const long long want = conv_output_size(*in[j], *k[j], *pad[j], *s[j], *dil[j]);
    FD_CHECK_PARAM(want > 0, "spatial dim %d: %s size %lld + 2 x pad %d is smaller than the dilated filter %lld", i, xn,
                   static_cast<long long>(*in[j]), *pad[j], static_cast<long long>((*k[j] - 1) * *dil[j] + 1));
    FD_CHECK_PARAM(y->dims[2 + i] == want,
                   "spatial dim %d: %s has %lld, the convolution gives %lld (in %lld pad %d k %lld stride %d dil %d)",
                   i, yn, static_cast<long long>(y->dims[2 + i]), want, static_cast<long long>(*in[j]), *pad[j],
                   static_cast<long long>(*k[j]), *s[j], *dil[j]);
    *o[j] = want;
  }
  if (dir == ConvDir::fwd) {
    FD_TRY(check_forward_types(p.xdt, p.wdt, p.ydt, p.compute));
  } else {
    FD_TRY(check_backward_types(p.xdt, p.wdt, p.ydt, p.compute));
  }
  *out = p;
  return CUDNN_STATUS_SUCCESS;
}

std::string ConvProblem::shape_string() const {
  auto f = [](const char* n, long long v) { return std::string(n) + std::to_string(v); };
  const bool d3 = nsp == 3;
  std::string s = f("g", g) + f("mb", mb) + f("ic", ic);
  if (d3) s += f("id", id);
  s += f("ih", ih) + f("iw", iw) + f("oc", oc);
  if (d3) s += f("od", od);
  s += f("oh", oh) + f("ow", ow);
  if (d3) s += f("kd", kd);
  s += f("kh", kh) + f("kw", kw);
  if (d3) s += f("sd", sd);
  s += f("sh", sh) + f("sw", sw);
  if (d3) s += f("pd", pd);
  s += f("ph", ph) + f("pw", pw);
  if (d3) s += f("dd", dd);
  s += f("dh", dh) + f("dw", dw);
  return s;
}

std::string ConvProblem::to_string() const {
  std::string s = std::string("conv ") + conv_dir_name(dir) + " ";
  if (xdt == wdt && xdt == ydt) {
    s += dtype_short_name(xdt);
  } else {
    s += std::string(dtype_short_name(xdt)) + ":" + dtype_short_name(wdt) + ":" + dtype_short_name(ydt);
  }
  const std::string lx = layout_of(*x), ly = layout_of(*y), lw = filter_layout_of(*w);
  const bool plain = lx != "any" && lx == ly && lx == lw;
  s += " " + (plain ? lx : std::string("any")) + " " + shape_string();
  s += mode == CUDNN_CONVOLUTION ? " mode=conv" : " mode=xcorr";
  const bool default_ct = compute == xdt || (is_int8() && compute == CUDNN_DATA_INT32);
  if (!default_ct || xdt == CUDNN_DATA_HALF) s += std::string(" ct=") + dtype_short_name(compute);
  if (math == CUDNN_TENSOR_OP_MATH) s += " math=tensor_op";
  if (math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) s += " math=tensor_op_allow_conversion";
  if (math == CUDNN_FMA_MATH) s += " math=fma";
  if (!plain) s += " x=" + x->spec() + " w=" + w->spec() + " y=" + y->spec();
  return s;
}

}  // namespace fd
