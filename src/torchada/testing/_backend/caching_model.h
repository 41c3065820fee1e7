// Bookkeeping model of torch_musa's caching allocator (MUSACachingAllocator).
//
// torch_musa's allocator (torch_musa/csrc/core/MUSACachingAllocator.cpp in the
// release-2.7.1 tree) is a port of c10/cuda/CUDACachingAllocator.cpp; the source
// could not be fetched in the session that wrote this, so the constants and rules
// below follow the CUDA allocator of torch 2.7 (c10/cuda/CUDACachingAllocator.cpp:
// kMinBlockSize, kSmallSize, kSmallBuffer, kLargeBuffer, kMinLargeAlloc,
// kRoundLarge, round_size, get_allocation_size, should_split, free_block,
// release_cached_blocks).  Whether torch_musa changed any constant: unknown
// (docs/simulator.md, "Allocator").
//
// Real bytes are still one host allocation per tensor (the simulator's kernels
// run on CPU); this model only decides what the allocator would report: which
// segment each block lives in, what is reserved, what empty_cache() releases.
#pragma once

#include <c10/util/Exception.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

namespace musa_sim {
namespace cache {

constexpr int64_t kMinBlockSize = 512;        // every size rounds up to 512 bytes
constexpr int64_t kSmallSize = 1 << 20;       // requests <= 1 MiB use the small pool
constexpr int64_t kSmallBuffer = 2 << 20;     // small-pool segments are 2 MiB
constexpr int64_t kLargeBuffer = 20 << 20;    // large requests < 10 MiB get a 20 MiB segment
constexpr int64_t kMinLargeAlloc = 10 << 20;
constexpr int64_t kRoundLarge = 2 << 20;      // larger ones round up to 2 MiB

enum StatType { kAll = 0, kSmall = 1, kLarge = 2 };

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void increase(int64_t n) {
    current += n;
    allocated += n;
    if (current > peak) peak = current;
  }
  void decrease(int64_t n) {
    current -= n;
    freed += n;
  }
};
using StatArray = std::array<Stat, 3>;

// Order of the flat export (memstats.py reads the same order).
struct DeviceStats {
  StatArray allocation, segment, active, inactive_split, allocated_bytes, reserved_bytes,
      active_bytes, inactive_split_bytes, requested_bytes;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_device_alloc = 0, num_device_free = 0;
  std::array<StatArray*, 9> all() {
    return {&allocation, &segment, &active, &inactive_split, &allocated_bytes, &reserved_bytes,
            &active_bytes, &inactive_split_bytes, &requested_bytes};
  }
};

struct Segment;
struct Block {
  int64_t stream;
  int64_t size;
  int64_t requested = 0;
  int64_t addr;
  bool small;
  bool allocated = false;
  int pending_uses = 0;  // streams recorded with record_stream: free is deferred
  bool free_deferred = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  bool is_split() const {
    return prev != nullptr || next != nullptr;
  }
};

struct Cmp {
  bool operator()(const Block* a, const Block* b) const {
    return std::tie(a->stream, a->size, a->addr) < std::tie(b->stream, b->size, b->addr);
  }
};

inline int64_t round_size(int64_t n) {
  if (n < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((n + kMinBlockSize - 1) / kMinBlockSize);
}

inline int64_t allocation_size(int64_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

class DeviceCache {
 public:
  int64_t limit = int64_t(48) << 30;  // bytes the process may reserve (memory fraction)
  int64_t total = int64_t(48) << 30;

  // Returns nullptr when the request cannot be met even after releasing the cache.
  Block* malloc(int64_t requested, int64_t stream) {
    std::lock_guard<std::mutex> g(mu_);
    process_deferred();
    const int64_t size = round_size(requested);
    const bool small = size <= kSmallSize;
    auto& pool = small ? small_free_ : large_free_;
    Block key{stream, size, 0, 0, small};
    Block* block = nullptr;
    auto it = pool.lower_bound(&key);
    if (it != pool.end() && (*it)->stream == stream) {
      block = *it;
      pool.erase(it);
    } else {
      const int64_t seg = allocation_size(size);
      if (!reserve(seg)) {
        // Like CUDACachingAllocator::malloc: release the whole free segments, retry once.
        release_cached();
        stats.num_alloc_retries += 1;
        if (!reserve(seg)) {
          stats.num_ooms += 1;
          return nullptr;
        }
      }
      block = new Block{stream, seg, 0, next_addr_, small};
      next_addr_ += seg;
      for_pool(small, [&](int t) {
        stats.segment[t].increase(1);
        stats.reserved_bytes[t].increase(seg);
      });
      stats.num_device_alloc += 1;
    }
    const bool already_split = block->is_split();
    if (should_split(block, size)) {
      auto* rest = new Block{stream, block->size - size, 0, block->addr + size, small};
      rest->prev = block;
      rest->next = block->next;
      if (rest->next) rest->next->prev = rest;
      block->next = rest;
      block->size = size;
      pool.insert(rest);
      if (already_split) {
        for_pool(small, [&](int t) { stats.inactive_split_bytes[t].decrease(size); });
      } else {
        for_pool(small, [&](int t) {
          stats.inactive_split_bytes[t].increase(rest->size);
          stats.inactive_split[t].increase(1);
        });
      }
    } else if (already_split) {
      for_pool(small, [&](int t) {
        stats.inactive_split_bytes[t].decrease(block->size);
        stats.inactive_split[t].decrease(1);
      });
    }
    block->allocated = true;
    block->requested = requested;
    for_pool(small, [&](int t) {
      stats.allocation[t].increase(1);
      stats.allocated_bytes[t].increase(block->size);
      stats.active[t].increase(1);
      stats.active_bytes[t].increase(block->size);
      stats.requested_bytes[t].increase(requested);
    });
    live_.insert(block);
    return block;
  }

  void free(Block* block) {
    std::lock_guard<std::mutex> g(mu_);
    block->allocated = false;
    for_pool(block->small, [&](int t) {
      stats.allocation[t].decrease(1);
      stats.allocated_bytes[t].decrease(block->size);
    });
    if (block->pending_uses > 0) {
      // Blocks used on other streams wait for those streams (events in the real
      // allocator); simulated work is synchronous, so the wait ends at the next malloc.
      block->free_deferred = true;
      deferred_.push_back(block);
      return;
    }
    free_block(block);
  }

  void record_stream(Block* block, int64_t stream) {
    std::lock_guard<std::mutex> g(mu_);
    if (stream != block->stream) block->pending_uses += 1;
  }

  void empty_cache() {
    std::lock_guard<std::mutex> g(mu_);
    process_deferred();
    release_cached();
  }

  void reset_peak() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto* arr : stats.all())
      for (auto& s : *arr) s.peak = s.current;
  }

  void reset_accumulated() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto* arr : stats.all())
      for (auto& s : *arr) s.allocated = s.freed = 0;
    stats.num_alloc_retries = stats.num_ooms = 0;
    stats.num_device_alloc = stats.num_device_free = 0;
  }

  // A consistent copy of every counter (the OOM message, torch.accelerator and
  // memory_stats all read through it).
  DeviceStats snapshot() {
    std::lock_guard<std::mutex> g(mu_);
    return stats;
  }

  // Flat export for Python: 9 stats x 3 pools x (current, peak, allocated, freed), then
  // the counters, limit and total.
  std::vector<int64_t> export_stats() {
    DeviceStats st = snapshot();
    std::vector<int64_t> out;
    for (auto* arr : st.all())
      for (auto& s : *arr) out.insert(out.end(), {s.current, s.peak, s.allocated, s.freed});
    out.insert(out.end(), {st.num_alloc_retries, st.num_ooms, st.num_device_alloc,
                           st.num_device_free, limit, total});
    return out;
  }

  // Segments for memory._snapshot(): per segment [addr, total, stream, small, nblocks],
  // then per block [addr, size, requested, state] with state 0 inactive, 1 allocated,
  // 2 pending free.
  std::vector<int64_t> export_segments() {
    std::lock_guard<std::mutex> g(mu_);
    std::set<Block*, AddrCmp> heads;
    auto add_head = [&](Block* b) {
      while (b->prev) b = b->prev;
      heads.insert(b);
    };
    for (auto* b : live_) add_head(b);
    for (auto* b : small_free_) add_head(b);
    for (auto* b : large_free_) add_head(b);
    std::vector<int64_t> out;
    for (auto* head : heads) {
      int64_t total_size = 0, n = 0;
      for (auto* b = head; b; b = b->next) total_size += b->size, ++n;
      out.insert(out.end(), {head->addr, total_size, head->stream, head->small ? 1 : 0, n});
      for (auto* b = head; b; b = b->next) {
        int64_t state = b->allocated ? 1 : (b->free_deferred ? 2 : 0);
        out.insert(out.end(), {b->addr, b->size, b->requested, state});
      }
    }
    return out;
  }

 private:
  struct AddrCmp {
    bool operator()(const Block* a, const Block* b) const {
      return a->addr < b->addr;
    }
  };

  template <typename F>
  static void for_pool(bool small, F f) {
    f(kAll);
    f(small ? kSmall : kLarge);
  }

  static bool should_split(const Block* block, int64_t size) {
    const int64_t remaining = block->size - size;
    return block->small ? remaining >= kMinBlockSize : remaining > kSmallSize;
  }

  bool reserve(int64_t seg) {
    return stats.reserved_bytes[kAll].current + seg <= limit;
  }

  void process_deferred() {
    for (auto* b : deferred_) {
      b->pending_uses = 0;
      b->free_deferred = false;
      free_block(b);
    }
    deferred_.clear();
  }

  // c10/cuda/CUDACachingAllocator.cpp free_block: merge with free neighbours and
  // keep the inactive_split counters.
  void free_block(Block* block) {
    const int64_t original = block->size, requested = block->requested;
    auto& pool = block->small ? small_free_ : large_free_;
    int64_t net_blocks = 0, net_bytes = 0;
    for (Block* cand : {block->prev, block->next}) {
      if (!cand || cand->allocated || cand->free_deferred) continue;
      pool.erase(cand);
      if (cand == block->prev) {
        block->addr = cand->addr;
        block->prev = cand->prev;
        if (block->prev) block->prev->next = block;
      } else {
        block->next = cand->next;
        if (block->next) block->next->prev = block;
      }
      block->size += cand->size;
      net_blocks -= 1;
      net_bytes -= cand->size;
      delete cand;
    }
    live_.erase(block);
    block->requested = 0;
    pool.insert(block);
    if (block->is_split()) {
      net_blocks += 1;
      net_bytes += block->size;
    }
    for_pool(block->small, [&](int t) {
      stats.inactive_split[t].increase(net_blocks);
      stats.inactive_split_bytes[t].increase(net_bytes);
      stats.active[t].decrease(1);
      stats.active_bytes[t].decrease(original);
      stats.requested_bytes[t].decrease(requested);
    });
  }

  // release_cached_blocks: only blocks that are a whole segment go back to the driver.
  void release_cached() {
    for (auto* pool : {&small_free_, &large_free_}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* b = *it;
        if (b->is_split()) {
          ++it;
          continue;
        }
        for_pool(b->small, [&](int t) {
          stats.segment[t].decrease(1);
          stats.reserved_bytes[t].decrease(b->size);
        });
        stats.num_device_free += 1;
        it = pool->erase(it);
        delete b;
      }
    }
  }

  std::mutex mu_;
  DeviceStats stats;
  std::set<Block*, Cmp> small_free_, large_free_;
  std::set<Block*> live_;
  std::vector<Block*> deferred_;
  int64_t next_addr_ = int64_t(1) << 40;
};

}  // namespace cache
}  // namespace musa_sim
