"""CUDA runtime API (cuda_runtime.h): functions, types, enumerators and headers.

Evidence: torch_musa/utils/mapping/general.json maps the ``cuda*`` runtime family to
``musa*`` one for one (cudaMalloc->musaMalloc, cudaStream_t->musaStream_t, ...);
headers from torch_musa/utils/mapping/include.json. Names not found in those tables
are listed in NOT_EVIDENCED (computed against torch_musa commit 8b583b3).
"""
from ._helpers import swap_prefix, words

DOMAIN = "cuda_runtime"

_RUNTIME = words("""
cudaMalloc cudaFree cudaMallocHost cudaFreeHost cudaHostAlloc cudaHostRegister
cudaHostUnregister cudaHostGetDevicePointer cudaMallocManaged cudaMallocAsync
cudaFreeAsync cudaMallocPitch cudaMalloc3D cudaMemcpy cudaMemcpyAsync cudaMemcpy2D
cudaMemcpy2DAsync cudaMemcpy3D cudaMemcpy3DAsync cudaMemcpyPeer cudaMemcpyPeerAsync
cudaMemcpyToSymbol cudaMemcpyToSymbolAsync cudaMemcpyFromSymbol cudaMemcpyFromSymbolAsync
cudaMemset cudaMemsetAsync cudaMemset2D cudaMemset2DAsync cudaMemGetInfo cudaMemPrefetchAsync
cudaMemAdvise cudaPointerGetAttributes cudaPointerAttributes cudaGetSymbolAddress
cudaDeviceSynchronize cudaDeviceReset cudaDeviceGetAttribute cudaDeviceSetLimit cudaDeviceGetLimit
cudaDeviceCanAccessPeer cudaDeviceEnablePeerAccess cudaDeviceDisablePeerAccess
cudaDeviceGetPCIBusId cudaDeviceGetByPCIBusId cudaDeviceSetCacheConfig cudaDeviceGetStreamPriorityRange
cudaDeviceSetSharedMemConfig cudaGetDevice cudaSetDevice cudaGetDeviceCount cudaGetDeviceProperties
cudaDeviceProp cudaChooseDevice cudaSetDeviceFlags cudaGetDeviceFlags cudaDriverGetVersion
cudaRuntimeGetVersion cudaStream_t cudaStreamCreate cudaStreamCreateWithFlags
cudaStreamCreateWithPriority cudaStreamDestroy cudaStreamSynchronize cudaStreamQuery
cudaStreamWaitEvent cudaStreamAddCallback cudaStreamGetPriority cudaStreamGetFlags
cudaStreamNonBlocking cudaStreamDefault cudaStreamLegacy cudaStreamPerThread
cudaStreamBeginCapture cudaStreamEndCapture cudaStreamIsCapturing cudaStreamGetCaptureInfo
cudaStreamCaptureStatus cudaStreamCaptureStatusNone cudaStreamCaptureStatusActive
cudaStreamCaptureMode cudaStreamCaptureModeGlobal cudaStreamCaptureModeThreadLocal
cudaStreamCaptureModeRelaxed cudaThreadExchangeStreamCaptureMode cudaLaunchHostFunc cudaHostFn_t
cudaEvent_t cudaEventCreate cudaEventCreateWithFlags cudaEventDestroy cudaEventRecord
cudaEventSynchronize cudaEventQuery cudaEventElapsedTime cudaEventDefault cudaEventBlockingSync
cudaEventDisableTiming cudaEventInterprocess cudaIpcMemHandle_t cudaIpcEventHandle_t
cudaIpcGetMemHandle cudaIpcOpenMemHandle cudaIpcCloseMemHandle cudaIpcGetEventHandle
cudaIpcOpenEventHandle cudaIpcMemLazyEnablePeerAccess cudaError_t cudaError cudaSuccess
cudaErrorNotReady cudaErrorInvalidValue cudaErrorMemoryAllocation cudaErrorInitializationError
cudaErrorInvalidDevice cudaErrorNoDevice cudaErrorPeerAccessAlreadyEnabled
cudaErrorPeerAccessNotEnabled cudaErrorInvalidConfiguration cudaErrorLaunchFailure
cudaErrorCudartUnloading cudaErrorNotSupported cudaErrorInvalidResourceHandle
cudaErrorStreamCaptureUnsupported cudaErrorIllegalAddress cudaErrorUnknown
cudaGetLastError cudaPeekAtLastError cudaGetErrorString cudaGetErrorName cudaMemcpyKind
cudaMemcpyHostToDevice cudaMemcpyDeviceToHost cudaMemcpyDeviceToDevice cudaMemcpyHostToHost
cudaMemcpyDefault cudaHostAllocDefault cudaHostAllocPortable cudaHostAllocMapped
cudaHostAllocWriteCombined cudaHostRegisterDefault cudaHostRegisterPortable cudaHostRegisterMapped
cudaMemAttachGlobal cudaMemAttachHost cudaCpuDeviceId cudaFuncAttributes cudaFuncGetAttributes
cudaFuncSetAttribute cudaFuncSetCacheConfig cudaFuncSetSharedMemConfig cudaFuncAttribute
cudaFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributePreferredSharedMemoryCarveout
cudaFuncCachePreferShared cudaFuncCachePreferL1 cudaFuncCachePreferNone cudaFuncCachePreferEqual
cudaSharedMemBankSizeFourByte cudaSharedMemBankSizeEightByte cudaLimitStackSize
cudaLimitMallocHeapSize cudaLaunchKernel cudaConfigureCall cudaOccupancyMaxActiveBlocksPerMultiprocessor
cudaOccupancyMaxPotentialBlockSize cudaDeviceAttr cudaDevAttrMaxThreadsPerBlock
cudaDevAttrMaxBlockDimX cudaDevAttrMaxBlockDimY cudaDevAttrMaxBlockDimZ cudaDevAttrMaxGridDimX
cudaDevAttrMaxGridDimY cudaDevAttrMaxGridDimZ cudaDevAttrMaxSharedMemoryPerBlock
cudaDevAttrMaxSharedMemoryPerBlockOptin cudaDevAttrMaxSharedMemoryPerMultiprocessor
cudaDevAttrWarpSize cudaDevAttrMultiProcessorCount cudaDevAttrComputeCapabilityMajor
cudaDevAttrComputeCapabilityMinor cudaDevAttrMaxRegistersPerBlock cudaDevAttrClockRate
cudaDevAttrL2CacheSize cudaDevAttrMaxThreadsPerMultiProcessor cudaDevAttrMemoryClockRate
cudaDevAttrGlobalMemoryBusWidth cudaDevAttrCooperativeLaunch cudaGraph_t cudaGraphExec_t
cudaGraphNode_t cudaGraphCreate cudaGraphDestroy cudaGraphInstantiate cudaGraphLaunch
cudaGraphExecDestroy cudaGraphExecUpdate cudaGraphGetNodes cudaGraphDebugDotPrint
cudaUserObject_t cudaProfilerStart cudaProfilerStop cudaArray_t cudaChannelFormatDesc
cudaCreateChannelDesc cudaTextureObject_t cudaResourceDesc cudaTextureDesc
cudaCreateTextureObject cudaDestroyTextureObject cudaSurfaceObject_t cudaExtent
cudaPitchedPtr cudaPos cudaMemcpy3DParms
cudaDataType cudaDataType_t cudaMemPool_t cudaMemPoolAttr cudaDeviceGetDefaultMemPool
cudaMemPoolSetAttribute cudaMemPoolTrimTo cudaMemoryType cudaMemoryTypeDevice
cudaMemoryTypeHost cudaMemoryTypeManaged cudaMemoryTypeUnregistered cudaSetValidDevices
cudaThreadSynchronize cudaAccessPolicyWindow cudaStreamAttrValue cudaStreamSetAttribute
cudaStreamAttributeAccessPolicyWindow cudaAccessPropertyPersisting cudaAccessPropertyStreaming
cudaAccessPropertyNormal cudaLaunchConfig_t cudaLaunchAttribute cudaLaunchKernelEx
cudaLaunchAttributeProgrammaticStreamSerialization cudaLaunchAttributeClusterDimension
cudaFuncAttributeNonPortableClusterSizeAllowed cudaLaunchAttributeCooperative
cudaLaunchAttributeID cudaLaunchAttributeValue cudaDeviceFlushGPUDirectRDMAWrites
""")

IDENTIFIERS = swap_prefix(_RUNTIME, "cuda", "musa")
IDENTIFIERS.update({
    # version macros: CUDART_VERSION -> MUSART_VERSION (general.json)
    "CUDART_VERSION": "MUSART_VERSION",
    "CUDART_CB": "MUSART_CB",
    "CUDARTAPI": "MUSARTAPI",
    "CUDA_VERSION": "MUSA_COMP_VERSION",
    "CUDART_INF_F": "MUSART_INF_F",
    "CUDART_NAN_F": "MUSART_NAN_F",
    "CUDART_PI_F": "MUSART_PI_F",
    "CUDART_INF": "MUSART_INF",
    "CUDART_NAN": "MUSART_NAN",
    "CUDA_R_16F": "MUSA_R_16F",
    "CUDA_R_16BF": "MUSA_R_16BF",
    "CUDA_R_32F": "MUSA_R_32F",
    "CUDA_R_64F": "MUSA_R_64F",
    "CUDA_R_8I": "MUSA_R_8I",
    "CUDA_R_32I": "MUSA_R_32I",
    "CUDA_R_8U": "MUSA_R_8U",
    "CUDA_C_32F": "MUSA_C_32F",
    "CUDA_C_64F": "MUSA_C_64F",
    "CUDA_R_8F_E4M3": "MUSA_R_8F_E4M3",
    "CUDA_R_8F_E5M2": "MUSA_R_8F_E5M2",
})

# Header names, matched only as the path inside an #include directive.
INCLUDES = {
    "cuda_runtime.h": "musa_runtime.h",
    "cuda_runtime_api.h": "musa_runtime_api.h",
    "cuda_device_runtime_api.h": "musa_device_runtime_api.h",
    "cuda_profiler_api.h": "musa_profiler_api.h",
    "cuda_occupancy.h": "musa_occupancy.h",
    "cuda_pipeline.h": "musa_pipeline.h",
    "cuda_awbarrier.h": "musa_awbarrier.h",
    "cuComplex.h": "muComplex.h",
    "cupti.h": "mupti.h",
}
# Function-like constructs rewritten to a no-op statement. Programmatic dependent launch
# (PDL) primitives only order work inside a PDL launch; without PDL (no MUSA equivalent is
# evidenced in torch_musa) the sync is already implied by stream order, so a no-op keeps
# the meaning. Matched with optional whitespace inside the parentheses.
NOOP_CALLS = {
    "cudaGridDependencySynchronize": "((void)0)",
    "cudaTriggerProgrammaticLaunchCompletion": "((void)0)",
}
IDENTIFIERS.update({
    "make_cudaExtent": "make_musaExtent",
    "make_cudaPitchedPtr": "make_musaPitchedPtr",
    "make_cudaPos": "make_musaPos",
})

# Keys whose MUSA name is not shown by torch_musa 2.7.1 (its mapping JSON files or
# its csrc): plausible by the same spelling rule, unverified on hardware.
NOT_EVIDENCED = frozenset((
    'cudaErrorCudartUnloading',
    'cudaConfigureCall',
    'cudaLaunchConfig_t',
    'cudaLaunchAttribute',
    'cudaLaunchKernelEx',
    'cudaLaunchAttributeProgrammaticStreamSerialization',
    'cudaLaunchAttributeClusterDimension',
    'cudaFuncAttributeNonPortableClusterSizeAllowed',
    'cudaLaunchAttributeCooperative',
    'cudaLaunchAttributeID',
    'cudaLaunchAttributeValue',
    'CUDA_R_8F_E4M3',
    'CUDA_R_8F_E5M2',
    'cudaGridDependencySynchronize',
    'cudaTriggerProgrammaticLaunchCompletion',
))
