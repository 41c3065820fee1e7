// kernels.h on the simulated device: host loops over the tensors' bytes (the simulator's
// musa memory is host memory, musa_sim.cpp).  The same contract as kernels_musa.mu, so the
// shared registration code (op_overrides.cpp) is tested for real; multinomial draws through
// the device kernel's own arithmetic (sampling.h), which the CUDA twin runs on a GPU
// (docs/native_twin.md).
#include <Python.h>

#include <cmath>
#include <mutex>

#include <ATen/OpMathType.h>

#include "kernels.h"
#include "sampling.h"

namespace torchada_ops {
namespace {

// (seed, offset) for `increment` draws, advancing the generator as philox_musa_state does:
// the increment rounded up to a multiple of 4 (torch_musa v2.7.1
// csrc/aten/musa/MUSAGeneratorImpl.cpp:104, MUSAGeneratorState::increase).
std::pair<uint64_t, uint64_t> reserve(std::optional<at::Generator> gen, c10::Device device,
                                      uint64_t increment) {
  // A generator of another device is refused as torch_musa's kernel refuses it: its
  // at::get_generator_or_default<MUSAGeneratorImpl> goes through ATen's check_generator
  // (aten/src/ATen/core/Generator.h), "Expected a 'musa' device type for generator ...".
  if (gen.has_value() && gen->defined()) {
    TORCH_CHECK(gen->device().type() == device.type(), "Expected a '",
                c10::DeviceTypeName(device.type(), /*lower_case=*/true),
                "' device type for generator but found '",
                c10::DeviceTypeName(gen->device().type(), /*lower_case=*/true), "'");
  }
  at::Generator g = gen.has_value() && gen->defined()
                        ? *gen : at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(g.mutex());
  uint64_t offset = g.get_offset();
  g.set_offset(offset + (increment + 3) / 4 * 4);
  return {g.current_seed(), offset};
}

}  // namespace

// The simulator's capture state lives in its torch_musa (the simulated MUSAGraph), where
// torch_musa's C++ asks the driver (MUSAGraphsUtils.muh:16); its replay re-runs the
// recorded ops, which a device replay does not, so a replay counts as the capture it repeats
// (graphsim.host_code_skipped).  A failed query counts as capturing: the checks are
// skipped, never run where the device may refuse them.
bool stream_capturing() {
  PyGILState_STATE gil = PyGILState_Ensure();
  bool capturing = true;
  PyObject* graphsim = PyImport_ImportModule("torch_musa._sim.graphsim");
  PyObject* answer = graphsim ? PyObject_CallMethod(graphsim, "host_code_skipped", nullptr)
                              : nullptr;
  if (answer != nullptr) {
    capturing = PyObject_IsTrue(answer) != 0;
  } else {
    PyErr_Clear();
  }
  Py_XDECREF(answer);
  Py_XDECREF(graphsim);
  PyGILState_Release(gil);
  return capturing;
}

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
      std::fill(taken.begin(), taken.end(), 0);
      sampling::sample_row(base + r * categories, categories, samples, replacement, seed,
                           offset, r, taken.data(), dst + r * samples);
    }
  });
}

}  // namespace torchada_ops
