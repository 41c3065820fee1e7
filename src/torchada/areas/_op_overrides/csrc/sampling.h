// multinomial's sampling arithmetic, the one copy: the device kernel (kernels_musa.mu, and
// its CUDA twin) and the simulator's host loop (kernels_sim.cpp) both call sample_row, so
// the same seed and offset draw the same categories everywhere.  Host/device agnostic:
// C10_HOST_DEVICE is __host__ __device__ under a device compiler and nothing otherwise.
#pragma once

#include <c10/macros/Macros.h>

#include <cstdint>

namespace torchada_ops {
namespace sampling {

C10_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from (seed, offset, row, sample): counter-based like Philox, so a
// draw depends on its coordinates only (rows can run in any order, on any thread).
C10_HOST_DEVICE inline double uniform(uint64_t seed, uint64_t offset, int64_t row, int64_t sample) {
  uint64_t x = splitmix64(seed ^ splitmix64(offset + 0x632BE59BD9B4E019ull * uint64_t(row)) ^
                          (0xD1B54A32D192ED03ull * uint64_t(sample)));
  return double(x >> 11) * (1.0 / 9007199254740992.0);
}

// A weight as drawn: finite and positive, else 0 (NaN fails both comparisons, inf the
// second; written with comparisons so that no math library is needed on either side).
C10_HOST_DEVICE inline double usable(double w) {
  return w > 0.0 && w <= 1.7976931348623157e308 ? w : 0.0;
}

// Draws `samples` categories from one row of `categories` weights into out[0..samples).
// `used` is a zeroed scratch of `categories` bytes (without replacement a category is drawn
// at most once).  The last positive category absorbs rounding at the end of the scan; a
// row with no positive weight left draws 0 (the caller rejects such rows when it may wait
// for the device: op_overrides.cpp).
template <typename scalar_t>
C10_HOST_DEVICE inline void sample_row(const scalar_t* row, int64_t categories, int64_t samples,
                                       bool replacement, uint64_t seed, uint64_t offset,
                                       int64_t row_index, char* used, int64_t* out) {
  double total = 0.0;
  for (int64_t k = 0; k < categories; ++k) total += usable(static_cast<double>(row[k]));
  for (int64_t s = 0; s < samples; ++s) {
    double target = uniform(seed, offset, row_index, s) * total;
    int64_t pick = -1;
    double acc = 0.0;
    for (int64_t k = 0; k < categories; ++k) {
      if (used[k]) continue;
      double w = usable(static_cast<double>(row[k]));
      if (w <= 0.0) continue;
      acc += w;
      pick = k;
      if (target < acc) break;
    }
    if (pick < 0) pick = 0;
    out[s] = pick;
    if (!replacement) {
      used[pick] = 1;
      total -= usable(static_cast<double>(row[pick]));
    }
  }
}

}  // namespace sampling
}  // namespace torchada_ops
