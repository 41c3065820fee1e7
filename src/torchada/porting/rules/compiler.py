"""Compiler-facing names: kernel-loop helper macros, thread-count constants, headers of
the legacy THC layer. Evidence: torch_musa keeps ATen's helper names with MUSA spelling
(csrc/aten/musa/*, e.g. MUSA_KERNEL_LOOP in torch_musa/csrc/aten/ops/musa/*.mu is NOT
EVIDENCED; listed in NOT_EVIDENCED where absent)."""
DOMAIN = "compiler"

IDENTIFIERS = {
    "CUDA_KERNEL_LOOP": "MUSA_KERNEL_LOOP",
    "CUDA_KERNEL_LOOP_TYPE": "MUSA_KERNEL_LOOP_TYPE",
    "CUDA_1D_KERNEL_LOOP": "MUSA_1D_KERNEL_LOOP",
    "CUDA_2D_KERNEL_LOOP": "MUSA_2D_KERNEL_LOOP",
    "CUDA_NUM_THREADS": "MUSA_NUM_THREADS",
    "CUDA_CALLABLE": "MUSA_CALLABLE",
    "CUDA_HOST_DEVICE": "MUSA_HOST_DEVICE",
    "CUDA_LAUNCH_BLOCKING": "MUSA_LAUNCH_BLOCKING",
    "CUDA_VISIBLE_DEVICES": "MUSA_VISIBLE_DEVICES",
    "PYTORCH_CUDA_ALLOC_CONF": "PYTORCH_MUSA_ALLOC_CONF",
    "TORCH_CUDA_ARCH_LIST": "TORCH_MUSA_ARCH_LIST",
}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'CUDA_KERNEL_LOOP',
    'CUDA_KERNEL_LOOP_TYPE',
    'CUDA_1D_KERNEL_LOOP',
    'CUDA_2D_KERNEL_LOOP',
    'CUDA_NUM_THREADS',
    'CUDA_CALLABLE',
    'CUDA_HOST_DEVICE',
))
