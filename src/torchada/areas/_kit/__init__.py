"""The area kit: what every area module uses, so each reads the same way.

``ctx = context(journal, __name__)`` gives torch, torch.musa, the torch_musa version label, notes
for ``torchada status``, lookups ("is torch.musa.X there"), the "not supported on MUSA"
and argument errors, and ``wraps`` (a replacement keeping its original's metadata).
``apply_rows(ctx, emulations)`` writes the rows of the torch.cuda table the area owns;
``rebind_everywhere`` follows an object into the modules that imported it by name.
"""
from .context import AreaContext, context, musa_label
from .cuda_rows import apply_rows, coverage
from .errors import argument_error, unsupported
from . import kernels
from .rebind import loaded_modules, rebind_everywhere
from .wrap import map_argument, wraps

__all__ = ["AreaContext", "context", "musa_label", "apply_rows", "coverage",
           "argument_error", "unsupported", "loaded_modules", "rebind_everywhere", "map_argument", "wraps",
           "kernels"]
