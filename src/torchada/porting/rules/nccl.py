"""NCCL -> MCCL.

Evidence: torch_musa/csrc/distributed/ProcessGroupMCCL.cpp, MCCLUtils.h and
csrc/core/MCCL.cpp use mccl.h, mcclComm_t, mcclUniqueId, mcclResult_t, mcclSuccess,
mcclAllReduce, mcclGroupStart... (these pairs are NOT in utils/mapping/general.json).
Enumerators and the remaining calls follow the same prefix swap; those are listed in
NOT_EVIDENCED where the csrc does not show them.
"""
from ._helpers import swap_prefix, words

DOMAIN = "nccl"

IDENTIFIERS = swap_prefix(words("""
ncclComm_t ncclUniqueId ncclResult_t ncclSuccess ncclDataType_t ncclRedOp_t ncclAllReduce
ncclBroadcast ncclBcast ncclReduce ncclAllGather ncclReduceScatter ncclSend ncclRecv
ncclAllToAll ncclGroupStart ncclGroupEnd ncclCommInitRank ncclCommInitAll
ncclCommInitRankConfig ncclGetUniqueId ncclCommAbort ncclCommDestroy ncclCommFinalize
ncclCommCount ncclCommCuDevice ncclCommUserRank ncclCommGetAsyncError ncclGetVersion
ncclGetErrorString ncclGetLastError ncclConfig_t ncclMemAlloc ncclMemFree
ncclInt8 ncclChar ncclUint8 ncclInt32 ncclInt ncclUint32 ncclInt64 ncclUint64 ncclFloat16
ncclHalf ncclFloat32 ncclFloat ncclFloat64 ncclDouble ncclBfloat16 ncclSum ncclProd ncclMax
ncclMin ncclAvg ncclUnhandledCudaError ncclSystemError ncclInternalError ncclInvalidArgument
ncclInvalidUsage ncclRemoteError ncclInProgress ncclNumResults
"""), "nccl", "mccl")
IDENTIFIERS.update(swap_prefix(words("""
NCCL_MAJOR NCCL_MINOR NCCL_PATCH NCCL_VERSION_CODE NCCL_UNIQUE_ID_BYTES NCCL_CONFIG_INITIALIZER
NCCL_VERSION
"""), "NCCL", "MCCL"))
IDENTIFIERS.update({
    "ProcessGroupNCCL": "ProcessGroupMCCL",
    "NCCL_CHECK": "MCCL_CHECK",
    "C10D_NCCL_CHECK": "C10D_MCCL_CHECK",
})
INCLUDES = {
    "nccl.h": "mccl.h",
    "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp":
        "torch_musa/csrc/distributed/ProcessGroupMCCL.h",
}
LIBRARIES = {"nccl": "mccl"}

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'ncclAllToAll',
    'ncclCommInitAll',
    'ncclCommInitRankConfig',
    'ncclCommCuDevice',
    'ncclGetLastError',
    'ncclConfig_t',
    'ncclMemAlloc',
    'ncclChar',
    'ncclInt',
    'ncclUint32',
    'ncclUint64',
    'ncclHalf',
    'ncclFloat32',
    'ncclDouble',
    'ncclUnhandledCudaError',
    'ncclInternalError',
    'ncclInvalidArgument',
    'ncclRemoteError',
    'ncclNumResults',
    'NCCL_VERSION_CODE',
    'NCCL_CONFIG_INITIALIZER',
    'NCCL_VERSION',
    'NCCL_CHECK',
))
