// torchada/stable_compat.h: free-function spellings of torch::stable::Tensor accessors that
// older torch releases lack as members. Written for torchada; works on any torch that
// ships <torch/csrc/stable/tensor.h> because it only uses data_ptr() and numel().
#pragma once
#include <cstdint>
#include <torch/csrc/stable/tensor.h>

namespace torchada {
namespace stable {

template <typename T>
inline T* mutable_data_ptr(const torch::stable::Tensor& t) {
  return reinterpret_cast<T*>(t.data_ptr());
}

template <typename T>
inline const T* const_data_ptr(const torch::stable::Tensor& t) {
  return reinterpret_cast<const T*>(t.data_ptr());
}

inline int64_t numel(const torch::stable::Tensor& t) {
  return t.numel();
}

}  // namespace stable
}  // namespace torchada
