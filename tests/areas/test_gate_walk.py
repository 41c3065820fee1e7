"""Every gate of the manifest (areas and their fixes) on every simulated torch_musa release
this torch can run: a gate naming torch_musa releases acts on those and stands aside on the
others, on the release's own behaviour (its defects, its torch.musa namespace); every other
gate decides the same on every release.  One fresh interpreter per release."""
import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests._fresh import last_json, run_sim
from torchada.areas.manifest import AREAS
from torchada.testing.torch_musa_api import PROFILES

TORCH = Version(Version(__import__("torch").__version__).base_version)
# torch_musa/__init__.py of each release: the torch it requires (docs/simulator.md, Profiles)
MINIMUM = {"2.7.1": "2.7.1", "2.9.1.post1": "2.9.1", "2.11.0.post2": "2.11.0"}
RUNNABLE = [p for p in PROFILES if TORCH >= Version(MINIMUM[p])]

WALK = r'''
import json
import torch_musa
from torchada.areas.manifest import AREAS
from torchada.testing._simconfig import config
release = torch_musa.__version__
gates = {}
for area in AREAS:
    gates[area.name] = area.gate().check("musa", torch.__version__, release)
    for fix in area.fixes:
        gates[area.name + "." + fix.name] = fix.gate().check("musa", torch.__version__, release)
status = {}
for row in torchada.status().areas:
    status[row.name] = row.state
    for fix in row.fixes:
        status[fix["name"]] = fix["state"]  # "<area>.<fix>"
# what a CUDA program sees, with the fixes acting or standing aside
x = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64).cuda()
x.log_()
seen = {"log_f64": x.cpu().tolist()}
if hasattr(torch, "accelerator") and hasattr(torch.accelerator, "memory_allocated"):
    keep = torch.ones(1024, device="cuda")
    seen["accelerator_allocated"] = torch.accelerator.memory_allocated(0) >= 4096
try:  # torch >= 2.9: Inductor's template heuristics for musa (torch_musa's or torchada's)
    from torch._inductor.template_heuristics import registry
except ImportError:
    pass
else:
    table = registry._TEMPLATE_HEURISTIC_REGISTRY
    seen["musa_heuristics"] = sorted({c.__name__ for (t, d, o), c in table.items() if d == "musa"})
    seen["musa_mm"] = type(registry.get_template_heuristic("triton::mm", "musa", "mm")).__name__
    status["inductor_heuristics.cuda_entries"] = [
        f["state"] for row in torchada.status().areas if row.name == "inductor_heuristics"
        for f in row.fixes][0]
print(json.dumps({"release": release, "gates": gates, "status": status,
                  "defects": sorted(config().defects), "seen": seen}))
'''

# fix -> the simulator defect it answers (DEFECTS in torchada/testing/_simconfig.py)
ANSWERS = {"accelerator.memory_routes": "accelerator_memory",
           "operator_fixes.log_f64_inplace": "log_f64_inplace"}


@pytest.fixture(scope="module")
def walks():
    return {p: last_json(run_sim(WALK, TORCHADA_SIM_TORCH_MUSA_VERSION=p)) for p in RUNNABLE}


def _gates():
    for area in AREAS:
        yield area.name, area.versions, area.needs
        for fix in area.fixes:
            yield area.name + "." + fix.name, fix.versions, fix.needs


def test_every_gate_on_every_release(walks):
    import torch

    for profile, out in walks.items():
        assert out["release"] == profile
        assert set(out["gates"]) == {name for name, _, _ in _gates()}
        for name, versions, needs in _gates():
            reason = out["gates"][name]
            musa_spec = dict(versions).get("torch_musa")
            torch_spec = dict(versions).get("torch")
            if musa_spec:
                inside = Version(profile) in SpecifierSet(musa_spec, prereleases=True)
                if inside:
                    assert reason is None or "torch_musa" not in reason, (name, profile, reason)
                else:
                    assert reason == "torch_musa %s not in %s" % (profile, musa_spec), (name, profile)
            if torch_spec and reason is None:
                assert TORCH in SpecifierSet(torch_spec)
            # torch.musa names each gate needs exist on every release (its recorded API)
            assert not (reason or "").startswith("torch.musa"), (name, profile, reason)
    # a gate that names no torch_musa release decides the same on every release
    for name, versions, _ in _gates():
        if "torch_musa" not in dict(versions):
            assert len({str(out["gates"][name]) for out in walks.values()}) == 1, name


def test_fixes_act_where_the_release_has_the_defect(walks):
    for profile, out in walks.items():
        for fix, defect in ANSWERS.items():
            # the gate acts exactly on the releases whose behaviour needs it
            assert (out["gates"][fix] is None) == (defect in out["defects"]), (fix, profile)
            area = fix.split(".")[0]
            if out["status"].get(area) == "applied":
                want = "applied" if out["gates"][fix] is None else "skipped"
                assert out["status"][fix] == want, (fix, profile, out["status"][fix])


def test_what_the_program_sees_is_right_on_every_release(walks):
    import math

    for profile, out in walks.items():
        assert out["seen"]["log_f64"] == [math.log(1.0), math.log(2.0), math.log(4.0)], profile
        if "accelerator_allocated" in out["seen"]:
            assert out["seen"]["accelerator_allocated"] is True, profile
        if "musa_mm" in out["seen"]:
            # musa matmul templates have a real heuristic on every release: torch_musa's own
            # from 2.11.0.post2 (the fix stands aside), CUDA's copied by the fix before it
            assert out["seen"]["musa_mm"] != "TemplateConfigHeuristics", profile
            native = Version(profile) >= Version("2.11.0.post2")
            assert out["status"]["inductor_heuristics.cuda_entries"] == (
                "skipped" if native else "applied"), profile
            assert all(n.startswith("MUSA") for n in out["seen"]["musa_heuristics"]) == native


def test_the_walk_covers_releases_on_both_sides_of_each_range(walks):
    """On torch >= 2.11 every profile runs: each torch_musa-ranged gate then acts on at least
    one release and stands aside on at least one, or names why not (a range covering all)."""
    if len(walks) < len(PROFILES):
        pytest.skip("this torch runs %s only (docs/simulator.md, Profiles)" % ", ".join(walks))
    for name, versions, _ in _gates():
        spec = dict(versions).get("torch_musa")
        if not spec:
            continue
        acting = {p for p, out in walks.items() if out["gates"][name] is None}
        inside = {p for p in PROFILES if Version(p) in SpecifierSet(spec, prereleases=True)}
        assert acting <= inside, name
