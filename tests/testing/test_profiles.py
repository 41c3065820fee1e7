"""The simulated torch_musa releases (profiles): selection, torch requirement, and each
profile's torch.musa namespace against its recorded API (docs/simulator.md, Profiles)."""
import json

import pytest
from packaging.version import Version

from tests._fresh import bare_sim_env, last_json, run_python
from torchada.testing import torch_musa_api
from torchada.testing.torch_musa_api import generate

TORCH = Version(Version(__import__("torch").__version__).base_version)
# The torch each release requires (torch_musa/__init__.py: v2.7.1, 5e25af7; 2.11.0.post2's
# assumed, docs/simulator.md): written here, not read from the recorded data under test.
MINIMUM = {"2.7.1": "2.7.1", "2.9.1.post1": "2.9.1", "2.11.0.post2": "2.11.0"}
RUNNABLE = [p for p in torch_musa_api.PROFILES if TORCH >= Version(MINIMUM[p])]
TOO_NEW = [p for p in torch_musa_api.PROFILES if p not in RUNNABLE]


@pytest.mark.parametrize("torch_version, profile", [
    ("2.7.1", "2.7.1"), ("2.8.0", "2.7.1"), ("2.9.0", "2.7.1"), ("2.9.1+cu128", "2.9.1.post1"),
    ("2.10.0", "2.9.1.post1"), ("2.11.0+cpu", "2.11.0.post2"), ("2.13.0", "2.11.0.post2")])
def test_profile_follows_the_installed_torch(torch_version, profile):
    assert torch_musa_api.profile_for_torch(torch_version) == profile


@pytest.mark.parametrize("label, profile", [
    ("2.7.1", "2.7.1"), ("2.9.1.post1", "2.9.1.post1"), ("2.10.0", "2.9.1.post1"),
    ("2.11.0.post1", "2.11.0.post2"), ("2.13.0", "2.11.0.post2")])
def test_a_release_label_runs_the_profile_of_its_series(label, profile):
    assert torch_musa_api.profile_for(label) == profile


def test_recorded_api_files_are_generated_from_the_readings():
    assert generate.main(["--check"]) == 0
    for profile, minimum in MINIMUM.items():
        assert torch_musa_api.api(profile)["torch"]["minimum"] == minimum


WALK = r'''
import json, sys, warnings
import torch, torch_musa
from torchada.testing.torch_musa_api import api, PROFILES
release = torch_musa.__version__
torch.ones(1, device="musa")  # lazy init: has_half, default_generators appear after it
mine = api(release)
others = set().union(*(api(p)["names"] for p in PROFILES)) - set(mine["names"])
def absent(name):
    try:
        getattr(torch_musa, name)
    except AttributeError:
        return True
    return False
print(json.dumps({
    "release": release,
    "missing": sorted(n for n in mine["names"] if not hasattr(torch.musa, n)),
    "removed_but_present": sorted(n for n in mine["removed"] if not absent(n)),
    "later_or_earlier_present": sorted(n for n in others if not absent(n)),
    "removed_count": len(mine["removed"]), "others_count": len(others),
    "backends_musa": hasattr(torch.backends, "musa"),
}))
'''


@pytest.mark.parametrize("profile", RUNNABLE)
def test_profile_namespace_is_the_recorded_api(profile):
    out = last_json(run_python(WALK, env=bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=profile)))
    assert out["release"] == profile
    assert out["missing"] == [], "recorded for %s, missing on the simulator" % profile
    assert out["removed_but_present"] == [] and out["later_or_earlier_present"] == []
    # the samples are not empty: every profile differs from another in both directions
    assert out["others_count"] > 0 and (profile == "2.7.1" or out["removed_count"] > 0)
    # torch_musa/__init__.py sets torch.backends.musa from 2.9.1.post1 (5e25af7), not at v2.7.1
    assert out["backends_musa"] == (profile != "2.7.1")


def test_a_malformed_release_warns_once_naming_the_variable_and_profiles():
    code = ("import warnings; warnings.simplefilter('always')\n"
            "import torch, torch_musa; print(torch_musa.__version__)")
    proc = run_python(code, env=bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION="2.5.0"))
    lines = [l for l in proc.stderr.splitlines() if "TORCHADA_SIM_TORCH_MUSA_VERSION" in l]
    assert len(lines) == 1, proc.stderr
    assert all(p in lines[0] for p in torch_musa_api.PROFILES)
    assert proc.stdout.split()[-1] == torch_musa_api.profile_for_torch(str(TORCH))


@pytest.mark.skipif(not TOO_NEW, reason="this torch meets every profile's torch minimum")
@pytest.mark.parametrize("profile", TOO_NEW or ["-"])
def test_a_release_newer_than_this_torch_refuses_to_import(profile):
    proc = run_python("import torch_musa", check=False,
                      env=bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=profile))
    assert proc.returncode != 0
    assert "RuntimeError" in proc.stderr and "torch>=%s" % MINIMUM[profile] in proc.stderr
