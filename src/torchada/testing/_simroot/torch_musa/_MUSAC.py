"""Simulated ``torch_musa._MUSAC`` (the real one is a C extension).

Importing it loads the simulator's C++ backend (kernels, allocator, guard, hooks) and
exposes the bindings the real extension has, by the same names.  Bindings the simulator
cannot honour raise RuntimeError naming themselves.
"""
import sys
import threading
import time
import types

import torch

from torchada.testing import _backend
from torchada.testing._simconfig import config

_backend.load()
_cfg = config()
_ops = torch.ops.musa_sim
_ops.configure(_cfg.device_count)
for _i in range(_cfg.device_count):
    _ops.set_memory(_i, _cfg.total_memory, _cfg.total_memory)
_ops.use_device_allocator(not _cfg.has("accelerator_memory"))

# The release's operator set (ops it has no kernel for raise, as on a card) and the kernels
# it has where stock torch has no CPU kernel to fall back on.
from ._sim import cuda_kernels as _cuda_kernels, optable as _optable  # noqa: E402
from ._sim import later_kernels as _later_kernels  # noqa: E402
from torchada.testing import optable as _tables  # noqa: E402

_table_release = _optable.install(_cfg.torch_musa_version)
_cuda_kernels.install()
_later_kernels.install(_tables.registered(_tables.load(_table_release)))

_musa_version = _cfg.musa_version


def _not_simulated(name):
    def f(*args, **kwargs):
        raise RuntimeError(f"torch_musa._MUSAC.{name} is not simulated by torchada.testing")

    f.__name__ = name
    return f


# ----------------------------------------------------------------- device
def _musa_getDeviceCount():
    return _cfg.device_count


def _musa_getDevice():
    return int(_ops.current_device())


def _musa_setDevice(device):
    if device >= 0:
        _ops.set_device(int(device))


def _musa_exchangeDevice(device):
    old = _musa_getDevice()
    if device >= 0:
        _ops.set_device(int(device))
    return old


def _musa_maybeExchangeDevice(device):
    return _musa_exchangeDevice(device)


def _musa_canDeviceAccessPeer(device, peer_device):
    n = _cfg.device_count
    if not (0 <= device < n and 0 <= peer_device < n):
        raise RuntimeError("MUSA error: invalid device ordinal")
    return device != peer_device


def _musa_synchronize():
    _check_not_capturing("torch.musa.synchronize()")


def _musa_init():
    mod = sys.modules["torch_musa"]
    from torch_musa._sim import devprops

    if not getattr(_musa_init, "_fork_hooked", False):
        import os

        os.register_at_fork(after_in_child=_mark_bad_fork)
        _musa_init._fork_hooked = True

    mod.has_half = True
    gens = []
    for i in range(_cfg.device_count):
        g = torch.Generator(device=f"musa:{i}")
        _ops.set_default_generator(i, g)
        gens.append(g)
    mod.default_generators = tuple(gens)
    mod._get_device_properties = devprops._get_device_properties


def _musa_register_device_hook():
    return None


_bad_fork = [False]


def _mark_bad_fork():
    _bad_fork[0] = True


def _musa_isInBadFork():
    # torch/csrc/cuda/Module.cpp poison_fork (ported by torch_musa's Module.cpp, line unknown):
    # once the device is initialised, a forked child may not use it.
    return _bad_fork[0]


def _musa_getArchFlags():
    # csrc/core/Module.cpp:806-815 (v2.7.1) returns the MUSA_ARCH_FLAGS define, which
    # CMakeLists.txt:397,401 makes from TORCH_MUSA_ARCH_LIST joined by spaces: bare arch
    # numbers ("21 22 31"; line 253 prefixes mp_ only for mcc), which musa_extension.py:816
    # reads with int(). Which archs a release is built for: unknown (the card's one here).
    major, minor = _cfg.capability
    return f"{major}{minor}"


def _musa_sleep(cycles):
    time.sleep(max(0, cycles) / 1e9)


def _musa_ipc_collect():
    _ops.ipc_collect()


from ._sim.ipc import _new_shared_musa, _release_ipc_counter_musa, _share_musa_  # noqa: E402,F401


def _musa_getCurrentBlasHandle():
    return 0


def _musa_getCurrentBlasLtHandle():
    return 0


def _musa_clearMublasWorkspaces():
    return None


# ----------------------------------------------------------------- streams
_capture_state = threading.local()
# the graph module owns the set of capturing streams (it starts and ends captures)
from torch_musa._sim.graphsim import capturing_streams as _capturing_streams  # noqa: E402


def _check_not_capturing(what):
    if _capturing_streams:
        raise RuntimeError(
            f"MUSA error: operation not permitted when stream is capturing ({what} during MUSA graph capture)"
        )


def _musa_getCurrentStream(device):
    return (int(_ops.get_stream(device)), int(device), _DEVICE_TYPE)


def _musa_getDefaultStream(device):
    return (0, int(device), _DEVICE_TYPE)


def _musa_getCurrentRawStream(device):
    return int(_ops.get_stream(device))


def _musa_setStream(stream_id=0, device_index=0, device_type=0):
    # Like THCPModule_setStream_wrap (torch/csrc/cuda/Module.cpp), which torch_musa's
    # Module.cpp ports (line: unknown): a stream on another device makes that device current.
    if int(device_index) != _musa_getDevice():
        _ops.set_device(int(device_index))
    _ops.set_stream(int(device_index), int(stream_id))


def _musa_isCurrentStreamCapturing():
    return (_musa_getDevice(), int(_ops.get_stream(_musa_getDevice()))) in _capturing_streams


_DEVICE_TYPE = 20  # c10::DeviceType::PrivateUse1
_next_stream = [1 << 20]
_stream_lock = threading.Lock()


class _MusaStreamBase(torch.Stream):
    """Streams are ordering tokens: simulated kernels run synchronously on the host."""

    def __new__(cls, priority=0, stream_id=None, device_index=None, device_type=0, stream_ptr=0):
        if device_index is None:
            device_index = _musa_getDevice()
        if stream_id is None and not stream_ptr:
            with _stream_lock:
                _next_stream[0] += 1
                stream_id = _next_stream[0]
        elif stream_ptr:
            stream_id = stream_ptr
        self = super().__new__(cls, stream_id=stream_id, device_index=device_index, device_type=_DEVICE_TYPE)
        self._priority = priority
        return self

    def query(self):
        return True

    def synchronize(self):
        _check_not_capturing("Stream.synchronize()")

    @staticmethod
    def priority_range():
        return (0, -1)

    @property
    def musa_stream(self):
        return self.stream_id

    @property
    def priority(self):
        return getattr(self, "_priority", 0)


class _MusaEventBase(torch.Event):
    """The real binding derives from torch.Event (torch_musa/csrc/core/Event.cpp: tp_base is
    THPEventClass, like torch/csrc/cuda/Event.cpp; line unknown), so generic torch.Stream /
    torch.Event code accepts it.  Record/wait/query go through torch.Event to the backend's
    guard, which checks the device; timing uses host time."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False):
        self = super().__new__(cls, device=torch.device("musa", _musa_getDevice()),
                               enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)
        self._timing = bool(enable_timing)
        self._t = None
        self._device = None
        return self

    @property
    def device(self):
        # None until recorded, as THCPEvent_get_device (torch/csrc/cuda/Event.cpp) answers.
        return self._device

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise RuntimeError("torch_musa._MUSAC._MusaEventBase.from_ipc_handle is not simulated by torchada.testing")

    def record(self, stream):
        torch.Event.record(self, stream)
        self._t = time.perf_counter()
        self._device = torch.device("musa", stream.device_index)

    def wait(self, stream):
        torch.Event.wait(self, stream)

    def query(self):
        return True

    def elapsed_time(self, other):
        # Order of the two checks as in c10/cuda/CUDAEvent.h elapsed_time (torch 2.7);
        # torch_musa's MUSAEvent.h is a port (its wording: unknown).
        if not (self._timing and other._timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._t is None or other._t is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (other._t - self._t) * 1000.0

    def synchronize(self):
        _check_not_capturing("Event.synchronize()")

    def ipc_handle(self):
        raise RuntimeError("torch_musa._MUSAC._MusaEventBase.ipc_handle is not simulated by torchada.testing")

    @property
    def musa_event(self):
        return id(self)


# ----------------------------------------------------------------- memory
from torch_musa._sim import memstats as _mem  # noqa: E402

_musa_emptyCache = _mem.empty_cache
_musa_memoryStats = _mem.memory_stats
_musa_resetAccumulatedMemoryStats = _mem.reset_accumulated
_musa_resetPeakMemoryStats = _mem.reset_peak
_musa_memorySnapshot = _mem.snapshot
_musa_setMemoryFraction = _mem.set_fraction
_musa_getAllocatorBackend = lambda: "native"  # noqa: E731
_musa_attach_out_of_memory_observer = _mem.attach_oom_observer
_musa_musaCachingAllocator_set_allocator_settings = lambda env: None  # noqa: E731
_musa_isHistoryEnabled = lambda: False  # noqa: E731


def _musa_record_memory_history_legacy(enabled, record_context, trace_alloc_max_entries,
                                       trace_alloc_record_context, record_context_cpp):
    return None


def _musa_record_memory_history(enabled, context, stacks, max_entries):
    return None


def _graph_pool_handle():
    from torch_musa._sim import graphsim

    return graphsim.new_pool_id()


# ----------------------------------------------------------------- tensors
def _is_musa(temp):
    return temp.device.type == "musa"


def _musa(temp, device=None, non_blocking=False, *, memory_format=None, **kwargs):
    if "async" in kwargs:
        non_blocking = kwargs.pop("async")
    if device is None:
        device = torch.device("musa", _musa_getDevice())
    else:
        device = torch.device(f"musa:{device}" if isinstance(device, int) else device)
        if device.type != "musa":
            raise RuntimeError(f"Invalid device, must be musa device, but got: {device}")
        if device.index is None:
            device = torch.device("musa", _musa_getDevice())
    if memory_format is None:
        memory_format = torch.preserve_format
    return temp.to(device, non_blocking=non_blocking, memory_format=memory_format)


def _edit_device_musa(self, device):
    raise RuntimeError("torch_musa._MUSAC._edit_device_musa is not simulated by torchada.testing")


_allow_tf32 = [True]


def _get_allow_tf32():
    return _allow_tf32[0]


def _set_allow_tf32(arg):
    _allow_tf32[0] = bool(arg)


def _mudnn_version():
    return 2900  # guess: muDNN version number format is not known


def _mccl_version():
    return (2 << 32) | (16 << 16) | 0  # guess


def _mccl_version_suffix():
    return b""


_orig_conv_determine = torch._C._conv_determine_backend_memory_format


def _conv_determine_backend_memory_format(input, weight, backend):
    return _orig_conv_determine(input, weight, backend)


def _empty_strided_musa(size, stride, dtype):
    return torch.empty_strided(size, stride, dtype=dtype, device="musa")


for _name in [
    "_musa_register_unified_allocator", "_musa_get_pluggable_allocator",
    "_musa_register_unified_cpu_allocator", "_musa_reset_unified_cpu_allocator",
    "_musa_musaCachingAllocator_raw_delete", "_musa_changeCurrentAllocator",
    "_storage_Use_Count", "_tensors_data_ptrs_at_indices_equal",
    "_construct_MUSA_Tensor_From_Storage_And_Metadata", "_musa_customAllocator",
    "_musa_beginAllocateToPool", "_musa_beginAllocateCurrentStreamToPool",
    "_musa_endAllocateCurrentStreamToPool", "_musa_releasePool", "_musa_checkPoolLiveAllocations",
    "_musa_getCheckpointState", "_musa_setCheckpointPoolState", "_has_Standard_Deleter",
    "_set_storage_access_error_msg", "_free_And_Remove_DeleterFn", "_broadcast_coalesced",
    "_broadcast", "_scatter", "_gather",
]:
    globals()[_name] = _not_simulated(_name)


# ----------------------------------------------------------------- classes
class _musa_MUSAAllocator:
    pass


_native_allocator = _musa_MUSAAllocator()


def _musa_getAllocator():
    """The native caching allocator (one object, as the real binding returns)."""
    return _native_allocator


class _MUSAPluggableAllocator(_musa_MUSAAllocator):
    def __init__(self, *args, **kwargs):
        raise RuntimeError("MUSAPluggableAllocator is not simulated by torchada.testing")


class _musa_MUSAAllocator_AllocatorState:
    pass


class _MemPool:
    _next = [0]

    def __init__(self, allocator=None, is_user_created=True, use_on_oom=False, no_split=False):
        _MemPool._next[0] += 1
        self._id = (0, _MemPool._next[0]) if is_user_created else (_MemPool._next[0], 0)
        self._allocator = allocator
        self.use_on_oom, self.no_split = bool(use_on_oom), bool(no_split)

    @property
    def id(self):
        return self._id

    @property
    def allocator(self):
        return self._allocator


class _MemPoolContext:
    _active = [None]

    def __init__(self, pool):
        self._prev = _MemPoolContext._active[0]
        _MemPoolContext._active[0] = pool

    @staticmethod
    def activate_pool():
        return _MemPoolContext._active[0]


from torch_musa._sim.devprops import _MusaDeviceProperties  # noqa: E402,F401
from torch_musa._sim.graphsim import _MUSAGraph  # noqa: E402,F401

# ----------------------------------------------------------------- submodules
_musart = types.ModuleType("torch_musa._MUSAC._musart", "libmusart.so bindings")


class _MusaErrorEnum(int):
    pass


_musart.musaError = types.SimpleNamespace(success=0)
_musart.musaGetErrorString = lambda error: "no error" if int(error) == 0 else f"error {int(error)}"
_musart.musaHostRegister = lambda ptr, size, flags: 0
_musart.musaHostUnregister = lambda ptr: 0
_musart.musaStreamCreate = lambda ptr: 0
_musart.musaStreamDestroy = lambda ptr: 0
_musart.musaMemGetInfo = lambda device: _mem.mem_get_info(device)

_aoti = types.ModuleType("torch_musa._MUSAC._aoti")


class AOTIModelContainerRunnerMusa:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("AOTIModelContainerRunnerMusa is not simulated by torchada.testing")


_aoti.AOTIModelContainerRunnerMusa = AOTIModelContainerRunnerMusa

# ----------------------------------------------------------------- mccl
from torch_musa._sim import mccl as _mccl  # noqa: E402

_mccl.register()

from torch_musa._sim import autocast as _autocast  # noqa: E402

_autocast.install()

from torch_musa._sim import autograd_fallback as _autograd_fallback  # noqa: E402

_autograd_fallback.install()

# ----------------------------------------------------------------- comm (PythonComm.cpp)
from torch_musa._sim.comm import _broadcast, _broadcast_coalesced, _gather, _scatter  # noqa: E402,F401

# Bindings later releases add (torch_musa._sim.releases says which release has which).
from torch_musa._sim import release_bindings as _release_bindings  # noqa: E402

_release_bindings.install(globals())
