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
