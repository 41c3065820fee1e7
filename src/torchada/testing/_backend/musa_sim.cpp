// Simulated MUSA device backend for torchada.testing.  Few translation units on purpose
// (the cold build must stay well under a minute on two cores): this one, the device; and
// musa_sim_quantized.cpp, its quantized tensors, built beside it (_backend/__init__.py
// SOURCES; the declarations they share: musa_sim_internal.h).
//
// PrivateUse1 tensors live in host memory.  Ops without an explicit kernel go
// through a boxed fallback that runs the CPU kernel on CPU tensors *aliasing*
// the musa storage (same bytes), so writes through views are never lost; aten
// overloads the simulated torch_musa release does not register are refused there
// (the operator table, see "operator set" below).
// Python talks to this library only through the `musa_sim::*` custom ops.
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/GeneratorForPrivateuseone.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/EmptyTensor.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/util/ApproximateClock.h>
#include <torch/csrc/profiler/stubs/base.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/copy_ops.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/view_native.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors_native.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors.h>
#include <ATen/ops/_indices_native.h>
#include <ATen/ops/_values_native.h>
#include <ATen/ops/indices_native.h>
#include <ATen/ops/values_native.h>
#include <ATen/ops/_nnz_native.h>
#include <ATen/ops/sparse_dim_native.h>
#include <ATen/ops/is_coalesced_native.h>
#include <ATen/ops/_coalesced_native.h>
#include <ATen/SparseTensorImpl.h>
#include <ATen/SparseCsrTensorImpl.h>
#include <ATen/ops/_sparse_compressed_tensor_unsafe.h>
#include <ATen/ops/crow_indices_native.h>
#include <ATen/ops/ccol_indices_native.h>
#include <ATen/ops/row_indices_native.h>
#include <ATen/ops/col_indices_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>
#include <ATen/ops/log.h>
#include <ATen/TensorIterator.h>
#include <ATen/ops/kaiser_window.h>
#include <ATen/core/VariableHooksInterface.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/zeros.h>
#include <torch/version.h>

#include "caching_model.h"
#include "musa_sim_internal.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#define MUSA_SIM_TORCH_AT_LEAST(MAJ, MIN) \
  (TORCH_VERSION_MAJOR > (MAJ) ||         \
   (TORCH_VERSION_MAJOR == (MAJ) && TORCH_VERSION_MINOR >= (MIN)))

#if MUSA_SIM_TORCH_AT_LEAST(2, 9)
#include <c10/core/CachingDeviceAllocator.h>
#endif

namespace musa_sim {

using c10::DeviceIndex;
using c10::DeviceType;
constexpr DeviceType kMusa = DeviceType::PrivateUse1;
constexpr int kMaxDevices = 16;

// ---------------------------------------------------------------- state
std::atomic<int> g_device_count{2};
std::atomic<bool> g_capturing{false};
thread_local DeviceIndex t_current_device = 0;
thread_local std::array<int64_t, kMaxDevices> t_current_stream{};
std::atomic<int64_t> g_next_stream_id{1};

// One caching-allocator model per device (caching_model.h).
std::array<cache::DeviceCache, kMaxDevices> g_cache;

std::string dev_str(DeviceIndex d) {
  return "musa:" + std::to_string(int(d));
}

void check_index(int64_t d) {
  TORCH_CHECK(
      d >= 0 && d < g_device_count.load(),
      "MUSA error: invalid device ordinal (device ",
      d,
      ", device_count() is ",
      g_device_count.load(),
      ")");
}

// Accounting shared by the allocator and by buffers adopted from CPU kernels:
// every musa buffer is a block of the caching-allocator model.
cache::Block* account_alloc(DeviceIndex d, int64_t n) {
  auto& c = g_cache[d];
  int64_t stream = t_current_stream[d];
  cache::Block* b = c.malloc(n, stream);
  if (b == nullptr) {
    cache::DeviceStats st = c.snapshot();
    int64_t reserved = st.reserved_bytes[cache::kAll].current;
    int64_t allocated = st.allocated_bytes[cache::kAll].current;
    std::ostringstream msg;
    msg << "MUSA out of memory. Tried to allocate " << (cache::round_size(n) >> 20)
        << " MiB. GPU " << int(d) << " has a total capacity of " << (c.total >> 20)
        // reserved can exceed a limit lowered later (set_per_process_memory_fraction)
        << " MiB of which " << (std::max<int64_t>(0, c.limit - reserved) >> 20)
        << " MiB is free. Of the allocated memory " << (allocated >> 20)
        << " MiB is allocated by PyTorch, and " << ((reserved - allocated) >> 20)
        << " MiB is reserved by PyTorch but unallocated. (simulated device; limit "
        << (c.limit >> 20) << " MiB)";
    TORCH_CHECK_WITH(OutOfMemoryError, false, msg.str());
  }
  return b;
}

void account_free(DeviceIndex d, cache::Block* b) {
  g_cache[d].free(b);
}

struct Block {
  void* ptr;
  cache::Block* model;
  DeviceIndex dev;
};

void free_block(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  std::free(b->ptr);
  account_free(b->dev, b->model);
  delete b;
}

c10::DataPtr allocate_on(DeviceIndex d, size_t n) {
  if (n == 0) {
    return c10::DataPtr(nullptr, c10::Device(kMusa, d));
  }
  cache::Block* m = account_alloc(d, int64_t(n));
  void* p = nullptr;
  if (posix_memalign(&p, 64, n) != 0 || p == nullptr) {
    account_free(d, m);
    TORCH_CHECK_WITH(
        OutOfMemoryError, false, "MUSA out of memory (host malloc failed)");
  }
  return c10::DataPtr(p, new Block{p, m, d}, &free_block, c10::Device(kMusa, d));
}

void free_adopted(void* ctx);

// Tensor.record_stream / recordStream: the block's free waits for that stream.
void record_data_ptr_stream(const c10::DataPtr& dp, int64_t stream) {
  auto del = dp.get_deleter();
  if (del != &free_block && del != &free_adopted) return;
  auto* b = static_cast<Block*>(dp.get_context());
  g_cache[b->dev].record_stream(b->model, stream);
}

// Plain allocator: what torch_musa releases before 2.11.0.post2 expose to
// torch.accelerator (not a DeviceAllocator, so the generic memory APIs fail).
struct PlainAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    return allocate_on(t_current_device, n);
  }
  c10::DeleterFnPtr raw_deleter() const override {
    return nullptr;
  }
  void copy_data(void* dst, const void* src, std::size_t n) const override {
    std::memcpy(dst, src, n);
  }
};
PlainAllocator g_plain_alloc;

#if MUSA_SIM_TORCH_AT_LEAST(2, 9)
// DeviceAllocator: torch.accelerator.memory_* work through this one.
struct DevAllocator final : c10::DeviceAllocator {
  c10::DataPtr allocate(size_t n) override {
    return allocate_on(t_current_device, n);
  }
  void copy_data(void* dst, const void* src, std::size_t n) const override {
    std::memcpy(dst, src, n);
  }
  bool initialized() override {
    return true;
  }
  void emptyCache(c10::MempoolId_t) override {
    for (auto& c : g_cache) c.empty_cache();
  }
  void recordStream(const c10::DataPtr& dp, c10::Stream s) override {
    record_data_ptr_stream(dp, s.id());
  }
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(DeviceIndex d) override {
    c10::CachingDeviceAllocator::DeviceStats st;
    cache::DeviceStats m = g_cache[d].snapshot();
    auto copy = [](c10::CachingDeviceAllocator::StatArray& to, const cache::StatArray& from) {
      for (int p = 0; p < 3; ++p) {
        to[p].current = from[p].current;
        to[p].peak = from[p].peak;
        to[p].allocated = from[p].allocated;
        to[p].freed = from[p].freed;
      }
    };
    copy(st.allocation, m.allocation);
    copy(st.segment, m.segment);
    copy(st.active, m.active);
    copy(st.inactive_split, m.inactive_split);
    copy(st.allocated_bytes, m.allocated_bytes);
    copy(st.reserved_bytes, m.reserved_bytes);
    copy(st.active_bytes, m.active_bytes);
    copy(st.inactive_split_bytes, m.inactive_split_bytes);
    copy(st.requested_bytes, m.requested_bytes);
    st.num_alloc_retries = m.num_alloc_retries;
    st.num_ooms = m.num_ooms;
    st.num_device_alloc = m.num_device_alloc;
    st.num_device_free = m.num_device_free;
    return st;
  }
  void resetAccumulatedStats(DeviceIndex d) override {
    g_cache[d].reset_accumulated();
  }
  void resetPeakStats(DeviceIndex d) override {
    g_cache[d].reset_peak();
  }
  // No `override`: c10::DeviceAllocator declares getMemoryInfo only in newer torch (absent
  // in 2.9.1's CachingDeviceAllocator.h, present in 2.13's); the same signature overrides
  // it where it exists.
  std::pair<size_t, size_t> getMemoryInfo(DeviceIndex d) {
    auto& c = g_cache[d];
    return {size_t(c.total - c.snapshot().reserved_bytes[cache::kAll].current), size_t(c.total)};
  }
};
DevAllocator g_dev_alloc;
#endif

c10::Allocator* current_allocator() {
  return c10::GetAllocator(kMusa);
}

// Pinned host memory: plain malloc, remembered (with its size) so is_pinned() can answer
// and host_memory_stats can count: current/peak/allocated/freed of allocations and bytes,
// then the host-allocation and host-free calls (every allocation is one: no caching).
std::mutex g_pin_mu;
std::unordered_map<const void*, size_t> g_pinned;
int64_t g_host_stats[10] = {0};  // allocations[4], allocated_bytes[4], n_alloc, n_free
void host_stat_add(int base, int64_t amount) {
  int64_t* s = g_host_stats + base;
  s[0] += amount;
  if (amount > 0) s[2] += amount; else s[3] -= amount;
  if (s[0] > s[1]) s[1] = s[0];
}
void free_pinned(void* p) {
  {
    std::lock_guard<std::mutex> g(g_pin_mu);
    auto it = g_pinned.find(p);
    if (it != g_pinned.end()) {
      host_stat_add(0, -1);
      host_stat_add(4, -static_cast<int64_t>(it->second));
      g_host_stats[9] += 1;
      g_pinned.erase(it);
    }
  }
  std::free(p);
}
std::vector<int64_t> host_stats() {
  std::lock_guard<std::mutex> g(g_pin_mu);
  return std::vector<int64_t>(g_host_stats, g_host_stats + 10);
}
void host_stats_reset(bool peak) {
  std::lock_guard<std::mutex> g(g_pin_mu);
  for (int base : {0, 4}) {
    if (peak) {
      g_host_stats[base + 1] = g_host_stats[base];
    } else {
      g_host_stats[base + 2] = g_host_stats[base + 3] = 0;
    }
  }
  if (!peak) g_host_stats[8] = g_host_stats[9] = 0;
}
struct PinnedAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    void* p = nullptr;
    if (n && posix_memalign(&p, 64, n) != 0) p = nullptr;
    if (p) {
      std::lock_guard<std::mutex> g(g_pin_mu);
      g_pinned.emplace(p, n);
      host_stat_add(0, 1);
      host_stat_add(4, static_cast<int64_t>(n));
      g_host_stats[8] += 1;
    }
    return c10::DataPtr(p, p, &free_pinned, c10::Device(c10::kCPU));
  }
  c10::DeleterFnPtr raw_deleter() const override {
    return &free_pinned;
  }
  void copy_data(void* dst, const void* src, std::size_t n) const override {
    std::memcpy(dst, src, n);
  }
};
PinnedAllocator g_pinned_alloc;

// ---------------------------------------------------------------- generators
// The musa generator keeps a Philox-style state, (seed, offset), as
// at::cuda::CUDAGeneratorImpl does (aten/src/ATen/cuda/CUDAGeneratorImpl.cpp
// get_state/set_state: 16 bytes, seed then offset); torch_musa's MUSAGeneratorImpl is a
// port of it (line: unknown).  Each random kernel draws from a CPU mt19937 seeded
// from (seed, offset), then the offset advances: results depend only on the state,
// so a state saved from a CUDA checkpoint restores, and the CPU generator is never
// touched.  While a CPU kernel runs for a musa op the fallback flips the generator to
// CPU so check_generator<CPUGeneratorImpl> accepts it, then flips it back.
struct MusaGenerator final : at::CPUGeneratorImpl {
  static constexpr uint64_t kOffsetStep = 4;  // Philox offsets move in multiples of 4
  explicit MusaGenerator(DeviceIndex d) : at::CPUGeneratorImpl(67280421310721ULL) {
    device_ = c10::Device(kMusa, d);
    key_set_ = c10::DispatchKeySet(c10::DispatchKey::PrivateUse1);
    seed_ = 67280421310721ULL;
  }
  void as_cpu(bool on) {
    if (on) {
      // splitmix64 of (seed, offset): a fresh stream per kernel launch.
      uint64_t z = seed_ ^ (offset_ * 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      at::CPUGeneratorImpl::set_current_seed(z ^ (z >> 31));
    } else {
      offset_ += kOffsetStep;
    }
    device_ = on ? c10::Device(c10::kCPU) : c10::Device(kMusa, idx());
    key_set_ = c10::DispatchKeySet(on ? c10::DispatchKey::CPU : c10::DispatchKey::PrivateUse1);
  }
  void set_current_seed(uint64_t seed) override {
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t current_seed() const override {
    return seed_;
  }
  uint64_t seed() override {
    auto s = c10::detail::getNonDeterministicRandom(true);
    set_current_seed(s);
    return s;
  }
  void set_offset(uint64_t offset) override {
    offset_ = offset;
  }
  uint64_t get_offset() const override {
    return offset_;
  }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    auto t = at::detail::empty_cpu({16}, c10::ScalarType::Byte, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
    auto* p = t.data_ptr<uint8_t>();
    int64_t off = int64_t(offset_);
    std::memcpy(p, &seed_, 8);
    std::memcpy(p + 8, &off, 8);
    return t.getIntrusivePtr();
  }
  void set_state(const c10::TensorImpl& new_state) override {
    at::detail::check_rng_state(new_state);
    auto n = new_state.numel();
    // CUDAGeneratorImpl::set_state accepts the old seed-only layout too.
    TORCH_CHECK(n == 16 || n == 8, "RNG state is wrong size");
    auto* p = static_cast<const uint8_t*>(new_state.data());
    uint64_t seed;
    int64_t off = 0;
    std::memcpy(&seed, p, 8);
    if (n == 16) std::memcpy(&off, p + 8, 8);
    seed_ = seed;
    offset_ = uint64_t(off);
  }
  DeviceIndex idx() const {
    return home_;
  }
  DeviceIndex home_ = 0;
  uint64_t seed_ = 0;
  uint64_t offset_ = 0;

 private:
  MusaGenerator* clone_impl() const override {
    auto* g = new MusaGenerator(home_);
    g->home_ = home_;
    g->seed_ = seed_;
    g->offset_ = offset_;
    return g;
  }
};

at::Generator make_generator(DeviceIndex d) {
  auto g = at::make_generator<MusaGenerator>(d);
  g.get<MusaGenerator>()->home_ = d;
  return g;
}

std::once_flag g_gen_once;
std::array<at::Generator, kMaxDevices> g_default_gens;
const at::Generator& default_generator(DeviceIndex d) {
  std::call_once(g_gen_once, [] {
    for (int i = 0; i < kMaxDevices; ++i) g_default_gens[i] = make_generator(DeviceIndex(i));
  });
  if (d < 0) d = t_current_device;
  check_index(d);
  return g_default_gens[d];
}

at::Generator new_generator(DeviceIndex d) {
  return make_generator(d < 0 ? t_current_device : d);
}
// Newer torch asks the hooks' getNewGenerator (and warns about the registry).
#if !MUSA_SIM_TORCH_AT_LEAST(2, 9)
REGISTER_GENERATOR_PRIVATEUSE1(new_generator)
#endif

// ---------------------------------------------------------------- guard
struct SimEvent {
  double t_ms = 0;
  bool timing = false;
};

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct GuardImpl final : c10::impl::DeviceGuardImplInterface {
  static constexpr DeviceType static_type = kMusa;
  DeviceType type() const override {
    return kMusa;
  }
  c10::Device exchangeDevice(c10::Device d) const override {
    auto old = getDevice();
    if (d.index() != old.index()) setDevice(d);
    return old;
  }
  c10::Device getDevice() const override {
    return c10::Device(kMusa, t_current_device);
  }
  void setDevice(c10::Device d) const override {
    check_index(d.index());
    t_current_device = d.index();
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    t_current_device = d.index();
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    auto i = d.index() < 0 ? t_current_device : d.index();
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kMusa, i), i < kMaxDevices ? t_current_stream[i] : 0);
  }
  c10::Stream getDefaultStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::UNSAFE, d, 0);
  }
  c10::Stream getNewStream(c10::Device d, int priority = 0) const override {
    return c10::Stream(c10::Stream::UNSAFE, with_index(d), g_next_stream_id++);
  }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool = false) const override {
    return c10::Stream(c10::Stream::UNSAFE, with_index(d), g_next_stream_id++);
  }
  // torch.Stream(device="musa") means the current device, as for CUDA.
  static c10::Device with_index(c10::Device d) {
    if (!d.has_index()) return c10::Device(kMusa, t_current_device);
    check_index(d.index());
    return d;
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    auto i = s.device_index() < 0 ? t_current_device : s.device_index();
    if (i >= kMaxDevices) return s;
    auto old = c10::Stream(c10::Stream::UNSAFE, s.device(), t_current_stream[i]);
    t_current_stream[i] = s.id();
    return old;
  }
  DeviceIndex deviceCount() const noexcept override {
    return DeviceIndex(g_device_count.load());
  }
  void record(void** event, const c10::Stream& stream, const DeviceIndex device_index,
              const c10::EventFlag flag) const override {
    // c10/cuda/impl/CUDAGuardImpl.h record(): an event stays on the device it was first
    // recorded on (torch_musa's MUSAGuardImpl is a port; its exact text: unknown).
    TORCH_CHECK(
        device_index == -1 || device_index == stream.device_index(),
        "Event device index ", int(device_index), " does not match recording stream's device index ",
        int(stream.device_index()), ".");
    if (*event == nullptr) *event = new SimEvent();
    static_cast<SimEvent*>(*event)->t_ms = now_ms();
  }
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override {
    return true;
  }
  void destroyEvent(void* e, const DeviceIndex) const noexcept override {
    delete static_cast<SimEvent*>(e);
  }
  bool queryStream(const c10::Stream&) const override {
    return true;
  }
  void synchronizeStream(const c10::Stream&) const override {}
  // Not overrides on every torch version, hence no `override`.
  void synchronizeEvent(void*) const {}
  void synchronizeDevice(const DeviceIndex) const {}
  double elapsedTime(void* a, void* b, const DeviceIndex) const {
    TORCH_CHECK(a && b, "Both events must be recorded before calculating elapsed time.");
    return static_cast<SimEvent*>(b)->t_ms - static_cast<SimEvent*>(a)->t_ms;
  }
  void recordDataPtrOnStream(const c10::DataPtr& dp, const c10::Stream& s) const override {
    record_data_ptr_stream(dp, s.id());
  }
};
C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

// ---------------------------------------------------------------- hooks
struct Hooks final : at::PrivateUse1HooksInterface {
  bool hasPrimaryContext(DeviceIndex) const override {
    return true;
  }
  const at::Generator& getDefaultGenerator(DeviceIndex d) const override {
    return default_generator(d);
  }
  at::Generator getNewGenerator(DeviceIndex d = -1) const {
    return new_generator(d);
  }
  at::Device getDeviceFromPtr(void*) const override {
    return c10::Device(kMusa, t_current_device);
  }
  bool isPinnedPtr(const void* p) const override {
    std::lock_guard<std::mutex> g(g_pin_mu);
    return g_pinned.count(p) > 0;
  }
  at::Allocator* getPinnedMemoryAllocator() const override {
    return &g_pinned_alloc;
  }
  bool isBuilt() const {
    return true;
  }
  bool isAvailable() const {
    return true;
  }
  DeviceIndex deviceCount() const {
    return DeviceIndex(g_device_count.load());
  }
  void setCurrentDevice(DeviceIndex d) const {
    check_index(d);
    t_current_device = d;
  }
  DeviceIndex getCurrentDevice() const {
    return t_current_device;
  }
  DeviceIndex exchangeDevice(DeviceIndex d) const {
    auto old = t_current_device;
    setCurrentDevice(d);
    return old;
  }
  DeviceIndex maybeExchangeDevice(DeviceIndex d) const {
    return exchangeDevice(d);
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    auto* impl = storage.unsafeGetStorageImpl();
    auto dev = storage.device().index();
    c10::DataPtr fresh = allocate_on(dev < 0 ? t_current_device : dev, newsize);
    size_t keep = std::min(newsize, storage.nbytes());
    if (keep) std::memcpy(fresh.get(), storage.data(), keep);
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(newsize);
  }
};
static bool g_hooks_registered = [] {
  at::RegisterPrivateUse1HooksInterface(new Hooks());
  c10::SetAllocator(kMusa, &g_plain_alloc);
  return true;
}();

// ---------------------------------------------------------------- profiler stubs
// torch_musa patches the autograd profiler to use the privateuse1 backend name and records
// MUSA events through it (../shared/torch_musa_api/cuda_vs_musa.md: torch_patches/kineto);
// its stub source is unknown here. Modelled on torch's CUDA stubs
// (torch/csrc/profiler/stubs/cuda.cpp): an event is a timestamp, elapsed() is in
// microseconds, each device is visited; the simulator's device work runs on the host and
// is complete when a call returns, so synchronize() has nothing to wait for.
struct ProfilerStubs final : torch::profiler::impl::ProfilerStubs {
  void record(
      DeviceIndex* device,
      torch::profiler::impl::ProfilerVoidEventStub* event,
      int64_t* cpu_ns) const override {
    if (device) *device = t_current_device;
    auto stamp = std::make_shared<int64_t>(c10::getTime());
    *event = std::static_pointer_cast<void>(stamp);
    if (cpu_ns) *cpu_ns = c10::getTime();
  }
  float elapsed(
      const torch::profiler::impl::ProfilerVoidEventStub* a,
      const torch::profiler::impl::ProfilerVoidEventStub* b) const override {
    auto start = *static_cast<const int64_t*>(a->get());
    auto end = *static_cast<const int64_t*>(b->get());
    return static_cast<float>(end - start) / 1000.0f;
  }
  void mark(const char*) const override {}
  void rangePush(const char*) const override {}
  void rangePop() const override {}
  bool enabled() const override {
    return true;
  }
  void onEachDevice(std::function<void(int)> op) const override {
    for (int d = 0; d < g_device_count.load(); ++d) op(d);
  }
  void synchronize() const override {}
};
static ProfilerStubs g_profiler_stubs;
static bool g_profiler_registered = [] {
  torch::profiler::impl::registerPrivateUse1Methods(&g_profiler_stubs);
  return true;
}();

// ---------------------------------------------------------------- aliasing
void release_storage(void* ctx) {
  delete static_cast<c10::Storage*>(ctx);
}

// CPU tensor over the very same bytes as musa tensor `t` (keeps t's storage alive).
at::Tensor cpu_alias(const at::Tensor& t) {
  const c10::Storage& st = t.storage();
  c10::DataPtr dp(
      st.data_ptr().get(), new c10::Storage(st), &release_storage, c10::Device(c10::kCPU));
  c10::Storage cst(
      c10::Storage::use_byte_size_t(), st.nbytes(), std::move(dp), c10::GetAllocator(c10::kCPU), true);
  if (t.is_quantized()) return qtensor_over(std::move(cst), t);  // musa_sim_quantized.cpp
  auto out = at::detail::make_tensor<c10::TensorImpl>(
      std::move(cst), c10::DispatchKeySet(c10::DispatchKey::CPU), t.dtype());
  auto* impl = out.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  return out;
}

// torch's kaiser_window (aten/src/ATen/native/TensorFactories.cpp) is CompositeExplicitAutograd
// and calls kaiser_window_stub for the tensor's device type itself, past the dispatcher and so
// past the fallback; torch_musa registers the stub (torch_musa
// csrc/aten/ops/musa/UnarySpecialOpsKernel.mu:395, REGISTER_DISPATCH(kaiser_window_stub, ...)).
// Its only caller passes arange(window_length) as the input, so the CPU window of the same
// length (periodic=false: the caller already lengthened a periodic one) is the stub's output;
// the stub itself is not callable from here (DispatchStubImpl::get_call_ptr is not exported).
void kaiser_window_musa(at::TensorIteratorBase& iter, const int64_t window_length, const double beta) {
  at::Tensor out = cpu_alias(iter.tensor(0));
  out.copy_(at::kaiser_window(window_length, /*periodic=*/false, beta, out.options()));
}

at::Tensor musa_over(const c10::Storage& st, const at::Tensor& like) {
  if (like.is_quantized()) return qtensor_over(st, like);  // musa_sim_quantized.cpp
  auto out = at::detail::make_tensor<c10::TensorImpl>(
      c10::Storage(st), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), like.dtype());
  auto* impl = out.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(like.sizes(), like.strides());
  impl->set_storage_offset(like.storage_offset());
  return out;
}

void free_adopted(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  account_free(b->dev, b->model);
  delete static_cast<c10::DataPtr*>(b->ptr);
  delete b;
}

// Gives storage `si` the bytes `replacement` holds (already a copy of its own): the old
// bytes are freed, but the caching-allocator model block that accounts for them is handed
// to the caller (still counted; release_accounting uncounts it), with its device in *dev.
// nullptr, and nothing changed, when these bytes are not this backend's allocation.
void* swap_bytes(c10::StorageImpl* si, c10::DataPtr replacement, DeviceIndex* dev) {
  auto del = si->data_ptr().get_deleter();
  if (del != &free_block && del != &free_adopted) return nullptr;
  c10::DataPtr old = si->set_data_ptr(std::move(replacement));
  auto* b = static_cast<Block*>(old.release_context());
  if (del == &free_block) {
    std::free(b->ptr);
  } else {
    delete static_cast<c10::DataPtr*>(b->ptr);
  }
  void* model = b->model;
  *dev = b->dev;
  delete b;
  return model;
}

void release_accounting(DeviceIndex dev, void* model) {
  account_free(dev, static_cast<cache::Block*>(model));
}

// A musa storage for a buffer that a CPU kernel just allocated: adopt the
// bytes when nobody else holds them, copy otherwise.
c10::Storage adopt(const at::Tensor& cpu_out, DeviceIndex dev) {
  auto* si = cpu_out.storage().unsafeGetStorageImpl();
  int64_t n = int64_t(si->nbytes());
  if (cpu_out.storage().use_count() == 1 && si->data_ptr().get_deleter() != nullptr) {
    cache::Block* m = account_alloc(dev, n);
    auto* held = new c10::DataPtr(si->set_data_ptr(c10::DataPtr()));
    void* raw = held->get();
    c10::DataPtr dp(raw, new Block{held, m, dev}, &free_adopted, c10::Device(kMusa, dev));
    return c10::Storage(c10::Storage::use_byte_size_t(), size_t(n), std::move(dp), current_allocator(), true);
  }
  c10::DataPtr dp = allocate_on(dev, size_t(n));
  if (n) std::memcpy(dp.get(), si->data(), size_t(n));
  return c10::Storage(c10::Storage::use_byte_size_t(), size_t(n), std::move(dp), current_allocator(), true);
}

[[noreturn]] void mixed_devices(const c10::Device& a, const c10::Device& b) {
  TORCH_CHECK(
      false,
      "Expected all tensors to be on the same device, but found at least two devices, ",
      a.str(),
      " and ",
      b.str(),
      "!");
}

struct Alias {
  at::Tensor musa;
  at::Tensor cpu;
  c10::StorageImpl* cpu_storage;
  void* data;
  size_t nbytes;
};

at::Tensor sparse_to(const at::Tensor& t, c10::Device d);

struct Ctx {
  c10::SmallVector<Alias, 8> aliases;
  std::optional<c10::Device> dev;
  c10::Device cpu_seen{c10::kCPU};
  bool has_cpu = false;
  bool lenient = false;  // indexing ops accept CPU index tensors, as on CUDA
  bool quantized = false;  // a quantized argument: the QuantizedCPU kernel runs

  at::Tensor wrap(const at::Tensor& t) {
    if (!t.defined()) return t;
    if (t.is_quantized()) quantized = true;
    if (t.device().type() == kMusa) {
      if (!dev) {
        dev = t.device();
      } else if (*dev != t.device()) {
        mixed_devices(*dev, t.device());
      }
      if (has_cpu && !lenient) mixed_devices(*dev, cpu_seen);
      for (auto& a : aliases)
        if (a.musa.unsafeGetTensorImpl() == t.unsafeGetTensorImpl()) return a.cpu;
      at::Tensor c = cpu_alias(t);
      aliases.push_back({t, c, c.storage().unsafeGetStorageImpl(), c.storage().data_ptr().get(), c.storage().nbytes()});
      return c;
    }
    // 0-dim CPU tensors mix with device tensors (wrapped scalars), as on CUDA.
    if (t.dim() > 0 && t.device().type() == c10::kCPU) {
      has_cpu = true;
      cpu_seen = t.device();
      if (dev && !lenient) mixed_devices(*dev, cpu_seen);
    }
    return t;
  }

  // Convert one returned CPU tensor back to musa.
  at::Tensor unwrap(const at::Tensor& out, std::vector<std::pair<c10::StorageImpl*, c10::Storage>>& fresh) {
    if (!out.defined() || out.device().type() != c10::kCPU) return out;
    if (out.layout() != c10::kStrided)  // a dense op made a sparse result (to_sparse ...)
      return sparse_to(out, dev ? *dev : c10::Device(kMusa, t_current_device));
    auto* si = out.storage().unsafeGetStorageImpl();
    for (auto& a : aliases) {
      if (a.cpu.unsafeGetTensorImpl() == out.unsafeGetTensorImpl()) return a.musa;
      if (a.cpu_storage == si) return musa_over(a.musa.storage(), out);
    }
    for (auto& f : fresh)
      if (f.first == si) return musa_over(f.second, out);
    DeviceIndex d = dev ? dev->index() : t_current_device;
    c10::Storage st = adopt(out, d);
    fresh.emplace_back(si, st);
    return musa_over(st, out);
  }

  // A CPU kernel may have resized or restrided an argument it writes to:
  // carry that back to the musa tensor.
  void sync_back() {
    for (auto& a : aliases) {
      auto* ci = a.cpu.unsafeGetTensorImpl();
      auto* mi = a.musa.unsafeGetTensorImpl();
      if (a.cpu_storage->data_ptr().get() != a.data || a.cpu_storage->nbytes() != a.nbytes) {
        auto* ms = a.musa.storage().unsafeGetStorageImpl();
        size_t n = a.cpu_storage->nbytes();
        c10::DataPtr dp = allocate_on(a.musa.device().index(), n);
        if (n) std::memcpy(dp.get(), a.cpu_storage->data(), n);
        ms->set_data_ptr_noswap(std::move(dp));
        ms->set_nbytes(n);
      }
      if (ci->sizes() != mi->sizes() || ci->strides() != mi->strides() ||
          ci->storage_offset() != mi->storage_offset()) {
        mi->set_sizes_and_strides(ci->sizes(), ci->strides());
        mi->set_storage_offset(ci->storage_offset());
      }
    }
  }
};

bool is_optional_generator(const c10::Argument& arg) {
  const auto& t = arg.type();
  if (t->kind() == c10::TypeKind::GeneratorType) return true;
  if (t->kind() != c10::TypeKind::OptionalType) return false;
  return t->castRaw<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::GeneratorType;
}

void check_not_capturing(const char* what) {
  TORCH_CHECK(
      !g_capturing.load(),
      "MUSA error: operation not permitted when stream is capturing (",
      what,
      " during MUSA graph capture)");
}

// Runs `target` (normally the same op) on CPU for a musa call on the stack.
void run_on_cpu(const c10::OperatorHandle& op, const c10::OperatorHandle& target,
                torch::jit::Stack* stack, size_t extra_front) {
  const auto& schema = op.schema();
  const auto& args = schema.arguments();
  const size_t n_args = args.size();
  const size_t base = stack->size() - n_args;
  Ctx ctx;
  const auto& name = schema.name();
  ctx.lenient = name.rfind("aten::index", 0) == 0 || name == "aten::_index_put_impl_";
  c10::SmallVector<MusaGenerator*, 2> flipped;

  for (size_t i = 0; i < n_args; ++i) {
    c10::IValue& iv = (*stack)[base + i];
    if (iv.isTensor()) {
      iv = ctx.wrap(iv.toTensor());
    } else if (iv.isTensorList()) {
      auto list = iv.toTensorList();
      c10::List<at::Tensor> out;
      out.reserve(list.size());
      for (const at::Tensor& t : list) out.push_back(ctx.wrap(t));
      iv = out;
    } else if (iv.isOptionalTensorList()) {
      auto list = iv.toOptionalTensorList();
      c10::List<std::optional<at::Tensor>> out;
      out.reserve(list.size());
      for (std::optional<at::Tensor> t : list)
        out.push_back(t.has_value() ? std::optional<at::Tensor>(ctx.wrap(*t)) : std::nullopt);
      iv = out;
    } else if (iv.isDevice() && iv.toDevice().type() == kMusa) {
      if (!ctx.dev) ctx.dev = iv.toDevice().has_index() ? iv.toDevice() : c10::Device(kMusa, t_current_device);
      iv = c10::IValue(c10::Device(c10::kCPU));
    }
  }
  // Generators: the musa generator of the device stands in for the CPU one.
  for (size_t i = 0; i < n_args; ++i) {
    c10::IValue& iv = (*stack)[base + i];
    MusaGenerator* g = nullptr;
    if (iv.isGenerator()) {
      auto gen = iv.toGenerator();
      if (gen.device().type() == kMusa) {
        g = gen.get<MusaGenerator>();
      } else if (ctx.dev) {
        // as check_generator<CUDAGeneratorImpl> refuses a CPU generator on the device
        TORCH_CHECK(false, "Expected a 'musa' device type for generator but found '", gen.device().type(), "'");
      }
    } else if (iv.isNone() && is_optional_generator(args[i])) {
      DeviceIndex d = ctx.dev ? ctx.dev->index() : t_current_device;
      iv = c10::IValue(default_generator(d));
      g = iv.toGenerator().get<MusaGenerator>();
    }
    if (g) {
      g->as_cpu(true);
      flipped.push_back(g);
    }
  }
  std::optional<c10::DeviceGuard> guard;
  if (ctx.dev) guard.emplace(*ctx.dev);
  try {
    target.redispatchBoxed(c10::DispatchKeySet(ctx.quantized ? c10::DispatchKey::QuantizedCPU
                                                             : c10::DispatchKey::CPU),
                           stack);
  } catch (...) {
    for (auto* g : flipped) g->as_cpu(false);
    throw;
  }
  for (auto* g : flipped) g->as_cpu(false);
  ctx.sync_back();

  const size_t n_ret = schema.returns().size();
  const size_t rbase = stack->size() - n_ret;
  std::vector<std::pair<c10::StorageImpl*, c10::Storage>> fresh;
  for (size_t i = 0; i < n_ret; ++i) {
    c10::IValue& iv = (*stack)[rbase + i];
    if (iv.isTensor()) {
      iv = ctx.unwrap(iv.toTensor(), fresh);
    } else if (iv.isTensorList()) {
      auto list = iv.toTensorList();
      c10::List<at::Tensor> out;
      out.reserve(list.size());
      for (const at::Tensor& t : list) out.push_back(ctx.unwrap(t, fresh));
      iv = out;
    }
  }
}

// ---------------------------------------------------------------- operator set
// The simulated release's operator set, installed from Python (torch_musa/_sim/optable.py)
// out of the table generated from torch_musa's sources (src/torchada/testing/optable).
// torch_musa registers no PrivateUse1 backend fallback (v2.7.1 registers one for
// AutogradPrivateUse1 only: torch_musa/csrc/core/VariableFallbackKernel_musa.cpp:29), so an
// aten overload it has no kernel for fails in the dispatcher.  Here the fallback decides:
// an overload of the release's torch ("known") runs only if the release registers it; any
// other operator (a newer torch's, another namespace's) is unknown to the table and runs.
struct OpTable {
  std::unordered_set<std::string> registered;
  std::unordered_set<std::string> known;
};
std::atomic<const OpTable*> g_op_table{nullptr};
std::mutex g_op_cache_mutex;
// Keyed by the schema's address: aten schemas live as long as the process.
std::unordered_map<const void*, bool> g_op_cache;

std::string op_full_name(const c10::OperatorName& n) {
  return n.overload_name.empty() ? n.name : n.name + "." + n.overload_name;
}

bool release_has_kernel_named(const OpTable* t, const std::string& name) {
  return t == nullptr || t->registered.count(name) == 1 || t->known.count(name) == 0;
}

bool release_has_kernel(const c10::OperatorHandle& op) {
  const OpTable* t = g_op_table.load(std::memory_order_acquire);
  if (t == nullptr) return true;
  const void* key = &op.schema();
  std::lock_guard<std::mutex> guard(g_op_cache_mutex);
  auto it = g_op_cache.find(key);
  if (it != g_op_cache.end()) return it->second;
  bool ok = release_has_kernel_named(t, op_full_name(op.operator_name()));
  g_op_cache.emplace(key, ok);
  return ok;
}

// What the dispatcher raises for a backend without a kernel (OperatorEntry::reportError:
// c10::NotImplementedError, the PrivateUse1 key shown under its registered name; the sparse
// keys as torch 2.7.1 and 2.13 name them once the backend is renamed: "Sparsemusa" /
// "SparseCsrmusa", where c10::toString here says "SparsePrivateUse1").
[[noreturn]] void report_missing_kernel(const c10::OperatorHandle& op,
                                        c10::DispatchKey key = c10::DispatchKey::PrivateUse1) {
  std::ostringstream keys;
  bool first = true;
  for (uint16_t i = 1; i < static_cast<uint16_t>(c10::DispatchKey::EndOfAliasKeys); ++i) {
    auto k = static_cast<c10::DispatchKey>(i);
    if (k == key || !op.hasKernelForDispatchKey(k)) continue;
    keys << (first ? "" : ", ") << c10::toString(k);
    first = false;
  }
  const std::string name = op_full_name(op.operator_name());
  const std::string backend =
      (key == c10::DispatchKey::SparsePrivateUse1 ? "Sparse"
       : key == c10::DispatchKey::SparseCsrPrivateUse1 ? "SparseCsr" : "") +
      c10::get_privateuse1_backend();
  TORCH_CHECK_NOT_IMPLEMENTED(false, "Could not run '", name, "' with arguments from the '",
                              backend, "' backend. This could be because the operator "
                              "doesn't exist for this backend. '", name,
                              "' is only available for these backends: [", keys.str(), "].");
}

void register_sparse_tables(const std::vector<std::string>& sparse,
                            const std::vector<std::string>& sparse_csr);

void set_op_table(std::vector<std::string> registered, std::vector<std::string> known,
                  std::vector<std::string> sparse, std::vector<std::string> sparse_csr) {
  register_sparse_tables(sparse, sparse_csr);
  auto* t = new OpTable{{registered.begin(), registered.end()}, {known.begin(), known.end()}};
  std::lock_guard<std::mutex> guard(g_op_cache_mutex);
  g_op_cache.clear();
  g_op_table.store(t, std::memory_order_release);  // a previous table is left alive: a call may read it
}

// Whether the installed table lets `name` ("aten::add.Tensor") reach a kernel.
bool op_table_allows(std::string name) {
  return release_has_kernel_named(g_op_table.load(std::memory_order_acquire), name);
}

void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  if (!release_has_kernel(op)) report_missing_kernel(op);
  run_on_cpu(op, op, stack);
}

// convolution_overrideable has the same schema as aten::convolution.
void conv_fwd(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  static auto target = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
  run_on_cpu(op, target, stack);
}

// convolution_backward_overrideable lacks bias_sizes; insert it and call
// aten::convolution_backward.
void conv_bwd(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  static auto target =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution_backward", "");
  const size_t n = op.schema().arguments().size();  // 10
  const size_t base = stack->size() - n;
  const at::Tensor& grad_out = (*stack)[base].toTensor();
  std::vector<int64_t> bias_sizes{grad_out.size(1)};
  stack->insert(stack->begin() + base + 3, c10::IValue(bias_sizes));
  // run_on_cpu reads argument types from `target`'s schema.
  run_on_cpu(target, target, stack);
}

// ---------------------------------------------------------------- kernels
at::Tensor empty_memory_format(
    c10::IntArrayRef size, std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
    std::optional<c10::Device> device, std::optional<bool> pin, std::optional<c10::MemoryFormat> mf) {
  auto d = c10::device_or_default(device);
  TORCH_CHECK(c10::layout_or_default(layout) == c10::Layout::Strided, "musa: only strided tensors are supported");
  c10::DeviceGuard g(d);
  return at::detail::empty_generic(
      size, current_allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      c10::dtype_or_default(dtype), mf);
}

at::Tensor empty_strided(
    c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<c10::ScalarType> dtype,
    std::optional<c10::Layout> layout, std::optional<c10::Device> device, std::optional<bool> pin) {
  auto d = c10::device_or_default(device);
  TORCH_CHECK(c10::layout_or_default(layout) == c10::Layout::Strided, "musa: only strided tensors are supported");
  c10::DeviceGuard g(d);
  return at::detail::empty_strided_generic(
      size, stride, current_allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      c10::dtype_or_default(dtype));
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  if (dst.device().type() != kMusa || self.device().type() != kMusa) check_not_capturing("host/device copy");
  at::Tensor d = dst.device().type() == kMusa ? cpu_alias(dst) : dst;
  at::Tensor s = self.device().type() == kMusa ? cpu_alias(self) : self;
  at::_ops::copy_::call(d, s, non_blocking);
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  at::native::resize_(dst, self.sizes(), std::nullopt);
  return copy_from(self, dst, false);
}

c10::Scalar local_scalar_dense(const at::Tensor& self) {
  check_not_capturing("reading a tensor value (.item())");
  return at::native::_local_scalar_dense_cpu(self);
}

at::Tensor& set_storage_offset(
    at::Tensor& self, c10::Storage src, int64_t offset, c10::IntArrayRef size, c10::IntArrayRef stride) {
  return at::native::set_storage_cpu_(self, src, offset, size, stride);
}

// aten::record_stream for musa tensors (torch_musa registers a PrivateUse1 kernel;
// CUDA's is record_stream_cuda in aten/src/ATen/native/cuda/RecordStream.cu).
void record_stream_musa(at::Tensor& self, c10::Stream s) {
  TORCH_CHECK(s.device_type() == kMusa, "record_stream: expected a musa stream, got ", s);
  record_data_ptr_stream(self.storage().data_ptr(), s.id());
}

// Ops whose CUDA kernels wait for the device to learn an output size
// (aten/src/ATen/native/cuda/Nonzero.cu, IndexKernel.cu masked_select): during graph
// capture the driver refuses the wait.  For MUSA the same is assumed (unknown).
void syncing_op(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  check_not_capturing(op.schema().name().c_str());
  run_on_cpu(op, op, stack);
}

// aten::multinomial: torch's function (aten/src/ATen/native/Distributions.cpp, multinomial)
// checks the probabilities with .item() when sampling without replacement or one sample,
// which waits for the device, so CUDA graph capture refuses it; the with-replacement path
// launches a kernel only.  torch_musa's kernel for it is unknown; modelled as the same ATen
// function (CUDA's behaviour).
void multinomial_musa(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const size_t base = stack->size() - op.schema().arguments().size();
  const int64_t samples = (*stack)[base + 1].toInt();
  const bool replacement = (*stack)[base + 2].toBool();
  if (!replacement || samples == 1) {
    check_not_capturing("multinomial's probability check (.item())");
  }
  run_on_cpu(op, op, stack);
}

// native_dropout has no generator argument, so the CPU kernel would draw from the CPU
// generator; the device kernel draws from the device's own (aten/src/ATen/native/cuda/
// Dropout.cu for CUDA).  Same arithmetic as native_dropout_cpu (native/Dropout.cpp).
std::tuple<at::Tensor, at::Tensor> native_dropout_musa(const at::Tensor& input, double p, std::optional<bool> train) {
  if (input.numel() == 0) return std::make_tuple(input, at::empty_like(input, input.options()));
  if (train.has_value() && !*train) {
    return std::make_tuple(input.clone(), at::ones_like(input, input.options().dtype(at::kBool)));
  }
  double p1m = 1. - p;
  double scale = p1m == 0 ? 0. : 1. / p1m;
  at::Tensor mask = at::empty_like(input, input.options().dtype(at::kBool));
  mask.bernoulli_(p1m);
  return std::make_tuple(input.mul(mask).mul_(scale), mask);
}

// torch_musa's patched torch treats dense CPU and MUSA tensors as shallow-copy compatible
// (../shared/torch_musa_api/stock_vs_patched_torch.md, "Module moves replace parameters"; the
// patch's file: unknown), so `param.data = param.to("musa")` works and Module.to / .cuda()
// keep their Parameter objects, as on CUDA.  Stock torch answers from the TensorImpls'
// key sets (TypeProperties.cpp); the op is CompositeImplicitAutograd, so a mixed CPU / musa
// call reaches AutogradPrivateUse1 first (PrivateUse1 outranks CPU) and PrivateUse1 when
// autograd is off.  Every other pair keeps stock torch's answer.
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  auto dense = [](const at::Tensor& t) {
    return t.layout() == c10::kStrided &&
           (t.device().type() == c10::kCPU || t.device().type() == kMusa);
  };
  if (dense(self) && dense(from) && self.device().type() != from.device().type()) return true;
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("native_dropout", native_dropout_musa);
  m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
  m.impl("multinomial", torch::CppFunction::makeFromBoxedFunction<&multinomial_musa>());
  m.impl("nonzero", torch::CppFunction::makeFromBoxedFunction<&syncing_op>());
  m.impl("masked_select", torch::CppFunction::makeFromBoxedFunction<&syncing_op>());
  m.impl("empty.memory_format", empty_memory_format);
  m.impl("empty_strided", empty_strided);
  m.impl("as_strided", at::native::as_strided_tensorimpl);
  m.impl("view", at::native::view);
  m.impl("_reshape_alias", at::native::_reshape_alias);
  m.impl("resize_", at::native::resize_);
  m.impl("_copy_from", copy_from);
  m.impl("_copy_from_and_resize", copy_from_and_resize);
  m.impl("_local_scalar_dense", local_scalar_dense);
  m.impl("set_.source_Tensor", at::native::set_tensor_);
  m.impl("set_.source_Storage", at::native::set_);
  m.impl("set_.source_Storage_storage_offset", set_storage_offset);
  m.impl("record_stream", record_stream_musa);
  m.impl("convolution_overrideable", torch::CppFunction::makeFromBoxedFunction<&conv_fwd>());
  m.impl("convolution_backward_overrideable", torch::CppFunction::makeFromBoxedFunction<&conv_bwd>());
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {
  m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
}

// ---------------------------------------------------------------- sparse tensors
// A musa sparse tensor is a SparseTensorImpl (COO, key SparsePrivateUse1) or a
// SparseCsrTensorImpl (CSR/CSC/BSR/BSC, SparseCsrPrivateUse1) whose member tensors are musa
// strided tensors, as SparseCUDA's are CUDA tensors.  The ops it has are the release's table
// rows for the two keys (torch_musa 2.7.1: musa_functions.yaml:4142-4219, 13 SparsePrivateUse1
// and 6 SparseCsrPrivateUse1 overloads, all ATen kernels named in the yaml): the member
// accessors and the COO constructor are those ATen kernels, registered below; the other rows
// run their SparseCPU / SparseCsrCPU kernel on copies (register_sparse_rows).  An overload
// the table does not register for the key has no kernel, as on a card: torch_musa registers
// no backend fallback for either key (the table's only fallback is AutogradPrivateUse1), so
// the dispatcher takes a composite kernel where torch has one for that key (copy_, clone,
// the structured ops' default kernel on SparseCsr...) and otherwise raises.
bool is_compressed(c10::Layout l) {
  return l == c10::kSparseCsr || l == c10::kSparseCsc || l == c10::kSparseBsr || l == c10::kSparseBsc;
}

// (compressed, plain) indices of a CSR/CSC/BSR/BSC tensor, through the dispatcher as ATen's
// kernels get them (at::sparse_csr::getCompressedPlainIndices): on musa, CSR / BSR reach the
// registered crow_indices / col_indices; CSC / BSC reach ccol_indices / row_indices, which
// 2.7.1's table does not register, so they raise as on a card (2.9.1.post1 registers them).
std::pair<at::Tensor, at::Tensor> compressed_members(const at::Tensor& t) {
  bool rows = t.layout() == c10::kSparseCsr || t.layout() == c10::kSparseBsr;
  return rows ? std::make_pair(t.crow_indices(), t.col_indices())
              : std::make_pair(t.ccol_indices(), t.row_indices());
}

// The same sparse tensor with its member tensors on device `d` (CPU or musa).
at::Tensor sparse_to(const at::Tensor& t, c10::Device d) {
  if (is_compressed(t.layout())) {
    auto [ci, pi] = compressed_members(t);
    return at::_sparse_compressed_tensor_unsafe(ci.to(d), pi.to(d), t.values().to(d), t.sizes(),
                                                t.options().device(d));
  }
  TORCH_CHECK(t.layout() == c10::kSparse, "musa simulator: ", t.layout(),
              " tensors are not supported on musa");
  // The fields, not the ops: dense_dim has no SparsePrivateUse1 row (its composite default
  // raises for COO), yet the card coalesces a musa COO tensor (torch_musa's own test,
  // tests/unittest/sparse/test_csr.py:29): its kernels read the impl.
  const auto* impl = static_cast<const at::SparseTensorImpl*>(t.unsafeGetTensorImpl());
  return at::_sparse_coo_tensor_with_dims_and_tensors(
      impl->sparse_dim(), impl->dense_dim(), t.sizes(), impl->indices().to(d),
      impl->values().to(d), t.options().device(d), impl->coalesced());
}

at::Tensor any_to_cpu(const at::Tensor& t) {
  if (!t.defined() || t.device().type() != kMusa) return t;
  return t.layout() == c10::kStrided ? t.cpu() : sparse_to(t, c10::Device(c10::kCPU));
}

void sparse_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  const size_t n_args = schema.arguments().size();
  const size_t base = stack->size() - n_args;
  std::optional<c10::Device> dev;
  std::vector<std::pair<size_t, at::Tensor>> written;  // mutable musa args and their index
  for (size_t i = 0; i < n_args; ++i) {
    c10::IValue& iv = (*stack)[base + i];
    if (iv.isTensor()) {
      at::Tensor t = iv.toTensor();
      if (t.defined() && t.device().type() == kMusa) {
        if (!dev) dev = t.device();
        const auto* alias = schema.arguments()[i].alias_info();
        if (alias && alias->isWrite()) written.emplace_back(i, t);
        iv = any_to_cpu(t);
      }
    } else if (iv.isTensorList()) {
      c10::List<at::Tensor> out;
      for (const at::Tensor& t : iv.toTensorList()) {
        if (!dev && t.defined() && t.device().type() == kMusa) dev = t.device();
        out.push_back(any_to_cpu(t));
      }
      iv = out;
    } else if (iv.isDevice() && iv.toDevice().type() == kMusa) {
      if (!dev) dev = iv.toDevice();
      iv = c10::IValue(c10::Device(c10::kCPU));
    }
  }
  TORCH_CHECK(dev.has_value(), "musa sparse: ", schema.name(), " has no musa argument");
  if (!dev->has_index()) dev = c10::Device(kMusa, t_current_device);
  // keep the CPU copies of written args to copy their new contents back
  std::vector<at::Tensor> cpu_written;
  for (auto& w : written) cpu_written.push_back((*stack)[base + w.first].toTensor());
  op.callBoxed(stack);
  for (size_t k = 0; k < written.size(); ++k) {
    at::Tensor& dst = written[k].second;
    const at::Tensor& src = cpu_written[k];
    if (is_compressed(dst.layout())) {
      auto [ci, pi] = compressed_members(src);
      static_cast<at::SparseCsrTensorImpl*>(dst.unsafeGetTensorImpl())->set_member_tensors(
          ci.to(*dev), pi.to(*dev), src.values().to(*dev), src.sizes());
    } else if (dst.layout() == c10::kSparse) {
      auto* impl = static_cast<at::SparseTensorImpl*>(dst.unsafeGetTensorImpl());
      impl->raw_resize_(src.sparse_dim(), src.dense_dim(), src.sizes());
      impl->set_indices_and_values_unsafe(src._indices().to(*dev), src._values().to(*dev));
      impl->set_coalesced(src.is_coalesced());
    } else {
      at::native::resize_(dst, src.sizes(), std::nullopt);
      dst.copy_(src);
    }
  }
  const size_t n_ret = schema.returns().size();
  const size_t rbase = stack->size() - n_ret;
  for (size_t i = 0; i < n_ret; ++i) {
    c10::IValue& iv = (*stack)[rbase + i];
    if (!iv.isTensor()) continue;
    const auto* alias = schema.returns()[i].alias_info();
    bool returned_written = false;
    if (alias && alias->isWrite()) {
      for (size_t k = 0; k < written.size(); ++k) {
        if (iv.toTensor().is_same(cpu_written[k])) {
          iv = written[k].second;
          returned_written = true;
          break;
        }
      }
    }
    if (returned_written) continue;
    const at::Tensor& r = iv.toTensor();
    if (r.defined() && r.device().type() == c10::kCPU)
      iv = r.layout() == c10::kStrided ? r.to(*dev) : sparse_to(r, *dev);
  }
}

// The computing rows of the release's table for the sparse keys get the CPU-copy runner as
// their kernel, one registration per row, as torch_musa registers one kernel per yaml row
// (musa_functions.yaml:4142-4219 at v2.7.1) and no backend fallback for these keys (its only
// fallback is AutogradPrivateUse1: VariableFallbackKernel_musa.cpp:30).  So an overload
// outside the table finds no kernel and the dispatcher raises its own NotImplementedError,
// naming 'Sparsemusa' / 'SparseCsrmusa', as on a card.  Rows whose ATen kernel only reads or
// writes the tensor's fields are registered statically below; rows this torch does not have
// are skipped.  Registered once per process (the first table installed).
std::once_flag g_sparse_rows_once;
std::vector<std::unique_ptr<torch::Library>> g_sparse_libraries;

void register_sparse_rows(c10::DispatchKey key, const std::vector<std::string>& rows) {
  auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", key,
                                                  __FILE__, __LINE__);
  for (const auto& row : rows) {
    const std::string bare = row.rfind("aten::", 0) == 0 ? row.substr(6) : row;
    const auto dot = bare.find('.');
    c10::OperatorName name("aten::" + bare.substr(0, dot),
                           dot == std::string::npos ? "" : bare.substr(dot + 1));
    auto op = c10::Dispatcher::singleton().findOp(name);
    if (!op || op->hasKernelForDispatchKey(key)) continue;
    // CSC / BSC member accessors a later release registers (musa_functions.yaml at 5e25af7):
    // ATen's field readers, as for crow_indices below; the CPU-copy runner would ask them
    // for the members it copies (compressed_members) and never return.
    if (key == c10::DispatchKey::SparseCsrPrivateUse1 && bare == "ccol_indices") {
      library->impl("ccol_indices", at::native::ccol_indices_sparse_csr);
      continue;
    }
    if (key == c10::DispatchKey::SparseCsrPrivateUse1 && bare == "row_indices") {
      library->impl("row_indices", at::native::row_indices_sparse_csr);
      continue;
    }
    library->impl(bare.c_str(), torch::CppFunction::makeFromBoxedFunction<&sparse_fallback>());
  }
  g_sparse_libraries.push_back(std::move(library));
}

void register_sparse_tables(const std::vector<std::string>& sparse,
                            const std::vector<std::string>& sparse_csr) {
  std::call_once(g_sparse_rows_once, [&] {
    register_sparse_rows(c10::DispatchKey::SparsePrivateUse1, sparse);
    register_sparse_rows(c10::DispatchKey::SparseCsrPrivateUse1, sparse_csr);
  });
}

// Rows of torch_musa 2.7.1's table for SparsePrivateUse1 whose kernel only reads or writes the
// tensor's own fields: ATen's kernels, as the yaml names them (lines cited).  The others of
// the 13 (_coalesce 4193, _to_sparse 4157, _to_sparse.sparse_dim 4148, _to_sparse_csr 4166)
// compute, so they run on the CPU (register_sparse_rows).
TORCH_LIBRARY_IMPL(aten, SparsePrivateUse1, m) {
  m.impl("_sparse_coo_tensor_with_dims_and_tensors",
         at::native::new_with_dims_and_tensor_sparse_symint);  // yaml:4142
  m.impl("sparse_dim", at::native::sparse_dim_sparse);         // yaml:4172
  m.impl("_nnz", at::native::_nnz_sparse);                     // yaml:4176
  m.impl("_indices", at::native::_indices_sparse);             // yaml:4181
  m.impl("_values", at::native::_values_sparse);               // yaml:4185
  m.impl("is_coalesced", at::native::is_coalesced_sparse);     // yaml:4189
  m.impl("_coalesced_", at::native::_coalesced_sparse_);       // yaml:4199
  m.impl("indices", at::native::indices_sparse);               // yaml:4203
  m.impl("values", at::native::values_sparse);                 // yaml:4207
}

// The same for SparseCsrPrivateUse1's 6 rows (_to_sparse and _to_sparse.sparse_dim compute:
// register_sparse_rows).  ccol_indices / row_indices are not among them: on a CSC / BSC tensor they
// reach ATen's composite default, which raises, as on a card.
TORCH_LIBRARY_IMPL(aten, SparseCsrPrivateUse1, m) {
  m.impl("_nnz", at::native::_nnz_sparse_csr);                 // yaml:4176
  m.impl("values", at::native::values_sparse_csr);             // yaml:4207
  m.impl("crow_indices", at::native::crow_indices_sparse_csr); // yaml:4213
  m.impl("col_indices", at::native::col_indices_sparse_csr);   // yaml:4217
}

// ---------------------------------------------------------------- control ops
void configure(int64_t count) {
  TORCH_CHECK(count >= 0 && count <= kMaxDevices, "musa_sim: device count must be in 0..", kMaxDevices);
  g_device_count.store(int(count));
}

void set_memory(int64_t dev, int64_t total, int64_t limit) {
  check_index(dev);
  g_cache[dev].total = total;
  g_cache[dev].limit = limit;
}

std::vector<int64_t> stats(int64_t dev) {
  check_index(dev);
  return g_cache[dev].export_stats();
}

std::vector<int64_t> segments(int64_t dev) {
  check_index(dev);
  return g_cache[dev].export_segments();
}

void reset_peak(int64_t dev) {
  check_index(dev);
  g_cache[dev].reset_peak();
}

void reset_accumulated(int64_t dev) {
  check_index(dev);
  g_cache[dev].reset_accumulated();
}

void empty_cache() {
  for (int i = 0; i < g_device_count.load(); ++i) g_cache[i].empty_cache();
}

void set_device(int64_t d) {
  check_index(d);
  t_current_device = DeviceIndex(d);
}

int64_t current_device() {
  return t_current_device;
}

int64_t get_stream(int64_t d) {
  check_index(d);
  return t_current_stream[d];
}

void set_stream(int64_t d, int64_t id) {
  check_index(d);
  t_current_stream[d] = id;
}

// Python creates torch.Generator("musa:i") objects and makes them the defaults,
// so torch.musa.default_generators and the C++ side share state.
void set_default_generator(int64_t d, std::optional<at::Generator> g) {
  check_index(d);
  default_generator(DeviceIndex(d));
  TORCH_CHECK(g.has_value() && g->device().type() == kMusa, "musa_sim: default generator must be a musa generator");
  g_default_gens[d] = *g;
}

void set_capturing(bool on) {
  g_capturing.store(on);
}

// Which allocator torch.accelerator sees (see PlainAllocator).
bool use_device_allocator(bool on) {
#if MUSA_SIM_TORCH_AT_LEAST(2, 9)
  c10::SetAllocator(kMusa, on ? static_cast<c10::Allocator*>(&g_dev_alloc) : &g_plain_alloc);
  return true;
#else
  return false;
#endif
}

// torch_musa's own kernels that named releases get wrong, registered from C++ as the real
// ones are (a Python registration would refuse a program's own Python override on torch
// < 2.9, which the real C++ kernels do not).  Installed on request from Python
// (_sim/defects.py), each into its own library kept for the process.
std::vector<std::unique_ptr<torch::Library>> g_kernel_libs;

torch::Library& kernel_library() {
  g_kernel_libs.push_back(std::make_unique<torch::Library>(
      torch::Library::IMPL, "aten", std::optional<c10::DispatchKey>(c10::DispatchKey::PrivateUse1),
      __FILE__, __LINE__));
  return *g_kernel_libs.back();
}

// log_f64_inplace: in-place float64 log raises (issue 11's text of the error).
at::Tensor& log_inplace_no_double(at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kDouble, "\"log_musa\" not implemented for 'Double'");
  return self.copy_(at::log(self));
}

#if MUSA_SIM_TORCH_AT_LEAST(2, 9)
// mm/bmm(out_dtype=): stock torch has these kernels for CUDA only; MUSA has its own.  The
// simulator accumulates in float32 and casts (guess: what the muDNN kernel computes).
at::Tensor mm_out_dtype(const at::Tensor& self, const at::Tensor& mat2, at::ScalarType out_dtype) {
  return at::mm(self.to(at::kFloat), mat2.to(at::kFloat)).to(out_dtype);
}
at::Tensor bmm_out_dtype(const at::Tensor& self, const at::Tensor& mat2, at::ScalarType out_dtype) {
  return at::bmm(self.to(at::kFloat), mat2.to(at::kFloat)).to(out_dtype);
}
// mm_out_dtype defect (2.11.0.post1): mm returns zeros; bmm repeats batch 0 in every batch.
at::Tensor mm_out_dtype_zeros(const at::Tensor& self, const at::Tensor& mat2, at::ScalarType out_dtype) {
  return at::zeros({self.size(0), mat2.size(1)}, self.options().dtype(out_dtype));
}
at::Tensor bmm_out_dtype_batch0(const at::Tensor& self, const at::Tensor& mat2, at::ScalarType out_dtype) {
  auto first = at::mm(self[0].to(at::kFloat), mat2[0].to(at::kFloat)).to(out_dtype);
  return first.unsqueeze(0).expand({self.size(0), -1, -1}).contiguous();
}
#endif

// blocking_bool_mul: mul of two bool tensors blocks the host until the device queue drains
// (seed README fix table, every release: the boolean mul inside ATen's composite isfinite,
// aten/src/ATen/native/TensorCompare.cpp).  Modelled as the wait the driver refuses during
// graph capture; whether other dtypes' mul blocks is unknown (not modelled).
void mul_bool_blocking(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& self = (*stack)[stack->size() - 2];
  const auto& other = (*stack)[stack->size() - 1];
  if (self.isTensor() && other.isTensor() && self.toTensor().scalar_type() == at::kBool &&
      other.toTensor().scalar_type() == at::kBool) {
    check_not_capturing("mul of two bool tensors, which blocks the host on this release");
  }
  run_on_cpu(op, op, stack);
}

bool install_kernels(std::string which) {
  if (which == "blocking_bool_mul") {
    kernel_library().impl("mul.Tensor", torch::CppFunction::makeFromBoxedFunction<&mul_bool_blocking>());
    return true;
  }
  if (which == "log_f64_inplace") {
    kernel_library().impl("log_", TORCH_FN(log_inplace_no_double));
    return true;
  }
#if MUSA_SIM_TORCH_AT_LEAST(2, 9)
  if (which == "mm_out_dtype") {
    auto& lib = kernel_library();
    lib.impl("mm.dtype", TORCH_FN(mm_out_dtype));
    lib.impl("bmm.dtype", TORCH_FN(bmm_out_dtype));
    return true;
  }
  if (which == "mm_out_dtype_defect") {
    auto& lib = kernel_library();
    lib.impl("mm.dtype", TORCH_FN(mm_out_dtype_zeros));
    lib.impl("bmm.dtype", TORCH_FN(bmm_out_dtype_batch0));
    return true;
  }
#endif
  return false;
}

// Graph executables: the driver resource musaGraphInstantiate creates and
// musaGraphExecDestroy frees, separate from the captured template (which the Python
// graph keeps).  The live count is capped like the driver's (cap 0: no cap); the next
// instantiate past it fails.  Evidence for the cap (~2048 per process) and for the
// instantiate cost (~0.3 ms on an MTT S5000): issue 10; the driver's exact error text
// is unknown (docs/simulator.md).
std::mutex g_exec_mutex;
std::unordered_set<int64_t> g_execs;
int64_t g_next_exec = 1;

int64_t graph_exec_instantiate(int64_t cap, int64_t cost_ns) {
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(cost_ns);
  while (std::chrono::steady_clock::now() < until) {
  }
  std::lock_guard<std::mutex> guard(g_exec_mutex);
  TORCH_CHECK(cap <= 0 || int64_t(g_execs.size()) < cap,
              "MUSA error: out of memory (musaGraphInstantiate failed: ", g_execs.size(),
              " graph executables are alive in this process; the driver limit is about ",
              cap, ")");
  int64_t handle = g_next_exec++;
  g_execs.insert(handle);
  return handle;
}

void graph_exec_destroy(int64_t handle) {
  std::lock_guard<std::mutex> guard(g_exec_mutex);
  TORCH_CHECK(g_execs.erase(handle) == 1,
              "MUSA error: invalid resource handle (musaGraphExecDestroy)");
}

bool graph_exec_alive(int64_t handle) {
  std::lock_guard<std::mutex> guard(g_exec_mutex);
  return g_execs.count(handle) == 1;
}

int64_t graph_exec_count() {
  std::lock_guard<std::mutex> guard(g_exec_mutex);
  return int64_t(g_execs.size());
}

// torch_musa's autograd fallback (v2.7.1 torch_musa/csrc/core/VariableFallbackKernel_musa.cpp:
// 10-30): the AutogradPrivateUse1 backend fallback is torch's
// basic_autograd_not_implemented_fallback (through VariableHooksInterface), the same one
// torch registers for AutogradCPU / AutogradCUDA.  Stock torch 2.7.1 registers none for
// AutogradPrivateUse1 (later stock torch does), so the simulator installs this one where
// none is registered (_sim/autograd_fallback.py).  Its observable behaviour is torch's:
// torch.autograd.graph's fallback mode, "warn" by default.
void autograd_fallback(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  if (!at::impl::HasVariableHooks()) {
    op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
    return;
  }
  at::impl::GetVariableHooks()->basic_autograd_not_implemented_fallback(op, keys, stack);
}

std::unique_ptr<torch::Library> g_autograd_fallback_lib;

bool install_autograd_fallback() {
  if (c10::Dispatcher::singleton().hasBackendFallbackForDispatchKey(c10::DispatchKey::AutogradPrivateUse1))
    return false;
  g_autograd_fallback_lib = std::make_unique<torch::Library>(
      torch::Library::IMPL, "_", std::optional<c10::DispatchKey>(c10::DispatchKey::AutogradPrivateUse1),
      __FILE__, __LINE__);
  g_autograd_fallback_lib->fallback(torch::CppFunction::makeFromBoxedFunction<&autograd_fallback>());
  return true;
}

TORCH_LIBRARY(musa_sim, m) {
  m.def("graph_exec_instantiate(int cap, int cost_ns) -> int", graph_exec_instantiate);
  m.def("graph_exec_destroy(int handle) -> ()", graph_exec_destroy);
  m.def("graph_exec_alive(int handle) -> bool", graph_exec_alive);
  m.def("graph_exec_count() -> int", graph_exec_count);
  m.def("install_kernels(str which) -> bool", install_kernels);
  m.def("configure(int count) -> ()", configure);
  m.def("set_memory(int dev, int total, int limit) -> ()", set_memory);
  m.def("stats(int dev) -> int[]", stats);
  m.def("segments(int dev) -> int[]", segments);
  m.def("reset_peak(int dev) -> ()", reset_peak);
  m.def("reset_accumulated(int dev) -> ()", reset_accumulated);
  m.def("empty_cache() -> ()", empty_cache);
  m.def("host_stats() -> int[]", host_stats);
  m.def("host_stats_reset(bool peak) -> ()", host_stats_reset);
  m.def("set_device(int dev) -> ()", set_device);
  m.def("current_device() -> int", current_device);
  m.def("set_capturing(bool on) -> ()", set_capturing);
  m.def("get_stream(int dev) -> int", get_stream);
  m.def("set_stream(int dev, int id) -> ()", set_stream);
  m.def("set_default_generator(int dev, Generator? g) -> ()", set_default_generator);
  m.def("use_device_allocator(bool on) -> bool", use_device_allocator);
  m.def("cpu_view(Tensor self) -> Tensor");
  m.def("set_op_table(str[] registered, str[] known, str[] sparse, str[] sparse_csr) -> ()", set_op_table);
  m.def("op_table_allows(str name) -> bool", op_table_allows);
  m.def("install_autograd_fallback() -> bool", install_autograd_fallback);
}

// A CPU tensor over a musa tensor's bytes (the mccl backend hands these to gloo).
TORCH_LIBRARY_IMPL(musa_sim, PrivateUse1, m) {
  m.impl("cpu_view", cpu_alias);
}
// torch 2.7 has no autograd fallthrough for custom ops on PrivateUse1; the view is only
// handed to gloo, never differentiated.
TORCH_LIBRARY_IMPL(musa_sim, AutogradPrivateUse1, m) {
  m.impl("cpu_view", cpu_alias);
}

}  // namespace musa_sim

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(kaiser_window_stub, &musa_sim::kaiser_window_musa)
}  // namespace at::native
