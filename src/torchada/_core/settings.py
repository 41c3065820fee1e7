"""Every switch is read here, through its row of the settings table (settings_table.py):
parsed strictly, a malformed value gets one warning naming it, then the default."""

import logging
import os
import re

from torchada._core.setting_parsers import BadValue
from torchada._core.warn_once import warn_once

logger = logging.getLogger("torchada")

DISABLE_AREAS_VAR = "TORCHADA_DISABLE_AREAS"
_AREA_NAME = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$")  # area or area.fix


def disabled_areas(known):
    """Names listed in TORCHADA_DISABLE_AREAS ("*" means every area); ``area.fix`` names one
    fix unit of an area.

    Unknown or malformed names get one warning listing the valid names; the rest still count.
    """
    names = read(DISABLE_AREAS_VAR)
    if "*" in names:
        return frozenset(known)
    bad = [n for n in names if not _AREA_NAME.match(n) or n not in known]
    if bad:
        logger.warning(
            "%s names unknown areas %s; valid names: %s (or * for all)",
            DISABLE_AREAS_VAR, ", ".join(repr(b) for b in bad), ", ".join(sorted(known)),
        )
    return frozenset(n for n in names if n in known)


def _bad_value(name, raw, valid, default):
    warn_once("setting:" + name, "torchada: %s=%r is not valid (valid: %s); using the default %s",
              name, raw, valid, default)
    return default


_ROW_DEFAULT = object()


def row(name):
    """The settings table's row for ``name`` (a family member such as
    ``TORCHADA_DISABLE_OP_OVERRIDE_log`` finds ``TORCHADA_DISABLE_OP_OVERRIDE_<op>``).
    A name without a row is a bug here, not a user error: KeyError."""
    from torchada._core.settings_table import ROWS

    found = ROWS.get(name)
    if found is None:
        for key, candidate in ROWS.items():
            if key.endswith(">") and name.startswith(key[:key.rindex("<")]):
                return candidate
        raise KeyError("%s has no row in torchada/_core/settings_table.py" % name)
    return found


def read(name, environ=None, default=_ROW_DEFAULT, warn=None):
    """The value of switch ``name`` parsed by its row's parser. Unset or blank: ``default``
    (the row's own unless given). Malformed: one warning per variable naming it and what it
    accepts (through ``warn(name, raw, accepted, default)`` when given, else the torchada
    logger), then the default."""
    parse = row(name).parse
    if default is _ROW_DEFAULT:
        default = parse.default
    raw = (os.environ if environ is None else environ).get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return parse(raw.strip())
    except BadValue as exc:
        if warn is not None:
            warn(name, raw, exc.accepted, default)
            return default
        return _bad_value(name, raw, exc.accepted, default)


def family(name, members, environ=None):
    """{member: value} for a family row such as ``TORCHADA_DISABLE_OP_OVERRIDE_<op>``; a set
    variable naming no member gets one warning listing the members."""
    environ = os.environ if environ is None else environ
    prefix = name[:name.rindex("<")]
    for key in environ:
        if key.startswith(prefix) and key[len(prefix):] not in members:
            warn_once("setting:" + key, "torchada: %s is not a %s variable (valid: %s); it is "
                      "ignored", key, name, ", ".join(prefix + m for m in members))
    return {m: read(prefix + m, environ) for m in members}

