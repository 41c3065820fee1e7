"""The area kit: what every area module uses, so each reads the same way.

The registry passes ``apply(ctx)`` (and each ``@fix("name")`` unit) a context: torch,
torch.musa, the torch_musa version label, the module that fired, notes for ``torchada
status``, lookups ("is torch.musa.X there"), the "not supported on MUSA" and argument errors,
and the journalled writes. ``wraps`` makes a replacement keeping its original's metadata.
``apply_rows(ctx, emulations)`` writes the rows of the torch.cuda table the area owns;
``rebind_everywhere`` follows an object into the modules that imported it by name.
"""
from torchada._core.context import AreaContext, fix, musa_label
from torchada._core.errors import argument_error, unsupported
from .cuda_rows import apply_rows, coverage
from . import kernels
from .rebind import loaded_modules, rebind_everywhere
from .wrap import map_argument, wraps

__all__ = ["AreaContext", "fix", "musa_label", "apply_rows", "coverage",
           "argument_error", "unsupported", "loaded_modules", "rebind_everywhere", "map_argument", "wraps",
           "kernels"]
