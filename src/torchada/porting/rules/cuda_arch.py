"""CUDA architecture guards and libcu++ (``<cuda/...>``) -> MUSA.

``__CUDA_ARCH__`` comparisons are rewritten together with their threshold through
ARCH_TABLE: the two numbering schemes are unrelated (torch_musa's ``__MUSA_ARCH__`` is
major*100+minor*10 of the MUSA arch: 210, 220, 310, ...; MUSAContext.cpp), so keeping the
NVIDIA number would flip guards (``__MUSA_ARCH__ < 800`` is true on every MUSA device).
A bare ``__CUDA_ARCH__`` (``#ifdef``, ``defined(...)``) -> ``__MUSA_ARCH__`` (general.json).

ARCH_TABLE: a CUDA threshold T (``__CUDA_ARCH__`` value, e.g. 800 for sm_80) maps to the
smallest ``__MUSA_ARCH__`` that has the CUDA feature tier T guards. NVIDIA ships no arch
strictly between two tiers, so a tier reaches up to the last arch below the next tier:
    T <= 750        (up to Turing: fp16, atomics, Volta tensor-core era)   -> 210 (mp_21)
    750 < T <= 870  (Ampere sm_80/86/87: bf16, cp.async era)               -> 220 (mp_22)
    870 < T <= 990  (Ada sm_89 / Hopper sm_90: fp8)                        -> 310 (mp_31)
    T > 990         (Blackwell and newer)                                  -> 320 (mp_32)
``> T`` and ``<= T`` are read as ``>= T+1`` and ``< T+1`` so every comparison keeps its
meaning at the tier boundary (``__CUDA_ARCH__ > 750`` -> ``__MUSA_ARCH__ >= 220``).
Evidence for the MUSA side: bf16 native from 220 (MUSADtype.muh, device.py is_bf16_supported),
fp8 scaled_gemm only from 310 (ops/Matmul.cpp), 32 the newest arch musa_extension.py accepts.
The tier choice per CUDA threshold is torchada's judgement, not torch_musa's; the
sm_80 -> 220 and sm_90 -> 310 points are the ones documented by the issue.
"""
DOMAIN = "cuda_arch"

ARCH_TABLE = ((750, 210), (870, 220), (990, 310), (None, 320))  # (last CUDA value, musa)


def musa_arch_for(cuda_arch):
    """``__MUSA_ARCH__`` threshold for a ``__CUDA_ARCH__`` threshold (see ARCH_TABLE)."""
    for bound, musa in ARCH_TABLE:
        if bound is None or cuda_arch <= bound:
            return musa
    raise AssertionError("unreachable")


def offload_arch_for(sm):
    """``mp_XX`` for an ``sm_XX`` / ``compute_XX`` number (80 -> 22, 90 -> 31)."""
    return "mp_%d" % (musa_arch_for(int(sm) * 10) // 10)


IDENTIFIERS = {
    "__CUDA_ARCH__": "__MUSA_ARCH__",
    "__CUDACC__": "__MUSACC__",
    "__CUDACC_VER_MAJOR__": "__MUSACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__": "__MUSACC_VER_MINOR__",
    "__CUDACC_RTC__": "__MUSACC_RTC__",
    "__CUDACC_EXTENDED_LAMBDA__": "__MUSACC_EXTENDED_LAMBDA__",
    "__CUDA_NO_HALF_OPERATORS__": "__MUSA_NO_HALF_OPERATORS__",
    "__CUDA_NO_HALF_CONVERSIONS__": "__MUSA_NO_HALF_CONVERSIONS__",
    "__CUDA_NO_HALF2_OPERATORS__": "__MUSA_NO_HALF2_OPERATORS__",
    "__CUDA_NO_BFLOAT16_CONVERSIONS__": "__MUSA_NO_BFLOAT16_CONVERSIONS__",
    "__CUDA_NO_BFLOAT16_OPERATORS__": "__MUSA_NO_BFLOAT16_OPERATORS__",
    "__CUDA_NO_BFLOAT162_OPERATORS__": "__MUSA_NO_BFLOAT162_OPERATORS__",
}
LITERALS = {"cuda::std": "musa::std"}  # libcu++; NOT EVIDENCED in torch_musa
INCLUDE_PREFIXES = {"cuda/": "musa/"}  # <cuda/std/...>, <cuda/atomic>; NOT EVIDENCED

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    '__CUDACC_VER_MAJOR__',
    '__CUDACC_VER_MINOR__',
    'cuda/',
))
