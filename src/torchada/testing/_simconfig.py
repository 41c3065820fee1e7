"""Environment knobs of the simulated torch_musa (read once per process, never written).

A malformed value gives one warning naming the variable and the accepted values, and the
default is used.  See docs/simulator.md for the list.
"""
from __future__ import annotations

import functools
import os
import re
import warnings
from dataclasses import dataclass, field

MAX_DEVICES = 16

# Modelled vendor defects: each names its evidence and the releases it applies to.  The
# predicates take a packaging Version of the simulated torch_musa release.  A defect with
# no evidenced release is off by default; TORCHADA_SIM_DEFECTS=+NAME turns it on for tests
# of the fix.  docs/simulator.md ("Defects") has the same table.
DEFECTS = {
    # mm/bmm with out_dtype= write zeros / wrong values.  Evidence: issue 11 (fix needed
    # below torch_musa 2.13.0, decided by a runtime probe); the wrong values are modelled for
    # 2.11.0.post1 only, the release the seed's fix table names.  Other releases: unknown.
    "mm_out_dtype": lambda v: v.release[:3] == (2, 11, 0) and v.post == 1,
    # torch.accelerator memory APIs raise.  Evidence: the seed's fix range (< 2.11.0.post2),
    # restated in issue 07.
    "accelerator_memory": lambda v: v < _V("2.11.0.post2"),
    # In-place float64 log_ has no kernel.  Evidence: issue 11 (fix range < 2.11.0.post2);
    # 2.7.1 is excluded because its log_ goes through muDNN, which takes Double (issue 06's
    # reading of the 2.7.1 source).  Releases between: assumed affected (the fix range).
    "log_f64_inplace": lambda v: _V("2.7.1") < v < _V("2.11.0.post2"),
    # About 2048 live graph executables per process: a driver limit, so every release.
    # Evidence: issue 10 (the serving-depth limit it describes).
    "graph_exec_cap": lambda v: True,
    # mul of two bool tensors blocks the host until the device queue drains, so ATen's
    # composite isfinite (which multiplies two bool masks) cannot run in graph capture.
    # Evidence: the seed README's fix table ("always", every release).
    "blocking_bool_mul": lambda v: True,
}

def default_release() -> str:
    """The simulated release when TORCHADA_SIM_TORCH_MUSA_VERSION is unset: the newest
    profile whose torch minimum the installed torch meets (2.7.x -> 2.7.1, 2.9.x ->
    2.9.1.post1, >= 2.11 -> 2.11.0.post2; torchada.testing.torch_musa_api)."""
    import torch

    from torchada.testing.torch_musa_api import profile_for_torch

    return profile_for_torch(torch.__version__)


def torch_requirement(release: str) -> dict:
    """{"minimum", "pinned"}: the torch a release requires and the one it is built for
    (torch_musa/__init__.py of the release: RuntimeError below the minimum, a UserWarning
    unless the pinned version is in torch.__version__)."""
    from torchada.testing.torch_musa_api import PROFILES, api

    if release in PROFILES:
        return api(release)["torch"]
    base = _V(release).base_version  # another label: a build for its own torch series
    return {"minimum": base, "pinned": base}


def _V(s):
    from packaging.version import Version

    return Version(s)


def _warn(var: str, value: str, accepted: str, default) -> None:
    warnings.warn(
        f"torchada simulator: ignoring {var}={value!r}; accepted values: {accepted}. "
        f"Using the default ({default!r}).",
        RuntimeWarning,
        stacklevel=3,
    )


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B?|B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "B": 1, "K": 1000, "KB": 1000, "KIB": 1 << 10, "KI": 1 << 10, "M": 10**6,
          "MB": 10**6, "MIB": 1 << 20, "MI": 1 << 20, "G": 10**9, "GB": 10**9, "GIB": 1 << 30,
          "GI": 1 << 30, "T": 10**12, "TB": 10**12, "TIB": 1 << 40, "TI": 1 << 40}


def parse_size(text: str) -> int:
    m = _SIZE.match(text)
    if not m:
        raise ValueError(text)
    unit = (m.group(2) or "").upper()
    return int(float(m.group(1)) * _UNITS[unit])


@dataclass
class SimConfig:
    physical_count: int = 2
    visible: list = field(default_factory=lambda: [0, 1])
    # The seed's tuned data (fused-MoE configs) target the S5000; its arch: unknown (3.1 guessed).
    name: str = "MTT S5000"
    total_memory: int = 48 << 30
    capability: tuple = (3, 1)
    multi_processor_count: int = 48
    torch_musa_version: str = ""
    musa_version: str = "4030"
    defects: frozenset = frozenset()
    # True when TORCHADA_SIM_TORCH_MUSA_VERSION chose the release: only then does the
    # release's torch pin warn (the default is a build for the installed torch).
    release_chosen: bool = False
    graph_exec_cap: int = 2048
    graph_instantiate_us: int = 300

    @property
    def profile(self) -> str:
        """The simulated profile (2.7.1, 2.9.1.post1 or 2.11.0.post2) this release runs."""
        from torchada.testing.torch_musa_api import profile_for

        return profile_for(self.torch_musa_version)

    @property
    def device_count(self) -> int:
        return len(self.visible)

    def has(self, defect: str) -> bool:
        return defect in self.defects


def _knob(name, default):
    """One knob through its row of torchada's settings table (the parser there; a malformed
    value gets this module's one RuntimeWarning, then ``default``)."""
    from torchada._core.settings import read

    return read(name, default=default, warn=_warn)


def parse_positive_size(text: str) -> int:
    """TORCHADA_SIM_TOTAL_MEMORY's parser: a size above zero, in bytes."""
    size = parse_size(text)
    if size <= 0:
        raise ValueError(text)
    return size


def parse_release(text: str) -> str:
    """TORCHADA_SIM_TORCH_MUSA_VERSION's parser: a PEP 440 version no older than the oldest
    profile, kept as written (it runs the profile of its series: torch_musa_api.profile_for)."""
    from packaging.version import InvalidVersion

    from torchada.testing.torch_musa_api import profile_for

    try:
        profile_for(text)
    except InvalidVersion:
        raise ValueError(text) from None
    return text


def _parse_defects(text: str | None, version) -> frozenset:
    auto = {name for name, pred in DEFECTS.items() if pred(version)}
    if text is None or text.strip().lower() in ("", "auto"):
        return frozenset(auto)
    accepted = "auto, none, all, or a comma list of [+|-]NAME with NAME in " + ", ".join(DEFECTS)
    result = set(auto)
    items = [t.strip() for t in text.split(",") if t.strip()]
    plain = [t for t in items if t[0] not in "+-"]
    if plain:  # a plain list replaces the automatic set
        result = set()
    for item in items:
        low = item.lower()
        if low == "none":
            result = set()
            continue
        if low == "all":
            result = set(DEFECTS)
            continue
        sign, name = (item[0], item[1:]) if item[0] in "+-" else ("+", item)
        if name not in DEFECTS:
            _warn("TORCHADA_SIM_DEFECTS", text, accepted, "auto")
            return frozenset(auto)
        (result.add if sign == "+" else result.discard)(name)
    return frozenset(result)


@functools.lru_cache(maxsize=None)
def config() -> SimConfig:
    c = SimConfig()
    c.torch_musa_version = default_release()
    c.physical_count = _knob("TORCHADA_SIM_DEVICE_COUNT", c.physical_count)
    c.visible = list(range(c.physical_count))
    raw = os.environ.get("MUSA_VISIBLE_DEVICES")
    if raw is not None:
        # Like CUDA_VISIBLE_DEVICES: the list stops at the first invalid entry.
        vis = []
        for tok in raw.split(","):
            tok = tok.strip()
            if not tok.isdigit() or int(tok) >= c.physical_count or int(tok) in vis:
                break
            vis.append(int(tok))
        c.visible = vis
    c.name = _knob("TORCHADA_SIM_DEVICE_NAME", c.name)
    c.total_memory = _knob("TORCHADA_SIM_TOTAL_MEMORY", c.total_memory)
    c.capability = _knob("TORCHADA_SIM_CAPABILITY", c.capability)
    chosen = _knob("TORCHADA_SIM_TORCH_MUSA_VERSION", None)
    c.torch_musa_version = chosen or c.torch_musa_version
    c.release_chosen = chosen is not None and chosen == c.torch_musa_version
    c.musa_version = _knob("TORCHADA_SIM_MUSA_VERSION", c.musa_version)
    c.graph_exec_cap = _knob("TORCHADA_SIM_GRAPH_EXEC_CAP", c.graph_exec_cap)
    c.graph_instantiate_us = _knob("TORCHADA_SIM_GRAPH_INSTANTIATE_US", c.graph_instantiate_us)
    c.defects = _parse_defects(_knob("TORCHADA_SIM_DEFECTS", None), _V(c.torch_musa_version))
    return c
