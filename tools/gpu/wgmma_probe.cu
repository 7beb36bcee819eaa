// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A standalone check of src/cuda/conv/wgmma.cuh on an sm_90a GPU: one m64n32k16 wgmma with A from registers (the
// mma.m16n8k16 A fragment per warp) and B from shared memory in the N-major no-swizzle layout that halo_wgrad's
// wgmma kernel uses (8-element core-matrix rows of 16 bytes, LBO = 160 bytes between the two 8-row halves of k,
// SBO = 1600 bytes between 8-channel planes: its first, cp.async form; the TMA form pads planes to 1664 bytes), at the
// start offsets of its nine taps. Small integers throughout, so the float results are exact. Prints each mismatch's
// (m, n) and exits non-zero on any: where halo_wgrad's wgmma kernel fails its test, this says whether the descriptor
// or the fragments are at fault.
//   nvcc -std=c++20 -gencode arch=compute_90a,code=sm_90a -I src -o /tmp/wgmma_probe tools/gpu/wgmma_probe.cu
//   /tmp/wgmma_probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda/conv/wgmma.cuh"

namespace {

using fd::cuda::conv::wgmma_commit;
using fd::cuda::conv::wgmma_desc;
using fd::cuda::conv::wgmma_fence;
using fd::cuda::conv::wgmma_m64n32k16_rs;
using fd::cuda::conv::wgmma_wait;

constexpr int kM = 64, kN = 32, kK = 16;
constexpr int kLbo = 160, kSbo = 1600;  // bytes, as halo_wgrad's x planes (10-pixel halo rows, 100-pixel planes)
constexpr int kSmem = 4 * kSbo;

float a_val(int m, int k) { return float((m * 3 + k * 5) % 7 - 3); }
float b_val(int k, int n) { return float((k * 2 + n * 7) % 5 - 2); }

// B[k][n] at start + (n / 8) * SBO + (k / 8) * LBO + (k % 8) * 16 + (n % 8) * 2.
__global__ void probe(const __half* a, const __half* b, int start, float* d) {
  __shared__ __align__(128) unsigned char smem[kSmem];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  for (int i = tid; i < kSmem / 2; i += blockDim.x) reinterpret_cast<__half*>(smem)[i] = __float2half(0.f);
  __syncthreads();
  for (int i = tid; i < kK * kN; i += blockDim.x) {
    const int k = i / kN, n = i % kN;
    *reinterpret_cast<__half*>(smem + start + (n / 8) * kSbo + (k / 8) * kLbo + (k % 8) * 16 + (n % 8) * 2) =
        b[k * kN + n];
  }
  // The wgmma reads shared memory through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  // A fragment of rows 16 * warp + g (+ 8), columns 2t, 2t + 1 (+ 8): a[0] (g, 2t), a[1] (g + 8, 2t),
  // a[2] (g, 2t + 8), a[3] (g + 8, 2t + 8).
  uint32_t af[4];
  const int r0 = 16 * warp + g;
  auto pack = [&](int m, int k) {
    const __half2 h = __halves2half2(a[m * kK + k], a[m * kK + k + 1]);
    return *reinterpret_cast<const uint32_t*>(&h);
  };
  af[0] = pack(r0, 2 * t), af[1] = pack(r0 + 8, 2 * t), af[2] = pack(r0, 2 * t + 8), af[3] = pack(r0 + 8, 2 * t + 8);
  float acc[16];
  for (float& v : acc) v = 0.f;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  wgmma_fence();
  wgmma_m64n32k16_rs<__half>(acc, af, wgmma_desc(base + start, kLbo, kSbo));
  wgmma_commit();
  wgmma_wait<0>();
  for (int j = 0; j < kN / 8; ++j) {
    const int n = 8 * j + 2 * t;
    d[r0 * kN + n] = acc[4 * j], d[r0 * kN + n + 1] = acc[4 * j + 1];
    d[(r0 + 8) * kN + n] = acc[4 * j + 2], d[(r0 + 8) * kN + n + 1] = acc[4 * j + 3];
  }
}

}  // namespace

int main() {
  std::vector<__half> ha(kM * kK), hb(kK * kN);
  for (int m = 0; m < kM; ++m)
    for (int k = 0; k < kK; ++k) ha[m * kK + k] = __float2half(a_val(m, k));
  for (int k = 0; k < kK; ++k)
    for (int n = 0; n < kN; ++n) hb[k * kN + n] = __float2half(b_val(k, n));
  __half *a = nullptr, *b = nullptr;
  float* d = nullptr;
  cudaMalloc(&a, ha.size() * 2);
  cudaMalloc(&b, hb.size() * 2);
  cudaMalloc(&d, kM * kN * 4);
  cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  int bad_total = 0;
  // The tap offsets of halo_wgrad's k-step 0: (r * 10 + s) * 16 bytes.
  for (int tap = 0; tap < 9; ++tap) {
    const int start = ((tap / 3) * 10 + tap % 3) * 16;
    cudaMemset(d, 0xff, kM * kN * 4);  // NaN: an element never written fails
    probe<<<1, 128>>>(a, b, start, d);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf("tap %d: %s\n", tap, cudaGetErrorString(e));
      return 2;
    }
    std::vector<float> hd(kM * kN);
    cudaMemcpy(hd.data(), d, hd.size() * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int m = 0; m < kM; ++m)
      for (int n = 0; n < kN; ++n) {
        float want = 0;
        for (int k = 0; k < kK; ++k) want += a_val(m, k) * b_val(k, n);
        const float got = hd[m * kN + n];
        if (!(got == want)) {
          if (bad < 8) std::printf("tap %d start %d: d[%d][%d] = %g, want %g\n", tap, start, m, n, got, want);
          ++bad;
        }
      }
    std::printf("tap %d (start %d bytes): %d of %d wrong\n", tap, start, bad, kM * kN);
    bad_total += bad;
  }
  std::printf(bad_total == 0 ? "wgmma probe: OK\n" : "wgmma probe: FAILED\n");
  return bad_total == 0 ? 0 : 1;
}
