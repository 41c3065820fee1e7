// The CUDA twin's name map: the MUSA names torchada's native sources use, spelled as the
// CUDA / ATen names torch_musa mirrors.  Names only: no kernel, no function body.  Force-
// included (-include) in front of kernels_musa.mu (built as a .cu), op_overrides.cpp and
// graph_exec_musa.cpp by benchmarks/musa_twin.py, so those files compile unchanged against
// torch's CUDA build (docs/native_twin.md).  Every torch header comes first, so the macros
// below touch torchada's sources only.
#pragma once

#define TORCHADA_CUDA_TWIN 1

#include <torch/extension.h>

#include <cuda_runtime_api.h>

#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>
#ifdef __CUDACC__
#include <ATen/cuda/CUDAGraphsUtils.cuh>  // philox::unpack, currentStreamCaptureStatus
#endif

// torch_musa's namespaces are CUDA's with musa for cuda: at::musa::detail,
// at::musa::philox, at::musa::MUSAGraph, c10::musa::getCurrentMUSAStream.
namespace at {
namespace musa = ::at::cuda;
}
namespace c10 {
namespace musa = ::c10::cuda;
}

// Runtime API (musa_runtime.h mirrors cuda_runtime_api.h).
#define musaError_t cudaError_t
#define musaSuccess cudaSuccess
#define musaGetLastError cudaGetLastError
#define musaGetErrorString cudaGetErrorString
#define musaGraph_t cudaGraph_t
#define musaGraphExec_t cudaGraphExec_t
#define musaGraphExecDestroy cudaGraphExecDestroy
#define musaStreamCaptureModeRelaxed cudaStreamCaptureModeRelaxed
// torch_musa calls the five-argument form (MUSAGraph.cpp:187, 225 at v2.7.1); CUDA 12
// dropped the error-node and log-buffer arguments, which these callers pass empty.
#define musaGraphInstantiate(exec, graph, error_node, log, log_size) cudaGraphInstantiate(exec, graph, 0)

// ATen / c10 classes and functions torch_musa ports (MUSAGeneratorImpl.h, MUSAGraph.h,
// MUSAGraphsC10Utils.h, MUSAStream.h, PhiloxMusaStateRaw.muh; the same renames as
// torch_musa's own porting map, tools/cuda_porting/cuda_porting.py:117 for example).
#define MUSAGraph CUDAGraph
#define MUSAStreamCaptureModeGuard CUDAStreamCaptureModeGuard
#define MUSAGeneratorImpl CUDAGeneratorImpl
#define PhiloxMusaState PhiloxCudaState
#define philox_musa_state philox_cuda_state
#define getDefaultMUSAGenerator getDefaultCUDAGenerator
#define getCurrentMUSAStream getCurrentCUDAStream

// The dispatch keys op_overrides.cpp registers at (PrivateUse1's on MUSA).
#define TORCHADA_OPS_DEVICE_KEY CUDA
#define TORCHADA_OPS_AUTOGRAD_KEY AutogradCUDA
