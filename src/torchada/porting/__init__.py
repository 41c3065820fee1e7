"""CUDA -> MUSA source porter.

Pure functions: ``port_text(text)`` -> PortResult(text, edits, findings).
Files: ``port_paths(paths, dry_run=False)``, ``revert_paths(paths)`` (walker).
Scans: ``scan_unsupported(text)``, ``scan_unmapped(text)``.
Command line: ``torchada port PATH`` or ``python -m torchada.porting PATH``.
Never imports torch. The names below load on first use: the build integration imports
``torchada.porting.<module>`` at activation and must not pay for the rule engine.
"""
import importlib

_EXPORTS = {
    "Edit": "engine", "Finding": "engine", "Porter": "engine", "PortResult": "engine",
    "default_porter": "engine", "line_of": "engine", "port_text": "engine",
    "scan_unmapped": "scan", "scan_unsupported": "scan",
    "PortError": "report", "parse_exclude_dirs": "collect",
    "port_paths": "walker", "revert_paths": "walker",
}

__all__ = sorted(_EXPORTS) + ["rule_counts"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module("." + module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def rule_counts():
    """{domain: number of rules}."""
    from .rules import tables

    return tables().counts()
