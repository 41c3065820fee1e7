"""torch's private CUDA entry points that real libraries call, answered by torch_musa.

CUDA APIs made to work:
  - ``torch.cuda._get_device_index`` (and wherever torch.cuda's modules bind it, and
    Dynamo's ``torch.cuda.device`` handling): every form CUDA's accepts (int, "cuda:N",
    torch.device, torch.cuda.device, None with ``optional``), returning musa ordinals, so
    ``with torch.cuda.device("cuda:1")`` works inside ``torch.compile`` as it does eagerly.
  - ``torch.cuda._device_count_nvml`` (the MUSA device count) and ``torch.cuda._is_compiled``
    (True, consistent with ``torch.backends.cuda.is_built()`` under the backends area).
  - ``torch._C._cuda_*`` names where torch_musa has the ``_musa_*`` twin: the current raw
    stream (bitsandbytes, Triton launchers), device count / get / set / synchronize, the
    caching allocator's AllocatorState, checkpoint state and graph-pool functions
    (``_cuda_beginAllocateCurrentThreadToPool``, ``_cuda_endAllocateToPool``,
    ``_cuda_releasePool``), so ``import torch._inductor.cudagraph_trees`` and
    ``torch.compiler.cudagraph_mark_step_begin()`` work.

torch_musa APIs relied on: torch_musa._MUSAC (``_musa_getCurrentRawStream``,
``_musa_getDeviceCount``, ``_musa_getDevice``, ``_musa_setDevice``, ``_musa_synchronize``,
``_musa_MUSAAllocator_AllocatorState``, ``_musa_beginAllocateCurrentStreamToPool``,
``_musa_endAllocateCurrentStreamToPool``, ``_musa_releasePool``, ``_musa_getCheckpointState``,
``_musa_setCheckpointPoolState``, ``_musa_checkPoolLiveAllocations``; Module.cpp per the
2.7.1 manifest), torch.musa.device_count, torch.musa.current_device.
"""
import sys

from torchada.areas import _kit

# torch._C CUDA name -> torch_musa._MUSAC name. Both the names torch 2.6+ uses for the
# graph-pool calls and the older ones map to torch_musa's (stream-scoped) functions.
C_NAMES = {
    "_cuda_getCurrentRawStream": "_musa_getCurrentRawStream",
    "_cuda_getDeviceCount": "_musa_getDeviceCount",
    "_cuda_getDevice": "_musa_getDevice",
    "_cuda_setDevice": "_musa_setDevice",
    "_cuda_synchronize": "_musa_synchronize",
    "_cuda_CUDAAllocator_AllocatorState": "_musa_MUSAAllocator_AllocatorState",
    "_cuda_beginAllocateCurrentThreadToPool": "_musa_beginAllocateCurrentStreamToPool",
    "_cuda_beginAllocateCurrentStreamToPool": "_musa_beginAllocateCurrentStreamToPool",
    "_cuda_endAllocateToPool": "_musa_endAllocateCurrentStreamToPool",
    "_cuda_endAllocateCurrentStreamToPool": "_musa_endAllocateCurrentStreamToPool",
    "_cuda_releasePool": "_musa_releasePool",
    "_cuda_getCheckpointState": "_musa_getCheckpointState",
    "_cuda_setCheckpointPoolState": "_musa_setCheckpointPoolState",
    "_cuda_checkPoolLiveAllocations": "_musa_checkPoolLiveAllocations",
}


def _get_device_index(ctx):
    torch = ctx.torch
    original = torch.cuda._utils._get_device_index
    generic = torch._utils._get_device_index

    @_kit.wraps(original)
    def _get_device_index(device, optional=False, allow_cpu=False):
        if isinstance(device, str):
            device = torch.device(device)  # "cuda:1" is musa:1 under the devices area
        if isinstance(device, torch.device) and device.type == "musa":
            return generic(device, optional, allow_cpu)
        return original(device, optional, allow_cpu)

    return _get_device_index


def _device_count_nvml(ctx):
    count = ctx.musa.device_count

    def _device_count_nvml():
        return count()

    _device_count_nvml.__module__ = "torch.cuda"
    return _device_count_nvml


def _is_compiled(ctx):
    def _is_compiled():
        """torch.cuda._is_compiled on MUSA: True, as torch.backends.cuda.is_built()."""
        return True

    _is_compiled.__module__ = "torch.cuda"
    return _is_compiled


EMULATIONS = {
    "_get_device_index": _get_device_index,
    "_device_count_nvml": _device_count_nvml,
    "_is_compiled": _is_compiled,
}


def apply(ctx):
    import torch.cuda  # noqa: F401

    torch = ctx.torch
    original_index = torch.cuda._utils._get_device_index
    _kit.apply_rows(ctx, EMULATIONS)
    index = torch.cuda._get_device_index
    modules = _kit.loaded_modules("torch.cuda")
    _kit.rebind_everywhere(ctx, modules, "_get_device_index", original_index, index)
    ctx_manager = sys.modules.get("torch._dynamo.variables.ctx_manager")
    device_variable = getattr(ctx_manager, "CUDADeviceVariable", None)
    if device_variable is not None and "_get_device_index_fn" in vars(device_variable):
        ctx.setattr(device_variable, "_get_device_index_fn", staticmethod(index))
    musac = ctx.musa._MUSAC  # torch.musa is the torch_musa module
    for cuda_name, musa_name in C_NAMES.items():
        target = getattr(musac, musa_name, None)
        if target is not None:
            ctx.setattr(torch._C, cuda_name, target)
