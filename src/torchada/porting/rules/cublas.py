"""cuBLAS / cuBLASLt: handles, calls, enumerators and headers -> muBLAS / muBLASLt.

Evidence: torch_musa/utils/mapping/general.json (cublasHandle_t->mublasHandle_t,
CUBLAS_*->MUBLAS_*, cublasLt*->mublasLt*); cublas_v2.h/cublasLt.h->mublas.h/mublasLt.h
from include.json; ATen's at::cuda::getCurrentCUDABlasHandle -> MUSA spelling
(torch_musa/csrc/aten/musa/MUSAContext.h declares getCurrentMUSABlasHandle).
"""
from ._helpers import swap_prefix, words

DOMAIN = "cublas"

_LOWER = words("""
cublasHandle_t cublasStatus_t cublasCreate cublasDestroy cublasSetStream cublasGetStream
cublasSetMathMode cublasGetMathMode cublasMath_t cublasSetWorkspace cublasOperation_t
cublasComputeType_t cublasGemmAlgo_t cublasPointerMode_t cublasSetPointerMode
cublasSgemm cublasDgemm cublasHgemm cublasGemmEx cublasSgemmStridedBatched
cublasDgemmStridedBatched cublasHgemmStridedBatched cublasGemmStridedBatchedEx
cublasGemmBatchedEx cublasSgemmBatched cublasDgemmBatched cublasSgemv cublasDgemv
cublasSaxpy cublasDaxpy cublasSscal cublasDscal cublasSdot cublasDdot cublasSnrm2
cublasDnrm2 cublasStrsm cublasDtrsm cublasGetStatusString cublasGetStatusName
cublasLtHandle_t cublasLtCreate cublasLtDestroy cublasLtMatmul cublasLtMatmulDesc_t
cublasLtMatmulDescCreate cublasLtMatmulDescDestroy cublasLtMatmulDescSetAttribute
cublasLtMatrixLayout_t cublasLtMatrixLayoutCreate cublasLtMatrixLayoutDestroy
cublasLtMatrixLayoutSetAttribute cublasLtMatmulPreference_t cublasLtMatmulPreferenceCreate
cublasLtMatmulPreferenceDestroy cublasLtMatmulPreferenceSetAttribute
cublasLtMatmulAlgoGetHeuristic cublasLtMatmulHeuristicResult_t cublasLtEpilogue_t
cublasLtMatmulAlgo_t
""")
_UPPER = words("""
CUBLAS_STATUS_SUCCESS CUBLAS_STATUS_NOT_INITIALIZED CUBLAS_STATUS_ALLOC_FAILED
CUBLAS_STATUS_INVALID_VALUE CUBLAS_STATUS_EXECUTION_FAILED CUBLAS_STATUS_NOT_SUPPORTED
CUBLAS_STATUS_INTERNAL_ERROR CUBLAS_OP_N CUBLAS_OP_T CUBLAS_OP_C CUBLAS_GEMM_DEFAULT
CUBLAS_GEMM_DEFAULT_TENSOR_OP CUBLAS_DEFAULT_MATH CUBLAS_TENSOR_OP_MATH
CUBLAS_TF32_TENSOR_OP_MATH CUBLAS_PEDANTIC_MATH CUBLAS_COMPUTE_16F CUBLAS_COMPUTE_32F
CUBLAS_COMPUTE_32F_FAST_TF32 CUBLAS_COMPUTE_32F_FAST_16F CUBLAS_COMPUTE_32F_FAST_16BF
CUBLAS_COMPUTE_64F CUBLAS_COMPUTE_32I CUBLAS_POINTER_MODE_HOST CUBLAS_POINTER_MODE_DEVICE
CUBLAS_FILL_MODE_LOWER CUBLAS_FILL_MODE_UPPER CUBLAS_SIDE_LEFT CUBLAS_SIDE_RIGHT
CUBLAS_DIAG_NON_UNIT CUBLAS_DIAG_UNIT CUBLASLT_MATMUL_DESC_TRANSA CUBLASLT_MATMUL_DESC_TRANSB
CUBLASLT_MATMUL_DESC_EPILOGUE CUBLASLT_MATMUL_DESC_BIAS_POINTER
CUBLASLT_MATMUL_DESC_A_SCALE_POINTER CUBLASLT_MATMUL_DESC_B_SCALE_POINTER
CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES CUBLASLT_EPILOGUE_DEFAULT CUBLASLT_EPILOGUE_BIAS
CUBLASLT_EPILOGUE_RELU CUBLASLT_EPILOGUE_GELU CUBLASLT_EPILOGUE_RELU_BIAS
CUBLASLT_EPILOGUE_GELU_BIAS CUBLASLT_ORDER_COL CUBLASLT_ORDER_ROW
CUBLASLT_MATRIX_LAYOUT_ORDER CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET
""")
IDENTIFIERS = swap_prefix(_LOWER, "cublas", "mublas")
IDENTIFIERS.update(swap_prefix(_UPPER, "CUBLAS", "MUBLAS"))
# cublasGemmAlgo_t enumerators (general.json lists every one with the MUBLAS spelling).
IDENTIFIERS.update(swap_prefix(
    ["CUBLAS_GEMM_ALGO%d" % i for i in range(24)]
    + ["CUBLAS_GEMM_ALGO%d_TENSOR_OP" % i for i in range(16)]
    + ["CUBLAS_GEMM_DFALT", "CUBLAS_GEMM_DFALT_TENSOR_OP"], "CUBLAS", "MUBLAS"))
IDENTIFIERS["cublasDataType_t"] = "mublasDataType_t"
IDENTIFIERS.update({
    # ATen accessors for the current BLAS handles (MUSAContext.h).
    "getCurrentCUDABlasHandle": "getCurrentMUSABlasHandle",
    "getCurrentCUDABlasLtHandle": "getCurrentMUSABlasLtHandle",
    "getCUDABlasLtWorkspace": "getMUSABlasLtWorkspace",
    "TORCH_CUDABLAS_CHECK": "TORCH_MUSABLAS_CHECK",
})
INCLUDES = {
    "cublas_v2.h": "mublas.h",
    "cublas.h": "mublas.h",
    "cublas_api.h": "mublas_api.h",
    "cublasLt.h": "mublasLt.h",
    "cublasXt.h": "mublasXt.h",
    "ATen/cuda/CUDABlas.h": "torch_musa/csrc/aten/musa/MUSABlas.h",
}
LIBRARIES = {"cublas": "mublas", "cublasLt": "mublasLt"}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'CUBLASLT_MATMUL_DESC_A_SCALE_POINTER',
    'CUBLASLT_MATMUL_DESC_B_SCALE_POINTER',
    'getCUDABlasLtWorkspace',
))
