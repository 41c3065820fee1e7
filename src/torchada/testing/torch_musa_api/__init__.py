"""The simulated torch_musa releases (profiles) and their recorded ``torch.musa`` API.

One place answers "does release R have API X": ``has_api(name, R)`` reads the
recorded API of R's profile (torch_musa_<release>_api.json, written by
``generate.py`` from the releases' sources).  Profiles:

* 2.7.1         (torch >= 2.7.1)
* 2.9.1.post1   (torch >= 2.9.1)
* 2.11.0.post2  (torch >= 2.11.0)

A release label (TORCHADA_SIM_TORCH_MUSA_VERSION, e.g. 2.11.0.post1) runs the profile of its
series, or the newest older one (2.13.0 -> 2.11.0.post2).
"""
import functools
import json
from pathlib import Path

PROFILES = ("2.7.1", "2.9.1.post1", "2.11.0.post2")
_HERE = Path(__file__).resolve().parent


def _V(text):
    from packaging.version import Version

    return Version(str(text).split("+")[0])


def profile_for(release):
    """The profile a release label runs: same major.minor series, else the newest older;
    ValueError below the oldest profile."""
    v = _V(release)
    for profile in reversed(PROFILES):
        p = _V(profile)
        if v.release[:2] == p.release[:2] or v >= p:
            return profile
    raise ValueError("torch_musa %s is older than every simulated release (%s)"
                     % (release, ", ".join(PROFILES)))


def profile_for_torch(torch_version):
    """The newest profile whose torch minimum the installed torch meets (2.7.x -> 2.7.1,
    2.9.x -> 2.9.1.post1, >= 2.11 -> 2.11.0.post2); the oldest profile below every minimum."""
    tv = _V(_V(torch_version).base_version)
    for profile in reversed(PROFILES):
        if tv >= _V(api(profile)["torch"]["minimum"]):
            return profile
    return PROFILES[0]


@functools.lru_cache(maxsize=None)
def api(profile):
    """The recorded API of a profile (dict: release, commit, torch, names, removed, ...)."""
    return json.loads((_HERE / ("torch_musa_%s_api.json" % profile)).read_text())


def names(profile):
    return frozenset(api(profile)["names"])


def has_api(name, release):
    """Whether ``torch.musa.<name>`` exists at ``release`` (a label; the simulated one is
    ``torchada.testing._simconfig.config().torch_musa_version``)."""
    return name in api(profile_for(release))["names"]


def has_import_patch(key, release):
    """Whether the release patches ``key`` at import (e.g. "torch.backends.musa")."""
    return key in api(profile_for(release))["import_patches"]
