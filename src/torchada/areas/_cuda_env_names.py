"""The CUDA environment names the env_mirror area mirrors to their MUSA twins, as data.

Kept apart from env_mirror (which reads settings) so that the settings table's documentation
and doctor can list the pairs without importing an area: this module imports nothing of
torchada.
"""

# The MCCL variables torch_musa 2.7.1's ProcessGroupMCCL.cpp reads (recorded API,
# distributed.env_vars_read_by_ProcessGroupMCCL; TORCH_DISTRIBUTED_DEBUG keeps its name).
MCCL_NAMES = (
    "TORCH_MCCL_ASYNC_ERROR_HANDLING", "MCCL_ASYNC_ERROR_HANDLING", "TORCH_MCCL_BLOCKING_WAIT",
    "MCCL_BLOCKING_WAIT", "TORCH_MCCL_DESYNC_DEBUG", "MCCL_DESYNC_DEBUG",
    "TORCH_MCCL_ENABLE_TIMING", "MCCL_ENABLE_TIMING", "MCCL_DEBUG",
    "TORCH_MCCL_AVOID_RECORD_STREAMS", "TORCH_MCCL_COORD_CHECK_MILSEC",
    "TORCH_MCCL_DEBUG_INFO_PIPE_FILE", "TORCH_MCCL_DEBUG_INFO_TEMP_FILE",
    "TORCH_MCCL_DUMP_ON_TIMEOUT", "TORCH_MCCL_ENABLE_MONITORING",
    "TORCH_MCCL_HEARTBEAT_TIMEOUT_SEC", "TORCH_MCCL_HIGH_PRIORITY",
    "TORCH_MCCL_LOG_CPP_STACK_ON_UNCLEAN_SHUTDOWN", "TORCH_MCCL_MUSA_EVENT_CACHE",
    "TORCH_MCCL_NAN_CHECK", "TORCH_MCCL_PROPAGATE_ERROR", "TORCH_MCCL_RANKS_PER_ROOT",
    "TORCH_MCCL_RETHROW_MUSA_ERRORS", "TORCH_MCCL_TRACE_BUFFER_SIZE",
    "TORCH_MCCL_TRACE_CPP_STACK", "TORCH_MCCL_WAIT_TIMEOUT_DUMP_MILSEC",
)


def cuda_twin(musa_name):
    """The CUDA spelling torch's ProcessGroupNCCL reads for an MCCL variable."""
    return musa_name.replace("MCCL", "NCCL").replace("MUSA", "CUDA")


PAIRS = (
    ("CUDA_VISIBLE_DEVICES", "MUSA_VISIBLE_DEVICES"),
    ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_MUSA_ALLOC_CONF"),
    ("CUDA_LAUNCH_BLOCKING", "MUSA_LAUNCH_BLOCKING"),
    ("PYTORCH_NO_CUDA_MEMORY_CACHING", "PYTORCH_NO_MUSA_MEMORY_CACHING"),
    ("CUBLAS_WORKSPACE_CONFIG", "MUBLAS_WORKSPACE_CONFIG"),
    # device-side assertions: torch_musa csrc/core/MUSADeviceAssertionHost.cpp:85,89 (v2.7.1)
    # reads these where c10/cuda/CUDADeviceAssertionHost.cpp reads the CUDA spellings
    ("PYTORCH_USE_CUDA_DSA", "PYTORCH_USE_MUSA_DSA"),
    ("PYTORCH_CUDA_DSA_STACKTRACING", "PYTORCH_MUSA_DSA_STACKTRACING"),
) + tuple((cuda_twin(name), name) for name in MCCL_NAMES)
MIRRORED_CUDA_NAMES = frozenset(cuda for cuda, _ in PAIRS)
