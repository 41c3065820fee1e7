"""Distributed training and serving on MUSA: nccl means mccl wherever torch.distributed takes it.

CUDA APIs made to work:
  - ``init_process_group`` / ``new_group`` / ``new_subgroups`` /
    ``new_subgroups_by_enumeration`` / ``split_group`` with ``backend="nccl"`` (any case),
    ``Backend.NCCL`` and device maps (``"cuda:nccl"``, ``"cpu:gloo,cuda:nccl"``): the mccl
    backend on the musa device; ``device_id=`` as an int, ``"cuda:N"`` or a torch.device: the
    musa device. Only arguments the caller passed are changed; the installed torch's own
    signature decides the rest (2.7.1 through 2.13).
  - ``is_nccl_available()``: whether mccl is available.
  - ``torch.distributed.get_backend()``: the truth ("mccl", "cpu:gloo,musa:mccl"), as a
    str that also compares equal to its CUDA spelling ("nccl", ``Backend.NCCL``,
    "cpu:gloo,cuda:nccl"), so CUDA programs' ``== "nccl"`` checks and MUSA-aware
    ``== "mccl"`` checks both hold (torch's own code calls the unwrapped function in
    distributed_c10d and sees the plain name).
  - ``torch.distributed.ProcessGroupNCCL`` (with ``.Options``) where this torch has none:
    torch_musa's ProcessGroupMCCL.
  - ``init_device_mesh("cuda", ...)`` / ``DeviceMesh("cuda", ...)``: a musa mesh (DTensor,
    FSDP2 ``fully_shard`` build on it).
  - ``torch.cuda.nccl``: ``version()`` is MCCL's, ``is_available(tensors)`` False (torch_musa
    has no NCCL-style Python collectives), the collectives raise NotImplementedError naming
    the torch_musa release and torch.distributed (the table's nccl rows).

MCCL communicators of a group made with a known device (``device_id=``, or a group inheriting
the default group's bound device) exist when the call returns, as NCCL's do on CUDA: torchada
connects the backend itself when the installed torch did not (stock torch connects only
backends that support splitting; ProcessGroupMCCL does not). TORCHADA_MCCL_EAGER_INIT=0 keeps
them lazy: the group's eager connect is skipped while it is made, so its first collective
makes the communicator (docs/distributed.md says why both exist).

Bad input: a backend string naming a device torchada cannot map reaches torch unchanged
(its own error) with one warning naming what torchada translated; "nccl" on a torch_musa
built without MCCL raises at ``init_process_group`` naming the fix.

torch_musa APIs relied on: the "mccl" backend it registers for the musa device
(torch_musa/csrc/distributed/Register.cpp), ``torch.distributed.is_mccl_available``,
``torch.distributed.ProcessGroupMCCL`` (its ``_is_initialized`` and
``eager_connect_single_device``: Register.cpp, ProcessGroupMCCL.cpp:821-826 and 851-863 at
v2.7.1), torch.musa.mccl.version.
"""
import logging
import sys
import threading

from torchada.areas import _kit

logger = logging.getLogger("torchada")
GROUP_FUNCTIONS = ("init_process_group", "new_group", "new_subgroups",
                   "new_subgroups_by_enumeration", "split_group")
# Depth of group creations running with TORCHADA_MCCL_EAGER_INIT=0 on this thread: while
# above zero, the MCCL backend's eager connect is skipped (the first collective connects).
_LAZY = threading.local()


def _nccl_is_available(ctx):
    def is_available(tensors):
        return False

    is_available.__module__ = "torch.cuda.nccl"
    return is_available


EMULATIONS = {"nccl.is_available": _nccl_is_available}


def musa_backend(backend):
    """A backend argument with nccl -> mccl and the cuda device -> musa; None unchanged.

    Returns (translated, untranslatable device names)."""
    if not isinstance(backend, str):
        return backend, []
    if ":" not in backend:
        return ("mccl" if backend.lower() == "nccl" else backend), []
    pairs, unknown = [], []
    for part in backend.split(","):
        device, sep, name = part.strip().partition(":")
        if not sep:
            pairs.append(part.strip())
            continue
        if device.lower() == "cuda":
            device = "musa"
        elif device.lower() not in ("cpu", "musa", "meta"):
            unknown.append(device)
        if name.strip().lower() == "nccl":
            name = "mccl"
        pairs.append("%s:%s" % (device, name.strip()))
    return ",".join(pairs), unknown


def musa_device_id(device_id, torch):
    if isinstance(device_id, bool) or device_id is None:
        return device_id
    if isinstance(device_id, int):
        return torch.device("musa", device_id)
    if isinstance(device_id, str):
        return torch.device(device_id)  # "cuda:N" is musa:N under the devices area
    if isinstance(device_id, torch.device) and device_id.type == "cuda":
        return torch.device("musa", device_id.index)
    return device_id


def _group_function(ctx, original):
    import inspect

    torch = ctx.torch
    try:
        signature = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    @_kit.wraps(original)
    def wrapper(*args, **kwargs):
        if signature is None:
            return original(*args, **kwargs)
        try:
            bound = signature.bind_partial(*args, **kwargs)
        except TypeError:
            return original(*args, **kwargs)  # torch's own error for a bad call
        arguments = bound.arguments
        if "backend" in arguments:
            given = arguments["backend"]
            arguments["backend"], unknown = musa_backend(given)
            if unknown:
                logger.warning("torchada: backend %r: torchada translated nccl -> mccl and "
                               "cuda -> musa; it cannot map the device(s) %s", given,
                               ", ".join(unknown))
            if arguments["backend"] != given and "mccl" in str(arguments["backend"]):
                _require_mccl(torch, given)
        if "device_id" in arguments:
            arguments["device_id"] = musa_device_id(arguments["device_id"], torch)
        if not _eager_init():
            return _lazily(original, bound)
        result = original(*bound.args, **bound.kwargs)
        group = _made_group(torch, original.__name__, result)
        if group is not None:
            connect_eagerly(torch, group, arguments.get("device_id"))
        return result

    return wrapper


def _eager_init():
    from torchada._core import settings

    return settings.read("TORCHADA_MCCL_EAGER_INIT")


def _lazily(original, bound):
    _LAZY.depth = getattr(_LAZY, "depth", 0) + 1
    try:
        return original(*bound.args, **bound.kwargs)
    finally:
        _LAZY.depth -= 1


def _made_group(torch, name, result):
    """The group a group function just made on this rank (None: not a member, or none)."""
    c10d = torch.distributed.distributed_c10d
    if name == "init_process_group":
        return c10d._get_default_group() if c10d.is_initialized() else None
    return result if isinstance(result, c10d.ProcessGroup) else None


def connect_eagerly(torch, group, device):
    """Make ``group``'s MCCL communicator on ``device`` (else its bound device) now, unless
    torch already did: ProcessGroupMCCL's eager connect makes a new communicator on every
    call, so it is asked only while the backend reports none."""
    if device is None:
        device = getattr(group, "bound_device_id", None)
    mccl = getattr(torch.distributed, "ProcessGroupMCCL", None)
    if mccl is None or not isinstance(device, torch.device) or device.type != "musa":
        return
    try:
        backend = group._get_backend(device)
    except RuntimeError:
        return  # no backend for the musa device (a gloo-only group)
    if isinstance(backend, mccl) and hasattr(backend, "_is_initialized"):
        if not backend._is_initialized():
            backend.eager_connect_single_device(device)


def _lazy_aware(original):
    @_kit.wraps(original)
    def eager_connect_single_device(self, device):
        if getattr(_LAZY, "depth", 0):
            return None  # TORCHADA_MCCL_EAGER_INIT=0: the first collective connects
        return original(self, device)

    return eager_connect_single_device


def _require_mccl(torch, given):
    available = getattr(torch.distributed, "is_mccl_available", None)
    if available is None or not available():
        raise RuntimeError("backend %r means mccl on MUSA, but this torch_musa has no MCCL "
                           "(built with USE_MCCL=0?). Install a torch_musa built with MCCL, or "
                           "use backend='gloo'" % (given,))


class BackendName(str):
    """What torch.distributed.get_backend() returns for an mccl group: the real name
    ("mccl", "cpu:gloo,musa:mccl"), which also compares equal to its CUDA spelling ("nccl",
    Backend.NCCL, "cpu:gloo,cuda:nccl"), so programs written for CUDA and for MUSA both
    take their GPU branch. Hash and str are the real name's."""

    __slots__ = ()

    def __eq__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        return str.__eq__(self, other) or str.__eq__(self, musa_backend(str(other))[0])

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__


def _get_backend(original):
    @_kit.wraps(original)
    def get_backend(*args, **kwargs):
        name = original(*args, **kwargs)
        return BackendName(name) if isinstance(name, str) and "mccl" in name else name

    return get_backend


def _is_nccl_available(torch):
    def is_nccl_available():
        """torch.distributed.is_nccl_available on MUSA: whether mccl is available."""
        available = getattr(torch.distributed, "is_mccl_available", None)
        return bool(available()) if available is not None else False

    return is_nccl_available


def _musa_device_type(device_type):
    return "musa" if device_type == "cuda" else device_type


def apply(ctx):
    import torch.cuda  # noqa: F401
    import torch.distributed as dist

    _kit.apply_rows(ctx, EMULATIONS)
    if not dist.is_available():
        return
    import torch.distributed.distributed_c10d as c10d

    modules = _kit.loaded_modules("torch.distributed")
    for name in GROUP_FUNCTIONS:
        original = getattr(c10d, name, None)
        if original is not None:
            _kit.rebind_everywhere(ctx, modules, name, original, _group_function(ctx, original))
    # Package attributes only: torch's own code (distributed_c10d's globals) keeps asking
    # about NCCL itself and sees the plain "mccl" backend name.
    ctx.setattr(dist, "is_nccl_available",
                _kit.wraps(c10d.is_nccl_available)(_is_nccl_available(ctx.torch)))
    ctx.setattr(dist, "get_backend", _get_backend(c10d.get_backend))
    mccl_group = getattr(dist, "ProcessGroupMCCL", None)
    if mccl_group is not None and not hasattr(dist, "ProcessGroupNCCL"):
        ctx.setattr(dist, "ProcessGroupNCCL", mccl_group)
    connect = getattr(mccl_group, "eager_connect_single_device", None)
    if connect is not None:
        ctx.setattr(mccl_group, "eager_connect_single_device", _lazy_aware(connect))
    mesh = sys.modules.get("torch.distributed.device_mesh")
    if mesh is not None and hasattr(mesh, "init_device_mesh"):
        init_mesh = mesh.init_device_mesh
        _kit.rebind_everywhere(ctx, modules, "init_device_mesh", init_mesh,
                               _kit.map_argument(init_mesh, 0, "device_type",
                                                 _musa_device_type))
        device_mesh = getattr(mesh, "DeviceMesh", None)
        if isinstance(device_mesh, type) and "__init__" in vars(device_mesh):
            ctx.setattr(device_mesh, "__init__",
                        _kit.map_argument(vars(device_mesh)["__init__"], 1, "device_type",
                                          _musa_device_type))
