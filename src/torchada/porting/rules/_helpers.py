"""Small helpers for writing rule tables as data (no torch, stdlib only)."""


def words(block):
    """Split a whitespace-separated block of names into a tuple."""
    return tuple(block.split())


def swap_prefix(names, old, new):
    """Map each name starting with ``old`` to the same name starting with ``new``."""
    out = {}
    for name in names:
        if not name.startswith(old):
            raise ValueError("%r does not start with %r" % (name, old))
        out[name] = new + name[len(old):]
    return out


def swap_infix(names, old, new):
    """Map each name to the name with the first ``old`` replaced by ``new``."""
    out = {}
    for name in names:
        if old not in name:
            raise ValueError("%r does not contain %r" % (name, old))
        out[name] = name.replace(old, new, 1)
    return out
