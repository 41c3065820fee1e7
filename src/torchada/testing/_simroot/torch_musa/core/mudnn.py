"""torch.backends.mudnn: the module replaces itself in sys.modules with a PropModule."""
import sys
from contextlib import contextmanager

from torch.backends import ContextProp, PropModule, __allow_nonbracketed_mutation

import torch_musa


def version():
    """Get the mudnn version."""
    return torch_musa._MUSAC._mudnn_version()


def set_flags(_allow_tf32: bool):
    orig_flags = (torch_musa._MUSAC._get_allow_tf32(),)
    if _allow_tf32 is not None:
        torch_musa._MUSAC._set_allow_tf32(_allow_tf32)
    return orig_flags


@contextmanager
def flags(allow_tf32=True):
    """Some useful flags to setup. We only have allow_tf32 for now."""
    with __allow_nonbracketed_mutation():
        orig_flags = set_flags(allow_tf32)
    try:
        yield
    finally:
        with __allow_nonbracketed_mutation():
            set_flags(*orig_flags)


class MudnnModule(PropModule):
    """A helper module that enables the hack for the frontend to get mudnn attributes."""

    __all__ = list(["__doc__"])
    allow_tf32 = ContextProp(torch_musa._MUSAC._get_allow_tf32, torch_musa._MUSAC._set_allow_tf32)


sys.modules[__name__] = MudnnModule(sys.modules[__name__], __name__)
