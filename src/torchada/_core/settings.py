"""Environment switches read by the registry, parsed strictly (bad values: one warning)."""

import logging
import os
import re

logger = logging.getLogger("torchada")

DISABLE_AREAS_VAR = "TORCHADA_DISABLE_AREAS"
_AREA_NAME = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$")  # area or area.fix


def disabled_areas(known):
    """Names listed in TORCHADA_DISABLE_AREAS ("*" means every area); ``area.fix`` names one
    fix unit of an area.

    Unknown or malformed names get one warning listing the valid names; the rest still count.
    """
    raw = os.environ.get(DISABLE_AREAS_VAR, "")
    names = [part.strip().lower() for part in raw.replace(";", ",").split(",") if part.strip()]
    if "*" in names:
        return frozenset(known)
    bad = [n for n in names if not _AREA_NAME.match(n) or n not in known]
    if bad:
        logger.warning(
            "%s names unknown areas %s; valid names: %s (or * for all)",
            DISABLE_AREAS_VAR, ", ".join(repr(b) for b in bad), ", ".join(sorted(known)),
        )
    return frozenset(n for n in names if n in known)


_WARNED_VARS = set()


def _bad_value(name, raw, valid, default):
    if name not in _WARNED_VARS:  # one warning per variable per process
        _WARNED_VARS.add(name)
        logger.warning("torchada: %s=%r is not valid (valid: %s); using the default %s",
                       name, raw, valid, default)
    return default


def env_int(name, default, low, high):
    """An integer switch in [low, high]; unset gives ``default``, a bad value one warning
    naming the variable and the range, then ``default``."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        return _bad_value(name, raw, "an integer in %d..%d" % (low, high), default)
    if not low <= value <= high:
        return _bad_value(name, raw, "an integer in %d..%d" % (low, high), default)
    return value


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def env_flag(name, default):
    """A 1/0 switch (true/false, yes/no, on/off accepted); bad values: one warning, default."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    low = raw.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    return _bad_value(name, raw, "1 or 0", "1" if default else "0") == "1"
