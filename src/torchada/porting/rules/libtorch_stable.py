"""libtorch stable ABI (torch/csrc/stable, torch/csrc/inductor/aoti_torch): stream and
BLAS-handle helpers, and the CUDA dispatch key of STABLE_TORCH_LIBRARY_IMPL.

Evidence: aoti_torch_get_current_musa_stream is defined in
torch_musa/csrc/inductor/aoti_torch/shim_musa.cpp and named by
torch_musa/_inductor/codegen/device_op_overrides.py. The torch_* helpers below are newer
than torch_musa 2.7.1: their MUSA names are NOT EVIDENCED there (they follow the same
cuda->musa spelling as the aoti shim). ``STABLE_TORCH_LIBRARY_IMPL(<ns>, CUDA, ...)`` ->
PrivateUse1 (see DISPATCH_MACROS in aten.py; PrivateUse1 is torch_musa's dispatch key,
torch_musa/csrc/aten/utils/Utils.h).
"""
DOMAIN = "libtorch_stable"

IDENTIFIERS = {
    "aoti_torch_get_current_cuda_stream": "aoti_torch_get_current_musa_stream",
    "torch_set_current_cuda_stream": "torch_set_current_musa_stream",
    "torch_get_cuda_stream_from_pool": "torch_get_musa_stream_from_pool",
    "torch_cuda_stream_synchronize": "torch_musa_stream_synchronize",
    "torch_get_current_cuda_blas_handle": "torch_get_current_musa_blas_handle",
    "torch_get_current_cuda_blaslt_handle": "torch_get_current_musa_blaslt_handle",
    "aoti_torch_device_type_cuda": "aoti_torch_device_type_privateuse1",
}
INCLUDES = {
    "torch/csrc/inductor/aoti_torch/c/shim_cuda.h": "torch_musa/csrc/inductor/aoti_torch/c/shim_musa.h",
}
# The dispatch-key macros handled here (any namespace, any whitespace, multi-line).
DISPATCH_MACROS = ("STABLE_TORCH_LIBRARY_IMPL",)

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'torch_set_current_cuda_stream',
    'torch_get_cuda_stream_from_pool',
    'torch_cuda_stream_synchronize',
    'torch_get_current_cuda_blas_handle',
    'torch_get_current_cuda_blaslt_handle',
    'aoti_torch_device_type_cuda',
    'torch/csrc/inductor/aoti_torch/c/shim_cuda.h',
))
