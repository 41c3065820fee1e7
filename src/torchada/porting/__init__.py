"""CUDA -> MUSA source porter.

Pure functions: ``port_text(text)`` -> PortResult(text, edits, findings).
Files: ``port_paths(paths, dry_run=False)``, ``revert_paths(paths)`` (walker).
Scans: ``scan_unsupported(text)``, ``scan_unmapped(text)``.
Command line: ``torchada port PATH`` or ``python -m torchada.porting PATH``.
Never imports torch.
"""
from .engine import Edit, Finding, Porter, PortResult, default_porter, line_of, port_text
from .scan import scan_unmapped, scan_unsupported
from .walker import PortError, parse_exclude_dirs, port_paths, revert_paths

__all__ = [
    "Edit", "Finding", "Porter", "PortResult", "PortError", "default_porter", "line_of",
    "port_text", "port_paths", "revert_paths", "parse_exclude_dirs", "scan_unmapped",
    "scan_unsupported", "rule_counts",
]


def rule_counts():
    """{domain: number of rules}."""
    from .rules import tables

    return tables().counts()
