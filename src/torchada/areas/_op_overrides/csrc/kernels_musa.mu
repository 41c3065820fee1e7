// kernels.h on a Moore Threads GPU, compiled by torch_musa's extension loader with mcc.
// Not compiled or run here (no MUSA toolkit or hardware): these bodies are hardware's to
// check (docs/operator_fixes.md).  Names of torch_musa's C++ API follow CUDA's as torch_musa
// mirrors them (MUSAGeneratorImpl, philox_musa_state, getCurrentMUSAStream); the header
// paths below are unknown from the 2.7.1 manifest (which records Python only) and are the
// likeliest spellings.
#include <musa_runtime.h>

#include <ATen/OpMathType.h>

#include "kernels.h"
#include "torch_musa/csrc/aten/musa/MUSAGeneratorImpl.h"  // unknown path
#include "torch_musa/csrc/core/MUSAStream.h"              // unknown path

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

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The counter-based uniform of kernels_sim.cpp.
__device__ double uniform(uint64_t seed, uint64_t offset, int64_t row, int64_t sample) {
  uint64_t x = splitmix64(seed ^ splitmix64(offset + 0x632BE59BD9B4E019ull * uint64_t(row)) ^
                          (0xD1B54A32D192ED03ull * uint64_t(sample)));
  return double(x >> 11) * (1.0 / 9007199254740992.0);
}

template <typename scalar_t>
__device__ double weight(const scalar_t* row, int64_t k) {
  double w = static_cast<double>(row[k]);
  return isfinite(w) && w > 0.0 ? w : 0.0;
}

// One thread per row: rows are independent; within a row the draws are sequential
// (without replacement each draw depends on the previous ones).  `taken` is a
// rows x categories scratch of zeros.
template <typename scalar_t>
__global__ void multinomial_kernel(const scalar_t* weights, int64_t rows, int64_t categories,
                                   int64_t samples, bool replacement, at::PhiloxMusaState state,
                                   char* taken, int64_t* out) {
  int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  auto [seed, offset] = at::musa::philox::unpack(state);  // graph-safe: read at run time
  const scalar_t* row = weights + r * categories;
  char* used = taken + r * categories;
  double total = 0.0;
  for (int64_t k = 0; k < categories; ++k) total += weight(row, k);
  for (int64_t s = 0; s < samples; ++s) {
    double target = uniform(seed, offset, r, s) * total;
    int64_t pick = -1;
    double acc = 0.0;
    for (int64_t k = 0; k < categories; ++k) {
      if (used[k]) continue;
      double w = weight(row, k);
      if (w <= 0.0) continue;
      acc += w;
      pick = k;
      if (target < acc) break;
    }
    if (pick < 0) pick = 0;
    out[r * samples + s] = pick;
    if (!replacement) {
      used[pick] = 1;
      total -= weight(row, pick);
    }
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
