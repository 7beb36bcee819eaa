// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/algorithm_desc.h"

#include <cstring>

#include "core/status.h"

cudnnAlgorithm_t cudnnAlgorithmStruct::get() const {
  cudnnAlgorithm_t a;
  std::memset(&a, 0, sizeof a);
  static_assert(sizeof(a.algo) == sizeof(int), "cudnnAlgorithm_t is one int-sized enum");
  std::memcpy(&a.algo, &value, sizeof value);
  return a;
}

void cudnnAlgorithmStruct::set(const cudnnAlgorithm_t& a) {
  std::memcpy(&value, &a.algo, sizeof value);
  is_set = true;
}

void cudnnAlgorithmStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("algo", value);
}

void cudnnAlgorithmPerformanceStruct::describe(fd::log::Writer& w) const {
  w.open("algoDesc", cudnnAlgorithmStruct::kTypeName);
  algo.describe(w);
  w.close();
  w.arg("status", status);
  w.arg("time", time);
  w.arg("memory", memory);
}

namespace fd {
namespace {

void put_u16(unsigned char* p, uint16_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}
void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint16_t get_u16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

uint32_t fnv1a(const unsigned char* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

constexpr size_t kChecksumOffset = kAlgoBlobSize - 4;

}  // namespace

cudnnStatus_t check_algorithm(const cudnnAlgorithmStruct* d, const char* role, bool need_set) {
  FD_CHECK_PARAM(d != nullptr, "algorithm descriptor %s is NULL", role);
  FD_CHECK_PARAM(d->alive(), "algorithm descriptor %s is not a live cudnnAlgorithmDescriptor_t", role);
  FD_CHECK_PARAM(!need_set || d->is_set, "algorithm descriptor %s was never set", role);
  return CUDNN_STATUS_SUCCESS;
}

void save_algorithm(const cudnnAlgorithmStruct& d, unsigned char* out) {
  std::memset(out, 0, kAlgoBlobSize);
  put_u32(out + 0, kAlgoBlobMagic);
  put_u16(out + 4, kAlgoBlobVersion);
  put_u16(out + 6, static_cast<uint16_t>(kAlgoBlobSize));
  put_u32(out + 8, d.is_set ? 1u : 0u);
  put_u32(out + 12, static_cast<uint32_t>(d.value));
  put_u32(out + 16, 0);
  put_u32(out + kChecksumOffset, fnv1a(out, kChecksumOffset));
}

cudnnStatus_t restore_algorithm(const unsigned char* in, size_t size, cudnnAlgorithmStruct& d) {
  FD_CHECK_PARAM(size >= kAlgoBlobSize, "algoSpaceSizeInBytes=%zu is shorter than a saved algorithm (%zu bytes)",
                 size, kAlgoBlobSize);
  const uint32_t magic = get_u32(in);
  FD_CHECK_PARAM(magic == kAlgoBlobMagic,
                 "algoSpace does not hold a saved algorithm (magic 0x%08x, expected 0x%08x)", magic,
                 kAlgoBlobMagic);
  const uint16_t version = get_u16(in + 4);
  FD_CHECK_PARAM(version == kAlgoBlobVersion, "saved algorithm has format version %u; this library reads %u",
                 static_cast<unsigned>(version), static_cast<unsigned>(kAlgoBlobVersion));
  const uint16_t blob = get_u16(in + 6);
  FD_CHECK_PARAM(blob == kAlgoBlobSize, "saved algorithm announces %u bytes, expected %zu",
                 static_cast<unsigned>(blob), kAlgoBlobSize);
  const uint32_t want = get_u32(in + kChecksumOffset), got = fnv1a(in, kChecksumOffset);
  FD_CHECK_PARAM(want == got, "saved algorithm is corrupt (checksum 0x%08x, computed 0x%08x)", want, got);
  const uint32_t flags = get_u32(in + 8);
  FD_CHECK_PARAM((flags & ~1u) == 0 && get_u32(in + 16) == 0, "saved algorithm has unknown flags 0x%08x", flags);
  FD_CHECK_PARAM(flags & 1u, "saved algorithm was never set");
  const int32_t value = static_cast<int32_t>(get_u32(in + 12));
  FD_CHECK_PARAM(value >= 0, "saved algorithm value %d is negative", static_cast<int>(value));
  d.value = value;
  d.is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
