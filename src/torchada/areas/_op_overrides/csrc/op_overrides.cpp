// torchada's compiled operator overrides: PrivateUse1 kernels for aten::log, aten::log_
// and aten::multinomial (torch_musa releases below 2.11.0.post2, seed fix table) and
// aten::isfinite (every release: ATen's composite waits for the device in its bool mul).
// This file is device-independent: argument checks, output shapes, the call log, and the
// registration, which Python asks for per op (TORCHADA_DISABLE_OP_OVERRIDE_<op> leaves an
// op to torch_musa) and can undo (the area's revert).  No kernel reads device memory on the
// host during graph capture, so each is safe inside it; multinomial's randomness advances
// with every call (kernels.h), so replays draw fresh samples.
#include <torch/extension.h>
#include <ATen/ops/isfinite_native.h>

#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "kernels.h"

namespace {

bool g_debug = false;  // TORCHADA_DEBUG_CPP_OPS=1
std::map<std::string, std::vector<std::unique_ptr<torch::Library>>> g_libraries;  // per op

void trace(const char* op, const at::Tensor& t) {
  if (g_debug) {
    std::fprintf(stderr, "torchada cpp op: %s(%s[%lld]) on %s\n", op,
                 c10::toString(t.scalar_type()), static_cast<long long>(t.numel()),
                 t.device().str().c_str());
  }
}

bool is_real_floating(const at::Tensor& t) {
  return at::isFloatingType(t.scalar_type());
}

at::Tensor log_kernel(const at::Tensor& self) {
  trace("log", self);
  if (self.is_complex()) {  // log z = log|z| + i arg z (the real log below does the work)
    return at::complex(at::log(at::abs(self)), at::angle(self));
  }
  // Integers and bool promote to the default floating dtype, as torch's log does.
  at::Tensor src = is_real_floating(self) ? self : self.to(at::typeMetaToScalarType(at::get_default_dtype()));
  src = src.contiguous();
  at::Tensor out = at::empty_like(src, at::MemoryFormat::Contiguous);
  if (out.numel() > 0) torchada_ops::launch_log(src, out);
  return out;
}

at::Tensor& log_inplace_kernel(at::Tensor& self) {
  trace("log_", self);
  if (!is_real_floating(self)) {  // complex; integers get torch's cast error
    at::Tensor out = log_kernel(self);
    TORCH_CHECK(at::canCast(out.scalar_type(), self.scalar_type()), "result type ",
                out.scalar_type(), " can't be cast to the desired output type ", self.scalar_type());
    return self.copy_(out);
  }
  if (self.numel() == 0) return self;
  if (self.is_contiguous()) {
    torchada_ops::launch_log(self, self);
    return self;
  }
  at::Tensor tmp = self.contiguous();
  torchada_ops::launch_log(tmp, tmp);
  return self.copy_(tmp);
}

at::Tensor multinomial_kernel(const at::Tensor& self, int64_t samples, bool replacement,
                              std::optional<at::Generator> gen) {
  trace("multinomial", self);
  // The checks torch makes without reading the tensor (aten/src/ATen/native/Distributions.cpp);
  // the value checks there need a host wait, which is what this override avoids.
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()),
              "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
  TORCH_CHECK(samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t categories = self.size(-1);
  TORCH_CHECK(replacement || samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TORCH_CHECK(categories <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  at::Tensor weights = (self.dim() == 1 ? self.unsqueeze(0) : self).contiguous();
  if (weights.numel() > 0 && !torchada_ops::stream_capturing()) {
    // torch's value checks and messages (aten/src/ATen/native/Distributions.cpp,
    // multinomial's fast path): torch 2.7, which torch_musa 2.7.1 runs, makes them with
    // .item() (one wait for the device) for one sample or without replacement and leaves
    // the other case to the kernel's device assert; later torch asserts on the device for
    // both (_assert_async), which ends the process's device context.  Here every eager call
    // gets the clear error.  Under capture nothing may wait: bad weights then count as zero
    // (kernels.h).
    bool valid = ((weights.max() < std::numeric_limits<double>::infinity()) &
                  (weights.min() >= 0)).item<bool>();
    TORCH_CHECK(valid, "probability tensor contains either `inf`, `nan` or element < 0");
    bool zero_row = (weights.sum(1) == 0).any().item<bool>();
    TORCH_CHECK(!zero_row, "invalid multinomial distribution (sum of probabilities <= 0)");
  }
  at::Tensor out = at::empty({weights.size(0), samples}, self.options().dtype(at::kLong));
  if (weights.size(0) > 0) {
    torchada_ops::launch_multinomial(weights, samples, replacement, gen, out);
  }
  return self.dim() == 1 ? out.squeeze(0) : out;
}

// isfinite on real floating tensors as one comparison (NaN compares False); every other
// dtype runs ATen's composite itself, exactly as without the override.
at::Tensor isfinite_kernel(const at::Tensor& self) {
  trace("isfinite", self);
  switch (self.scalar_type()) {
    case at::kHalf:
    case at::kBFloat16:
    case at::kFloat:
    case at::kDouble:
      return at::abs(self).lt(std::numeric_limits<double>::infinity());
    default:
      return at::native::isfinite(self);
  }
}

// The dispatch keys the kernels sit at: the PrivateUse1 pair on MUSA and the simulator;
// cuda_twin.h names CUDA's pair (docs/native_twin.md).
#ifndef TORCHADA_OPS_DEVICE_KEY
#define TORCHADA_OPS_DEVICE_KEY PrivateUse1
#define TORCHADA_OPS_AUTOGRAD_KEY AutogradPrivateUse1
#endif

std::unique_ptr<torch::Library> library_for(c10::DispatchKey key) {
  return std::make_unique<torch::Library>(torch::Library::IMPL, "aten",
                                          std::optional<c10::DispatchKey>(key), __FILE__, __LINE__);
}

// Registers the named ops (each op in its own libraries, so ops come and go alone);
// returns the names registered.
// Registering over torch_musa's kernels makes torch warn "Overriding a previously registered
// kernel": the replacement is the point, so registration runs with warnings dropped.  (A
// Python filter cannot catch it: torch flushes the warning when the outer op returns.)
struct SilentWarnings : c10::WarningHandler {
  void process(const c10::Warning&) override {}
};

std::vector<std::string> install(const std::vector<std::string>& ops, bool debug) {
  SilentWarnings silent;
  c10::WarningUtils::WarningHandlerGuard guard(&silent);
  g_debug = g_debug || debug;
  std::vector<std::string> done;
  for (const auto& op : ops) {
    std::vector<std::unique_ptr<torch::Library>> libs;
    libs.push_back(library_for(c10::DispatchKey::TORCHADA_OPS_DEVICE_KEY));
    if (op == "log") {
      libs.back()->impl("log", TORCH_FN(log_kernel));
    } else if (op == "log_") {
      libs.back()->impl("log_", TORCH_FN(log_inplace_kernel));
    } else if (op == "multinomial") {
      libs.back()->impl("multinomial", TORCH_FN(multinomial_kernel));
    } else if (op == "isfinite") {
      libs.back()->impl("isfinite", TORCH_FN(isfinite_kernel));
      libs.push_back(library_for(c10::DispatchKey::TORCHADA_OPS_AUTOGRAD_KEY));
      libs.back()->impl("isfinite", TORCH_FN(isfinite_kernel));
    } else {
      continue;
    }
    g_libraries[op] = std::move(libs);
    done.push_back(op);
  }
  return done;
}

// Drops the named ops' registrations: torch_musa's own kernels answer again.
void uninstall(const std::vector<std::string>& ops) {
  for (const auto& op : ops) g_libraries.erase(op);
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("install", &install, "register the named overrides for PrivateUse1");
  m.def("uninstall", &uninstall, "drop the named ops' registrations");
  // The kernels themselves, called without the dispatcher: the probes (checks.py) try them
  // on the build thread before anything is registered.
  m.def("log", &log_kernel);
  m.def("log_", [](at::Tensor self) { return log_inplace_kernel(self); });
  m.def("multinomial", &multinomial_kernel);
  m.def("isfinite", &isfinite_kernel);
}
