"""torch_musa's operator set, per release, as data generated from its sources.

One JSON file per release, ``torch_musa_<release>_ops.json`` beside this module
(``generate.py`` writes it). Format 1:

* ``release``, ``source`` (repository, ref, commit), ``torch`` (sha256 of the
  native_functions.yaml read; the torch version that generated it), ``generator``.
* ``ops``: one row per (operator overload, dispatch key): ``op`` (``ns::name.overload``),
  ``key`` (``PrivateUse1``, ``QuantizedPrivateUse1``, ...), ``status`` (``registered``,
  ``not-registered`` or ``unknown``), ``source`` (file:line in the release), ``how``,
  ``kernel`` where the source names one, ``reason`` for anything but registered,
  ``patched_torch`` for operators only torch_musa's patched torch defines, ``read_at``
  where the row's file was read at another ref than the release's (a collected tree:
  ``_treesource.py``).
* ``fallbacks``: boxed fallbacks the release registers for a PrivateUse1-family key.
* ``not_read``: what the release's build compiles that the generator could not read.
* ``torch_ops``: every aten overload of the torch the release is built against; an
  operator outside it is one the release never saw (newer torch): unknown, not absent.
"""
from __future__ import annotations

import functools
import json
import os

FORMAT = 1
_HERE = os.path.dirname(os.path.abspath(__file__))


def table_path(release: str) -> str:
    return os.path.join(_HERE, "torch_musa_%s_ops.json" % release)


def releases() -> list:
    """Releases with a table, oldest first."""
    from packaging.version import Version
    found = [f[len("torch_musa_"):-len("_ops.json")] for f in os.listdir(_HERE)
             if f.startswith("torch_musa_") and f.endswith("_ops.json")]
    return sorted(found, key=Version)


@functools.lru_cache(maxsize=None)
def load(release: str) -> dict:
    with open(table_path(release), encoding="utf-8") as fh:
        table = json.load(fh)
    if table.get("format") != FORMAT:
        raise ValueError("%s: table format %r, expected %d"
                         % (table_path(release), table.get("format"), FORMAT))
    return table


def table_for(version: str) -> str:
    """The release whose table models torch_musa `version`: the newest table not newer
    than it (the oldest when every table is newer)."""
    from packaging.version import Version
    known = releases()
    fit = [r for r in known if Version(r) <= Version(version)]
    return fit[-1] if fit else known[0]


def registered(table: dict, key: str = "PrivateUse1") -> frozenset:
    """Operator overloads with a kernel registered for `key`."""
    return frozenset(r["op"] for r in table["ops"]
                     if r["key"] == key and r["status"] == "registered")


def registered_ops(release: str):
    """Overloads torch_musa `release` registers for PrivateUse1, from the table modelling it
    (``table_for``: the simulator enforces the same one); None when there is no table."""
    if not releases():
        return None
    return registered(load(table_for(release)))


def known_ops(release: str):
    """Every aten overload of the torch the modelling table was generated against: outside
    it the table decides nothing (the simulator lets such an operator run)."""
    if not releases():
        return None
    return frozenset(load(table_for(release))["torch_ops"])
