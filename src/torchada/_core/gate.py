"""When an area may apply: platform, version ranges of any distribution, needed torch.musa
attributes."""

import sys
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Gate:
    platforms: Tuple[str, ...] = ("musa",)
    torch: Optional[str] = None        # a packaging SpecifierSet, e.g. ">=2.7,<2.11"
    torch_musa: Optional[str] = None
    versions: Tuple[Tuple[str, str], ...] = ()  # other distributions: (name, specifier)
    needs: Tuple[str, ...] = ()                 # torch.musa attributes that must exist
    # A torch_musa version that is absent or not PEP 440 counts as the lowest release (the
    # fix arms) instead of skipping: for fixes whose range starts at the oldest release.
    unknown_musa_is_lowest: bool = False

    def check(self, platform, torch_version, torch_musa_version):
        """None when the area may apply, else the reason it is skipped."""
        if platform not in self.platforms:
            return "platform is %s (area runs on %s)" % (platform, ", ".join(self.platforms))
        for label, spec, version in (
            ("torch", self.torch, torch_version),
            ("torch_musa", self.torch_musa, torch_musa_version),
        ):
            if spec and not version_in(version, spec):
                if (label == "torch_musa" and self.unknown_musa_is_lowest
                        and not parsable(version)):
                    continue
                return "%s %s not in %s" % (label, version or "(absent)", spec)
        for label, spec in self.versions:
            version = dist_version(label)
            if not version_in(version, spec):
                return "%s %s not in %s" % (label, version or "(absent)", spec)
        if self.needs:
            musa = getattr(sys.modules.get("torch"), "musa", None)
            if musa is None:
                return "torch.musa is missing (torch_musa did not register it)"
            missing = [n for n in self.needs if getattr(musa, n, None) is None]
            if missing:
                return "torch.musa.%s is missing" % ", torch.musa.".join(missing)
        return None


def version_in(version, spec):
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    if not version:
        return False
    try:
        # Local labels (+cpu, +git...) say nothing about API level.
        return Version(str(version).split("+")[0]) in SpecifierSet(spec, prereleases=True)
    except InvalidVersion:
        return False


def parsable(version):
    from packaging.version import InvalidVersion, Version

    try:
        Version(str(version).split("+")[0])
        return bool(version)
    except InvalidVersion:
        return False


def module_version(name):
    module = sys.modules.get(name)
    return getattr(module, "__version__", None) if module is not None else None


def dist_version(name):
    """A distribution's version without importing it: the module's __version__ when it is
    already imported (the simulated torch_musa has no metadata), else package metadata."""
    version = module_version(name.replace("-", "_"))
    if version:
        return version
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
