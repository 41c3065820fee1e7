"""The schema of the area manifest (the rows live in torchada/areas/manifest.py).

A row says everything the finder, the registry, ``status``, the disable switch and the docs
need to know about an area, so none of them imports an area module to learn it.
"""

from dataclasses import dataclass
from typing import Tuple

from torchada._core.gate import Gate

NORMAL = "normal"
# After torch is imported, before torch_musa (which reads its environment at import).
BEFORE_BACKEND = "before-backend"
PHASES = (NORMAL, BEFORE_BACKEND)


@dataclass(frozen=True)
class Fix:
    """A version-gated fix inside an area: its own gate, its own status
    line (``<area>.<fix>``), disabled on its own (``TORCHADA_DISABLE_AREAS=<area>.<fix>``)."""
    name: str
    doc: str
    versions: Tuple[Tuple[str, str], ...] = ()
    needs: Tuple[str, ...] = ()
    evidence: str = ""                      # the release note / issue / measurement
    unknown_version_arms: bool = False      # an unparsable torch_musa version counts as lowest

    def gate(self, platforms=("musa",)):
        return _gate(platforms, self.versions, self.needs, self.unknown_version_arms)


def _gate(platforms, versions, needs, unknown_musa_is_lowest=False):
    versions = dict(versions)
    return Gate(platforms=platforms, torch=versions.pop("torch", None),
                torch_musa=versions.pop("torch_musa", None),
                versions=tuple(versions.items()), needs=tuple(needs),
                unknown_musa_is_lowest=unknown_musa_is_lowest)


def _package(distribution):
    return distribution.replace("-", "_").lower()


@dataclass(frozen=True)
class Area:
    name: str
    triggers: Tuple[str, ...]               # module names whose first import applies it
    doc: str = ""                           # one line: what CUDA API it makes work
    phase: str = NORMAL
    platforms: Tuple[str, ...] = ("musa",)
    # (distribution, specifier) pairs, e.g. (("torch", ">=2.7"), ("triton", ">=3.0")):
    # read from the imported module's __version__ or the distribution metadata, never
    # by importing the distribution.
    versions: Tuple[Tuple[str, str], ...] = ()
    needs: Tuple[str, ...] = ()             # torch.musa attributes it cannot work without
    fixes: Tuple[Fix, ...] = ()
    # Module names the area may supply itself when imported (its module's ``provide``): a
    # stub for a package that is not installed, or an alias for one that cannot work on MUSA.
    provides: Tuple[str, ...] = ()
    # True: the area applies once per trigger module, each time one is imported (the module
    # is ``ctx.module``), with its own status line; a ``versions`` entry naming a trigger's
    # top-level package (dashes as underscores) gates that trigger only.
    per_trigger: bool = False

    def __post_init__(self):
        if self.phase not in PHASES:
            raise ValueError("area %r: phase %r is not one of %s" % (self.name, self.phase, PHASES))
        if not self.triggers or not all(isinstance(t, str) and t for t in self.triggers):
            raise ValueError("area %r needs at least one trigger module name" % self.name)

    def gate(self, trigger=None):
        """The area's gate; for ``trigger`` of a per-trigger row, without the version
        entries that belong to its other triggers' packages."""
        versions = self.versions
        if trigger is not None:
            tops = {t.split(".")[0] for t in self.triggers}
            mine = trigger.split(".")[0]
            versions = tuple((dist, spec) for dist, spec in versions
                             if _package(dist) == mine or _package(dist) not in tops)
        return _gate(self.platforms, versions, self.needs)

    def fix_names(self):
        return ["%s.%s" % (self.name, fix.name) for fix in self.fixes]
