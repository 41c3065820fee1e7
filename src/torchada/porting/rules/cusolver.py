"""cuSOLVER -> muSOLVER. Evidence: general.json (cusolverDnHandle_t->musolverDnHandle_t),
include.json (cusolverDn.h->musolverDn.h); csrc includes musolver.h."""
from ._helpers import swap_prefix, words

DOMAIN = "cusolver"

IDENTIFIERS = swap_prefix(words("""
cusolverDnHandle_t cusolverStatus_t cusolverDnCreate cusolverDnDestroy cusolverDnSetStream
cusolverDnSgetrf cusolverDnDgetrf cusolverDnSgetrf_bufferSize cusolverDnDgetrf_bufferSize
cusolverDnSgetrs cusolverDnDgetrs cusolverDnSpotrf cusolverDnDpotrf cusolverDnSpotrf_bufferSize
cusolverDnDpotrf_bufferSize cusolverDnSgesvd cusolverDnDgesvd cusolverDnSsyevd cusolverDnDsyevd
cusolverDnSgeqrf cusolverDnDgeqrf cusolverEigMode_t
"""), "cusolver", "musolver")
IDENTIFIERS.update(swap_prefix(words("""
CUSOLVER_STATUS_SUCCESS CUSOLVER_STATUS_NOT_INITIALIZED CUSOLVER_STATUS_INVALID_VALUE
CUSOLVER_EIG_MODE_VECTOR CUSOLVER_EIG_MODE_NOVECTOR
"""), "CUSOLVER", "MUSOLVER"))
INCLUDES = {"cusolverDn.h": "musolverDn.h", "cusolver_common.h": "musolver_common.h"}
LIBRARIES = {"cusolver": "musolver"}
