// The device work of torchada's compiled operator overrides: one body per device.
// kernels_musa.mu runs them on a Moore Threads GPU (built by torch_musa's loader with mcc;
// the same file builds for CUDA through cuda_twin.h, docs/native_twin.md); kernels_sim.cpp
// runs the same contract on the simulated device, whose memory is host memory.
// op_overrides.cpp (shared) checks arguments, shapes the outputs and registers; sampling.h
// holds multinomial's arithmetic once for every body.
#pragma once

#include <ATen/ATen.h>

namespace torchada_ops {

// out = log(in) elementwise.  Both contiguous, same floating dtype and numel; in == out
// (the same tensor) is allowed.
void launch_log(const at::Tensor& in, at::Tensor& out);

// True while the current stream of the current device is being captured into a graph:
// nothing may wait for the device then (op_overrides.cpp skips its value checks).
bool stream_capturing();

// out (rows x samples, int64) = category indices drawn from the rows of `weights`
// (rows x categories, contiguous, floating).  Weights that are negative, NaN or infinite
// count as zero here (the caller rejects them outside capture).  Without replacement a
// category is drawn at most once per row.  Randomness comes from `gen` (the device's
// default generator when absent) and advances it, so every call and every graph replay
// draws fresh samples.
void launch_multinomial(const at::Tensor& weights, int64_t samples, bool replacement,
                        std::optional<at::Generator> gen, at::Tensor& out);

}  // namespace torchada_ops
