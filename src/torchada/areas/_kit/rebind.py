"""Rebinding one object wherever torch's modules imported it by name."""
import sys


def loaded_modules(package):
    """``package`` and its submodules already imported (never imports one)."""
    prefix = package + "."
    return [sys.modules[name] for name in sorted(sys.modules)
            if (name == package or name.startswith(prefix)) and sys.modules[name] is not None]


def rebind_everywhere(ctx, modules, name, original, value):
    """Set ``name`` to ``value`` in each module whose own ``name`` is ``original`` (the same
    object): ``from ._utils import f`` copies survive a rebinding of the source module."""
    for module in modules:
        if module is not None and vars(module).get(name) is original:
            ctx.setattr(module, name, value)
