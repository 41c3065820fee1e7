"""Pure helpers of the devices / env_mirror / accelerator areas (no torch_musa needed)."""
import pytest

from torchada.areas import devices, env_mirror
from torchada.areas._devices import mapping, names


@pytest.mark.parametrize("text,expected", [
    ("cuda", "musa"), ("cuda:0", "musa:0"), ("cuda:12", "musa:12"),
    ("cpu", None), ("cuda:", None), ("cuda:01", None), ("cuda:x", None), ("CUDA", None),
    (" cuda", None), ("cuda:1:2", None), ("musa", None), (3, None), (None, None),
])
def test_musa_name(text, expected):
    assert names.musa_name(text) == expected


def test_cuda_words():
    assert names.cuda_words("MUSA error: invalid device ordinal on musa:3") == \
        "CUDA error: invalid device ordinal on cuda:3"
    assert names.cuda_words("at torch_musa/csrc/musa_sim.cpp: Sparsemusa") == \
        "at torch_musa/csrc/musa_sim.cpp: Sparsemusa"
    assert names.cuda_words("torch.musa.device_count() is 2") == "torch.cuda.device_count() is 2"
    err = names.as_cuda_error(RuntimeError("MUSA out of memory"))
    assert type(err) is RuntimeError and str(err) == "CUDA out of memory"
    assert names.as_cuda_error(RuntimeError("nothing to change")) is None


def test_device_map_caches_only_listed_types():
    calls = []

    def build(key):
        calls.append(key)
        return "M" if key == "cuda" else key

    m = mapping.DeviceMap(build, (str,))
    assert m["cuda"] == "M" and m["cuda"] == "M" and m["cpu"] == "cpu"
    assert calls == ["cuda", "cpu"]
    assert m[5] == 5 and m[5] == 5 and calls[-2:] == [5, 5]  # ints not remembered
    assert 5 not in m


def test_device_map_is_bounded(monkeypatch):
    monkeypatch.setattr(mapping, "CACHE_LIMIT", 3)
    m = mapping.DeviceMap(lambda k: k)
    for i in range(10):
        m["s%d" % i]
    assert len(m) == 3


@pytest.mark.parametrize("raw,expected,warns", [
    (None, False, False), ("1", True, False), ("true", True, False), ("ON", True, False),
    ("0", False, False), ("", False, False), ("maybe", False, True), ("2", False, True),
])
def test_force_cuda_available_parse(raw, expected, warns):
    seen = []
    environ = {} if raw is None else {devices.FORCE_AVAILABLE_VAR: raw}
    assert devices.force_cuda_available(environ, seen.append) is expected
    assert bool(seen) is warns
    if warns:
        assert devices.FORCE_AVAILABLE_VAR in seen[0] and "is not valid (valid: 1 or 0" in seen[0]


def test_env_plan_rules():
    sets, warns = env_mirror.plan({"CUDA_VISIBLE_DEVICES": "1,0", "PYTORCH_CUDA_ALLOC_CONF":
                                   "expandable_segments:True"})
    assert sets == [("MUSA_VISIBLE_DEVICES", "1,0"),
                    ("PYTORCH_MUSA_ALLOC_CONF", "expandable_segments:True")] and not warns
    # MUSA's own value wins; differing values give one warning
    sets, warns = env_mirror.plan({"CUDA_VISIBLE_DEVICES": "1", "MUSA_VISIBLE_DEVICES": "0"})
    assert sets == [] and len(warns) == 1 and "MUSA_VISIBLE_DEVICES wins" in warns[0]
    sets, warns = env_mirror.plan({"CUDA_VISIBLE_DEVICES": "1", "MUSA_VISIBLE_DEVICES": "1"})
    assert sets == [] and warns == []
    sets, warns = env_mirror.plan({"CUDA_VISIBLE_DEVICES": "GPU-8e1f-aa"})
    assert sets == [] and "UUID" in warns[0]
    for ok in ("", "-1", "0", " 0, 2 "):
        assert env_mirror.plan({"CUDA_VISIBLE_DEVICES": ok})[0]
    assert env_mirror.plan({}) == ([], [])


@pytest.mark.parametrize("version,needed", [
    ("2.7.1", True), ("2.7.1+8b583b3", True), ("2.11.0", True), ("2.11.0.post1", True),
    ("2.11.0.post2", False), ("2.12.0", False), (None, False),
])
def test_accelerator_memory_fix_versions(version, needed):
    # the fix unit's gate, as the registry evaluates it (the manifest is its one definition)
    from torchada.areas.manifest import AREAS

    fix = next(f for a in AREAS if a.name == "accelerator" for f in a.fixes)
    assert fix.name == "memory_routes"
    assert (fix.gate().check("musa", "2.13.0", version) is None) is needed


def test_area_modules_are_inert_at_import():
    import importlib

    from tests._fresh import run_python

    for name in ("devices", "accelerator", "env_mirror"):
        module = importlib.import_module("torchada.areas." + name)
        assert callable(module.apply) and not hasattr(module, "TRIGGERS")  # manifest owns it
        assert module.__doc__ and "torch_musa APIs relied on" in module.__doc__
    # Importing them in a fresh interpreter loads no torch_musa (this process may have one).
    code = ("import sys, torchada.areas.devices, torchada.areas.accelerator, torchada.areas.env_mirror; "
            "print('torch_musa' in sys.modules)")
    out = run_python(code)
    assert out.stdout.strip() == "False", out.stdout + out.stderr
