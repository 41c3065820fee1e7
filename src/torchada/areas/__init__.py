"""CUDA-API areas, one module each (contract: docs/internals.md). Applied in this order."""

AREA_MODULES = (
)
