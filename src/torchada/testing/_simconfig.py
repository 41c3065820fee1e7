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

# Known vendor defects and the releases that have them.  The predicates take a
# packaging Version of torch_musa.__version__.
DEFECTS = {
    # mm/bmm with out_dtype= write zeros / wrong values (2.11.0.post1 only).
    "mm_out_dtype": lambda v: v.release[:3] == (2, 11, 0) and v.post == 1,
    # torch.accelerator memory APIs raise before 2.11.0.post2.
    "accelerator_memory": lambda v: v < _V("2.11.0.post2"),
    # In-place log_ has no float64 kernel.  Releases affected: unknown, assumed all (guess).
    "log_f64_inplace": lambda v: True,
    # About 2048 live graph executables per process.  Assumed all releases (guess).
    "graph_exec_cap": lambda v: True,
    # isfinite synchronises the device (so it raises during graph capture).  Assumed all (guess).
    "blocking_isfinite": lambda v: True,
}


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
    name: str = "MTT S4000"
    total_memory: int = 48 << 30
    capability: tuple = (2, 2)
    multi_processor_count: int = 48
    torch_musa_version: str = "2.7.1"
    musa_version: str = "4030"
    defects: frozenset = frozenset()
    graph_exec_cap: int = 2048

    @property
    def device_count(self) -> int:
        return len(self.visible)

    def has(self, defect: str) -> bool:
        return defect in self.defects


def _env(name):
    v = os.environ.get(name)
    return None if v is None else v


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
    raw = _env("TORCHADA_SIM_DEVICE_COUNT")
    if raw is not None:
        try:
            n = int(raw)
            if not 0 <= n <= MAX_DEVICES:
                raise ValueError
            c.physical_count = n
        except ValueError:
            _warn("TORCHADA_SIM_DEVICE_COUNT", raw, f"an integer 0..{MAX_DEVICES}", 2)
    c.visible = list(range(c.physical_count))
    raw = _env("MUSA_VISIBLE_DEVICES")
    if raw is not None:
        # Like CUDA_VISIBLE_DEVICES: the list stops at the first invalid entry.
        vis = []
        for tok in raw.split(","):
            tok = tok.strip()
            if not tok.isdigit() or int(tok) >= c.physical_count or int(tok) in vis:
                break
            vis.append(int(tok))
        c.visible = vis
    raw = _env("TORCHADA_SIM_DEVICE_NAME")
    if raw is not None:
        if raw.strip():
            c.name = raw.strip()
        else:
            _warn("TORCHADA_SIM_DEVICE_NAME", raw, "a non-empty product name", c.name)
    raw = _env("TORCHADA_SIM_TOTAL_MEMORY")
    if raw is not None:
        try:
            c.total_memory = parse_size(raw)
            if c.total_memory <= 0:
                raise ValueError
        except ValueError:
            _warn("TORCHADA_SIM_TOTAL_MEMORY", raw, "bytes, or a size like 48GiB / 512MiB", "48GiB")
            c.total_memory = 48 << 30
    raw = _env("TORCHADA_SIM_CAPABILITY")
    if raw is not None:
        m = re.match(r"^\s*(\d+)\.(\d+)\s*$", raw)
        if m:
            c.capability = (int(m.group(1)), int(m.group(2)))
        else:
            _warn("TORCHADA_SIM_CAPABILITY", raw, "MAJOR.MINOR, e.g. 2.2 or 3.1", "2.2")
    raw = _env("TORCHADA_SIM_TORCH_MUSA_VERSION")
    version = _V(c.torch_musa_version)
    if raw is not None:
        try:
            version = _V(raw.strip())
            c.torch_musa_version = raw.strip()
        except Exception:
            _warn("TORCHADA_SIM_TORCH_MUSA_VERSION", raw, "a PEP 440 version like 2.7.1 or 2.11.0.post2", "2.7.1")
    raw = _env("TORCHADA_SIM_MUSA_VERSION")
    if raw is not None:
        if raw.strip().isdigit():
            c.musa_version = raw.strip()
        else:
            _warn("TORCHADA_SIM_MUSA_VERSION", raw, "the MUSA_VERSION integer as digits, e.g. 4030", "4030")
    raw = _env("TORCHADA_SIM_GRAPH_EXEC_CAP")
    if raw is not None:
        try:
            c.graph_exec_cap = int(raw)
            if c.graph_exec_cap < 1:
                raise ValueError
        except ValueError:
            _warn("TORCHADA_SIM_GRAPH_EXEC_CAP", raw, "a positive integer", 2048)
            c.graph_exec_cap = 2048
    c.defects = _parse_defects(_env("TORCHADA_SIM_DEFECTS"), version)
    return c
