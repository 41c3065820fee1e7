"""Device data types (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h) -> MUSA.

Evidence: general.json (__nv_bfloat16->__mt_bfloat16, nv_bfloat16->mt_bfloat16,
__nv_half->__mt_half, __nv_float2half_rn->__mt_float2half_rn...); include.json
(cuda_fp16.h, cuda_bf16.h). ``half``, ``__half``, ``__half2`` and the __float2half family
keep their names on MUSA (musa_fp16.h) and are not rewritten.
"""
from ._helpers import swap_prefix, words

DOMAIN = "data_types"

IDENTIFIERS = swap_prefix(words("""
__nv_bfloat16 __nv_bfloat162 __nv_bfloat16_raw __nv_bfloat162_raw __nv_half __nv_half2
__nv_half_raw __nv_half2_raw __nv_float2half_rn __nv_half2float __nv_fp8_e4m3 __nv_fp8_e5m2
__nv_fp8x2_e4m3 __nv_fp8x2_e5m2 __nv_fp8x4_e4m3 __nv_fp8x4_e5m2 __nv_fp8_storage_t
__nv_fp8x2_storage_t __nv_cvt_float_to_fp8 __nv_cvt_fp8_to_halfraw __nv_cvt_float2_to_fp8x2
__nv_cvt_halfraw_to_fp8 __nv_cvt_bfloat16raw_to_fp8 __nv_saturation_t __nv_fp8_interpretation_t
"""), "__nv_", "__mt_")
IDENTIFIERS.update(swap_prefix(words("nv_bfloat16 nv_bfloat162 nv_half nv_half2"), "nv_", "mt_"))
IDENTIFIERS.update({"__CUDA_BF16_H__": "__MUSA_BF16_H__", "__CUDA_FP16_H__": "__MUSA_FP16_H__"})
IDENTIFIERS.update({"__NV_E4M3": "__MT_E4M3", "__NV_E5M2": "__MT_E5M2",
                    "__NV_SATFINITE": "__MT_SATFINITE", "__NV_NOSAT": "__MT_NOSAT"})
INCLUDES = {
    "cuda_fp16.h": "musa_fp16.h",
    "cuda_fp16.hpp": "musa_fp16.hpp",
    "cuda_bf16.h": "musa_bf16.h",
    "cuda_bf16.hpp": "musa_bf16.hpp",
    "cuda_fp8.h": "musa_fp8.h",
    "cuda_texture_types.h": "musa_texture_types.h",
}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    '__nv_fp8_e4m3',
    '__nv_fp8_e5m2',
    '__nv_fp8x2_e4m3',
    '__nv_fp8x2_e5m2',
    '__nv_fp8x4_e4m3',
    '__nv_fp8x4_e5m2',
    '__nv_fp8_storage_t',
    '__nv_fp8x2_storage_t',
    '__nv_cvt_float_to_fp8',
    '__nv_cvt_fp8_to_halfraw',
    '__nv_cvt_float2_to_fp8x2',
    '__nv_cvt_halfraw_to_fp8',
    '__nv_cvt_bfloat16raw_to_fp8',
    '__nv_saturation_t',
    '__nv_fp8_interpretation_t',
    '__NV_E4M3',
    '__NV_E5M2',
    '__NV_SATFINITE',
    '__NV_NOSAT',
    'cuda_fp8.h',
))
