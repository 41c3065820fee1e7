// Declarations shared by the simulated MUSA backend's translation units, which
// _backend/__init__.py (SOURCES) compiles into one library: musa_sim.cpp (the device, its
// dense and sparse tensors, the operator set), musa_sim_quantized.cpp (quantized tensors) and
// musa_sim_ipc.cpp (device memory shared between processes).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <string>
#include <vector>

namespace musa_sim {

// ---- defined in musa_sim.cpp
// The deleter of a CPU tensor's storage made by cpu_alias: its context is the musa storage
// (a heap c10::Storage) whose bytes the CPU tensor sees.
void release_storage(void* ctx);
// A CPU tensor over the very bytes of musa tensor `t` (a quantized one stays quantized).
at::Tensor cpu_alias(const at::Tensor& t);
// A musa tensor over `st` with the geometry (and, if quantized, the quantizer) of `like`.
at::Tensor musa_over(const c10::Storage& st, const at::Tensor& like);
// Runs `target` on the CPU for the musa call on the stack: arguments become CPU tensors over
// the same bytes, results come back as musa tensors.  The CPU kernel is the QuantizedCPU one
// when an argument is quantized, the CPU one otherwise.
void run_on_cpu(const c10::OperatorHandle& op, const c10::OperatorHandle& target,
                torch::jit::Stack* stack, size_t extra_front = 0);

// Gives musa storage `si` the bytes of `replacement` (a copy of its own) and frees the old
// ones, keeping them counted by the device's caching-allocator model: returns that model's
// block (and its device in *dev) for release_accounting to uncount when the new bytes are
// freed; nullptr, with nothing changed, for bytes this backend did not allocate.
void* swap_bytes(c10::StorageImpl* si, c10::DataPtr replacement, c10::DeviceIndex* dev);
void release_accounting(c10::DeviceIndex dev, void* model);

// ---- defined in musa_sim_quantized.cpp
// A QTensorImpl over `st` (a musa or a CPU storage) with `like`'s dtype, sizes, strides and
// offset, and `like`'s quantizer with its tensors (per-channel scales / zero points) as seen
// from the storage's device.
at::Tensor qtensor_over(c10::Storage st, const at::Tensor& like);

}  // namespace musa_sim
