// Device memory shared between processes: the simulated side of torch_musa's storage sharing
// (torch_musa v2.7.1 csrc/core/StorageSharing.cpp THMPStorageShareMusa /
// THMPStorageNewSharedMusa / THMPStorageReleaseIPCCounter, csrc/core/MusaIPCTypes.cpp).
//
// On a card a storage's bytes live in a musaMalloc segment that musaIpcGetMemHandle names
// for another process.  Here they live in host memory, so a storage moves into a memfd at its
// first export (its data_ptr changes there; on a card it does not) and the handle names that
// memfd by the exporting process and its descriptor, which the receiver opens through
// /proc/<pid>/fd.  A random token, kept both in the handle and in the memfd's trailing page,
// makes sure the receiver maps that very memory and not a descriptor reused since.
//
// Reference counting follows MusaIPCTypes.cpp: every export counts one receiver
// (set_counter(1) per GetNewRefCountedSentData), a receiver's storage returns its count when
// freed and _release_ipc_counter returns one it will not open; the exporter frees memory whose
// count is still above zero into a limbo that collect() (ipc_collect) empties once the counts
// reach zero.  The count lives in the memfd's trailing page instead of torch's separate
// ref-counter file; the event that orders the receiver after the sender's stream is not
// needed (simulated work is finished when it returns) and the 1,000-event limit is not
// modelled.
#include "musa_sim_internal.h"

#include <ATen/core/Tensor.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/StorageImpl.h>
#include <torch/library.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <random>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace musa_sim {
namespace {

constexpr c10::DeviceType kMusa = c10::DeviceType::PrivateUse1;
constexpr char kMagic[8] = {'T', 'A', 'S', 'I', 'M', 'I', 'P', 'C'};

struct Trailer {
  char magic[8];
  uint64_t token;
  std::atomic<int64_t> count;  // receivers that have not returned their count
};

size_t page_size() {
  static const size_t n = size_t(sysconf(_SC_PAGESIZE));
  return n;
}

size_t data_span(size_t nbytes) {
  size_t p = page_size();
  return (nbytes + p - 1) / p * p;
}

Trailer* trailer_of(void* base, size_t map_bytes) {
  return reinterpret_cast<Trailer*>(static_cast<char*>(base) + map_bytes - page_size());
}

// One exported storage's memory, as the exporting process holds it.
struct Exported {
  void* base;
  size_t map_bytes;  // data pages plus the trailing page
  int fd;
  void* model;  // the caching-allocator model block still counting these bytes
  c10::DeviceIndex dev;
  Trailer* trailer() const { return trailer_of(base, map_bytes); }
};

std::mutex g_limbo_mu;
std::vector<Exported*> g_limbo;

void release(Exported* e) {
  munmap(e->base, e->map_bytes);
  close(e->fd);
  release_accounting(e->dev, e->model);
  delete e;
}

int64_t collect() {
  std::vector<Exported*> done;
  {
    std::lock_guard<std::mutex> lock(g_limbo_mu);
    std::vector<Exported*> kept;
    for (auto* e : g_limbo) {
      (e->trailer()->count.load() > 0 ? kept : done).push_back(e);
    }
    g_limbo.swap(kept);
  }
  for (auto* e : done) release(e);
  return int64_t(done.size());
}

// The exporter's storage was freed: memory a receiver may still use waits in the limbo.
void free_exported(void* ctx) {
  auto* e = static_cast<Exported*>(ctx);
  if (e->trailer()->count.load() > 0) {
    std::lock_guard<std::mutex> lock(g_limbo_mu);
    g_limbo.push_back(e);
  } else {
    release(e);
  }
  collect();
}

uint64_t new_token() {
  static std::mt19937_64 gen{std::random_device{}()};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  uint64_t t = 0;
  while (t == 0) t = gen() >> 1;  // fits the int64 the schema passes
  return t;
}

[[noreturn]] void fail_errno(const char* what) {
  TORCH_CHECK(false, "MUSA error: ", what, " failed (", std::strerror(errno), ") while sharing "
              "device memory between processes (simulated device)");
}

Exported* move_into_memfd(c10::StorageImpl* si) {
  size_t nbytes = si->nbytes();
  size_t map_bytes = data_span(nbytes) + page_size();
  int fd = memfd_create("torchada-sim-ipc", MFD_CLOEXEC);
  if (fd < 0) fail_errno("memfd_create");
  if (ftruncate(fd, off_t(map_bytes)) != 0) {
    close(fd);
    fail_errno("ftruncate");
  }
  void* base = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    close(fd);
    fail_errno("mmap");
  }
  std::memcpy(base, si->data(), nbytes);
  auto* t = new (trailer_of(base, map_bytes)) Trailer{};
  std::memcpy(t->magic, kMagic, sizeof(kMagic));
  t->token = new_token();
  auto* e = new Exported{base, map_bytes, fd, nullptr, si->device().index()};
  c10::DataPtr dp(base, e, &free_exported, si->device());
  c10::DeviceIndex dev = 0;
  void* model = swap_bytes(si, std::move(dp), &dev);
  if (model == nullptr) {
    // not this backend's allocation (nothing was swapped): leave the storage as it was
    munmap(base, map_bytes);
    close(fd);
    delete e;
    TORCH_CHECK(false, "_share_musa_: this storage's memory was not allocated by the MUSA "
                "caching allocator and cannot be shared between processes (simulated device)");
  }
  e->model = model;
  e->dev = dev;
  return e;
}

// [pid, fd, map_bytes, token, offset]; [] for a storage without data (its handle is None).
std::vector<int64_t> ipc_export(const at::Tensor& holder) {
  c10::StorageImpl* si = holder.storage().unsafeGetStorageImpl();
  TORCH_CHECK(si->device().type() == kMusa, "_share_musa_: only available on MUSA, but now ",
              si->device());
  TORCH_CHECK(!si->received_cuda(),
              "Attempted to send MUSA tensor received from another process; this is not "
              "currently supported. Consider cloning before sending.");
  if (si->data() == nullptr) return {};
  Exported* e = si->data_ptr().get_deleter() == &free_exported
      ? static_cast<Exported*>(si->data_ptr().get_context())
      : move_into_memfd(si);
  e->trailer()->count.fetch_add(1);
  return {int64_t(getpid()), int64_t(e->fd), int64_t(e->map_bytes), int64_t(e->trailer()->token),
          0};
}

// The receiver's mapping of an exporter's memfd.
struct Received {
  void* base;
  size_t map_bytes;
};

void* map_exported(int64_t pid, int64_t fd, int64_t map_bytes, int64_t token) {
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  int own = open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  bool same_size = own >= 0 && fstat(own, &st) == 0 && st.st_size == off_t(map_bytes);
  void* base = same_size
      ? mmap(nullptr, size_t(map_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, own, 0)
      : MAP_FAILED;
  if (own >= 0) close(own);
  bool ours = base != MAP_FAILED &&
      std::memcmp(trailer_of(base, size_t(map_bytes))->magic, kMagic, sizeof(kMagic)) == 0 &&
      trailer_of(base, size_t(map_bytes))->token == uint64_t(token);
  if (!ours) {
    if (base != MAP_FAILED) munmap(base, size_t(map_bytes));
    return nullptr;
  }
  return base;
}

void free_received(void* ctx) {
  auto* r = static_cast<Received*>(ctx);
  trailer_of(r->base, r->map_bytes)->count.fetch_sub(1);
  munmap(r->base, r->map_bytes);
  delete r;
}

at::Tensor ipc_open(int64_t dev, int64_t pid, int64_t fd, int64_t map_bytes, int64_t token,
                    int64_t offset, int64_t nbytes) {
  TORCH_CHECK(map_bytes > int64_t(page_size()) && offset >= 0 && nbytes >= 0 &&
                  offset + nbytes <= map_bytes - int64_t(page_size()),
              "unexpected or illformed shareable handle (simulated device)");
  void* base = map_exported(pid, fd, map_bytes, token);
  TORCH_CHECK(base != nullptr, "MUSA error: invalid resource handle: the memory of this IPC "
              "handle is no longer held by process ", pid, " (it exited, or freed the tensor "
              "and every receiver has released it); simulated device");
  auto* r = new Received{base, size_t(map_bytes)};
  c10::Device device(kMusa, c10::DeviceIndex(dev));
  c10::DataPtr dp(static_cast<char*>(base) + offset, r, &free_received, device);
  auto impl = c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), size_t(nbytes), std::move(dp),
      /*allocator=*/nullptr, /*resizable=*/false);
  impl->set_received_cuda(true);
  auto out = at::detail::make_tensor<c10::TensorImpl>(
      c10::Storage(std::move(impl)), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      caffe2::TypeMeta::Make<uint8_t>());
  out.unsafeGetTensorImpl()->set_sizes_contiguous({nbytes});
  return out;
}

// Best effort, as THMPStorageReleaseIPCCounter: an exporter that has gone is not an error.
void ipc_release(int64_t pid, int64_t fd, int64_t map_bytes, int64_t token) {
  void* base = map_exported(pid, fd, map_bytes, token);
  if (base == nullptr) return;
  trailer_of(base, size_t(map_bytes))->count.fetch_sub(1);
  munmap(base, size_t(map_bytes));
}

int64_t ipc_collect() {
  return collect();
}

int64_t ipc_limbo_size() {
  std::lock_guard<std::mutex> lock(g_limbo_mu);
  return int64_t(g_limbo.size());
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(musa_sim, m) {
  m.def("ipc_export(Tensor holder) -> int[]", ipc_export);
  m.def("ipc_open(int dev, int pid, int fd, int map_bytes, int token, int offset, int nbytes) "
        "-> Tensor",
        ipc_open);
  m.def("ipc_release(int pid, int fd, int map_bytes, int token) -> ()", ipc_release);
  m.def("ipc_collect() -> int", ipc_collect);
  m.def("ipc_limbo_size() -> int", ipc_limbo_size);
}

}  // namespace musa_sim
