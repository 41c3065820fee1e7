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

Bad input: a backend string naming a device torchada cannot map reaches torch unchanged
(its own error) with one warning naming what torchada translated; "nccl" on a torch_musa
built without MCCL raises at ``init_process_group`` naming the fix.

torch_musa APIs relied on: the "mccl" backend it registers for the musa device
(torch_musa/csrc/distributed/Register.cpp), ``torch.distributed.is_mccl_available``,
``torch.distributed.ProcessGroupMCCL``, torch.musa.mccl.version.
"""
import logging
import sys

from torchada.areas import _kit

logger = logging.getLogger("torchada")
GROUP_FUNCTIONS = ("init_process_group", "new_group", "new_subgroups",
                   "new_subgroups_by_enumeration", "split_group")


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
        return original(*bound.args, **bound.kwargs)

    return wrapper


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
