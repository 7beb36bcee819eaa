// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The bookkeeping of cuda:fft's per-handle plan cache (src/cuda/conv/fft_plans.h: key, LRU order, pins, trim),
// with plain integers as plans: runs without a GPU, in every build. The header includes only the standard
// library, so this test includes it by path (the test target does not see src/ otherwise).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../src/cuda/conv/fft_plans.h"

namespace {

using fd::cuda::conv::FftKind;
using fd::cuda::conv::FftPlanKey;
using fd::cuda::conv::FftPlanLru;

FftPlanKey key(int64_t batch, FftKind kind = FftKind::r2c, int64_t hf = 8, int64_t wf = 10, int device = 0) {
  return FftPlanKey{device, kind, hf, wf, batch};
}

TEST(ConvFftPlanCache, KeyIsTheWholeGeometry) {
  const FftPlanKey base = key(6);
  EXPECT_EQ(base, key(6));
  // Each field alone makes a different key (and a strict order, for the map).
  const std::vector<FftPlanKey> others = {key(7), key(6, FftKind::c2r), key(6, FftKind::r2c, 9),
                                          key(6, FftKind::r2c, 8, 12), key(6, FftKind::r2c, 8, 10, 1)};
  for (const FftPlanKey& o : others) {
    EXPECT_NE(base, o);
    EXPECT_TRUE((base < o) != (o < base));
  }
  FftPlanLru<int> lru;
  lru.insert(base, 1);
  for (size_t i = 0; i < others.size(); ++i) {
    EXPECT_EQ(lru.find(others[i]), nullptr);
    lru.insert(others[i], static_cast<int>(i) + 2);
  }
  EXPECT_EQ(lru.size(), others.size() + 1);
  ASSERT_NE(lru.find(key(6)), nullptr);
  EXPECT_EQ(*lru.find(key(6)), 1);
  EXPECT_EQ(*lru.find(key(6, FftKind::c2r)), 3);
}

TEST(ConvFftPlanCache, TrimEvictsLeastRecentlyUsedDownToTheLimit) {
  FftPlanLru<int> lru;
  for (int i = 0; i < 6; ++i) lru.insert(key(i), i);
  ASSERT_NE(lru.find(key(0)), nullptr);  // 0 is now the most recent; 1 the least
  std::vector<int> destroyed;
  const auto idle = [](int) { return true; };
  const auto destroy = [&](int p) { destroyed.push_back(p); };
  EXPECT_EQ(lru.trim(6, idle, destroy), 0u);  // at the limit: nothing
  EXPECT_EQ(lru.trim(3, idle, destroy), 3u);
  EXPECT_EQ(destroyed, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(lru.size(), 3u);
  for (int i : {0, 4, 5}) EXPECT_TRUE(lru.contains(key(i))) << i;
  // Inserting never evicts: the cache may exceed any limit until the next trim.
  for (int i = 10; i < 20; ++i) lru.insert(key(i), i);
  EXPECT_EQ(lru.size(), 13u);
}

TEST(ConvFftPlanCache, TrimNeverDestroysPinnedOrBusyPlans) {
  FftPlanLru<int> lru;
  for (int i = 0; i < 5; ++i) lru.insert(key(i), i);
  std::set<int> busy = {0};  // e.g. its event has not completed
  lru.pin(key(1));
  lru.pin(key(1));  // pinned twice (a run using one key for two operands)
  std::vector<int> destroyed;
  const auto idle = [&](int p) { return busy.count(p) == 0; };
  const auto destroy = [&](int p) { destroyed.push_back(p); };
  EXPECT_EQ(lru.trim(2, idle, destroy), 3u);  // 0 busy and 1 pinned are skipped, 2 3 4 go (oldest first)
  EXPECT_EQ(destroyed, (std::vector<int>{2, 3, 4}));
  // Nothing else can go: over the limit, kept.
  EXPECT_EQ(lru.trim(1, idle, destroy), 0u);
  EXPECT_EQ(lru.size(), 2u);
  lru.unpin(key(1));
  EXPECT_TRUE(lru.pinned(key(1)));
  EXPECT_EQ(lru.trim(1, idle, destroy), 0u);
  lru.unpin(key(1));
  EXPECT_FALSE(lru.pinned(key(1)));
  EXPECT_EQ(lru.trim(1, idle, destroy), 1u);  // 1 now idle and unpinned; 0 still busy
  EXPECT_EQ(destroyed.back(), 1);
  busy.clear();
  EXPECT_EQ(lru.trim(0, idle, destroy), 1u);
  EXPECT_EQ(lru.size(), 0u);
}

TEST(ConvFftPlanCache, BoundIsGenerousAndForEachSeesAll) {
  static_assert(fd::cuda::conv::kFftPlanBound >= 3 * 32, "room for the plans of dozens of problems");
  FftPlanLru<int> lru;
  for (int i = 0; i < 40; ++i) lru.insert(key(i, i % 2 ? FftKind::c2r : FftKind::r2c), i);
  int sum = 0, count = 0;
  lru.for_each([&](const FftPlanKey&, int& p) {
    sum += p;
    ++count;
  });
  EXPECT_EQ(count, 40);
  EXPECT_EQ(sum, 40 * 39 / 2);
  EXPECT_EQ(lru.trim(fd::cuda::conv::kFftPlanBound, [](int) { return true; }, [](int) {}), 0u);
}

}  // namespace
