"""CUDA driver API (cuda.h): ``cu*`` functions, ``CU*`` types and ``CU_*`` enumerators.

Evidence: torch_musa/utils/mapping/general.json (CUresult->MUresult,
cuLaunchKernel->muLaunchKernel, CU_*->MU_*); header cuda.h->musa.h from include.json.
"""
from ._helpers import swap_prefix, words

DOMAIN = "cuda_driver"

_FUNCS = words("""
cuInit cuDriverGetVersion cuDeviceGet cuDeviceGetCount cuDeviceGetName cuDeviceGetAttribute
cuDeviceTotalMem cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease cuCtxCreate cuCtxDestroy
cuCtxGetCurrent cuCtxSetCurrent cuCtxPushCurrent cuCtxPopCurrent cuCtxSynchronize cuCtxGetDevice
cuModuleLoad cuModuleLoadData cuModuleLoadDataEx cuModuleUnload cuModuleGetFunction
cuModuleGetGlobal cuLaunchKernel cuLaunchCooperativeKernel cuFuncGetAttribute cuFuncSetAttribute
cuFuncSetCacheConfig cuMemAlloc cuMemFree cuMemAllocHost cuMemFreeHost cuMemcpy cuMemcpyAsync
cuMemcpyHtoD cuMemcpyDtoH cuMemcpyDtoD cuMemcpyHtoDAsync cuMemcpyDtoHAsync cuMemcpyDtoDAsync
cuMemsetD8 cuMemsetD32 cuMemsetD8Async cuMemsetD32Async cuMemGetInfo cuMemGetAddressRange
cuMemCreate cuMemRelease cuMemMap cuMemUnmap cuMemSetAccess cuMemAddressReserve cuMemAddressFree
cuMemGetAllocationGranularity cuMemExportToShareableHandle cuMemImportFromShareableHandle
cuMemRetainAllocationHandle cuPointerGetAttribute cuStreamCreate cuStreamDestroy
cuStreamSynchronize cuStreamWaitEvent cuEventCreate cuEventDestroy cuEventRecord
cuEventSynchronize cuGetErrorString cuGetErrorName cuOccupancyMaxActiveBlocksPerMultiprocessor
cuGetProcAddress cuIpcGetMemHandle cuIpcOpenMemHandle cuIpcCloseMemHandle
""")
_TYPES = words("""
CUresult CUdevice CUcontext CUmodule CUfunction CUstream CUevent CUdeviceptr CUdevice_attribute
CUfunction_attribute CUjit_option CUmemGenericAllocationHandle CUmemAllocationProp
CUmemAccessDesc CUmemLocation CUmemAllocationHandleType CUmemorytype CUpointer_attribute
CUipcMemHandle CUgraph CUgraphExec CUarray CUtexObject
""")
_ENUMS = words("""
CUDA_SUCCESS CUDA_ERROR_INVALID_VALUE CUDA_ERROR_OUT_OF_MEMORY CUDA_ERROR_NOT_INITIALIZED
CUDA_ERROR_DEINITIALIZED CUDA_ERROR_NO_DEVICE CUDA_ERROR_INVALID_DEVICE CUDA_ERROR_NOT_FOUND
CUDA_ERROR_NOT_READY CUDA_ERROR_NOT_SUPPORTED CUDA_ERROR_INVALID_CONTEXT
CUDA_ERROR_INVALID_HANDLE CUDA_ERROR_LAUNCH_FAILED
""")
INCLUDES = {"cuda.h": "musa.h", "cudaProfiler.h": "musaProfiler.h", "cudaTypedefs.h": "musaTypedefs.h"}
IDENTIFIERS = swap_prefix(_FUNCS, "cu", "mu")
IDENTIFIERS.update(swap_prefix(_TYPES, "CU", "MU"))
IDENTIFIERS.update(swap_prefix(_ENUMS, "CUDA_", "MUSA_"))
IDENTIFIERS.update(swap_prefix(words("""
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
CU_DEVICE_ATTRIBUTE_WARP_SIZE CU_DEVICE_ATTRIBUTE_CLOCK_RATE
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
CU_MEMORYTYPE_DEVICE CU_MEMORYTYPE_HOST CU_MEM_ALLOCATION_TYPE_PINNED CU_MEM_LOCATION_TYPE_DEVICE
CU_MEM_ACCESS_FLAGS_PROT_READWRITE CU_MEM_ALLOC_GRANULARITY_MINIMUM
CU_MEM_ALLOC_GRANULARITY_RECOMMENDED CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
CU_POINTER_ATTRIBUTE_MEMORY_TYPE CU_POINTER_ATTRIBUTE_DEVICE_POINTER CU_STREAM_DEFAULT
CU_STREAM_NON_BLOCKING CU_EVENT_DEFAULT CU_EVENT_DISABLE_TIMING CU_CTX_SCHED_AUTO
CU_LAUNCH_PARAM_END CU_LAUNCH_PARAM_BUFFER_POINTER CU_LAUNCH_PARAM_BUFFER_SIZE
"""), "CU_", "MU_"))
