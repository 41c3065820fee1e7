"""CUDA-API areas, one module each (contract: docs/internals.md).

The areas themselves are listed, as data, in ``torchada.areas.manifest``. ``AREA_MODULES``
(area -> trigger module names, in application order) is derived from it for callers that
only need the names. Importing this package imports no area module.
"""

from torchada.areas.manifest import AREAS

AREA_MODULES = {area.name: area.triggers for area in AREAS}
