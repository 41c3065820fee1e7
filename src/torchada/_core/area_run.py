"""Running one area: its context, its ``apply(ctx)``, then each fix unit under its own
savepoint. The registry calls ``run`` for every application; tests call it to apply an
area module by hand.

Bookkeeping lives here, not in the areas: a unit that raises is rolled back alone and
reported failed, while the rest of the area stays (OpenTelemetry's instrumentors keep the
same split: the base class records, the subclass only patches).
"""

import inspect
import logging
import sys

from torchada._core import context as _context
from torchada._core import settings

logger = logging.getLogger("torchada")

APPLIED, FAILED = "applied", "failed"


class AreaShapeError(TypeError):
    """An area module that does not match its manifest row (the message says how)."""


def check_shape(module, fix_names):
    """{fix name: unit} for an area module whose units match ``fix_names`` (its manifest
    row's fixes) one to one; AreaShapeError naming both sides otherwise."""
    units = _context.units(module)
    apply = getattr(module, "apply", None)
    if apply is not None and _parameters(apply) != ["ctx"]:
        raise AreaShapeError("%s.apply(%s): an area takes apply(ctx), the context the registry "
                             "builds" % (module.__name__, ", ".join(_parameters(apply))))
    if apply is None and not units:
        raise AreaShapeError("module %s has neither apply(ctx) nor a @_kit.fix unit"
                             % module.__name__)
    missing = [n for n in fix_names if n not in units]
    extra = sorted(n for n in units if n not in fix_names)
    if missing or extra:
        parts = []
        if missing:
            parts.append("manifest fix%s %s ha%s no @_kit.fix unit in %s" % (
                "es" if len(missing) > 1 else "", ", ".join(repr(n) for n in missing),
                "ve" if len(missing) > 1 else "s", module.__name__))
        if extra:
            parts.append("unit%s %s of %s %s not in the manifest row's fixes (%s)" % (
                "s" if len(extra) > 1 else "", ", ".join(repr(n) for n in extra),
                module.__name__, "are" if len(extra) > 1 else "is",
                ", ".join(fix_names) or "none"))
        raise AreaShapeError("; ".join(parts))
    return units


def _parameters(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ["?"]


def run(module, journal, fixes=(), trigger=None, area=None):
    """Apply ``module``: ``apply(ctx)``, then the units named in ``fixes`` (those whose
    gate passed, in manifest order). An exception from ``apply`` propagates (the caller
    rolls the whole area back); a unit's is caught, its writes undone, and the unit
    reported failed. Returns {fix name: (state, reason)} for the units run."""
    area = area or module.__name__.rsplit(".", 1)[-1]
    units = _context.units(module)
    fired = sys.modules.get(trigger) if trigger else None
    ctx = _context.build(journal, area, fired)
    apply = getattr(module, "apply", None)
    if apply is not None:
        apply(ctx)
    states = {}
    for name in fixes:
        unit = units.get(name)
        if unit is None:  # the registry checks at load; a hand call may name any fix
            states[name] = (FAILED, "no @_kit.fix(%r) unit in %s" % (name, module.__name__))
            continue
        mark = journal.savepoint()
        try:
            unit(ctx)
        except Exception as exc:
            errors = journal.rollback(mark)
            error = one_line(exc)
            states[name] = (FAILED, error)
            logger.warning(
                "torchada: fix %s.%s failed and was rolled back%s: %s. The rest of the area "
                "stays; silence this with %s=%s.%s", area, name,
                " (and %d rollback errors)" % len(errors) if errors else "", error,
                settings.DISABLE_AREAS_VAR, area, name)
            continue
        states[name] = (APPLIED, None)
    return states


def one_line(exc, limit=300):
    """An exception as one short line: warnings must stay one line even for C++ errors."""
    text = " ".join(str(exc).split())
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return "%s: %s" % (type(exc).__name__, text)
