"""The context every area's ``apply`` works in: torch, torch.musa, its version label, the
journal, notes for ``torchada status``, and the shared error and wrapper helpers."""

from . import errors
from .wrap import wraps


def musa_label(musa):
    """"torch_musa 2.7.1" (local build suffix dropped), for messages naming the release."""
    version = getattr(musa, "__version__", None)
    return "torch_musa %s" % str(version).split("+")[0] if version else \
        "torch_musa (version unknown)"


class AreaContext:
    """Built once per apply: ``ctx = kit.context(journal, __name__)``."""

    def __init__(self, journal, area, torch):
        self.journal = journal
        self.area = area
        self.torch = torch
        self.musa = getattr(torch, "musa", None)
        self.musa_label = musa_label(self.musa)
        self.shared = {}  # builders of one apply share objects here (e.g. one nvtx set)

    # -- torch.musa lookups ---------------------------------------------------------------
    def lookup(self, dotted):
        """``torch.musa.<dotted>``; AttributeError naming the first missing part."""
        obj = self.musa
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj

    def has(self, dotted):
        try:
            self.lookup(dotted)
            return True
        except AttributeError:
            return False

    # -- messages -------------------------------------------------------------------------
    def reason(self, text):
        """A table reason with ``{musa}`` replaced by this torch_musa's label."""
        return text.replace("{musa}", self.musa_label)

    def note(self, text):
        """A line ``torchada status`` shows beside this area."""
        self.journal.note(text)

    def unsupported(self, api, reason, like=None):
        return errors.unsupported(api, self.reason(reason), like=like)

    def argument_error(self, api, argument, value):
        return errors.argument_error(api, argument, value, self.musa_label)

    # -- writes ---------------------------------------------------------------------------
    def setattr(self, owner, name, value):
        return self.journal.setattr(owner, name, value)

    def setitem(self, mapping, key, value):
        self.journal.setitem(mapping, key, value)

    wraps = staticmethod(wraps)


def context(journal, module_name):
    """The context of the area defined in module ``module_name`` (pass ``__name__``): the
    area's name is its module's, whatever the journal is called."""
    import torch

    return AreaContext(journal, module_name.rsplit(".", 1)[-1], torch)
