"""c10 CUDA API -> torch_musa's c10 MUSA API.

Evidence: c10::cuda -> c10::musa (torch_musa/csrc/core/MUSACachingAllocator.h, Module.cpp);
stream/guard/allocator names from torch_musa/utils/mapping/extra.json and
tools/cuda_porting/cuda_porting.py; C10_CUDA_* macros defined in
torch_musa/csrc/core/MUSAException.h; headers from cuda_porting.py.
"""
DOMAIN = "c10"

IDENTIFIERS = {
    "CUDAStream": "MUSAStream",
    "getCurrentCUDAStream": "getCurrentMUSAStream",
    "getDefaultCUDAStream": "getDefaultMUSAStream",
    "setCurrentCUDAStream": "setCurrentMUSAStream",
    "CUDAGuard": "MUSAGuard",
    "OptionalCUDAGuard": "OptionalMUSAGuard",
    "CUDAStreamGuard": "MUSAStreamGuard",
    "OptionalCUDAStreamGuard": "OptionalMUSAStreamGuard",
    "CUDAMultiStreamGuard": "MUSAMultiStreamGuard",
    "CUDAGuardImpl": "MUSAGuardImpl",
    "CUDACachingAllocator": "MUSACachingAllocator",
    "getCUDADeviceAllocator": "getMUSADeviceAllocator",
    "CUDAEvent": "MUSAEvent",
    "C10_CUDA_CHECK": "C10_MUSA_CHECK",
    "C10_CUDA_CHECK_WARN": "C10_MUSA_CHECK_WARN",
    "C10_CUDA_KERNEL_LAUNCH_CHECK": "C10_MUSA_KERNEL_LAUNCH_CHECK",
    "C10_CUDA_ERROR_HANDLED": "C10_MUSA_ERROR_HANDLED",
    "C10_CUDA_IGNORE_ERROR": "C10_MUSA_IGNORE_ERROR",
    "C10_CUDA_CLEAR_ERROR": "C10_MUSA_CLEAR_ERROR",
    "C10_CUDA_API": "C10_MUSA_API",
    "C10_CUDA_EXPORT": "C10_MUSA_EXPORT",
    "C10_CUDA_IMPORT": "C10_MUSA_IMPORT",
    "TORCH_CUDA_CPP_API": "TORCH_MUSA_CPP_API",
    "TORCH_CUDA_CU_API": "TORCH_MUSA_CU_API",
}
LITERALS = {
    "c10::cuda": "c10::musa",
    "torch::cuda": "torch::musa",
}
INCLUDES = {
    "c10/cuda/CUDAStream.h": "torch_musa/csrc/core/MUSAStream.h",
    "c10/cuda/CUDAGuard.h": "torch_musa/csrc/core/MUSAGuard.h",
    "c10/cuda/CUDAException.h": "torch_musa/csrc/core/MUSAException.h",
    "c10/cuda/CUDACachingAllocator.h": "torch_musa/csrc/core/MUSACachingAllocator.h",
    "c10/cuda/CUDAFunctions.h": "torch_musa/csrc/core/MUSAFunctions.h",
    "c10/cuda/CUDAMacros.h": "torch_musa/csrc/core/MUSAMacros.h",
    "c10/cuda/impl/CUDAGuardImpl.h": "torch_musa/csrc/core/GuardImpl.h",
}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'C10_CUDA_CLEAR_ERROR',
    'C10_CUDA_EXPORT',
    'C10_CUDA_IMPORT',
    'TORCH_CUDA_CPP_API',
    'TORCH_CUDA_CU_API',
))
