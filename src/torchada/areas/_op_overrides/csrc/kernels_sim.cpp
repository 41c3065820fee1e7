// kernels.h on the simulated device: host loops over the tensors' bytes (the simulator's
// musa memory is host memory, musa_sim.cpp).  The same contract as kernels_musa.mu, so the
// shared registration code (op_overrides.cpp) is tested for real; the device bodies are
// hardware's to check (docs/operator_fixes.md).
#include <cmath>
#include <mutex>

#include <ATen/OpMathType.h>

#include "kernels.h"

namespace torchada_ops {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from (seed, offset, row, sample): counter-based, like Philox.
double uniform(uint64_t seed, uint64_t offset, int64_t row, int64_t sample) {
  uint64_t x = splitmix64(seed ^ splitmix64(offset + 0x632BE59BD9B4E019ull * uint64_t(row)) ^
                          (0xD1B54A32D192ED03ull * uint64_t(sample)));
  return double(x >> 11) * (1.0 / 9007199254740992.0);
}

template <typename T>
double weight(const T* row, int64_t k) {
  double w = static_cast<double>(row[k]);
  return std::isfinite(w) && w > 0.0 ? w : 0.0;
}

// (seed, offset) for `increment` draws, advancing the generator.
std::pair<uint64_t, uint64_t> reserve(std::optional<at::Generator> gen, c10::Device device,
                                      uint64_t increment) {
  at::Generator g = gen.has_value() && gen->defined()
                        ? *gen : at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(g.mutex());
  uint64_t offset = g.get_offset();
  g.set_offset(offset + increment);
  return {g.current_seed(), offset};
}

}  // namespace

void launch_log(const at::Tensor& in, at::Tensor& out) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, in.scalar_type(), "torchada_log", [&] {
    const scalar_t* src = in.const_data_ptr<scalar_t>();
    scalar_t* dst = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0, n = in.numel(); i < n; ++i) {
      using acc_t = at::opmath_type<scalar_t>;
      dst[i] = static_cast<scalar_t>(std::log(static_cast<acc_t>(src[i])));
    }
  });
}

void launch_multinomial(const at::Tensor& weights, int64_t samples, bool replacement,
                        std::optional<at::Generator> gen, at::Tensor& out) {
  const int64_t rows = weights.size(0), categories = weights.size(1);
  auto [seed, offset] = reserve(gen, weights.device(), uint64_t(rows * samples));
  int64_t* dst = out.mutable_data_ptr<int64_t>();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, weights.scalar_type(), "torchada_multinomial", [&] {
    const scalar_t* base = weights.const_data_ptr<scalar_t>();
    std::vector<char> taken(categories);
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* row = base + r * categories;
      std::fill(taken.begin(), taken.end(), 0);
      double total = 0.0;
      for (int64_t k = 0; k < categories; ++k) total += weight(row, k);
      for (int64_t s = 0; s < samples; ++s) {
        double target = uniform(seed, offset, r, s) * total;
        int64_t pick = -1;
        double acc = 0.0;
        for (int64_t k = 0; k < categories; ++k) {
          if (taken[k]) continue;
          double w = weight(row, k);
          if (w <= 0.0) continue;
          acc += w;
          pick = k;            // the last positive category absorbs rounding at the end
          if (target < acc) break;
        }
        if (pick < 0) pick = 0;  // no positive weight left (documented)
        dst[r * samples + s] = pick;
        if (!replacement) {
          taken[pick] = 1;
          total -= weight(row, pick);
        }
      }
    }
  });
}

}  // namespace torchada_ops
