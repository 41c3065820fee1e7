// kernels.h on a Moore Threads GPU, compiled by torch_musa's extension loader with mcc.
//
// Every torch_musa name below is cited from torch_musa's source at the v2.7.1 tag (read,
// not compiled: no MUSA toolkit here; mcc has never compiled this file)
// (0bc05bf), which is also the newest commit's code (8b583b3 changed README.md only), and
// at v2.7.0 (the same files).  No MUSA toolkit or hardware here: the same file is compiled
// for CUDA through cuda_twin.h (names only) and run on an NVIDIA GPU by
// benchmarks/musa_twin.py (docs/native_twin.md); what only MUSA can show is mcc and the
// MUSA driver themselves.
#ifndef TORCHADA_CUDA_TWIN
// The toolkit's runtime header: musaError_t, musaSuccess, musaGetLastError,
// musaGetErrorString (torch_musa's CMake finds the toolkit by this file,
// cmake/modules/FindMUSAToolkits.cmake:24; it uses the same calls in
// torch_musa/csrc/core/MUSAException.h:9-11 and csrc/aten/ops/Copy.cpp:283).
#include <musa_runtime.h>
// at::MUSAGeneratorImpl (line 126), its philox_musa_state(increment) (line 155) and
// at::musa::detail::getDefaultMUSAGenerator (line 176); at::PhiloxMusaState comes with it
// (line 6 includes the ported ATen/musa/PhiloxCudaState.h, which holds
// csrc/aten/musa/PhiloxMusaStateRaw.muh:12).  Shipped by MANIFEST.in:6; "torch_musa/..."
// resolves through the site-packages directory that utils/musa_extension.py's
// include_paths() adds (lines 320-331).
#include "torch_musa/csrc/aten/musa/MUSAGeneratorImpl.h"
// at::musa::philox::unpack (torch_musa/csrc/aten/musa/UnpackRaw.muh:20, included at
// MUSAGraphsUtils.muh:4) and at::musa::currentStreamCaptureStatus / CaptureStatus
// (MUSAGraphsUtils.muh:11,16).  MANIFEST.in:7 ships .muh files.
#include "torch_musa/csrc/aten/musa/MUSAGraphsUtils.muh"
// c10::musa::getCurrentMUSAStream (torch_musa/csrc/core/MUSAStream.h:164, namespace
// c10::musa at line 14), which converts to musaStream_t (line 37).
#include "torch_musa/csrc/core/MUSAStream.h"
#endif

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>

#include <algorithm>
#include <mutex>

#include "kernels.h"
#include "sampling.h"

namespace torchada_ops {
namespace {

constexpr int kThreads = 256;

template <typename scalar_t>
__global__ void log_kernel(const scalar_t* src, scalar_t* dst, int64_t n) {
  using acc_t = at::opmath_type<scalar_t>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x) {
    dst[i] = static_cast<scalar_t>(::log(static_cast<acc_t>(src[i])));
  }
}

// One thread per row (grid-stride past the grid's size): rows are independent; within a row the draws are sequential
// (without replacement each draw depends on the previous ones).  `taken` is a
// rows x categories scratch of zeros.
template <typename scalar_t>
__global__ void multinomial_kernel(const scalar_t* weights, int64_t rows, int64_t categories,
                                   int64_t samples, bool replacement, at::PhiloxMusaState state,
                                   char* taken, int64_t* out) {
  // Read on the device at run time: under graph capture the offset lives in device memory
  // and each replay advances it (MUSAGeneratorImpl.h:18-56, the graph-safe RNG note).
  // std::get in device code: mcc (clang) takes constexpr host functions there, as
  // torch_musa's ported ATen kernels need without any flag (CMakeLists.txt:253 passes
  // only --offload-arch); nvcc needs --expt-relaxed-constexpr, which torch's loader passes.
  auto seeds = at::musa::philox::unpack(state);
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(blockDim.x) * gridDim.x) {
    sampling::sample_row(weights + r * categories, categories, samples, replacement,
                         std::get<0>(seeds), std::get<1>(seeds), r, taken + r * categories,
                         out + r * samples);
  }
}

int blocks_for(int64_t n) {
  return int(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535));
}

void check_launch(const char* what) {
  musaError_t err = musaGetLastError();
  TORCH_CHECK(err == musaSuccess, "torchada ", what, " kernel launch failed: ",
              musaGetErrorString(err));
}

}  // namespace

bool stream_capturing() {
  return at::musa::currentStreamCaptureStatus() != at::musa::CaptureStatus::None;
}

void launch_log(const at::Tensor& in, at::Tensor& out) {
  auto stream = c10::musa::getCurrentMUSAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, in.scalar_type(), "torchada_log", [&] {
    log_kernel<scalar_t><<<blocks_for(in.numel()), kThreads, 0, stream>>>(
        in.const_data_ptr<scalar_t>(), out.mutable_data_ptr<scalar_t>(), in.numel());
  });
  check_launch("log");
}

void launch_multinomial(const at::Tensor& weights, int64_t samples, bool replacement,
                        std::optional<at::Generator> gen, at::Tensor& out) {
  const int64_t rows = weights.size(0), categories = weights.size(1);
  auto* generator = at::get_generator_or_default<at::MUSAGeneratorImpl>(
      gen, at::musa::detail::getDefaultMUSAGenerator(weights.device().index()));
  at::PhiloxMusaState state;
  {
    // The lock the note at MUSAGeneratorImpl.h:84-91 asks for (GeneratorImpl::mutex_).
    std::lock_guard<std::mutex> lock(generator->mutex_);
    state = generator->philox_musa_state(uint64_t(rows * samples));
  }
  at::Tensor taken = at::zeros({rows, categories}, weights.options().dtype(at::kChar));
  auto stream = c10::musa::getCurrentMUSAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, weights.scalar_type(), "torchada_multinomial", [&] {
    multinomial_kernel<scalar_t><<<blocks_for(rows), kThreads, 0, stream>>>(
        weights.const_data_ptr<scalar_t>(), rows, categories, samples, replacement, state,
        reinterpret_cast<char*>(taken.mutable_data_ptr<int8_t>()), out.mutable_data_ptr<int64_t>());
  });
  check_launch("multinomial");
}

}  // namespace torchada_ops
