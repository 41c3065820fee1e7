// Quantized tensors on the simulated MUSA device (one of the backend's translation units:
// _backend/__init__.py SOURCES).  Every torch_musa line cited is at tag v2.7.1 (commit
// 0bc05bf) of MooreThreads/torch_musa; the simulator's code is its own.
//
// * A quantized musa tensor is a QTensorImpl over musa storage with dispatch key
//   QuantizedPrivateUse1, as a QuantizedCUDA tensor is over CUDA storage: torch_musa makes
//   them with at::new_qtensor on its device (csrc/aten/quantized/TensorFactories.cpp:23-154),
//   whose allocator is the PrivateUse1 one.  The quantizers are ATen's (per tensor affine,
//   per channel affine, per channel with float qparams, "unknown" for empty()); a per-channel
//   quantizer's scales and zero points are musa tensors (TensorFactories.cpp:77-81 moves them
//   to the device).
// * Operators: the release table's QuantizedPrivateUse1 rows, one kernel each, and no
//   backend fallback for the key, as torch_musa registers none (its one fallback is
//   AutogradPrivateUse1, csrc/core/VariableFallbackKernel_musa.cpp:30): an overload outside
//   the table finds no kernel and the dispatcher raises its own NotImplementedError.  Rows
//   whose torch_musa kernel is readable are modelled from it below (checks, messages, output
//   quantization, arithmetic of the .mu kernels); rows served by muDNN (pooling, concat,
//   linear, conv) keep the source's checks and shapes, and their arithmetic, which muDNN
//   does and whose source is not public, is a stated reference (unknown on a card); the
//   rows whose kernel is a port of PyTorch's CUDA one (relu_, int_repr, flip) run the
//   QuantizedCPU kernel on CPU tensors over the same bytes (run_on_cpu, musa_sim.cpp).
// * The quantize / dequantize dispatch stubs torch_musa registers for its device
//   (csrc/aten/quantized/musa/AffineQuantizer.mu:340-357, csrc/aten/ops/musa/Indexing.mu:1390)
//   are registered for PrivateUse1 here, so ATen's own quantize_per_tensor / dequantize /
//   copy code runs on musa tensors as it does on a card and reaches the device arithmetic.
// Limits (docs/simulator.md, "Quantized tensors"): the launch-geometry gaps of the .mu
// kernels (AffineQuantizer.mu:107-108 and 153-154 launch no block for fewer than 4 elements
// and leave a tail when numel / 4 is a multiple of the block) are not modelled: every element
// is computed; whether the device compiler fuses multiply-adds is unknown (the simulator
// rounds each operation: -ffp-contract=off).
#include <ATen/DeviceGuard.h>
#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorOperators.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/TensorShape.h>
#include <ATen/native/quantized/AffineQuantizer.h>
#include <ATen/native/quantized/AffineQuantizerBase.h>
#include <ATen/native/quantized/IndexKernel.h>
#include <ATen/native/quantized/PackedParams.h>
#include <ATen/ops/_adaptive_avg_pool2d.h>
#include <ATen/ops/_empty_affine_quantized.h>
#include <ATen/ops/_empty_affine_quantized_native.h>
#include <ATen/ops/_empty_per_channel_affine_quantized.h>
#include <ATen/ops/_empty_per_channel_affine_quantized_native.h>
#include <ATen/ops/_make_per_tensor_quantized_tensor.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/_unsafe_view.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/dequantize_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like_native.h>
#include <ATen/ops/empty_native.h>
#include <ATen/ops/empty_quantized.h>
#include <ATen/ops/empty_quantized_native.h>
#include <ATen/ops/empty_strided_native.h>
#include <ATen/ops/masked_fill_native.h>
#include <ATen/ops/max.h>
#include <ATen/ops/min.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/q_per_channel_axis_native.h>
#include <ATen/ops/q_per_channel_scales_native.h>
#include <ATen/ops/q_per_channel_zero_points_native.h>
#include <ATen/ops/q_scale_native.h>
#include <ATen/ops/q_zero_point_native.h>
#include <ATen/ops/qscheme_native.h>
#include <ATen/ops/quantize_per_channel_native.h>
#include <ATen/ops/quantize_per_tensor_dynamic_native.h>
#include <ATen/ops/quantize_per_tensor_native.h>
#include <ATen/ops/quantized_max_pool2d.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/squeeze_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/unsqueeze_native.h>
#include <ATen/ops/upsample_nearest2d.h>
#include <ATen/ops/view_native.h>
#include <ATen/quantized/QTensorImpl.h>
#include <ATen/quantized/Quantizer.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "musa_sim_internal.h"

#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace musa_sim {

using at::Tensor;
constexpr c10::DeviceType kMusa = c10::DeviceType::PrivateUse1;

// ---------------------------------------------------------------- tensors across devices
namespace {

bool on_musa(const Tensor& t) {
  return t.defined() && t.device().type() == kMusa;
}

// A quantizer parameter (per-channel scales / zero points) as seen from device `d`: the
// same bytes where it can be (a CPU view of a musa tensor, the musa tensor behind such a
// view), a copy otherwise.
Tensor param_on(const Tensor& p, c10::Device d) {
  if (!p.defined() || p.device().type() == d.type()) return p;
  if (d.type() == c10::kCPU) return cpu_alias(p);
  const c10::DataPtr& dp = p.storage().data_ptr();
  if (dp.get_deleter() == &release_storage)
    return musa_over(*static_cast<c10::Storage*>(dp.get_context()), p);
  return p.to(d);
}

at::QuantizerPtr quantizer_on(const at::QuantizerPtr& q, c10::Device d) {
  if (auto* f = dynamic_cast<at::PerChannelAffineFloatQParamsQuantizer*>(q.get())) {
    Tensor s = param_on(f->scales(), d), z = param_on(f->zero_points(), d);
    if (s.is_same(f->scales()) && z.is_same(f->zero_points())) return q;
    return c10::make_intrusive<at::PerChannelAffineFloatQParamsQuantizer>(
        f->scalar_type(), s, z, f->axis());
  }
  if (auto* c = dynamic_cast<at::PerChannelAffineQuantizer*>(q.get())) {
    Tensor s = param_on(c->scales(), d), z = param_on(c->zero_points(), d);
    if (s.is_same(c->scales()) && z.is_same(c->zero_points())) return q;
    return c10::make_intrusive<at::PerChannelAffineQuantizer>(c->scalar_type(), s, z, c->axis());
  }
  return q;  // per-tensor and unknown quantizers hold no tensor
}

// The integer representation of quantized tensor `q` (musa or CPU): a plain CPU tensor of
// the underlying type over the same bytes, with q's geometry.
Tensor raw_cpu(const Tensor& q) {
  Tensor c = on_musa(q) ? cpu_alias(q) : q;
  auto out = at::detail::make_tensor<c10::TensorImpl>(
      c10::Storage(c.storage()), c10::DispatchKeySet(c10::DispatchKey::CPU),
      c10::scalarTypeToTypeMeta(c10::toUnderlying(q.scalar_type())));
  out.unsafeGetTensorImpl()->set_sizes_and_strides(q.sizes(), q.strides());
  out.unsafeGetTensorImpl()->set_storage_offset(q.storage_offset());
  return out;
}

Tensor on_cpu(const Tensor& t) {
  return on_musa(t) ? cpu_alias(t) : t;
}

// Element i of a kernel that reads `t` as a flat array from its data pointer (the .mu
// kernels below index data_ptr() linearly, whatever the strides): the first numel elements
// of the storage from the tensor's offset.  A card reads past the storage's end when there
// are fewer; those values are unknown, so the simulator refuses.
Tensor flat_cpu(const Tensor& q, const char* where) {
  Tensor raw = raw_cpu(q);
  const int64_t room = int64_t(raw.storage().nbytes() / raw.element_size()) - raw.storage_offset();
  TORCH_CHECK(q.numel() <= room, "musa simulator: ", where, " reads its input as ", q.numel(),
              " elements from the data pointer, past the end of the tensor's storage (",
              room, " elements); what a card reads there is unknown");
  return raw.as_strided({q.numel()}, {1}, raw.storage_offset());
}

// __float2int_rn: round to nearest even; out-of-range values saturate and NaN gives 0, as
// CUDA's cvt.rni.s32.f32 does (MUSA's handling of those: unknown).
int32_t float2int_rn(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (f <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::nearbyint(f));
}

template <typename T>
int32_t clamp_q(int32_t v, int64_t qmin = std::numeric_limits<T>::min()) {
  return std::min<int32_t>(std::max<int32_t>(v, int32_t(qmin)), std::numeric_limits<T>::max());
}

}  // namespace

at::Tensor qtensor_over(c10::Storage st, const at::Tensor& like) {
  const c10::Device d = st.device();
  const auto key = d.type() == c10::kCPU ? c10::DispatchKey::QuantizedCPU
                                         : c10::DispatchKey::QuantizedPrivateUse1;
  auto out = at::detail::make_tensor<at::QTensorImpl>(
      std::move(st), c10::DispatchKeySet(key), like.dtype(),
      quantizer_on(at::get_qtensorimpl(like)->quantizer(), d));
  auto* impl = out.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(like.sizes(), like.strides());
  impl->set_storage_offset(like.storage_offset());
  return out;
}

namespace {

// ---------------------------------------------------------------- device arithmetic
// The dispatch stubs torch_musa registers (AffineQuantizer.mu:340-357).  ATen's callers have
// checked the tensors and made the float side contiguous in the quantized tensor's format.

// AffineQuantizer.mu:35-77, 99-143: qint8 / quint8 only; inv_scale = 1.0f / scale is a
// double (line 113), x * inv_scale a double rounded to float by __float2int_rn, plus the zero
// point in int32, clamped.
template <typename T>
void quantize_flat(const float* in, T* out, int64_t n, double inv_scale, int64_t zero_point) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t q = static_cast<int32_t>(
        int64_t(float2int_rn(static_cast<float>(in[i] * inv_scale))) + zero_point);
    out[i] = static_cast<T>(clamp_q<T>(q));
  }
}

void quantize_per_tensor_musa(const Tensor& rtensor, Tensor& qtensor, double scale,
                              int64_t zero_point) {
  const int64_t n = qtensor.numel();
  const double inv_scale = 1.0f / scale;
  const float* in = static_cast<const float*>(rtensor.data_ptr());
  if (qtensor.scalar_type() == at::kQInt8) {
    quantize_flat(in, static_cast<int8_t*>(qtensor.data_ptr()), n, inv_scale, zero_point);
  } else if (qtensor.scalar_type() == at::kQUInt8) {
    quantize_flat(in, static_cast<uint8_t*>(qtensor.data_ptr()), n, inv_scale, zero_point);
  } else {
    TORCH_CHECK(false, "quantize_per_tensor now only supports qint8 and quint8");
  }
}

// AffineQuantizer.mu:79-97, 145-179: (float(q) - zero_point) * scale, the product in double
// stored as float.
template <typename T>
void dequantize_flat(const T* in, float* out, int64_t n, double scale, int64_t zero_point) {
  for (int64_t i = 0; i < n; ++i) out[i] = (static_cast<float>(in[i]) - zero_point) * scale;
}

void dequantize_per_tensor_musa(const Tensor& qtensor, Tensor& rtensor, double scale,
                                int64_t zero_point) {
  const int64_t n = rtensor.numel();
  float* out = static_cast<float*>(rtensor.data_ptr());
  if (qtensor.scalar_type() == at::kQInt8) {
    dequantize_flat(static_cast<const int8_t*>(qtensor.data_ptr()), out, n, scale, zero_point);
  } else if (qtensor.scalar_type() == at::kQUInt8) {
    dequantize_flat(static_cast<const uint8_t*>(qtensor.data_ptr()), out, n, scale, zero_point);
  } else {
    TORCH_CHECK(false, "qint8 and quint8 quantized tensor can be dequantized");
  }
}

// AffineQuantizer.mu:23-33: the zero points' range, checked on the device side (ATen leaves
// the check to the device function for PrivateUse1); the messages have no separator.
void check_zero_points_musa(const std::string& fn_name, const Tensor& zero_points,
                            at::ScalarType qtype) {
  AT_DISPATCH_QINT_TYPES(qtype, "check_zero_points_musa", [&]() {
    constexpr int64_t qmin = std::numeric_limits<underlying_t>::min();
    constexpr int64_t qmax = std::numeric_limits<underlying_t>::max();
    const bool above = zero_points.gt(qmax).any().item<bool>();
    const bool below = zero_points.lt(qmin).any().item<bool>();
    TORCH_CHECK(!below, fn_name, "zero_point is below lower bound.");
    TORCH_CHECK(!above, fn_name, "zero_point is above upper bound.");
  });
}

// The per-channel kernels' TensorIterator (AffineQuantizer.mu:188-201, 233-248): scales and
// zero points viewed to broadcast along `axis`; built on the musa tensors for its checks
// (one device for all: CPU scales are refused as on a card), computed on the CPU views.
std::pair<Tensor, Tensor> channel_params(const Tensor& rtensor, const Tensor& qtensor,
                                         const Tensor& scales, const Tensor& zero_points,
                                         int64_t axis, bool quantizing) {
  std::vector<int64_t> shape(rtensor.dim(), 1);
  shape[axis] = rtensor.size(axis);
  Tensor s = at::_unsafe_view(scales, shape), z = at::_unsafe_view(zero_points, shape);
  auto config = at::TensorIteratorConfig();
  config.check_all_same_dtype(false);
  if (quantizing) {
    config.add_output(qtensor).add_input(rtensor).add_input(qtensor);
  } else {
    config.add_output(rtensor).add_input(qtensor);
  }
  config.add_input(s).add_input(z).build();
  return {on_cpu(s), on_cpu(z)};
}

template <typename T>
Tensor clamp_to(const Tensor& v) {
  return v.clamp(int64_t(std::numeric_limits<T>::min()), int64_t(std::numeric_limits<T>::max()));
}

// AffineQuantizer.mu:181-224: q = clamp(nearbyint(x / scale) + zero_point), the division in
// double (float x, double scale).
void quantize_per_channel_musa(const Tensor& rtensor, Tensor& qtensor, const Tensor& scales,
                               const Tensor& zero_points, int64_t axis) {
  static const std::string fn_name = "quantize_tensor_per_channel_affine_musa";
  auto [s, z] = channel_params(rtensor, qtensor, scales, zero_points, axis, true);
  AT_DISPATCH_QINT_TYPES(qtensor.scalar_type(), "quantize_per_channel_musa", [&]() {
    check_zero_points_musa(fn_name, zero_points, qtensor.scalar_type());
    Tensor v = (on_cpu(rtensor).to(at::kDouble) / s.to(at::kDouble)).round() + z.to(at::kDouble);
    raw_cpu(qtensor).copy_(clamp_to<underlying_t>(v.to(at::kLong)));
  });
}

// AffineQuantizer.mu:226-257: float(q - zero_point) * scale, the product in double.
void dequantize_per_channel_musa(const Tensor& qtensor, Tensor& rtensor, const Tensor& scales,
                                 const Tensor& zero_points, int64_t axis) {
  static const std::string fn_name = "dequantize_tensor_per_channel_affine_musa";
  AT_DISPATCH_QINT_TYPES(qtensor.scalar_type(), "dequantize_per_channel_musa", [&]() {
    check_zero_points_musa(fn_name, zero_points, qtensor.scalar_type());
    auto [s, z] = channel_params(rtensor, qtensor, scales, zero_points, axis, false);
    Tensor d = (raw_cpu(qtensor).to(at::kLong) - z.to(at::kLong)).to(at::kFloat).to(at::kDouble);
    on_cpu(rtensor).copy_(d * s.to(at::kDouble));
  });
}

// AffineQuantizer.mu:259-303: float arithmetic, q = clamp(lrintf(x * (1.0f / scale) + zp)).
void quantize_per_channel_float_musa(const Tensor& rtensor, Tensor& qtensor,
                                     const Tensor& scales, const Tensor& zero_points,
                                     int64_t axis) {
  static const std::string fn_name = "quantize_tensor_per_channel_float_qparams_musa";
  auto [s, z] = channel_params(rtensor, qtensor, scales, zero_points, axis, true);
  AT_DISPATCH_QINT_TYPES(qtensor.scalar_type(), "quantize_per_channel_float_musa", [&]() {
    check_zero_points_musa(fn_name, zero_points, qtensor.scalar_type());
    Tensor inv = s.to(at::kFloat).reciprocal();
    Tensor v = (on_cpu(rtensor) * inv + z.to(at::kFloat)).round();
    raw_cpu(qtensor).copy_(clamp_to<underlying_t>(v.to(at::kLong)));
  });
}

// AffineQuantizer.mu:305-336: (float(q) - zero_point) * scale in float.
void dequantize_per_channel_float_musa(const Tensor& qtensor, Tensor& rtensor,
                                       const Tensor& scales, const Tensor& zero_points,
                                       int64_t axis) {
  static const std::string fn_name = "dequantize_tensor_per_channel_float_qparams_musa";
  AT_DISPATCH_QINT_TYPES(qtensor.scalar_type(), "dequantize_per_channel_float_musa", [&]() {
    check_zero_points_musa(fn_name, zero_points, qtensor.scalar_type());
    auto [s, z] = channel_params(rtensor, qtensor, scales, zero_points, axis, false);
    on_cpu(rtensor).copy_((raw_cpu(qtensor).to(at::kFloat) - z.to(at::kFloat)) * s.to(at::kFloat));
  });
}

// Indexing.mu:1360-1392: the fill value quantized on the host with ATen's quantize_val, then
// written where the mask is set (operands: self out, self in, the expanded mask).
void masked_fill_quantized_musa(at::TensorIterator& iter, const c10::Scalar& value,
                                double scale, int zero_point) {
  TORCH_CHECK(iter.input_dtype(1) == at::ScalarType::Bool,
              "masked_fill only supports boolean masks, ", "but got dtype ",
              iter.input_dtype(1));
  AT_DISPATCH_QINT_TYPES(iter.common_dtype(), "masked_fill_", [&]() {
    const auto q = at::native::quantize_val<scalar_t>(scale, zero_point, value.to<float>());
    raw_cpu(iter.tensor(0)).masked_fill_(on_cpu(iter.tensor(2)), int64_t(q.val_));
  });
}

// ---------------------------------------------------------------- device guards
// torch_musa's codegen gives a yaml row a device guard only when the yaml says
// `device_guard: True` (tools/codegen/gen_torch_musa.py:302-305: the default is False); the
// guard is torchgen's, on the first tensor argument's device.  Rows without it allocate on
// the current device unless their kernel guards itself.
inline std::optional<c10::Device> first_device() {
  return std::nullopt;
}
template <typename T, typename... Rest>
std::optional<c10::Device> first_device(const T& arg, const Rest&... rest) {
  if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) {
    if (arg.defined()) return arg.device();
  }
  return first_device(rest...);
}

template <auto F>
struct guarded;
template <typename R, typename... Args, R (*F)(Args...)>
struct guarded<F> {
  static R call(Args... args) {
    const c10::OptionalDeviceGuard guard(first_device(args...));
    return F(std::forward<Args>(args)...);
  }
};

// yaml:1598 / 1604 name ATen's masked_fill__quantized_cuda, which reaches the device stub
// (masked_fill_quantized_musa above).
constexpr Tensor& (*masked_fill_scalar)(Tensor&, const Tensor&, const c10::Scalar&) =
    at::native::masked_fill__quantized_cuda;
constexpr Tensor& (*masked_fill_tensor)(Tensor&, const Tensor&, const Tensor&) =
    at::native::masked_fill__quantized_cuda;

// ---------------------------------------------------------------- factories and fields
// TensorFactories.cpp:23-51 (EmptyAffineQuantized): ATen's body under a guard on the device.
Tensor empty_affine_quantized_musa(c10::IntArrayRef size, std::optional<at::ScalarType> dtype,
                                   std::optional<at::Layout> layout,
                                   std::optional<at::Device> device, std::optional<bool> pin,
                                   double scale, int64_t zero_point,
                                   std::optional<at::MemoryFormat> memory_format) {
  const c10::DeviceGuard guard(c10::device_or_default(device));
  return at::native::empty_affine_quantized(size, dtype, layout, device, pin, scale, zero_point,
                                            memory_format);
}

// TensorFactories.cpp:53-83: the scales and zero points go to the device (ATen's does the same).
Tensor empty_per_channel_affine_quantized_musa(
    c10::IntArrayRef size, const Tensor& scales, const Tensor& zero_points, int64_t axis,
    std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
    std::optional<at::Device> device, std::optional<bool> pin,
    std::optional<at::MemoryFormat> memory_format) {
  const c10::DeviceGuard guard(c10::device_or_default(device));
  return at::native::empty_per_channel_affine_quantized(size, scales, zero_points, axis, dtype,
                                                        layout, device, pin, memory_format);
}

// yaml:3151 names ATen's empty_strided_unknown_quantized with device_guard: True: torchgen's
// guard of a factory is on its device option.
Tensor empty_strided_quantized_musa(c10::IntArrayRef size, c10::IntArrayRef stride,
                                    std::optional<at::ScalarType> dtype,
                                    std::optional<at::Layout> layout,
                                    std::optional<at::Device> device, std::optional<bool> pin) {
  const c10::DeviceGuard guard(c10::device_or_default(device));
  return at::native::empty_strided_unknown_quantized(size, stride, dtype, layout, device, pin);
}

// TensorFactories.cpp:112-154 (EmptyQuantized): ATen's empty_quantized under a guard.
Tensor empty_quantized_musa(c10::IntArrayRef size, const Tensor& qtensor,
                            std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                            std::optional<at::Device> device, std::optional<bool> pin,
                            std::optional<at::MemoryFormat> memory_format) {
  const c10::DeviceGuard guard(c10::device_or_default(device));
  return at::native::empty_quantized(size, qtensor, dtype, layout, device, pin, memory_format);
}

// ---------------------------------------------------------------- copies
Tensor& copy_float_into(Tensor& self, const Tensor& src, const char* shape_message) {
  TORCH_CHECK(src.scalar_type() == at::kFloat,
              "Quantized copy only works with kFloat as source Tensor");
  TORCH_CHECK((self.is_contiguous() && src.is_contiguous()) ||
                  (self.is_contiguous(at::MemoryFormat::ChannelsLast) &&
                   src.is_contiguous(at::MemoryFormat::ChannelsLast)),
              "Quantized copy only works with contiguous and NHWC Tensors");
  TORCH_CHECK(self.sizes().equals(src.sizes()), shape_message);
  const auto qs = self.qscheme();
  if (qs == at::kPerChannelAffine || qs == at::kPerChannelAffineFloatQParams ||
      qs == at::kPerChannelSymmetric) {
    at::native::quantize_tensor_per_channel_affine(src, self, self.q_per_channel_scales(),
                                                   self.q_per_channel_zero_points(),
                                                   self.q_per_channel_axis());
  } else {
    at::native::quantize_tensor_per_tensor_affine(src, self, self.q_scale(), self.q_zero_point());
  }
  return self;
}

// Copy.cpp:336-477 (MUSACopyFrom), torch_musa's _copy_from for QuantizedPrivateUse1
// (Copy.cpp:479-481), reached by every copy_ with a quantized musa side: a float source is
// quantized by ATen's quantized_copy_from_float_ (Copy.cpp:345-347; its checks and calls are
// ATen's aten/src/ATen/native/quantized/Copy.cpp, exported by torch_musa's patch
// torch_patches/aten_src_ATen_native_quantized_Copy.h.patch); two quantized tensors need the
// same qscheme and dtype, the destination takes the source's quantizer, and the integer
// values are copied element by element.
Tensor copy_from_quantized(const Tensor& _src, const Tensor& dst, bool non_blocking) {
  Tensor self = dst;
  const bool self_is_qtensor = self.is_quantized();
  const bool src_is_qtensor = _src.is_quantized();
  if (self_is_qtensor && !src_is_qtensor) {
    return copy_float_into(self, _src,
                           "Quantized copy only works with Tensors with the same shape");
  }
  if (self_is_qtensor && src_is_qtensor) {
    TORCH_CHECK(self.qscheme() == _src.qscheme(), "Quantized Copy only works with same qscheme");
    TORCH_CHECK(self.scalar_type() == _src.scalar_type());
    at::set_quantizer_(self, _src.quantizer());
  }
  TORCH_CHECK(self_is_qtensor || !src_is_qtensor,
              "Copying from quantized Tensor to non-quantized Tensor is not allowed",
              ", please use dequantize to get a float Tensor from a quantized Tensor");
  TORCH_CHECK(self.sizes().equals(_src.sizes()));
  raw_cpu(self).copy_(raw_cpu(_src));
  return self;
}

// ---------------------------------------------------------------- elementwise kernels
// mudnn/BinaryOps.cpp:11-27: aten::add.Tensor on a quantized musa tensor dequantizes both
// sides and returns the float sum (alpha must be 1).
Tensor add_tensor_quantized(const Tensor& qa, const Tensor& qb, const c10::Scalar& alpha) {
  TORCH_CHECK(alpha.equal(1), "Quantized add don't support set alpha yet.");
  Tensor fa = qa.is_quantized() ? qa.dequantize() : qa;
  Tensor fb = qb.is_quantized() ? qb.dequantize() : qb;
  return fa.add(fb, alpha);
}

// musa/BinaryOps.mu:14-202 (QAdd): checks, then in double
//   out = clamp(rn(float((qa + qb * (sb / sa)) * (sa / s_out) + bias)))
// with bias = zp_out - (zpa + zpb * sb / sa) * sa / s_out when a zero point is set; the fused
// ReLU clamps the quantized value at 0 (not at the zero point: line 110 / 124).  No element:
// an undefined tensor (line 161-163).  Inputs are read linearly from their data pointers.
template <bool kReluFused>
Tensor quantized_add_musa(Tensor qa, Tensor qb, double output_scale, int64_t output_zero_point) {
  const c10::DeviceGuard guard(qa.device());
  if (qa.numel() == 0) return Tensor{};
  TORCH_CHECK(qa.sizes() == qb.sizes(),
              "quantized::add currently expects both input tensors to be the same shape");
  TORCH_CHECK(qa.scalar_type() == qb.scalar_type(),
              "quantized::add currently expects both input tensors to be the same dtype");
  TORCH_CHECK(qa.suggest_memory_format() == qb.suggest_memory_format(),
              "quantized::add expects both input tenseors to be the same memory format");
  TORCH_CHECK(qa.qscheme() == at::kPerTensorAffine,
              "Only per tensor quantization is supported in Add.");
  TORCH_CHECK(qa.qscheme() == qb.qscheme(),
              "Both inputs to Add must have the same quantization scheme.");
  TORCH_CHECK(qa.scalar_type() == qb.scalar_type(), "Add operands should have same data type.");
  TORCH_CHECK(qa.scalar_type() == c10::kQUInt8 || qa.scalar_type() == c10::kQInt8,
              "Add operands support QUint8 and QInt8, now got ", c10::toString(qa.scalar_type()));
  const double a_scale = qa.q_scale(), b_scale = qb.q_scale();
  const int64_t a_zp = qa.q_zero_point(), b_zp = qb.q_zero_point();
  const double b_dequant_scale = b_scale / a_scale;
  const double requant_scale = a_scale / output_scale;
  double bias = 0.f;
  if (b_zp != 0 || a_zp != 0 || output_zero_point != 0)
    bias = output_zero_point - (a_zp + b_zp * b_dequant_scale) * requant_scale;
  Tensor out = at::_empty_affine_quantized(qa.sizes(), qa.options().dtype(qa.scalar_type()),
                                           output_scale, output_zero_point,
                                           qa.suggest_memory_format());
  Tensor fa = flat_cpu(qa, "quantized::add (BinaryOps.mu:46-47)");
  Tensor fb = flat_cpu(qb, "quantized::add (BinaryOps.mu:46-47)");
  Tensor fo = flat_cpu(out, "quantized::add");
  AT_DISPATCH_QINT_TYPES(out.scalar_type(), "quantized_add_musa", [&]() {
    const int64_t qmin = kReluFused ? 0 : std::numeric_limits<underlying_t>::min();
    const auto* a = fa.data_ptr<underlying_t>();
    const auto* b = fb.data_ptr<underlying_t>();
    auto* o = fo.data_ptr<underlying_t>();
    for (int64_t i = 0; i < fo.numel(); ++i) {
      const double d = (a[i] + b[i] * b_dequant_scale) * requant_scale;
      o[i] = static_cast<underlying_t>(clamp_q<underlying_t>(float2int_rn(d + bias), qmin));
    }
  });
  return out;
}

// musa/Activation.mu:14-220: relu, gelu and sigmoid keep the input's scale and zero point;
// each element is dequantized in float, transformed, requantized with rn(float(v * inv_scale))
// (inv_scale = 1.0f / scale in double, line 151); gelu ignores `approximate` (line 194) and
// uses erff; per-channel tensors are refused (the message says relu for all three); the
// input is read linearly from its data pointer (line 109).
enum class Act { kRelu, kGelu, kSigmoid };

template <Act kAct>
Tensor activation_musa(const Tensor& self) {
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  TORCH_CHECK(self.qscheme() == c10::kPerTensorAffine || self.qscheme() == c10::kPerTensorSymmetric,
              "we currently only support per-tensor quantized relu, but got ",
              c10::toString(self.qscheme()));
  const double scale = self.q_scale();
  const int64_t zero_point = self.q_zero_point();
  Tensor out = at::_empty_affine_quantized(self.sizes(), self.options(), scale, zero_point,
                                           self.suggest_memory_format());
  TORCH_CHECK(self.scalar_type() == at::kQInt8 || self.scalar_type() == at::kQUInt8,
              "unsupported data type", self.scalar_type());
  const double inv_scale = 1.0f / scale;
  Tensor fi = flat_cpu(self, "a quantized activation (Activation.mu:109)");
  Tensor fo = flat_cpu(out, "a quantized activation");
  AT_DISPATCH_QINT_TYPES(out.scalar_type(), "activation_musa", [&]() {
    const auto* in = fi.data_ptr<underlying_t>();
    auto* o = fo.data_ptr<underlying_t>();
    for (int64_t i = 0; i < fo.numel(); ++i) {
      const int64_t input = in[i];
      float value = static_cast<float>(input - zero_point) * scale;
      if (kAct == Act::kRelu) {
        value = std::max<float>(value, 0.f);
      } else if (kAct == Act::kGelu) {
        value = value * 0.5 * (1.f + std::erf(static_cast<float>(value / 1.4142135)));
      } else {
        value = 1.f / (1.f + std::exp(-value));
      }
      const int64_t q = static_cast<int64_t>(float2int_rn(static_cast<float>(value * inv_scale)) +
                                             zero_point);
      o[i] = static_cast<underlying_t>(std::max<int64_t>(
          std::min<int64_t>(q, std::numeric_limits<underlying_t>::max()),
          std::numeric_limits<underlying_t>::min()));
    }
  });
  return out;
}

Tensor gelu_musa(const Tensor& self, c10::string_view approximate) {
  (void)approximate;
  return activation_musa<Act::kGelu>(self);
}

// ---------------------------------------------------------------- shape kernels
bool per_tensor_scheme(const Tensor& t) {
  return t.qscheme() == at::kPerTensorAffine || t.qscheme() == at::kPerTensorSymmetric;
}

// The integer values of `q` requantized to (scale, zero_point): copied when its own
// parameters are those; otherwise muDNN's requantization is unknown, and the simulator
// dequantizes and quantizes with the device formulas above.
Tensor ints_as(const Tensor& q, double scale, int64_t zero_point) {
  if (q.q_scale() == scale && q.q_zero_point() == zero_point) return raw_cpu(q.contiguous());
  return raw_cpu(at::native::quantize_per_tensor(q.dequantize(), scale, zero_point,
                                                 q.scalar_type()));
}

// TensorShape.cpp:192-287 (CatQuantizedMusaImpl): one input is returned itself; otherwise
// zero_point must be 0; empty inputs are skipped; the output is made on the current device
// (at::device(kPrivateUse1), no index) in the first input's suggested memory format.  muDNN's
// Concat requantizes each input to the output's scale (see ints_as).
Tensor cat_impl(const at::MaterializedITensorListRef& qxs, int64_t dim, double scale,
                int64_t zero_point) {
  const Tensor& qx0 = qxs[0].get();
  if (qxs.size() == 1) return qx0;
  TORCH_CHECK(0 == zero_point, "torch_musa only supports symmetric quantization",
              "which requires zero_point == 0, got: ", zero_point);
  std::vector<int64_t> shape(qx0.sizes().begin(), qx0.sizes().end());
  shape[dim] = 0;
  std::vector<Tensor> parts;
  for (const auto& ref : qxs) {
    const Tensor& qx = ref.get();
    if (qx.numel() > 0) {
      shape[dim] += qx.size(dim);
      parts.push_back(ints_as(qx, scale, 0));
    }
  }
  Tensor out = at::_empty_affine_quantized(shape, at::device(kMusa).dtype(qx0.scalar_type()),
                                           scale, 0, qx0.suggest_memory_format());
  raw_cpu(out).copy_(at::cat(parts, dim));
  return out;
}

// TensorShape.cpp:164-189, 289-304 (CatQuantizedMusa).  allInputsSharingQParams starts true
// and only ORs into it (lines 170-187), so inputs with other parameters pass; its calls are
// made all the same (they raise for a non-quantized or a per-channel input).
Tensor cat_musa(const at::ITensorListRef& tensors, int64_t dim) {
  const auto& qxs = tensors.materialize();
  TORCH_CHECK(per_tensor_scheme(qxs[0]), "Only per-tensor quantization is supported in `cat`");
  const Tensor& q0 = qxs[0].get();
  for (size_t i = 1; i < qxs.size(); ++i) {
    const Tensor& qi = qxs[i].get();
    (void)qi.qscheme();
    if (q0.qscheme() == at::kPerTensorAffine) {
      (void)qi.q_scale();
      (void)qi.q_zero_point();
    } else if (q0.qscheme() == at::kPerChannelAffine) {
      (void)qi.q_per_channel_scales().equal(q0.q_per_channel_scales());
      (void)qi.q_per_channel_zero_points().equal(q0.q_per_channel_zero_points());
    } else {
      TORCH_CHECK(false, "Unsupported quantization scheme");
    }
  }
  at::native::check_cat_no_zero_dim(qxs);
  dim = at::legacy_cat_wrap_dim(dim, qxs);
  return cat_impl(qxs, dim, q0.q_scale(), q0.q_zero_point());
}

// TensorShape.cpp:306-325 (CatOutQuantizedMusa): the output's parameters, then out.copy_.
Tensor& cat_out_musa(const at::ITensorListRef& tensors, int64_t dim, Tensor& out) {
  const auto& qxs = tensors.materialize();
  TORCH_CHECK(per_tensor_scheme(qxs[0]), "Only per-tensor quantization is supported in `cat`");
  TORCH_CHECK(per_tensor_scheme(out), "Only per-tensor quantization is supported in `cat`");
  at::native::check_cat_no_zero_dim(qxs);
  dim = at::legacy_cat_wrap_dim(dim, qxs);
  Tensor result = cat_impl(qxs, dim, out.q_scale(), out.q_zero_point());
  out.copy_(result);
  return out;
}

// TensorShape.cpp:331-381 (QuantizedCatOut): qint8 output only; the inputs concatenated into
// it, requantized to its parameters (muDNN; see ints_as).
Tensor quantized_cat_out_musa(const c10::List<Tensor>& qxs, int64_t dim, Tensor out) {
  TORCH_CHECK(per_tensor_scheme(out), "Quantized cat only supports quantize-per-tensor");
  TORCH_CHECK(out.scalar_type() == c10::kQInt8, "Quantize cat out should be qint8 dtype");
  if (dim >= 0) {
    TORCH_CHECK(dim < qxs.get(0).dim(), "Wrong dim: ", dim);
  } else {
    dim = dim + qxs.get(0).dim();
    TORCH_CHECK(dim < qxs.get(0).dim(), "Wrong din: ", dim);
  }
  std::vector<Tensor> parts;
  for (const Tensor& qx : qxs)
    if (qx.numel() > 0) parts.push_back(ints_as(qx, out.q_scale(), out.q_zero_point()));
  raw_cpu(out).copy_(at::cat(parts, dim));
  return out;
}

// TensorShape.cpp:383-421 (QuantizedCat): the output (on the current device, contiguous)
// takes `scale` / `zero_point` or the first input's.
Tensor quantized_cat_musa(const c10::List<Tensor>& qxs, int64_t dim, std::optional<double> scale,
                          std::optional<int64_t> zero_point) {
  const Tensor qx0 = qxs.get(0);
  if (dim >= 0) {
    TORCH_CHECK(dim < qx0.dim(), "Wrong dim: ", dim);
  } else {
    dim = dim + qx0.dim();
    TORCH_CHECK(dim < qx0.dim(), "Wrong dim: ", dim);
  }
  TORCH_CHECK(per_tensor_scheme(qx0), "Quantized cat only supports quantize-per-tensor");
  std::vector<int64_t> shape(qx0.sizes().begin(), qx0.sizes().end());
  shape[dim] = 0;
  for (const Tensor& qx : qxs) shape[dim] += qx.size(dim);
  Tensor out = at::_empty_affine_quantized(
      shape, at::device(kMusa).dtype(qx0.scalar_type()), scale.value_or(qx0.q_scale()),
      zero_point.value_or(qx0.q_zero_point()), c10::MemoryFormat::Contiguous);
  return quantized_cat_out_musa(qxs, dim, out);
}

// TensorCompare.cpp:12-42: max / min along a dimension of the integer values, re-wrapped
// with the input's parameters.
template <bool kMax>
std::tuple<Tensor, Tensor> reduce_dim_musa(const Tensor& self, int64_t dim, bool keepdim) {
  const c10::DeviceGuard guard(self.device());
  TORCH_CHECK(self.qscheme() == at::kPerTensorAffine,
              kMax ? "Max" : "Min",
              " operator for quantized tensors only works for per tensor quantized tensors. "
              "Please open an issue on https://github.com/pytorch/pytorch/issues if you need per "
              "channel quantized tensor support.");
  Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  Tensor values = at::empty({0}, self.options().dtype(c10::toUnderlying(self.scalar_type())));
  if (kMax) {
    at::max_outf(self.int_repr(), dim, keepdim, values, indices);
  } else {
    at::min_outf(self.int_repr(), dim, keepdim, values, indices);
  }
  return {at::_make_per_tensor_quantized_tensor(values, self.q_scale(), self.q_zero_point()),
          indices};
}

// Fill.cpp:27-79: a float tensor of the value, moved to the device and quantized into self
// (its own copy check: "the same shape" message in the singular).
Tensor& fill_scalar_musa(Tensor& self, const c10::Scalar& value) {
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Tensor out = at::ones(self.sizes()).to(at::kFloat) * value;
  out = out.to(self.device()).to(self.suggest_memory_format());
  return copy_float_into(self, out, "Quantized copy only works with Tensor with the same shape");
}

Tensor& fill_tensor_musa(Tensor& self, const Tensor& value) {
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
  return fill_scalar_musa(self, value.item());
}

// UpSampleNearest2d.cpp:15-52: dequantize, upsample in float, quantize with the input's
// parameters.
Tensor upsample_nearest2d_musa(const Tensor& input, c10::IntArrayRef output_size,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  const Tensor fp32 = at::upsample_nearest2d(input.dequantize(), output_size, scales_h, scales_w);
  const auto qscheme = input.qscheme();
  if (qscheme == at::kPerTensorAffine)
    return at::native::quantize_per_tensor(fp32, input.q_scale(), input.q_zero_point(),
                                           input.scalar_type());
  if (qscheme == at::kPerChannelAffine || qscheme == at::kPerChannelAffineFloatQParams)
    return at::native::quantize_per_channel(fp32, input.q_per_channel_scales(),
                                            input.q_per_channel_zero_points(),
                                            input.q_per_channel_axis(), input.scalar_type());
  TORCH_CHECK(false, "QScheme not supported by upsample_nearest2d:", c10::toString(qscheme));
}

// An NHWC output (N, H, W, C) on the current device with `like`'s parameters, seen as NCHW:
// what Pool.cpp and Conv.cpp allocate and return.
Tensor nhwc_output(c10::IntArrayRef nchw, const Tensor& like, at::ScalarType dtype, double scale,
                   int64_t zero_point) {
  (void)like;
  Tensor out = at::_empty_affine_quantized({nchw[0], nchw[2], nchw[3], nchw[1]},
                                           at::device(kMusa).dtype(dtype), scale, zero_point,
                                           c10::MemoryFormat::Contiguous);
  return out.permute({0, 3, 1, 2});
}

// Pool.cpp:168-247 (MaxPool2dQuantized): the source's checks (qint8 only, dilation 1, 3 or
// 4 dims though it reads size(3)); ceil_mode is ignored (line 176): the output size is the
// floor formula (lines 20-36); NHWC output.  Values: the QuantizedCPU kernel's windows
// (muDNN's treatment of padding: unknown).
Tensor quantized_max_pool2d_musa(const Tensor& input, c10::IntArrayRef kernel_size,
                                 c10::IntArrayRef stride, c10::IntArrayRef padding,
                                 c10::IntArrayRef dilation, bool ceil_mode) {
  const c10::OptionalDeviceGuard guard(at::device_of(input));
  (void)ceil_mode;
  if (stride.empty()) stride = kernel_size;
  const auto ndim = input.dim();
  TORCH_CHECK(input.qscheme() == at::kPerTensorAffine,
              "MaxPool2dQuantized(): only supports per tensor quantized tensors");
  TORCH_CHECK(ndim == 3 || ndim == 4, "Expecting the input tensor of rank 3 or 4.");
  TORCH_CHECK(kernel_size.size() == 2,
              "MaxPool2dQuantized(): Expected kernel_size to be 2-dimensional: got ",
              kernel_size.size());
  TORCH_CHECK(stride.size() == 2,
              "MaxPool2dQuantized(): Expected stride to be 2-dimensional: got ", stride.size());
  TORCH_CHECK(dilation.size() == 2,
              "MaxPool2dQuantized(): Expected dilation to be 2-dimensional: got ",
              dilation.size());
  TORCH_CHECK(dilation[0] == 1 && dilation[1] == 1,
              "MaxPool2dQuantized(): Expected dilation=[1, 1] (cudnn does not currently "
              "support dilation[i] != 1), got",
              dilation);
  TORCH_CHECK(padding.size() == 2,
              "MaxPool2dQuantized(): Expected padding to be 2-dimensional: got ", padding.size());
  TORCH_CHECK(input.scalar_type() == c10::kQInt8,
              "MaxPool2dQuantized(): Expected dataype to be qint8, got ", input.scalar_type());
  const int64_t h = input.size(2), w = input.size(3);
  const int64_t oh = (h + 2 * padding[0] - dilation[0] * (kernel_size[0] - 1) - 1) / stride[0] + 1;
  const int64_t ow = (w + 2 * padding[1] - dilation[1] * (kernel_size[1] - 1) - 1) / stride[1] + 1;
  Tensor out = nhwc_output({input.size(0), input.size(1), oh, ow}, input, input.scalar_type(),
                           input.q_scale(), input.q_zero_point());
  Tensor ref = at::quantized_max_pool2d(input.cpu(), kernel_size, stride, padding, dilation, false);
  raw_cpu(out).copy_(raw_cpu(ref));
  return out;
}

// Pool.cpp:132-166 (AdaptiveAvgPool2dQuantized): per-tensor only, two output sizes, output
// (size(0), H_out, W_out, size(1)) NHWC with the input's parameters.  Values: the QuantizedCPU
// kernel's averages (muDNN's rounding: unknown).
Tensor adaptive_avg_pool2d_musa(const Tensor& input, c10::IntArrayRef output_size) {
  const c10::OptionalDeviceGuard guard(at::device_of(input));
  TORCH_CHECK(input.qscheme() == at::kPerTensorAffine,
              "AdaptiveAvgPool2dQuantized only supports per tensor quantized tensors");
  TORCH_CHECK(output_size.size() == 2, "AdaptiveAvgPool2d only supports output with 2-elements");
  TORCH_CHECK(input.dim() == 4, "musa simulator: _adaptive_avg_pool2d of a ", input.dim(),
              "-dimensional quantized tensor: the source sizes its output (size(0), H_out, "
              "W_out, size(1)) as for a batch (Pool.cpp:146-151); what muDNN does then is unknown");
  Tensor out = nhwc_output({input.size(0), input.size(1), output_size[0], output_size[1]}, input,
                           input.scalar_type(), input.q_scale(), input.q_zero_point());
  raw_cpu(out).copy_(raw_cpu(at::_adaptive_avg_pool2d(input.cpu(), output_size)));
  return out;
}

// ops/TensorShape.cpp:179-235 (IndexSelectOut / IndexSelect, torch_musa's kernel for both
// keys): the quantized result is a fresh empty_quantized with `out`'s parameters that
// replaces the caller's `out` handle (line 190: the tensor passed as out= is left as it
// was); qint32 and CPU indices are refused; the integer values are gathered, not requantized.
Tensor& index_select_out_musa(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  const int64_t num = index.numel();
  dim = at::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) shape[dim] = num;
  out = at::empty_quantized(shape, out);
  if (out.numel() == 0) return out;
  TORCH_CHECK(self.scalar_type() != at::ScalarType::QInt32,
              "Unsupported IndexSelect input dtype: ", self.scalar_type());
  TORCH_CHECK(index.scalar_type() == at::ScalarType::Int ||
                  index.scalar_type() == at::ScalarType::Long,
              "Unsupported IndexSelect index dtype: ", index.scalar_type());
  TORCH_CHECK(index.device().type() == kMusa, "Index should be on GPU device");
  const c10::DeviceGuard guard(self.device());
  raw_cpu(out).copy_(raw_cpu(self.contiguous()).index_select(dim, on_cpu(index.contiguous())));
  return out;
}

Tensor index_select_musa(const Tensor& self, int64_t dim, const Tensor& index) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  dim = (dim + self.dim()) % self.dim();
  shape[dim] = index.numel();
  Tensor out = at::empty_quantized(shape, self, self.options().dtype(self.scalar_type()));
  return index_select_out_musa(self, dim, index, out);
}

// _make_per_tensor_quantized_tensor / _make_per_channel_quantized_tensor (PrivateUse1 rows,
// yaml 3611 / 3617): PyTorch's CUDA kernels, ported by torch_musa's build (not read; CUDA's:
// a contiguous quantized tensor of the integer type's quantized twin, values copied).
Tensor make_per_tensor_quantized_musa(const Tensor& self, double scale, int64_t zero_point) {
  Tensor dst = at::_empty_affine_quantized(
      self.sizes(), self.options().dtype(c10::toQIntType(self.scalar_type())), scale, zero_point);
  raw_cpu(dst).copy_(on_cpu(self));
  return dst;
}

Tensor make_per_channel_quantized_musa(const Tensor& self, const Tensor& scales,
                                       const Tensor& zero_points, int64_t axis) {
  Tensor dst = at::_empty_per_channel_affine_quantized(
      self.sizes(), scales, zero_points, axis,
      self.options().dtype(c10::toQIntType(self.scalar_type())));
  raw_cpu(dst).copy_(on_cpu(self));
  return dst;
}

// ---------------------------------------------------------------- packed weights
// muDNN's packing is not public and not modelled: torch_musa's packed parameters keep the
// quantized weight (and bias) as they are (mudnn/Linear.h:17-75, Conv.h:59-189; the conv
// weight permuted to NHWC, ConvPrepack.cpp:78) and muDNN consumes them at each call, so the
// simulator's packed parameters do the same, with the source's checks.  muDNN's integer
// arithmetic is unknown; the reference used (exact in double for small integers):
//   y = sum((x - zp_x) * (w - zp_w)) * s_x * s_w + bias [+ dequantized accum]
//   out = clamp(nearbyint(act(y) / s_out) + zp_out) in qint8.
// The CPU engine (fbgemm / x86) refuses what these accept: it wants quint8 activations,
// where torch_musa's linear wants qint8 (Linear.cpp:80-85).
Tensor dequantized_double(const Tensor& q) {
  return (raw_cpu(q).to(at::kDouble) - double(q.q_zero_point())) * q.q_scale();
}

void requantize_into(const Tensor& out, const Tensor& y) {
  Tensor q = (y / out.q_scale()).round() + double(out.q_zero_point());
  raw_cpu(out).copy_(q.clamp(-128, 127).to(at::kLong));
}

struct PackedLinearSim final : LinearPackedParamsBase {
  PackedLinearSim(Tensor weight, std::optional<Tensor> bias, c10::QScheme qscheme)
      : orig_weight(std::move(weight)), bias_(std::move(bias)), q_scheme(qscheme) {}

  // LinearPrepack.cpp:11-37
  static c10::intrusive_ptr<LinearPackedParamsBase> prepack(Tensor weight,
                                                             std::optional<Tensor> bias) {
    TORCH_CHECK(weight.qscheme() == c10::kPerTensorSymmetric ||
                    (weight.qscheme() == c10::kPerTensorAffine && weight.q_zero_point() == 0),
                "Unsupported qscheme: ", c10::toString(weight.qscheme()));
    TORCH_CHECK(weight.scalar_type() == c10::kQInt8, "Quantized Linear only supports QInt8 dtype");
    TORCH_CHECK(weight.dim() == 2, "Quantized Linear weight must be 2D tensor");
    const int output_channels = weight.size(0);
    if (bias.has_value()) {
      TORCH_CHECK(bias.value().dim() == 1, "bias should be a vector (1D Tensor)");
      TORCH_CHECK(bias.value().size(0) == output_channels,
                  "bias should have K elements: " + std::to_string(output_channels));
    }
    const auto qscheme = weight.qscheme();
    return c10::make_intrusive<PackedLinearSim>(weight, bias, qscheme);
  }

  // Linear.cpp:70-114: per-tensor qint8 activations of 2 or 3 dimensions; a qint8 output on
  // the current device; ReLU applied after, by relu_ (line 61-63).
  template <bool kRelu>
  Tensor apply_impl(const Tensor& act, double output_scale, int64_t output_zero_point) {
    TORCH_CHECK(act.qscheme() == c10::kPerTensorSymmetric || act.qscheme() == c10::kPerTensorAffine,
                "Expect input data is symmetric quantized");
    TORCH_CHECK(act.scalar_type() == c10::kQInt8, "Expected input data dtype ",
                c10::toString(c10::kQInt8), " but got ", c10::toString(act.scalar_type()));
    TORCH_CHECK(act.dim() == 2 || act.dim() == 3, "Dimension of input tensor should be 2 or 3");
    std::vector<int64_t> original_shape = act.sizes().vec();
    original_shape.back() = orig_weight.size(0);
    std::vector<int64_t> shape = original_shape;
    if (shape.size() == 3) {
      shape[1] *= shape[0];
      shape.erase(shape.begin());
    }
    Tensor out = at::_empty_affine_quantized(shape, at::device(kMusa).dtype(at::ScalarType::QInt8),
                                             output_scale, output_zero_point);
    std::vector<int64_t> act_sizes = act.sizes().vec();
    if (act_sizes.size() == 3) {
      act_sizes[1] *= act_sizes[0];
      act_sizes.erase(act_sizes.begin());
    }
    Tensor input = act.view(act_sizes);
    if (out.numel() != 0) {
      Tensor y = dequantized_double(input).matmul(dequantized_double(orig_weight).t());
      if (bias_.has_value() && bias_->defined()) y = y + on_cpu(*bias_).to(at::kDouble);
      requantize_into(out, y);
      if (kRelu) out.relu_();
    }
    return out.view(original_shape);
  }

  Tensor apply(Tensor input, double output_scale, int64_t output_zero_point) override {
    return apply_impl<false>(input, output_scale, output_zero_point);
  }
  Tensor apply_relu(Tensor input, double output_scale, int64_t output_zero_point) override {
    return apply_impl<true>(input, output_scale, output_zero_point);
  }
  // Linear.h:35-46 (both messages name apply_relu_out)
  Tensor apply_dynamic(Tensor input, bool reduce_range) override {
    throw std::runtime_error("apply_relu_out is not implemented for this packed parameter type");
  }
  Tensor apply_dynamic_relu(Tensor input, bool reduce_range) override {
    throw std::runtime_error("apply_relu_out is not implemented for this packed parameter type");
  }
  // LinearUnpackImpl.cpp:9-12
  std::tuple<Tensor, std::optional<Tensor>> unpack() override {
    return {orig_weight, bias_};
  }
  std::optional<Tensor> bias() override {
    return bias_;
  }

  Tensor orig_weight;
  std::optional<Tensor> bias_;
  c10::QScheme q_scheme;
};

c10::intrusive_ptr<LinearPackedParamsBase> linear_prepack_musa(Tensor weight,
                                                               std::optional<Tensor> bias) {
  const c10::DeviceGuard guard(weight.device());  // LinearPrepack.cpp:48
  return PackedLinearSim::prepack(std::move(weight), std::move(bias));
}

// Linear.cpp:134-149
template <bool kRelu>
Tensor linear_musa(Tensor act, const c10::intrusive_ptr<LinearPackedParamsBase>& packed,
                   double output_scale, int64_t output_zero_point) {
  const c10::DeviceGuard guard(act.device());
  return kRelu ? packed->apply_relu(act, output_scale, output_zero_point)
               : packed->apply(act, output_scale, output_zero_point);
}

enum class ConvAct { kIdentity, kRelu };

struct PackedConvSim final : ConvPackedParamsBase<2> {
  PackedConvSim(Tensor weight_nhwc, std::optional<Tensor> bias, torch::List<int64_t> stride,
                torch::List<int64_t> padding, torch::List<int64_t> output_padding,
                torch::List<int64_t> dilation, int64_t groups)
      : weight_(std::move(weight_nhwc)), bias_(std::move(bias)), stride_(std::move(stride)),
        padding_(std::move(padding)), output_padding_(std::move(output_padding)),
        dilation_(std::move(dilation)), groups_(groups) {}

  // ConvPrepack.cpp:10-92
  static c10::intrusive_ptr<ConvPackedParamsBase<2>> prepack(
      Tensor weight, std::optional<Tensor> bias, torch::List<int64_t> stride,
      torch::List<int64_t> padding, torch::List<int64_t> output_padding,
      torch::List<int64_t> dilation, int64_t groups, bool transpose) {
    TORCH_CHECK(weight.qscheme() == c10::kPerTensorAffine ||
                    weight.qscheme() == c10::kPerTensorSymmetric,
                "Unsupported qscheme: ", c10::toString(weight.qscheme()));
    TORCH_CHECK(weight.ndimension() == 4, "Weights are expected to have ", 4, " dimensions");
    TORCH_CHECK(stride.size() == 2, "stride should contain ", 2, " elements for ", 2,
                "D convolution.");
    TORCH_CHECK(padding.size() == 2,
                "quantized::conv_prepack (mudnn): Specify front/top/left padding only. "
                "end/bottom/right padding assumed to be equal to front/top/left");
    TORCH_CHECK(!transpose || output_padding.size() == 2,
                "quantized::conv_prepack: Specify top/left output padding "
                "only. bottom/right padding assumed to be equal to top/left");
    TORCH_CHECK(dilation.size() == 2, "quantized::conv_prepack (mudnn): dilation should contain ",
                2, " elements for ", 2, "D convolution.");
    TORCH_CHECK(!transpose, "mudnn quantized conv prepack expects transpose = false");
    TORCH_CHECK(weight.scalar_type() == c10::kQInt8, "requires weights in format QInt8, but got ",
                weight.scalar_type());
    TORCH_CHECK(weight.q_zero_point() == 0,
                "requires weights are quantized in per-tensor and symmetric quantization, ",
                "zero_point should be 0, which is ", weight.q_zero_point());
    const int output_channels = weight.size(0);
    if (bias.has_value()) {
      TORCH_CHECK(bias.value().dim() == 1, "bias should be a vector (1D Tensor)");
      TORCH_CHECK(bias.value().size(0) == output_channels,
                  "bias should have K elements: " + std::to_string(output_channels));
    }
    weight = weight.permute({0, 2, 3, 1}).contiguous();
    return c10::make_intrusive<PackedConvSim>(weight, bias, stride, padding, output_padding,
                                              dilation, groups);
  }

  // Conv.cpp:158-204 and 38-133: output (N, C_out, H_out, W_out) by the floor formula, NHWC
  // qint8 on the current device; per-tensor activations only; the accumulator (conv2d_add*)
  // must be quantized.  Whether muDNN applies the fused ReLU after the add: unknown (after
  // it here, as QuantizedCPU's conv2d_add_relu does).
  Tensor apply_impl(ConvAct act_mode, const Tensor& act, const std::optional<Tensor>& accum,
                    double output_scale, int64_t output_zero_point) {
    const int64_t n = act.size(0), h = act.size(2), w = act.size(3);
    const int64_t c_out = weight_.size(0), kh = weight_.size(1), kw = weight_.size(2);
    const int64_t oh = (h + 2 * padding_[0] - dilation_[0] * (kh - 1) - 1) / stride_[0] + 1;
    const int64_t ow = (w + 2 * padding_[1] - dilation_[1] * (kw - 1) - 1) / stride_[1] + 1;
    Tensor out = nhwc_output({n, c_out, oh, ow}, act, at::ScalarType::QInt8, output_scale,
                             output_zero_point);
    const Tensor input = act.to(c10::MemoryFormat::ChannelsLast);
    TORCH_CHECK(input.qscheme() == c10::kPerTensorAffine ||
                    input.qscheme() == c10::kPerTensorSymmetric,
                "Conv2d only supports per-tensor quantized activation");
    Tensor add;
    if (accum.has_value()) {
      TORCH_CHECK(accum.value().is_quantized(), "accum tensor in qconv must be a quantized Tensor");
      add = dequantized_double(accum.value());
    }
    std::vector<int64_t> st(stride_.begin(), stride_.end()), pd(padding_.begin(), padding_.end()),
        dl(dilation_.begin(), dilation_.end());
    std::optional<Tensor> b;
    if (bias_.has_value() && bias_->numel() != 0) b = on_cpu(*bias_).to(at::kDouble);
    Tensor y = at::conv2d(dequantized_double(input), dequantized_double(weight_).permute({0, 3, 1, 2}),
                          b, st, pd, dl, groups_);
    if (add.defined()) y = y + add;
    if (act_mode == ConvAct::kRelu) y = y.relu();
    requantize_into(out, y);
    return out;
  }

  Tensor apply(const Tensor& input, double output_scale, int64_t output_zero_point) override {
    return apply_impl(ConvAct::kIdentity, input, std::nullopt, output_scale, output_zero_point);
  }
  Tensor apply_relu(const Tensor& input, double output_scale, int64_t output_zero_point) override {
    return apply_impl(ConvAct::kRelu, input, std::nullopt, output_scale, output_zero_point);
  }
  Tensor apply_dynamic(const Tensor& input, bool reduce_range) override {
    TORCH_CHECK(false, "apply_dynamic is currently not reported");  // Conv.h:118-121
    return Tensor();
  }
  // ConvUnpackImpl.cpp:9-17: the weight permuted back to (C_out, C_in, kH, kW)
  std::tuple<Tensor, std::optional<Tensor>> unpack() override {
    return {weight_.permute({0, 3, 1, 2}), bias_};
  }
  torch::List<int64_t> stride() const override { return stride_; }
  torch::List<int64_t> padding() const override { return padding_; }
  torch::List<int64_t> output_padding() const override { return output_padding_; }
  torch::List<int64_t> dilation() const override { return dilation_; }
  int64_t groups() const override { return groups_; }
  bool transpose() const override { return false; }

  Tensor weight_;
  std::optional<Tensor> bias_;
  torch::List<int64_t> stride_, padding_, output_padding_, dilation_;
  int64_t groups_;
};

// ConvPrepack.cpp:109-135
c10::intrusive_ptr<ConvPackedParamsBase<2>> conv2d_prepack_musa(
    Tensor weight, std::optional<Tensor> bias, torch::List<int64_t> stride,
    torch::List<int64_t> padding, torch::List<int64_t> dilation, int64_t groups) {
  const c10::DeviceGuard guard(weight.device());
  return PackedConvSim::prepack(weight, bias, stride, padding, torch::List<int64_t>({0, 0}),
                                dilation, groups, false);
}

// [base, last given element]: ATen's quant_utils::MakeArgForConv1d (QuantUtils.h), which
// ConvPrepack.cpp:201-204 uses.
torch::List<int64_t> conv1d_arg(const torch::List<int64_t>& arg, int64_t base) {
  TORCH_CHECK(!arg.empty(), "Argument must have elements.");
  return torch::List<int64_t>({base, arg.get(arg.size() == 1 ? 0 : 1)});
}

// ConvPrepack.cpp:159-216: a 3-d weight gets a unit height; 1-d arguments become 2-d.
c10::intrusive_ptr<ConvPackedParamsBase<2>> conv1d_prepack_musa(
    Tensor weight, std::optional<Tensor> bias, torch::List<int64_t> stride,
    torch::List<int64_t> padding, torch::List<int64_t> dilation, int64_t groups) {
  const c10::DeviceGuard guard(weight.device());
  if (weight.dim() == 3) weight = weight.unsqueeze(-2);
  return PackedConvSim::prepack(weight, bias, conv1d_arg(stride, 1), conv1d_arg(padding, 0),
                                conv1d_arg(torch::List<int64_t>({0}), 0), conv1d_arg(dilation, 1),
                                groups, false);
}

// Conv.cpp:252-288 and ConvAdd.cpp:63-99.  The add variants dynamic_cast the packed weight to
// torch_musa's class: one packed by another backend is a null pointer there (a crash on a
// card); the simulator raises instead.
PackedConvSim* musa_packed(const c10::intrusive_ptr<ConvPackedParamsBase<2>>& packed) {
  auto* p = dynamic_cast<PackedConvSim*>(packed.get());
  TORCH_CHECK(p != nullptr, "musa simulator: a quantized conv2d_add on musa needs weights packed "
              "by quantized::conv2d_prepack on musa (ConvAdd.cpp:74-82 dynamic_casts them: a "
              "null pointer on a card)");
  return p;
}

template <ConvAct kAct>
Tensor conv2d_musa(Tensor act, const c10::intrusive_ptr<ConvPackedParamsBase<2>>& packed,
                   double output_scale, int64_t output_zero_point) {
  const c10::DeviceGuard guard(act.device());
  return kAct == ConvAct::kRelu ? packed->apply_relu(act, output_scale, output_zero_point)
                                : packed->apply(act, output_scale, output_zero_point);
}

template <ConvAct kAct>
Tensor conv2d_add_musa(Tensor act, Tensor accum,
                       const c10::intrusive_ptr<ConvPackedParamsBase<2>>& packed,
                       double output_scale, int64_t output_zero_point) {
  const c10::DeviceGuard guard(act.device());
  return musa_packed(packed)->apply_impl(kAct, act, accum, output_scale, output_zero_point);
}

// ---------------------------------------------------------------- the table's other rows
// Rows of the table with no kernel above (2.7.1: relu_, int_repr, flip, whose kernels are
// PyTorch's CUDA ones ported by torch_musa's build) run the QuantizedCPU kernel on CPU
// tensors over the same bytes; one registration per row, as torch_musa registers one kernel
// per row; rows this torch does not define are skipped.  Registered once per process.
void quantized_row(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  run_on_cpu(op, op, stack);
}

std::once_flag g_quantized_rows_once;
std::vector<std::unique_ptr<torch::Library>> g_quantized_libraries;

void register_quantized_rows(std::vector<std::string> rows) {
  std::call_once(g_quantized_rows_once, [&] {
    std::unordered_map<std::string, std::unique_ptr<torch::Library>> libraries;
    for (const auto& row : rows) {
      const auto colons = row.find("::");
      if (colons == std::string::npos) continue;
      const std::string ns = row.substr(0, colons), bare = row.substr(colons + 2);
      const auto dot = bare.find('.');
      c10::OperatorName name(ns + "::" + bare.substr(0, dot),
                             dot == std::string::npos ? "" : bare.substr(dot + 1));
      auto op = c10::Dispatcher::singleton().findOp(name);
      if (!op || op->hasKernelForDispatchKey(c10::DispatchKey::QuantizedPrivateUse1)) continue;
      auto& library = libraries[ns];
      if (!library)
        library = std::make_unique<torch::Library>(torch::Library::IMPL, ns,
                                                   c10::DispatchKey::QuantizedPrivateUse1,
                                                   __FILE__, __LINE__);
      library->impl(bare.c_str(), torch::CppFunction::makeFromBoxedFunction<&quantized_row>());
    }
    for (auto& entry : libraries) g_quantized_libraries.push_back(std::move(entry.second));
  });
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(musa_sim, m) {
  m.def("register_quantized_rows(str[] rows) -> ()", register_quantized_rows);
}

// PrivateUse1 rows that make quantized tensors (yaml lines cited): ATen's kernels, as the
// yaml names them, over the device stubs registered below.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("quantize_per_tensor", &guarded<at::native::quantize_per_tensor>::call);  // yaml:3509
  m.impl("quantize_per_tensor.tensor_qparams",
         &guarded<at::native::quantize_per_tensor_tensor_qparams>::call);                          // yaml:3527
  m.impl("quantize_per_tensor_dynamic", &guarded<at::native::quantize_per_tensor_dynamic>::call);  // yaml:3515
  m.impl("quantize_per_channel", &guarded<at::native::quantize_per_channel>::call);         // yaml:3521
  m.impl("_make_per_tensor_quantized_tensor", &guarded<make_per_tensor_quantized_musa>::call);     // yaml:3611
  m.impl("_make_per_channel_quantized_tensor", &guarded<make_per_channel_quantized_musa>::call);   // yaml:3617
  m.impl("_empty_affine_quantized", empty_affine_quantized_musa);                  // yaml:3594
}

// torch_musa 2.7.1's QuantizedPrivateUse1 rows with a kernel of their own here (the yaml's
// musa_functions.yaml lines, or the C++ file of the registration).  relu_, int_repr and flip
// get the QuantizedCPU runner (register_quantized_rows).
TORCH_LIBRARY_IMPL(aten, QuantizedPrivateUse1, m) {
  // factories: TensorFactories.cpp, or ATen's device-generic kernels the yaml names
  m.impl("_empty_affine_quantized", empty_affine_quantized_musa);                   // 3594
  m.impl("_empty_per_channel_affine_quantized", empty_per_channel_affine_quantized_musa);  // 3598
  m.impl("empty.memory_format", at::native::empty_unknown_quantized);               // 3146
  m.impl("empty_strided", empty_strided_quantized_musa);         // 3151
  m.impl("empty_quantized", empty_quantized_musa);                                  // 3590
  m.impl("empty_like", at::native::empty_like_quantized);                           // 3602
  // views and fields: ATen's kernels (TensorShape.cpp:84-162's squeeze / unsqueeze do what
  // ATen's squeeze_quantized / unsqueeze_quantized do)
  m.impl("as_strided", at::native::as_strided_qtensorimpl);                         // 3606
  m.impl("view", at::native::view);                                                 // 3639
  m.impl("_reshape_alias", at::native::_reshape_alias);                             // 3655
  m.impl("unfold", at::native::unfold);                                             // 3659
  m.impl("squeeze", static_cast<Tensor (*)(const Tensor&)>(at::native::squeeze_quantized));  // 3623
  m.impl("squeeze.dim",
         static_cast<Tensor (*)(const Tensor&, int64_t)>(at::native::squeeze_quantized));  // 3627
  m.impl("squeeze.dims", static_cast<Tensor (*)(const Tensor&, c10::IntArrayRef)>(
                             at::native::squeeze_quantized));                       // 3631
  m.impl("unsqueeze", at::native::unsqueeze_quantized);                             // 3635
  m.impl("set_.source_Storage_storage_offset", at::native::set_storage_quantized_); // 3214
  m.impl("q_scale", at::native::q_scale_quant);                                     // 3548
  m.impl("q_zero_point", at::native::q_zero_point_quant);                           // 3554
  m.impl("qscheme", at::native::qscheme_quant);                                     // 3578
  m.impl("q_per_channel_scales", at::native::q_per_channel_scales);                 // 3560
  m.impl("q_per_channel_zero_points", at::native::q_per_channel_zero_points);       // 3566
  m.impl("q_per_channel_axis", at::native::q_per_channel_axis);                     // 3572
  m.impl("clone", &guarded<at::native::quantized_clone>::call);                                    // 3542
  m.impl("dequantize.self", &guarded<at::native::dequantize_quantized>::call);                    // 3584
  m.impl("_copy_from", copy_from_quantized);                                        // Copy.cpp:480
  // computing kernels
  m.impl("add.Tensor", add_tensor_quantized);                              // mudnn/BinaryOps.cpp:30
  m.impl("relu", activation_musa<Act::kRelu>);                             // Activation.mu:217
  m.impl("gelu", gelu_musa);                                               // Activation.mu:218
  m.impl("sigmoid", activation_musa<Act::kSigmoid>);                       // Activation.mu:219
  m.impl("cat", cat_musa);                                                 // 419
  m.impl("cat.out", cat_out_musa);                                         // 423
  m.impl("max.dim", reduce_dim_musa<true>);                                // 2868
  m.impl("min.dim", reduce_dim_musa<false>);                               // 2894
  m.impl("fill_.Scalar", fill_scalar_musa);                                // 1584
  m.impl("fill_.Tensor", fill_tensor_musa);                                // 1589
  m.impl("upsample_nearest2d", upsample_nearest2d_musa);                   // 3384
  m.impl("quantized_max_pool2d", quantized_max_pool2d_musa);               // 3538
  m.impl("_adaptive_avg_pool2d", adaptive_avg_pool2d_musa);                // 2635
  m.impl("index_select", index_select_musa);                               // 3248
  m.impl("index_select.out", index_select_out_musa);                       // 3253
  m.impl("masked_fill_.Scalar", &guarded<masked_fill_scalar>::call);      // 1598
  m.impl("masked_fill_.Tensor", &guarded<masked_fill_tensor>::call);      // 1604
}

// quantized:: rows (their C++ registrations).  conv2d_silu.new (Conv.cpp:285) and
// conv2d_add_silu (ConvAdd.cpp:96) are schemas of torch_musa's patched torch
// (torch_patches/aten_src_ATen_native_quantized_library.cpp.patch), absent from stock torch.
TORCH_LIBRARY_IMPL(quantized, QuantizedPrivateUse1, m) {
  m.impl("add", quantized_add_musa<false>);                     // BinaryOps.mu:205
  m.impl("add_relu", quantized_add_musa<true>);                 // BinaryOps.mu:206
  m.impl("cat", quantized_cat_musa);                            // TensorShape.cpp:424
  m.impl("cat_out", quantized_cat_out_musa);                    // TensorShape.cpp:425
  m.impl("linear_prepack", linear_prepack_musa);                // LinearPrepack.cpp:54
  m.impl("linear", linear_musa<false>);                         // Linear.cpp:152
  m.impl("linear_relu", linear_musa<true>);                     // Linear.cpp:155
  m.impl("conv1d_prepack", conv1d_prepack_musa);                // ConvPrepack.cpp:219
  m.impl("conv2d_prepack", conv2d_prepack_musa);                // ConvPrepack.cpp:222
  m.impl("conv2d.new", conv2d_musa<ConvAct::kIdentity>);        // Conv.cpp:279
  m.impl("conv2d_relu.new", conv2d_musa<ConvAct::kRelu>);       // Conv.cpp:282
  m.impl("conv2d_add", conv2d_add_musa<ConvAct::kIdentity>);    // ConvAdd.cpp:90
  m.impl("conv2d_add_relu", conv2d_add_musa<ConvAct::kRelu>);   // ConvAdd.cpp:93
}

}  // namespace musa_sim

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_tensor_affine_stub,
                              &musa_sim::quantize_per_tensor_musa)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_tensor_affine_stub,
                              &musa_sim::dequantize_per_tensor_musa)
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_channel_affine_stub,
                              &musa_sim::quantize_per_channel_musa)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_channel_affine_stub,
                              &musa_sim::dequantize_per_channel_musa)
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_channel_float_qparams_stub,
                              &musa_sim::quantize_per_channel_float_musa)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_channel_float_qparams_stub,
                              &musa_sim::dequantize_per_channel_float_musa)
REGISTER_PRIVATEUSE1_DISPATCH(masked_fill_kernel_quantized_stub,
                              &musa_sim::masked_fill_quantized_musa)
}  // namespace at::native
