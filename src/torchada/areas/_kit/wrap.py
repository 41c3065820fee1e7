"""The one way an area wraps a torch function: the replacement keeps the original's name,
qualname, docstring, module and signature (``__wrapped__``), so ``inspect``, Dynamo's
function tables and users' ``help()`` see torch's function.

The translation report (``_core/trace.py``) wraps installed callables in the journal, not
here: an area's replacement is installed as built unless TORCHADA_TRACE is on."""

import functools

_ASSIGNED = ("__module__", "__name__", "__qualname__", "__doc__")


def wraps(original, *, module=None):
    """Decorator: copy ``original``'s metadata onto the replacement; ``module`` overrides
    ``__module__`` (for replacements that stand in for another module's name)."""
    def decorate(replacement):
        functools.update_wrapper(replacement, original, assigned=_ASSIGNED, updated=())
        if module is not None:
            replacement.__module__ = module
        return replacement

    return decorate


def map_argument(original, position, keyword, convert):
    """``original`` with one argument converted: positional ``position`` (None: keyword
    only) or ``keyword``. For calls made at set-up time (registrations, group and mesh
    creation); per-call hot paths write their own comparison instead of paying for
    ``convert``'s frame."""
    @wraps(original)
    def wrapper(*args, **kwargs):
        if position is not None and len(args) > position:
            args = args[:position] + (convert(args[position]),) + args[position + 1:]
        elif keyword in kwargs:
            kwargs[keyword] = convert(kwargs[keyword])
        return original(*args, **kwargs)

    return wrapper
