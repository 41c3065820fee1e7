"""ATen CUDA API -> torch_musa's ATen MUSA API.

Evidence: at::cuda -> at::musa (torch_musa/csrc/aten/musa/MUSAContext.h and the
``namespace at::musa`` blocks in csrc); header pairs from tools/cuda_porting/cuda_porting.py
and extra.json; DeviceType / DispatchKey CUDA -> PrivateUse1 and ``.is_cuda()`` ->
``.is_privateuseone()`` (torch_musa/csrc/aten/utils/Utils.h, cuda_porting.py);
TORCH_LIBRARY_IMPL(aten, CUDA, m) -> PrivateUse1 (torch_musa/csrc/aten/ops/README.md).
"""
DOMAIN = "aten"

IDENTIFIERS = {
    "AT_CUDA_CHECK": "AT_MUSA_CHECK",
    "REGISTER_CUDA_DISPATCH": "REGISTER_MUSA_DISPATCH",
    "RegisterCUDADispatch": "RegisterMUSADispatch",
    "CUDAApplyUtils": "MUSAApplyUtils",
    "CUDALoops": "MUSALoops",
    "CUDAGraphsUtils": "MUSAGraphsUtils",
    "AutocastCUDA": "AutocastPrivateUse1",
    "kCUDA": "kPrivateUse1",
    "is_cuda": "is_musa",  # Tensor.is_cuda() member call handled by LITERALS first
    "CUDA_KERNEL_ASSERT": "MUSA_KERNEL_ASSERT",
}
LITERALS = {
    "at::cuda": "at::musa",
    "DeviceType::CUDA": "DeviceType::PrivateUse1",
    "DispatchKey::CUDA": "DispatchKey::PrivateUse1",
    "Backend::CUDA": "Backend::PrivateUse1",
    ".is_cuda()": ".is_privateuseone()",
    "->is_cuda()": "->is_privateuseone()",
}
INCLUDES = {
    "ATen/cuda/CUDAContext.h": "torch_musa/csrc/aten/musa/MUSAContext.h",
    "ATen/cuda/CUDAContextLight.h": "torch_musa/csrc/aten/musa/MUSAContextLight.h",
    "ATen/cuda/CUDAEvent.h": "torch_musa/csrc/aten/musa/MUSAEvent.h",
    "ATen/cuda/CUDAGraph.h": "torch_musa/csrc/aten/musa/MUSAGraph.h",
    "ATen/cuda/CUDAGraphsUtils.cuh": "torch_musa/csrc/aten/musa/MUSAGraphsUtils.muh",
    "ATen/cuda/CUDAUtils.h": "torch_musa/csrc/aten/musa/MUSAUtils.h",
    "ATen/cuda/CUDAConfig.h": "torch_musa/csrc/aten/musa/MUSAConfig.h",
    "ATen/cuda/Exceptions.h": "torch_musa/csrc/aten/musa/Exceptions.h",
    "ATen/cuda/CUDADataType.h": "torch_musa/csrc/aten/musa/MUSADataType.h",
    "ATen/cuda/Atomic.cuh": "torch_musa/csrc/aten/musa/MUSAAtomic.muh",
    "ATen/cuda/DeviceUtils.cuh": "torch_musa/csrc/aten/musa/MUSADeviceUtils.muh",
    "ATen/native/cuda/Loops.cuh": "torch_musa/csrc/aten/ops/musa/Loops.muh",
    "ATen/cuda/CUDAApplyUtils.cuh": "torch_musa/csrc/aten/musa/MUSAApplyUtils.muh",
    "ATen/cuda/CUDATensorMethods.cuh": "torch_musa/csrc/aten/musa/MUSATensorMethods.muh",
    "THC/THCAtomics.cuh": "torch_musa/csrc/aten/musa/MUSAAtomic.muh",
    "torch/cuda.h": "torch/musa.h",
}
# Dispatch-key macros whose CUDA key argument becomes PrivateUse1, for any namespace and
# whitespace (the key is a bare macro argument, so an identifier rule cannot see it).
DISPATCH_MACROS = ("TORCH_LIBRARY_IMPL",)

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'CUDA_KERNEL_ASSERT',
    'ATen/cuda/DeviceUtils.cuh',
    'ATen/cuda/CUDATensorMethods.cuh',
    '->is_cuda()',
))
