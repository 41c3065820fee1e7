"""Simulated torch_musa 2.7.1 / 2.9.1.post1 / 2.11.0.post2 (torchada.testing): the real package's Python API and import
side effects, on a CPU-backed PrivateUse1 device named "musa".  See docs/simulator.md."""
import sys
import warnings
import os
import re
from typing import Set, Type
import contextlib
from packaging.version import Version

import torch

try:
    from .version import __version__
except ImportError:
    pass

from torchada.testing._simconfig import config as _simcfg, torch_requirement as _torch_req  # noqa: E402

# 1. torch version gate of the selected release (torch_musa/__init__.py: v2.7.1 lines 26-38,
# 5e25af7 for 2.9.1.post1; 2.11.0.post2's minimum: unknown, its base version assumed).  Below
# the minimum the real import raises RuntimeError; off the pinned torch it warns.  The default
# release is a build for the installed torch, so only a chosen release warns.
_REQ = _torch_req(_simcfg().torch_musa_version)
TORCH_MIN_VERSION = Version(_REQ["minimum"])
TORCH_VERSION = Version(torch.__version__).base_version
if Version(TORCH_VERSION) < TORCH_MIN_VERSION:
    raise RuntimeError(f"torch_musa {_simcfg().torch_musa_version} requires torch>={TORCH_MIN_VERSION}, "
                       f"but torch {torch.__version__} is installed")
if _simcfg().release_chosen and _REQ["pinned"] not in torch.__version__:
    warnings.warn(f"torch_musa was built against torch {_REQ['pinned']}, but torch {torch.__version__} "
                  "is installed; some features may not work.", UserWarning, stacklevel=2)


def _autoload():
    """Entry point of the 'torch.backends' group; importing the package does the work."""


# 2. PrivateUse1 becomes "musa".  Stock torch imports torch.musa while initialising the
# device, so sys.modules["torch.musa"] must exist before any tensor is made.
if torch._C._get_privateuse1_backend_name() != "musa":
    torch.utils.rename_privateuse1_backend("musa")
sys.modules.setdefault("torch.musa", sys.modules[__name__])

# 3. the "C extension": kernels, allocator, guard, hooks, mccl backend.
from . import _MUSAC  # noqa: E402
torch_musa = sys.modules[__name__]  # leaked by submodules' `import torch_musa` (real quirk)


def _sleep(cycles):
    _MUSAC._musa_sleep(cycles)


_tensor_classes: Set[Type] = set()
from ._sim.legacy_tensors import make_tensor_types as _make_tensor_types  # noqa: E402

for _cls in _make_tensor_types():
    globals()[_cls.__name__] = _cls
    _tensor_classes.add(_cls)
# the patched torch's tensor_types.cpp accepts "torch_musa.<T>Tensor" (its type names)
from ._sim.legacy_tensors import patch_tensor_type as _patch_tensor_type  # noqa: E402

_patch_tensor_type(_tensor_classes)

# 4-5.
torch.__setattr__("musa", sys.modules[__name__])
setattr(torch._C._profiler.ProfilerActivity, "MUSA", torch._C._profiler.ProfilerActivity.PrivateUse1)

# 6.
from . import distributed  # noqa: E402
from .distributed import _apply_distributed_patch  # noqa: E402

# 7-8.
from .core._lazy_init import _lazy_init, _lazy_call, _initialized, _is_in_bad_fork, is_initialized  # noqa: E402
from .core import current_blas_handle, current_blaslt_handle  # noqa: E402
from .core.device import (Device as device, DeviceOf as device_of, set_device, current_device,  # noqa: E402
                          is_available, device_count, synchronize, get_device_name,
                          get_device_capability, get_device_properties, can_device_access_peer,
                          _exchange_device, _maybe_exchange_device, _DeviceGuard, register_musa_hook,
                          get_arch_list, is_bf16_supported, is_tf32_supported,
                          _MusaDeviceProperties)

register_musa_hook()

from .core.stream import (_set_stream_by_id, set_stream, current_stream, default_stream,  # noqa: E402
                          ExternalStream, StreamContext, stream, Stream, Event)
# 9.
from .core import amp  # noqa: E402
from .core.amp.common import amp_definitely_not_available, get_amp_supported_dtype  # noqa: E402
from .core.serialization import register_deserialization  # noqa: E402
from .core import memory  # noqa: E402
from .core.memory import *  # noqa: E402,F401,F403
from .core.random import *  # noqa: E402,F401,F403
from .core.random import fork_rng  # noqa: E402

# 10.
torch.random.fork_rng = fork_rng

# 11.
from .core.ops import register_fake_impl  # noqa: E402

# 12.
from .core.mudnn import *  # noqa: E402,F401,F403

__doc__ = None  # `from .core.mudnn import *` overwrites the docstring with None (real quirk)
torch.backends.__setattr__("mudnn", sys.modules["torch_musa.core.mudnn"])

# 13-14.
register_deserialization()
setattr(torch.version, "musa", _MUSAC._musa_version)

from . import musa_graph  # noqa: E402
from .musa_graph import graphs  # noqa: E402
from .musa_graph import (MUSAGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: E402
                         make_graphed_callables, update_musa_graph_with_profile)
from .core import mccl  # noqa: E402

# 15-19.
from .core.tensor_attrs import set_torch_attributes  # noqa: E402
from .core.module_attrs import set_module_attributes  # noqa: E402
from .core.storage import set_storage_attributes  # noqa: E402
from . import profiler  # noqa: E402
from .profiler import set_profiler_attributes  # noqa: E402
from . import utils  # noqa: E402
from .utils import musa_extension  # noqa: E402
from .utils.musa_extension import BuildExtension, MUSAExtension  # noqa: E402


def set_attributes():
    set_torch_attributes()
    set_module_attributes()
    set_storage_attributes()
    set_profiler_attributes()


set_attributes()


def _apply_sharded_grad_scaler_patch():
    # Importing our module applies the patch at its end (it may already be importing).
    if "torch_musa.distributed.fsdp.sharded_grad_scaler" not in sys.modules:
        import importlib

        importlib.import_module("torch_musa.distributed.fsdp.sharded_grad_scaler")


def _apply_patches():
    # 20. FSDP / DTensor / DeviceMesh patches of the real package are not simulated, but for
    # ShardedGradScaler and FSDP2's fully_shard (applied when torch.distributed.fsdp is
    # imported: see 22-23).
    _apply_distributed_patch()


_apply_patches()

# The patched torch's nn.parallel (comm.py, _functions.py, parallel_apply.py) calls
# torch.musa / _MUSAC; the simulator runs on stock torch, so it patches them the same way.
from ._sim import patched_parallel as _patched_parallel  # noqa: E402

_patched_parallel.apply()
# and its multiprocessing/reductions.py sends musa tensors as CUDA ones (storage sharing).
from ._sim import patched_reductions as _patched_reductions  # noqa: E402

_patched_reductions.apply()


def ipc_collect():
    _lazy_init()
    return _MUSAC._musa_ipc_collect()


# 21.
from .core.reductions import init_reductions  # noqa: E402

init_reductions()

# 22-23. dynamo/inductor/FSDP patches are applied when the program imports those modules
# (see torch_musa._sim.onimport); their names here resolve lazily.
from ._sim.onimport import when_imported  # noqa: E402
from . import _inductor  # noqa: E402
from ._inductor import _init_inductor_backend_registration  # noqa: E402

when_imported("torch._dynamo", lambda _m: __import__("torch_musa._dynamo"))
when_imported("torch.distributed.fsdp.sharded_grad_scaler", lambda _m: _apply_sharded_grad_scaler_patch())
# FSDP2: torch.distributed.fsdp.fully_shard becomes torch_musa's lazily patching wrapper
# (distributed/_composable/fsdp/patch.py:245, applied by _apply_distributed_patch).
when_imported("torch.distributed.fsdp",
              lambda _m: __import__("torch_musa.distributed._composable.fsdp.patch",
                                    fromlist=["_"])._apply_fsdp2_patches())

i = device_count() - 1 if device_count() else 0  # loop variable leaked by the real _dynamo star import
_LAZY_DYNAMO = ("_dynamo", "device_interface", "variables", "trace_rules", "backend", "musagraphs",
                "MusaInterface", "register_interface_for_device", "get_registered_device_interfaces",
                "supported_ctx_manager_classes")


def __getattr__(name):
    if name in _LAZY_DYNAMO:
        import importlib

        mod = importlib.import_module("torch_musa._dynamo")
        return mod if name == "_dynamo" else getattr(mod, name)
    raise AttributeError(f"module 'torch_musa' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_DYNAMO))


# 24.
def overwrite_cuda_api():
    torch.cuda._lazy_init = _lazy_init
    torch.cuda._lazy_call = _lazy_call


overwrite_cuda_api()

# 25.
from .core.ao import nn  # noqa: E402
from .core.ao.register_helper import _register_ao_intrinsic_modules  # noqa: E402

_register_ao_intrinsic_modules()

# 26.
setattr(torch._C, "_conv_determine_backend_memory_format", _MUSAC._conv_determine_backend_memory_format)
OutOfMemoryError = torch._C.OutOfMemoryError

# 27. (called by torch_musa._sim.profile on the releases that call it)
from .core.lowering import apply_lowering_patch  # noqa: E402


def use_unified_cpu_allocator():
    """Not simulated: the unified CPU allocator of the real package."""
    return None


def parseEnvForUMM():
    # 28. The real function writes os.environ["CPU_UNIFIED_FLAG"]; the simulator must not
    # set environment variables, so it only reads PYTORCH_MUSA_ALLOC_CONF.
    if "cpu:unified" in os.environ.get("PYTORCH_MUSA_ALLOC_CONF", ""):
        use_unified_cpu_allocator()


parseEnvForUMM()

# The selected release's namespace and import patches (torch_musa_api profiles).
from ._sim import profile as _profile  # noqa: E402

_profile.apply(sys.modules[__name__])

# Known defects of the selected release (simulator-only; see docs/simulator.md).
from ._sim import defects as _defects  # noqa: E402

_defects.install()

# libmusart.so / libmccl.so loaded into the process, as the real torch_musa's are.
from ._sim import runtime_libs as _runtime_libs  # noqa: E402

_runtime_libs.install()
