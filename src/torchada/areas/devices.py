"""Device strings and ordinals everywhere users pass them.

CUDA APIs made to work on MUSA: ``torch.device("cuda")``, ``"cuda:N"``, ``torch.device("cuda",
N)``, ``torch.device(type="cuda", index=N)``; the ``device=`` keyword of every tensor factory
(zeros, ones, empty, full, rand, randn, randint, randperm, arange, range, linspace, logspace,
eye, tensor, as_tensor, asarray, empty_strided, empty_permuted, scalar_tensor, tril/triu_indices,
window functions, sparse constructors, the whole ``*_like`` family) and of ``Tensor.new_*``;
``Tensor.cuda``, ``Tensor.to``, ``Module.to`` (``Module.cuda`` goes through ``Tensor.cuda``),
``Tensor.pin_memory(device)`` / ``is_pinned(device)``, ``UntypedStorage.cuda`` (so
``torch.load(map_location=lambda s, loc: s.cuda(0))`` works), ``torch.Generator(device=...)``,
``torch.load`` of storages tagged ``cuda:N`` (any ``map_location``: None, str, device, dict,
callable), ``torch.jit.script`` of code that builds a cuda device, ``Tensor.is_cuda`` (True for
MUSA tensors), and ``torch.cuda.is_available()`` behind ``TORCHADA_FORCE_CUDA_AVAILABLE``.

``torch.device`` stays the real C type: its ``tp_new`` slot is replaced (see ``_devices/type_slots``) by a
Python ``__new__`` that looks the arguments up in a dict of ready-made device objects. Where
the interpreter's type layout cannot be verified, the fallback leaves ``torch.device`` alone
(``torch.device("cuda")`` then has type "cuda") and every wrapper also maps cuda device
objects; ``torchada status`` says which one is active, and the route device arguments take
(the C prefilter or the Python wrappers). One mechanism a module: torchada/areas/_devices.

torch_musa APIs relied on: ``rename_privateuse1_backend("musa")`` (device type "musa"),
``torch.musa.is_available``, ``torch.musa.device_count``, ``Tensor.musa`` /
``UntypedStorage.musa``, its ``musa`` deserializer in ``torch.serialization._package_registry``
(and the ``cuda`` entry it replaces with one that raises).
"""

import logging

from torchada.areas import _kit

logger = logging.getLogger("torchada")
FORCE_AVAILABLE_VAR = "TORCHADA_FORCE_CUDA_AVAILABLE"


def _is_available(ctx):
    """torch.cuda.is_available: False on MUSA unless TORCHADA_FORCE_CUDA_AVAILABLE, then
    torch.musa.is_available. Pinned rather than left to torch's own function, whose answer
    follows torch.cuda._is_compiled() and torch._C._cuda_getDeviceCount(), which the
    cuda_private area makes answer for MUSA."""
    if force_cuda_available(warn=lambda msg: logger.warning("torchada: %s", msg)):
        return ctx.musa.is_available

    @_kit.wraps(ctx.torch.cuda.is_available)
    def is_available():
        return False

    return is_available


def force_cuda_available(environ=None, warn=None):
    """TORCHADA_FORCE_CUDA_AVAILABLE through the settings table: True, False; a bad value
    gets one warning (through ``warn(message)`` when given), then False."""
    from torchada._core.settings import read

    def bad(name, raw, accepted, default):
        if warn is not None:
            warn("%s=%r is not valid (valid: %s); using the default 0 (torch.cuda.is_available() "
                 "stays False on MUSA)" % (name, raw, accepted))

    return read(FORCE_AVAILABLE_VAR, environ, warn=bad)


EMULATIONS = {"is_available": _is_available}


def apply(ctx):
    import torch.nn  # noqa: F401  (Module.to)

    from torchada.areas._devices import (factories, mapping, methods, route, script,
                                         serialization, type_slots)

    problem = type_slots.layout_problems(ctx.torch)
    dmap, types = mapping.device_map(ctx.torch, problem)
    mode = type_slots.install(ctx, dmap, types, problem)
    fast, calls = route.choose(ctx)
    ctx.note("torch.device: %s; calls: %s" % (mode, calls))
    wrapped = factories.install(ctx, fast, dmap, types)
    script.register_builtins(ctx, wrapped)
    factories.register_default_device_constructors(ctx, wrapped)
    methods.install(ctx, fast, dmap, types)
    serialization.install(ctx)
    script.install_constants(ctx)
    _kit.apply_rows(ctx, EMULATIONS)  # the is_available row
