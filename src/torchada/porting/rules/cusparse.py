"""cuSPARSE -> muSPARSE. Evidence: general.json (cusparseHandle_t->musparseHandle_t),
include.json (cusparse.h->musparse.h)."""
from ._helpers import swap_prefix, words

DOMAIN = "cusparse"

IDENTIFIERS = swap_prefix(words("""
cusparseHandle_t cusparseStatus_t cusparseCreate cusparseDestroy cusparseSetStream
cusparseSpMatDescr_t cusparseDnMatDescr_t cusparseDnVecDescr_t cusparseCreateCsr
cusparseCreateCoo cusparseCreateDnMat cusparseCreateDnVec cusparseDestroySpMat
cusparseDestroyDnMat cusparseDestroyDnVec cusparseSpMM cusparseSpMM_bufferSize cusparseSpMV
cusparseSpMV_bufferSize cusparseOperation_t cusparseIndexType_t cusparseIndexBase_t
cusparseSpMMAlg_t cusparseSpMVAlg_t
"""), "cusparse", "musparse")
IDENTIFIERS.update(swap_prefix(words("""
CUSPARSE_STATUS_SUCCESS CUSPARSE_OPERATION_NON_TRANSPOSE CUSPARSE_OPERATION_TRANSPOSE
CUSPARSE_INDEX_32I CUSPARSE_INDEX_64I CUSPARSE_INDEX_BASE_ZERO CUSPARSE_INDEX_BASE_ONE
CUSPARSE_ORDER_ROW CUSPARSE_ORDER_COL CUSPARSE_SPMM_ALG_DEFAULT CUSPARSE_SPMV_ALG_DEFAULT
"""), "CUSPARSE", "MUSPARSE"))
INCLUDES = {"cusparse.h": "musparse.h", "cusparse_v2.h": "musparse.h"}
LIBRARIES = {"cusparse": "musparse"}
