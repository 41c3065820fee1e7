"""thrust / CUB. Evidence: torch_musa keeps thrust's namespace and headers (muThrust) and
spells the CUDA execution policy ``thrust::musa::par`` (csrc/aten/ops/musa/Unique.mu);
ATen's cub wrappers live at ATen/musa/cub.muh / at::musa::cub (UniqueCub.mu)."""
DOMAIN = "thrust"

IDENTIFIERS = {}
# Qualified names (matched as written, whole identifiers at both ends).
LITERALS = {
    "thrust::cuda": "thrust::musa",
    "thrust::cuda_cub": "thrust::musa_cub",  # NOT EVIDENCED in torch_musa
}
INCLUDES = {
    "thrust/system/cuda/execution_policy.h": "thrust/system/musa/execution_policy.h",
    "thrust/system/cuda/vector.h": "thrust/system/musa/vector.h",  # NOT EVIDENCED
    "ATen/cuda/cub.cuh": "ATen/musa/cub.muh",
    "ATen/cuda/cub.h": "ATen/musa/cub.h",
}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'thrust/system/cuda/vector.h',
    'thrust::cuda_cub',
))
