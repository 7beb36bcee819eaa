// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "core/checked.h"
#include "core/log.h"

// An algorithm choice (cudnnAlgorithm_t: a union of the per-operation algorithm enums). The union has no
// tag, so the descriptor keeps the raw value; whoever reads it knows which member it asked for.
struct cudnnAlgorithmStruct : fd::Checked<0x414C474Fu> {
  static constexpr const char* kTypeName = "cudnnAlgorithmDescriptor_t";

  bool is_set = false;
  int value = 0;  // the raw union value (all members are int-sized enums)
  // Set when the descriptor belongs to a cudnnAlgorithmPerformance_t (returned by
  // cudnnGetAlgorithmPerformance): the user must not destroy it.
  bool owned_by_perf = false;

  cudnnAlgorithm_t get() const;
  void set(const cudnnAlgorithm_t& a);
  void describe(fd::log::Writer& w) const;
};

// One performance result. It owns a copy of the algorithm descriptor it was set from, so that the
// result stays valid when the caller destroys its own descriptor.
struct cudnnAlgorithmPerformanceStruct : fd::Checked<0x50455246u> {
  static constexpr const char* kTypeName = "cudnnAlgorithmPerformance_t";

  cudnnAlgorithmStruct algo;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  float time = -1.0f;
  size_t memory = 0;

  cudnnAlgorithmPerformanceStruct() { algo.owned_by_perf = true; }
  void describe(fd::log::Writer& w) const;
};

namespace fd {

cudnnStatus_t check_algorithm(const cudnnAlgorithmStruct* d, const char* role, bool need_set);

// The serialized form written by cudnnSaveAlgorithm (little endian, kAlgoBlobSize bytes):
//   u32 magic "FDAL", u16 format version, u16 blob size, u32 flags (bit 0: set), i32 algorithm value,
//   u32 reserved (0), u32 checksum (FNV-1a over the preceding 20 bytes).
constexpr uint32_t kAlgoBlobMagic = 0x4C414446u;  // bytes 'F','D','A','L'
constexpr uint16_t kAlgoBlobVersion = 1;
constexpr size_t kAlgoBlobSize = 24;

void save_algorithm(const cudnnAlgorithmStruct& d, unsigned char* out);
// Validates a blob and fills `d`; BAD_PARAM with the reason logged when it is short or corrupt.
cudnnStatus_t restore_algorithm(const unsigned char* in, size_t size, cudnnAlgorithmStruct& d);

}  // namespace fd
