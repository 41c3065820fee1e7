"""The context an area works in. The registry builds one per application and passes it to
the area's ``apply(ctx)`` and to each of its fix units (``@fix("name")``): it is the only way
an area writes (``setattr`` / ``setitem`` / ``on_revert``, all journalled, so a failure
rolls back and ``torchada.revert()`` works) and the only way it reports (``note``)."""

from torchada._core import errors

FIX_ATTR = "__torchada_fix__"


def fix(name):
    """Decorator: ``unit(ctx)`` is the fix unit ``name`` of its area's manifest row. The
    registry checks the row's fixes and the module's units one to one when it loads the
    area, and runs each unit whose gate passed under its own savepoint."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError("fix unit name must be an identifier, got %r" % (name,))

    def mark(unit):
        setattr(unit, FIX_ATTR, name)
        return unit

    return mark


def units(module):
    """{fix name: unit} of an area module; ValueError when two functions claim one name."""
    found = {}
    for value in list(vars(module).values()):
        name = getattr(value, FIX_ATTR, None) if callable(value) else None
        if name is None or getattr(value, "__module__", None) != module.__name__:
            continue
        if name in found and found[name] is not value:
            raise ValueError("two functions of %s are fix unit %r: %s and %s" % (
                module.__name__, name, found[name].__name__, value.__name__))
        found[name] = value
    return found


def musa_label(musa):
    """"torch_musa 2.7.1" (local build suffix dropped), for messages naming the release."""
    version = getattr(musa, "__version__", None)
    return "torch_musa %s" % str(version).split("+")[0] if version else \
        "torch_musa (version unknown)"


class AreaContext:
    """torch, torch.musa, the torch_musa label, the module whose import fired the area
    (``module``), lookups, the shared error helpers, and the journalled writes."""

    def __init__(self, journal, area, torch, module=None):
        self.journal = journal
        self.area = area
        self.torch = torch
        self.module = module  # the trigger module that fired this application (or None)
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
        """A line ``torchada status`` shows beside this area: a string, or a function
        returning one (or None), called when status is asked (live numbers)."""
        self.journal.note(text)

    def unsupported(self, api, reason, like=None):
        return errors.unsupported(api, self.reason(reason), like=like)

    def argument_error(self, api, argument, value):
        return errors.argument_error(api, argument, value, self.musa_label)

    # -- writes ---------------------------------------------------------------------------
    def setattr(self, owner, name, value):
        """``owner.name = value``, undone on revert; returns the value it replaced."""
        return self.journal.setattr(owner, name, value)

    def setitem(self, mapping, key, value):
        self.journal.setitem(mapping, key, value)

    def on_revert(self, callback, write=False):
        """``callback()`` when the area (or this unit) is undone; ``write=True`` when the
        step stands for a write ``setattr`` cannot make (a kernel registered, a set
        extended), so status counts it."""
        self.journal.on_revert(callback)
        if write:
            self.journal.writes += 1


def build(journal, area, module=None):
    """The context of one application of ``area`` (torch is imported by then)."""
    import torch

    return AreaContext(journal, area, torch, module)
