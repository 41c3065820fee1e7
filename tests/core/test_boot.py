"""The start-up hook's decisions, each in a fresh interpreter started through the real .pth."""

import os
import sysconfig

import pytest
import torch

# torch's own site-packages (not always this venv's: a venv can see torch through a .pth)
TORCH_SITE = os.path.dirname(os.path.dirname(torch.__file__))

from tests._fresh import FIXTURES, clean_env, fake_musa_env, run_python

DECISION = """
import sys
loaded = 'torchada_boot' in sys.modules   # the .pth pre-check imports it only on a MUSA hint
import torchada_boot
finders = [type(f).__name__ for f in sys.meta_path]
print((torchada_boot.decision or ('None',))[0], 'TorchadaFinder' in finders, 'torch' in sys.modules,
      loaded)
"""


def decision(env, args=()):
    proc = run_python(DECISION, env=env, args=args)
    return proc.stdout.split(), proc.stderr


def test_plain_machine_installs_nothing_and_never_imports_torch():
    (platform, finder, torch_loaded, boot_loaded), err = decision(clean_env())
    assert (platform, finder, torch_loaded, boot_loaded) == ("None", "False", "False", "False")
    assert err == ""


def test_torch_musa_findable_activates_without_importing_torch():
    (platform, finder, torch_loaded, boot_loaded), err = decision(fake_musa_env())
    assert (platform, finder, torch_loaded, boot_loaded) == ("musa", "True", "False", "True")
    assert err == ""


@pytest.mark.parametrize("word", ["off", "0", "false", "OFF"])
def test_x_option_off_wins_over_everything(word):
    (platform, finder, *_), _ = decision(fake_musa_env(TORCHADA_PLATFORM="musa"),
                                        args=("-X", "torchada=%s" % word))
    assert (platform, finder) == ("off", "False")


def test_x_option_bogus_warns_once_and_auto_detects():
    (platform, finder, *_), err = decision(fake_musa_env(), args=("-X", "torchada=bogus"))
    assert (platform, finder) == ("musa", "True")
    assert err.count("\n") == 1 and "-X torchada=bogus" in err and "torchada=off" in err


@pytest.mark.parametrize("value", ["cuda", "cpu", "off", " CPU "])
def test_platform_override_patches_nothing(value):
    (platform, finder, *_), err = decision(fake_musa_env(TORCHADA_PLATFORM=value))
    assert (platform, finder, err) == (value.strip().lower(), "False", "")


def test_platform_musa_forces_activation_without_torch_musa():
    (platform, finder, *_), _ = decision(clean_env(TORCHADA_PLATFORM="musa"))
    assert (platform, finder) == ("musa", "True")


@pytest.mark.parametrize("value", ["nvidia", "1", "mus a"])
def test_bad_platform_value_warns_listing_valid_values_then_detects(value):
    (platform, finder, *_), err = decision(fake_musa_env(TORCHADA_PLATFORM=value))
    assert (platform, finder) == ("musa", "True")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "TORCHADA_PLATFORM" in lines[0]
    assert all(v in lines[0] for v in ("musa", "cuda", "cpu", "off"))


def test_boot_is_idempotent_when_pth_processed_twice():
    proc = run_python("""
        import sys, site, torchada_boot
        for d in site.getsitepackages():
            site.addsitedir(d)          # processes torchada_autoload.pth again
        torchada_boot.activate()
        import torchada
        print(sum(type(f).__name__ == 'TorchadaFinder' for f in sys.meta_path))
    """, env=fake_musa_env())
    assert proc.stdout.strip() == "1" and proc.stderr == ""


def test_boot_never_sets_env_or_writes_files(tmp_path):
    proc = run_python("""
        import os, sys
        before = dict(os.environ)
        import torch, torchada
        assert dict(os.environ) == before, set(os.environ.items()) ^ set(before.items())
        print(sorted(os.listdir('.')))
    """, env=fake_musa_env(), cwd=tmp_path)
    assert proc.stdout.strip() == "[]"


def test_python_S_skips_hook_but_explicit_import_works():
    proc = run_python("""
        import sys
        sys.path[:0] = [p for p in __import__('os').environ['EXTRA'].split(':')]
        assert 'torchada_boot' not in sys.modules
        import torch, torchada
        print(torchada.status().active, torchada.status().torch_musa_version)
    """, env=fake_musa_env(EXTRA="%s:%s:%s:%s" % (FIXTURES.parents[1] / "src", FIXTURES / "fake_musa",
                                                   sysconfig.get_paths()["purelib"], TORCH_SITE)),
        args=("-S",))
    assert proc.stdout.split() == ["True", "2.7.1"]


def test_python_I_ignores_environment_and_runs():
    # -I ignores PYTHON* variables (so the fake torch_musa is not on the path): no activation.
    proc = run_python(DECISION, env=fake_musa_env(), args=("-I",))
    assert proc.stdout.split() == ["None", "False", "False", "False"] and proc.stderr == ""


def test_torch_musa_raising_on_import_leaves_program_running():
    proc = run_python("""
        import torch, torchada
        r = torchada.status()
        print('ran', torch.ones(2).sum().item())
        print(sorted({a.reason.split(' (')[0] for a in r.areas if a.state == 'skipped'}))
    """, env=clean_env(PYTHONPATH=FIXTURES / "broken_musa"))
    assert "ran 2.0" in proc.stdout and "torch_musa unavailable" in proc.stdout
    warnings = [l for l in proc.stderr.splitlines() if "torchada" in l]
    assert len(warnings) == 1 and "libmusa.so.4" in warnings[0] and "TORCHADA_PLATFORM=off" in warnings[0]


def test_torch_not_installed(tmp_path):
    # A stand-in site where "import torch" fails: activation must not care until torch is imported.
    blocker = tmp_path / "torch"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('No module named torch (test)')\n")
    proc = run_python("""
        import torchada_boot, torchada
        print(torchada_boot.decision[0])
        try:
            import torch
        except ImportError as e:
            print('import torch failed:', e)
        print(torchada.status().active)
    """, env=fake_musa_env(PYTHONPATH="%s:%s" % (tmp_path, FIXTURES / "fake_musa")))
    assert proc.stdout.splitlines() == ["musa", "import torch failed: No module named torch (test)", "True"]


def test_stale_pth_without_package_is_silent(tmp_path):
    import shutil
    import subprocess
    import sys

    from tests._fresh import ROOT

    site_dir = tmp_path / "site"
    site_dir.mkdir()
    shutil.copy(ROOT / "torchada_autoload.pth", site_dir)
    proc = subprocess.run([sys.executable, "-S", "-c",
                           "import site, sys; site.addsitedir(%r); print('ok', 'torchada_boot' in sys.modules)"
                           % str(site_dir)], capture_output=True, text=True, env=clean_env())
    assert proc.stdout.strip() == "ok False" and proc.stderr == ""
