// torchada_stable_box.h: force-include (-include) for stable-ABI (torch::stable) kernels
// built on MUSA with torch < 2.11. It announces that torchada's backported accessors are
// available and pulls in the helpers header. It changes nothing on torch >= 2.11.
#pragma once
#ifndef TORCHADA_STABLE_ACCESSORS
#define TORCHADA_STABLE_ACCESSORS 1
#endif
#if defined(__cplusplus) && defined(__has_include)
#if __has_include(<torch/csrc/stable/tensor.h>)
#include <torchada/stable_compat.h>
#endif
#endif
