"""FlashInfer-style kernels: the ATen generator and RNG helpers they call.

Evidence: PhiloxCudaState->PhiloxMusaState (torch_musa/utils/mapping/extra.json);
philox_cuda_state->philox_musa_state (torch_musa/csrc/aten/musa/MUSAGeneratorImpl.h).
FlashInfer's own ``math::ptx_*`` helpers wrap inline PTX: their asm is reported by the
scan at the definition, never rewritten.
"""
DOMAIN = "flashinfer"

IDENTIFIERS = {
    "philox_cuda_state": "philox_musa_state",
    "PhiloxCudaState": "PhiloxMusaState",
    "CUDAGeneratorImpl": "MUSAGeneratorImpl",
    "getDefaultCUDAGenerator": "getDefaultMUSAGenerator",
}
INCLUDES = {
    "ATen/cuda/CUDAGeneratorImpl.h": "torch_musa/csrc/aten/musa/MUSAGeneratorImpl.h",
    "ATen/cuda/PhiloxUtils.cuh": "torch_musa/csrc/aten/musa/PhiloxUtils.muh",  # NOT EVIDENCED
    "ATen/cuda/detail/UnpackRaw.cuh": "torch_musa/csrc/aten/musa/detail/UnpackRaw.muh",  # NOT EVIDENCED
}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'ATen/cuda/PhiloxUtils.cuh',
))
