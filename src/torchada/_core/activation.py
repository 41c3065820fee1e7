"""Activation on MUSA: build the registry, install the finder, handle triggers already imported."""

import threading

from torchada._core import finder as _finder
from torchada._core.registry import Registry

_lock = threading.Lock()
registry = None
reason = None


def area_names():
    from torchada.areas import AREA_MODULES

    return AREA_MODULES


def activate_musa(why):
    """Idempotent: a second call (a .pth processed twice, an explicit import) does nothing."""
    global registry, reason
    with _lock:
        if registry is not None:
            return registry
        registry = Registry("musa", area_names())
        reason = why
        _finder.install(_finder.TorchadaFinder(registry.triggers, lambda name: registry.process()))
    registry.process()  # triggers imported before activation (an earlier sitecustomize)
    return registry


def deactivate(revert=True):
    """Remove the finder (and by default undo every applied area)."""
    _finder.uninstall()
    if registry is not None and revert:
        registry.revert()
