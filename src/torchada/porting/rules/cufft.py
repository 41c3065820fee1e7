"""cuFFT -> muFFT. Evidence: general.json (cufftHandle->mufftHandle, CUFFT_*->MUFFT_*),
include.json (cufft.h->mufft.h, cufftXt.h->mufftXt.h)."""
from ._helpers import swap_prefix, words

DOMAIN = "cufft"

IDENTIFIERS = swap_prefix(words("""
cufftHandle cufftResult cufftType cufftPlan1d cufftPlan2d cufftPlan3d cufftPlanMany
cufftMakePlanMany cufftMakePlanMany64 cufftCreate cufftDestroy cufftSetStream
cufftExecC2C cufftExecR2C cufftExecC2R cufftExecZ2Z cufftExecD2Z cufftExecZ2D cufftXtExec
cufftSetAutoAllocation cufftSetWorkArea cufftGetSize cufftComplex cufftReal
cufftDoubleComplex cufftDoubleReal
"""), "cufft", "mufft")
IDENTIFIERS.update(swap_prefix(words("""
CUFFT_SUCCESS CUFFT_FORWARD CUFFT_INVERSE CUFFT_C2C CUFFT_R2C CUFFT_C2R CUFFT_Z2Z CUFFT_D2Z
CUFFT_Z2D CUFFT_INVALID_PLAN CUFFT_ALLOC_FAILED CUFFT_INVALID_VALUE CUFFT_INTERNAL_ERROR
CUFFT_EXEC_FAILED CUFFT_SETUP_FAILED CUFFT_INVALID_SIZE
"""), "CUFFT", "MUFFT"))
INCLUDES = {"cufft.h": "mufft.h", "cufftXt.h": "mufftXt.h"}
LIBRARIES = {"cufft": "mufft"}
