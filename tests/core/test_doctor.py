"""`torchada doctor` on a healthy, a half-installed and a broken environment, on the simulated
device and on this machine without MUSA: exit codes, the problem lines and their fixes."""
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig

import torch

from tests._fresh import FIXTURES, SRC, clean_env, run_argv

from torchada import doctor


def _doctor(*args, python=None, **env):
    return run_argv(["-m", "torchada", "doctor", *args], python=python,
                    env=clean_env(PYTHONPATH=env.pop("PYTHONPATH", SRC), **env), check=False,
                    timeout=600)


def _lines(proc, level):
    return [line for line in proc.stdout.splitlines() if line.strip().startswith(level)]


def _expected_sim_musa_version():
    """docs/simulator.md (Profiles): 2.7.1 below torch 2.9.1, 2.9.1.post1 up to 2.10,
    2.11.0.post2 from torch 2.11."""
    from packaging.version import Version

    base = Version(Version(torch.__version__).base_version)
    if base < Version("2.9.1"):
        return "2.7.1"
    return "2.9.1.post1" if base < Version("2.11") else "2.11.0.post2"


def test_healthy_without_musa_exits_0_and_says_inactive():
    proc = _doctor()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not _lines(proc, "FAIL")
    [hook] = [l for l in _lines(proc, "ok") if " hook " in l]
    assert "torchada_autoload.pth fires in a fresh interpreter" in hook
    assert "torchada stays inactive here" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("result: healthy")


def test_healthy_on_the_simulated_device_json():
    proc = _doctor("--json", TORCHADA_SIMULATE_MUSA="1")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    assert data["broken"] is False
    versions = data["facts"]["versions"]
    assert versions["torch"] == torch.__version__
    assert versions["torch_musa"] == _expected_sim_musa_version() and versions["simulated"]
    texts = [(f["level"], f["topic"], f["text"]) for f in data["findings"]]
    assert ("ok", "platform", "musa: simulated torch_musa (TORCHADA_SIMULATE_MUSA)") in texts
    assert ("info", "areas", "devices applied") in texts
    assert ("info", "areas", "cuda_namespace applied") in texts
    # the route the devices area took, read from its status note: the C route exactly
    # when the compiled prefilter is installed beside the package (asked here, apart from
    # the doctor), else a warning naming why
    (prefilter,) = [t for t in texts if t[1] == "native" and "device prefilter" in t[2]]
    built = importlib.util.find_spec("torchada.areas._fastpath._prefilter") is not None
    if built:
        assert prefilter == ("ok", "native", "device prefilter: compiled, loaded (route: C "
                                             "prefilter)")
    else:
        from torchada.areas._fastpath import NOT_BUILT

        assert prefilter == ("warn", "native", "device prefilter: %s" % NOT_BUILT)
    # an area whose trigger was not imported: its gate is asked, nothing applied
    assert any(t[2].startswith("flash_attn pending: would") for t in texts)
    assert not [t for t in texts if t[0] == "FAIL"]


def _half_installed_venv(tmp_path):
    """A venv where torch and torchada import (a .pth adds their folders to sys.path) but
    torchada_autoload.pth was never installed into its site-packages."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; "
                           "print(sysconfig.get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    deps = [sysconfig.get_paths()["purelib"], str(SRC)]
    (tmp_path / "venv" / site.split(str(venv) + "/", 1)[1] / "deps.pth").write_text(
        "\n".join(deps) + "\n")
    return python


def test_half_installed_exits_1_with_the_reinstall_line(tmp_path):
    python = _half_installed_venv(tmp_path)
    proc = _doctor(python=python, PYTHONPATH=None)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [fail] = _lines(proc, "FAIL")
    assert "torchada_autoload.pth is in none of this interpreter's site directories" in fail
    fix = proc.stdout.splitlines()[proc.stdout.splitlines().index(fail) + 1]
    assert "fix: reinstall torchada" in fix and "--force-reinstall" in fix
    assert "result: broken install (1 problem)" in proc.stdout
    # on the simulated device the missing hook also means torchada never activates
    proc = _doctor(python=python, PYTHONPATH=None, TORCHADA_SIMULATE_MUSA="1")
    assert proc.returncode == 1
    fails = _lines(proc, "FAIL")
    assert len(fails) == 2 and "hook did not activate torchada (it did not run)" in fails[1]


def test_broken_torch_musa_exits_1_naming_the_import_error():
    proc = _doctor(PYTHONPATH=os.pathsep.join([str(SRC), str(FIXTURES / "broken_musa")]))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [fail] = _lines(proc, "FAIL")
    assert "import torch_musa fails: ImportError: libmusa.so.4: cannot open shared object" in fail
    assert "fix: reinstall the torch_musa wheel built for torch %s" % torch.__version__ \
        in proc.stdout
    # the hook itself is fine and did decide musa
    assert any("torch_musa found in" in l for l in _lines(proc, "ok"))


def test_environment_conflicts_are_warnings_with_a_fix():
    env = {"CUDA_VISIBLE_DEVICES": "0,1", "MUSA_VISIBLE_DEVICES": "1",
           "NCCL_DEBUG": "INFO", "MCCL_DEBUG": "INFO", "TORCH_NCCL_BLOCKING_WAIT": "1",
           "TORCH_MCCL_BLOCKING_WAIT": "0"}
    pairs = {(c, m) for c, m, _, _ in doctor.environment_conflicts(env)}
    assert pairs == {("CUDA_VISIBLE_DEVICES", "MUSA_VISIBLE_DEVICES"),
                     ("TORCH_NCCL_BLOCKING_WAIT", "TORCH_MCCL_BLOCKING_WAIT")}
    proc = _doctor(TORCHADA_SIMULATE_MUSA="1", CUDA_VISIBLE_DEVICES="0",
                   MUSA_VISIBLE_DEVICES="1")
    assert proc.returncode == 0, proc.stdout
    [warn] = [l for l in _lines(proc, "warn") if "environment" in l]
    assert "CUDA_VISIBLE_DEVICES='0' but MUSA_VISIBLE_DEVICES='1'" in warn


_FINDER = ("import sys\n"
           "class {name}:\n"
           "    def find_spec(self, name, path=None, target=None):\n"
           "        return None\n"
           "sys.meta_path.insert(0, {name}())\n")


def test_a_foreign_import_finder_is_named_and_known_ones_are_not(tmp_path):
    # the finders virtualenv / uv (module _virtualenv) and a setuptools editable install
    # put on sys.meta_path, with their module and class names, beside a foreign one
    (tmp_path / "_virtualenv.py").write_text(_FINDER.format(name="_Finder"))
    (tmp_path / "__editable___demo_1_0_finder.py").write_text(
        _FINDER.format(name="_EditableFinder"))
    (tmp_path / "sitecustomize.py").write_text(
        "import _virtualenv, __editable___demo_1_0_finder\n" + _FINDER.format(name="Interceptor"))
    proc = _doctor(PYTHONPATH=os.pathsep.join([str(SRC), str(tmp_path)]), TORCHADA_SIMULATE_MUSA="1")
    assert proc.returncode == 0, proc.stdout
    [warn] = [l for l in _lines(proc, "warn") if "finders" in l]
    assert "sitecustomize.Interceptor is on sys.meta_path" in warn
    [known] = [l for l in proc.stdout.splitlines() if " finders " in l and "known:" in l]
    assert "_virtualenv._Finder (virtualenv / uv" in known
    assert "__editable___demo_1_0_finder._EditableFinder (a setuptools editable install)" in known


def test_help_lists_doctor():
    proc = run_argv(["-m", "torchada", "--help"], env=clean_env(PYTHONPATH=SRC))
    assert "doctor [--json]" in proc.stdout


def test_a_hook_file_that_does_not_fire_exits_1(tmp_path):
    """A damaged torchada_autoload.pth (here: one whose line fails) is in site-packages but
    never loads the boot module."""
    python = _half_installed_venv(tmp_path)
    site = next((tmp_path / "venv").rglob("deps.pth")).parent
    (site / "torchada_autoload.pth").write_text("import torchada_boot_was_renamed\n")
    proc = _doctor(python=python, PYTHONPATH=None)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [fail] = _lines(proc, "FAIL")
    assert "%s is installed but did not load torchada's boot module" % (
        site / "torchada_autoload.pth") in fail
    assert "fix: check that torchada is importable" in proc.stdout
