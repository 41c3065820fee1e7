"""The area manifest: rows as data, gates on any distribution, read without importing."""
import pytest

from tests._fresh import clean_env, run_python
from torchada._core.manifest import BEFORE_BACKEND, Area
from tests._releases import importable_or_skip


def test_rows_validate_their_phase_and_triggers():
    with pytest.raises(ValueError, match="phase 'later'"):
        Area("x", ("torch",), phase="later")
    with pytest.raises(ValueError, match="at least one trigger"):
        Area("x", ())


def test_gate_reads_any_distribution_from_metadata_without_importing_it():
    proc = run_python("""
        import sys
        from importlib import metadata
        from torchada._core.manifest import Area
        have = metadata.version("pluggy")
        ok = Area("x", ("torch",), versions=(("pluggy", ">=" + have),)).gate()
        old = Area("x", ("torch",), versions=(("pluggy", "<0.1"),)).gate()
        none = Area("x", ("torch",), versions=(("no-such-dist-torchada", ">=1"),)).gate()
        print(ok.check("musa", None, None))
        print(old.check("musa", None, None) == "pluggy %s not in <0.1" % have)
        print(none.check("musa", None, None))
        print("pluggy" in sys.modules)
    """, env=clean_env())
    assert proc.stdout.splitlines() == [
        "None", "True", "no-such-dist-torchada (absent) not in >=1", "False"]


def test_needs_names_the_missing_torch_musa_attribute():
    proc = run_python("""
        import sys, types
        torch = types.ModuleType("torch"); torch.musa = types.SimpleNamespace(amp=object())
        sys.modules["torch"] = torch
        from torchada._core.manifest import Area
        print(Area("a", ("torch",), needs=("amp",)).gate().check("musa", None, None))
        print(Area("b", ("torch",), needs=("amp", "musart")).gate().check("musa", None, None))
    """, env=clean_env())
    assert proc.stdout.splitlines() == ["None", "torch.musa.musart is missing"]


def test_status_lists_every_row_without_importing_an_area_module():
    proc = run_python("""
        import sys, torchada
        from torchada.areas.manifest import AREAS
        report = torchada.status()
        print([a.name for a in report.areas] == [a.name for a in AREAS])
        print(sorted(m for m in sys.modules if m.startswith("torchada.areas.")))
    """, env=clean_env(TORCHADA_PLATFORM="cpu"))
    assert proc.stdout.splitlines() == ["True", "['torchada.areas.manifest']"]


def test_the_real_manifest_orders_env_mirror_before_the_backend():
    from torchada.areas.manifest import AREAS

    phases = {a.name: a.phase for a in AREAS}
    assert phases["env_mirror"] == BEFORE_BACKEND
    assert [n for n, p in phases.items() if p == BEFORE_BACKEND] == ["env_mirror"]


STATUS = """
import json, torch, torchada
fixes = {f["name"]: [f["state"], f["reason"]] for a in torchada.status().areas for f in a.fixes}
print(json.dumps(fixes["accelerator.memory_routes"]))
print(hasattr(torch.accelerator.memory_allocated, "__wrapped__"))  # routed by the fix
"""


def _fix_status(**env):
    import json

    from tests._fresh import run_sim

    lines = run_sim(STATUS, **env).stdout.strip().splitlines()
    return json.loads(lines[-2]), lines[-1]


def test_fix_unit_applies_on_the_broken_release_with_its_own_status_line():
    (state, reason), module = _fix_status(TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1")
    assert (state, reason) == ("applied", None)
    assert module == "True"  # routed to torch.musa


def test_fix_unit_stands_aside_on_the_fixed_release():
    (state, reason), module = _fix_status(
        TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"))
    assert state == "skipped" and reason == "torch_musa 2.11.0.post2 not in <2.11.0.post2"
    assert module == "False"


def test_fix_unit_is_disabled_on_its_own():
    (state, reason), module = _fix_status(TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1",
                                          TORCHADA_DISABLE_AREAS="accelerator.memory_routes")
    assert (state, reason) == ("skipped", "disabled by TORCHADA_DISABLE_AREAS")
    assert module == "False"  # the area applied, the fix did not


def test_areas_doc_is_generated_from_the_manifest():
    from pathlib import Path

    from torchada.areas import manifest

    doc = (Path(__file__).resolve().parents[2] / "docs" / "areas.md").read_text()
    assert doc == manifest.markdown()


def test_tests_mirror_the_areas():
    """Every area of the manifest has its own tests/areas/<area> directory with tests."""
    from pathlib import Path

    from torchada.areas.manifest import AREAS

    root = Path(__file__).resolve().parents[1] / "areas"
    missing = [a.name for a in AREAS if not list((root / a.name).glob("test_*.py"))]
    assert not missing, "areas without tests/areas/<area>/test_*.py: %s" % missing


def test_fix_units_doc_is_current():
    from pathlib import Path

    from torchada.areas import manifest

    doc = (Path(__file__).resolve().parents[2] / "docs" / "operator_fixes.md").read_text()
    assert doc == manifest.fixes_markdown()


def test_a_per_trigger_rows_version_entries_gate_their_own_triggers():
    row = Area("pkgs", ("alpha.sub", "beta_pkg.sub"), per_trigger=True,
               versions=(("alpha", ">=2.0"), ("beta-pkg", ">=3.0"), ("other", ">=1.0"),
                         ("torch", ">=2.7")))
    alpha, beta = row.gate("alpha.sub"), row.gate("beta_pkg.sub")
    # each trigger keeps its own package's entry and the entries no trigger owns
    assert alpha.versions == (("alpha", ">=2.0"), ("other", ">=1.0"))
    assert beta.versions == (("beta-pkg", ">=3.0"), ("other", ">=1.0"))
    assert alpha.torch == beta.torch == ">=2.7"
    assert row.gate().versions == (("alpha", ">=2.0"), ("beta-pkg", ">=3.0"), ("other", ">=1.0"))
