"""`torchada doctor` tells the truth: a MUSA machine where activating torchada raised is
broken (exit 1, one problem, one fix line), every error of the probe is shown, and the
finders healthy environments install (virtualenv / uv, setuptools, editable installs) are
named as known instead of warned about."""
import shutil

import pytest

from tests._fresh import FAKE_MUSA, SRC, clean_env, run_argv

from torchada import doctor
from torchada.doctor_finders import owner

HALF_WRITTEN_ROW = '\nAREAS = AREAS + (Area("half_written", (), "a row left without its trigger"),)\n'
ROW_ERROR = "ValueError: area 'half_written' needs at least one trigger module name"


def _broken_copy(tmp_path):
    """A copy of this torchada whose manifest gained a row without a trigger: importing the
    manifest raises, so activation raises inside the start-up hook (a half-applied upgrade
    or a bad local edit looks like this)."""
    root = tmp_path / "src"
    root.mkdir()
    shutil.copy2(SRC / "torchada_boot.py", root / "torchada_boot.py")
    shutil.copytree(SRC / "torchada", root / "torchada",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(root / "torchada" / "areas" / "manifest.py", "a") as fh:
        fh.write(HALF_WRITTEN_ROW)
    return root


def test_a_failed_activation_on_a_musa_machine_is_one_problem_with_one_fix(tmp_path):
    root = _broken_copy(tmp_path)
    env = clean_env(PYTHONPATH="%s:%s" % (root, FAKE_MUSA))
    # the failure is real: the start-up hook of a fresh interpreter warns and stays inactive
    hook = run_argv(["-c", "import torchada_boot; from torchada._core import activation; "
                     "print(torchada_boot.decision[0], activation.registry)"], env=env)
    assert hook.stdout.split() == ["musa", "None"]
    assert "start-up hook failed (%s)" % ROW_ERROR in hook.stderr
    proc = run_argv(["-m", "torchada", "doctor"], env=env, check=False, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    fails = [i for i, line in enumerate(lines) if line.strip().startswith("FAIL")]
    assert len(fails) == 1, proc.stdout
    assert ("this is a MUSA machine (torch_musa found in %s) but torchada is not running: "
            "activating it raised %s" % (FAKE_MUSA, ROW_ERROR)) in lines[fails[0]]
    assert lines[fails[0] + 1].strip().startswith("fix: reinstall torchada")
    assert not [l for l in lines if l.strip().startswith("ok") and " platform " in l]
    assert lines[-1] == "result: broken install (1 problem)"


def _diagnosed(monkeypatch, capsys, data, json_out=False):
    """doctor.main over a probe answer ``data`` (the hook installed and firing)."""
    monkeypatch.setattr(doctor, "hook_files", lambda dirs=None: ["/site/torchada_autoload.pth"])
    monkeypatch.setattr(doctor, "hook_fires", lambda: (True, None))
    monkeypatch.setattr(doctor, "probe", lambda: (data, None))
    monkeypatch.setattr(doctor, "musa_system", lambda: {})
    code = doctor.main(["--json"] if json_out else [])
    return code, capsys.readouterr().out


_NO_MUSA = {"python": "3", "hook_fired": False, "hook_decision": None, "platform": None,
            "reason": "no torch_musa found", "torch_musa_entry": None, "torch": "2.x",
            "active": False, "areas": [], "meta_path": []}


# each step of doctor_probe.probe: what the line names, and whether the verdict rests on it
@pytest.mark.parametrize("step,what,level", [
    ("boot", "the start-up hook's decision", "FAIL"),
    ("areas", "torchada.status()", "FAIL"),
    ("versions", "the versions of torch_musa, triton and mccl", "warn"),
    ("finders", "the import finders", "warn"),
    ("native", "the native pieces", "warn"),
])
def test_every_probe_error_is_shown(monkeypatch, capsys, step, what, level):
    data = dict(_NO_MUSA, **{step + "_error": "OSError: probe step %s broke" % step})
    code, out = _diagnosed(monkeypatch, capsys, data)
    [line] = [l for l in out.splitlines() if "probe step %s broke" % step in l]
    assert line.split()[:2] == [level, "probe"], line
    assert "reading %s in a fresh interpreter raised OSError" % what in line
    assert code == (1 if level == "FAIL" else 0), out
    if step == "boot":  # nothing read after the decision is claimed
        assert "torchada stays inactive here" not in out


def test_an_unknown_probe_error_is_shown_too(monkeypatch, capsys):
    code, out = _diagnosed(monkeypatch, capsys, dict(_NO_MUSA, cache_error="boom"))
    assert code == 0 and "warn  probe       cache_error: boom" in out


def test_activation_error_without_registry_is_broken(monkeypatch, capsys):
    data = dict(_NO_MUSA, hook_fired=True, hook_decision=["musa", "TORCHADA_PLATFORM=musa"],
                platform="musa", reason="TORCHADA_PLATFORM=musa", activated=False,
                activation_error="ImportError: cannot import name 'Registry'",
                areas_error="ImportError: cannot import name 'Registry'")
    code, out = _diagnosed(monkeypatch, capsys, data)
    assert code == 1
    fails = [l for l in out.splitlines() if l.strip().startswith("FAIL")]
    assert len(fails) == 1 and "activating it raised ImportError" in fails[0]


@pytest.mark.parametrize("name,who", [
    ("_virtualenv._Finder", "virtualenv / uv (the environment's distutils patch)"),
    ("_distutils_hack.DistutilsMetaFinder", "setuptools (distutils shim)"),
    ("setuptools.extern.VendorImporter", "setuptools (vendored packages)"),
    ("pkg_resources.extern.VendorImporter", "setuptools (vendored packages)"),
    ("__editable___torchada_0_2_0_finder._EditableFinder", "a setuptools editable install"),
    ("editables.redirector.RedirectingFinder", "an editable install (editables)"),
    ("_mypkg.install_redirector.<locals>.RedirectingFinder", "an editable install (editables)"),
    ("_mypkg_editable.ScikitBuildRedirectingFinder", "a scikit-build-core editable install"),
    ("_mypkg_editable_loader.MesonpyMetaFinder", "a meson-python editable install"),
    ("_frozen_importlib_external.PathFinder", "the interpreter"),
    ("torchada._core.finder.TorchadaFinder", "torchada"),
])
def test_known_finders_are_named(name, who):
    assert owner(name) == who


@pytest.mark.parametrize("name", ["sitecustomize.Interceptor", "torchada_evil.Finder",
                                  "_virtualenv.Other", "editables.Finder", "x_virtualenv._Finder"])
def test_other_finders_are_not_known(name):
    assert owner(name) is None
