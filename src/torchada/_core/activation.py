"""Activation on MUSA: build the registry, install the finder, handle triggers already imported."""

import threading

from torchada._core import finder as _finder
from torchada._core.registry import Registry

# Watched even when no area uses them yet, so integrations can be added without new hooks.
BASE_TRIGGERS = frozenset({
    "torch", "torch.distributed", "torch.utils.cpp_extension", "torch._inductor", "triton",
    "vllm", "sglang", "flash_attn_interface", "sgl_kernel",
})

_lock = threading.Lock()
registry = None
reason = None


def area_rows():
    from torchada.areas.manifest import AREAS

    return AREAS


def area_names():
    return [area.name for area in area_rows()]


def activate_musa(why, names=None, package="torchada.areas"):
    """``names``: manifest rows (default: torchada.areas.manifest.AREAS)."""
    # Idempotent: a second call (a .pth processed twice, an explicit import) does nothing.
    global registry, reason
    with _lock:
        if registry is not None:
            return registry
        registry = Registry("musa", area_rows() if names is None else names, package)
        reason = why
        watched = BASE_TRIGGERS | registry.triggers
        _finder.install(_finder.TorchadaFinder(watched, lambda name: registry.process(),
                                               registry.provided, registry.provide))
    registry.process()  # triggers imported before activation (an earlier sitecustomize)
    return registry


def deactivate(revert=True):
    """Remove the finder (and by default undo every applied area)."""
    _finder.uninstall()
    if registry is not None and revert:
        registry.revert()
