"""Packaging: the wheel's contents, and activation from a real install in a fresh venv."""

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests._fresh import FIXTURES, ROOT, clean_env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(out),
                           str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, "building the wheel failed (is the 'test' extra installed?)\n" + \
        proc.stdout[-2000:] + proc.stderr[-2000:]
    (path,) = out.glob("torchada-*.whl")
    return path


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "torchada_autoload.pth" in names and "torchada_autoload.start" in names
    assert "torchada_boot.py" in names and "torchada/__init__.py" in names
    assert "torchada/_core/finder.py" in names
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/")) or "__pycache__" in n]
    # the fused-MoE tables (both spellings of block_shape), their licence and recipes
    # every table of the source tree ships (143 bundled at first, more as upstream tunes them)
    configs = ROOT / "src" / "torchada" / "moe" / "configs"
    source = sorted("torchada/moe/configs/" + p.relative_to(configs).as_posix()
                    for p in configs.rglob("*.json"))
    assert sorted(n for n in names if n.startswith("torchada/moe/configs/")
                  and n.endswith(".json")) == source
    assert len([n for n in source if "/triton_3_2_0/" in n]) >= 143
    assert "torchada/moe/configs/triton_3_2_0/E=128,N=96,device_name=MTT_S5000,block_shape=[128, 128].json" in names
    assert "torchada/moe/configs/triton_3_2_0/E=128,N=96,device_name=MTT_S5000,block_shape=[128,128].json" in names
    assert {"torchada/moe/configs/LICENSE.upstream", "torchada/moe/ci/shapes.json",
            "torchada/moe/ci/models.json"} <= set(names)
    # the device prefilter ships compiled (issue 16): an extension module for this interpreter
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert "torchada/areas/_fastpath/_prefilter" + suffix in names
    assert not [n for n in names if n.endswith(".so") and "_prefilter" not in n]
    pth = zipfile.ZipFile(wheel).read("torchada_autoload.pth").decode()
    code_lines = [l for l in pth.splitlines() if l.startswith("import")]
    assert len(code_lines) == 1 and "torchada_boot" in code_lines[0] and "except" in code_lines[0]
    start = zipfile.ZipFile(wheel).read("torchada_autoload.start").decode()
    assert [l for l in start.splitlines() if l and not l.startswith("#")] == ["torchada_boot:activate"]
    meta = zipfile.ZipFile(wheel).read("torchada-0.2.0.dist-info/METADATA").decode()
    requires = sorted(l.split(":", 1)[1].strip() for l in meta.splitlines() if l.startswith("Requires-Dist"))
    assert [r for r in requires if "extra" not in r] == ["packaging", "platformdirs", "torch"]


def test_sdist_without_a_compiler_installs_and_the_python_route_says_why(tmp_path):
    """An sdist built on a machine without a C++ compiler: the install succeeds without the
    compiled prefilter, and the devices area serves on the Python route, saying why."""
    sdist_dir = tmp_path / "sdist"
    proc = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o",
                           str(sdist_dir), str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sdist,) = sdist_dir.glob("torchada-*.tar.gz")
    import tarfile

    with tarfile.open(sdist) as tar:
        members = tar.getnames()
        tar.extractall(tmp_path / "src")
    top = members[0].split("/")[0]
    for needed in ("setup.py", "pyproject.toml", "torchada_autoload.pth",
                   "hooks/torchada_autoload.start", "src/torchada/areas/_fastpath/prefilter.cpp"):
        assert "%s/%s" % (top, needed) in members, needed
    assert not [m for m in members if m.endswith(".so")]
    nowhere = tmp_path / "no-compiler"
    nowhere.write_text("#!/bin/sh\necho 'no compiler on this machine' >&2\nexit 1\n")
    nowhere.chmod(0o755)
    env = dict(os.environ, CC=str(nowhere), CXX=str(nowhere), LDSHARED=str(nowhere))
    out = tmp_path / "wheel"
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(out),
                           str(tmp_path / "src" / top)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (built,) = out.glob("torchada-*.whl")
    names = zipfile.ZipFile(built).namelist()
    assert "torchada_autoload.pth" in names and "torchada/areas/devices.py" in names
    assert not [n for n in names if "_prefilter" in n and not n.endswith(".cpp")]
    unpacked = tmp_path / "site"
    zipfile.ZipFile(built).extractall(unpacked)
    from torchada.areas._fastpath import NOT_BUILT
    from tests._fresh import last_json, run_sim

    code = ("import json\n"
            "x = torch.ones(2, device='cuda') * 3\n"
            "import torchada.areas._fastpath as fp\n"
            "line = [l for l in str(torchada.status()).splitlines() if NOT in l]\n"
            "print(json.dumps({'x': x.cpu().tolist(), 'device': str(x.device), 'lines': line, "
            "'from': fp.__file__}))\n").replace("NOT", repr(NOT_BUILT))
    result = last_json(run_sim(code, PYTHONPATH=str(unpacked), TORCHADA_DEVICE_ROUTE="c"))
    assert result["from"].startswith(str(unpacked))
    assert result["x"] == [3.0, 3.0] and result["device"] == "musa:0"
    assert len(result["lines"]) == 1 and "Python wrappers" in result["lines"][0]


def make_venv(path):
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    python = path / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    return python, Path(site)


PROBE = """
import sys, torchada_boot
print((torchada_boot.decision or ('None',))[0], any(type(f).__name__ == 'TorchadaFinder' for f in sys.meta_path))
"""


def test_fresh_venv_wheel_install_activates_and_uninstall_leaves_nothing(wheel, tmp_path):
    python, site = make_venv(tmp_path / "venv")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True)
    assert (site / "torchada_autoload.pth").is_file() and (site / "torchada_autoload.start").is_file()
    env = clean_env(PYTHONPATH=FIXTURES / "fake_musa")
    # torch is not installed in this venv: activation still decides (it never imports torch).
    out = subprocess.run([python, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["musa", "True"] and out.stderr == ""
    out = subprocess.run([python, "-c", PROBE], env=clean_env(), capture_output=True, text=True)
    assert out.stdout.split() == ["None", "False"] and out.stderr == ""
    # Read-only site-packages: nothing of ours writes there (root ignores modes; compare listings).
    before = sorted(p.name for p in site.iterdir())
    os.chmod(site, 0o555)
    try:
        out = subprocess.run([python, "-B", "-c", "import torchada; print(torchada.status().active)"],
                             env=env, capture_output=True, text=True)
    finally:
        os.chmod(site, 0o755)
    assert out.stdout.strip() == "True" and sorted(p.name for p in site.iterdir()) == before
    subprocess.run([python, "-m", "pip", "uninstall", "-q", "-y", "torchada"], check=True,
                   capture_output=True)
    assert not list(site.glob("torchada*"))


def test_fresh_venv_editable_install_places_hooks(tmp_path):
    python, site = make_venv(tmp_path / "venv")
    proc = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (site / "torchada_autoload.pth").is_file() and (site / "torchada_autoload.start").is_file()
    out = subprocess.run([python, "-c", PROBE], env=clean_env(PYTHONPATH=FIXTURES / "fake_musa"),
                         capture_output=True, text=True)
    assert out.stdout.split() == ["musa", "True"] and out.stderr == ""


def test_sitecustomize_hook_activates_and_chains(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import builtins; builtins.CHAINED = True\n")
    env = clean_env(PYTHONPATH=os.pathsep.join([str(ROOT / "hooks"), str(other), str(ROOT / "src"),
                                                str(FIXTURES / "fake_musa"),
                                                sysconfig.get_paths()["purelib"]]))
    # -S: no .pth processing at all; sitecustomize is imported by hand as site would.
    code = ("import sitecustomize, builtins, sys, torchada_boot; "
            "print(torchada_boot.decision[0], getattr(builtins, 'CHAINED', False), "
            "sum(type(f).__name__ == 'TorchadaFinder' for f in sys.meta_path))")
    out = subprocess.run([sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["musa", "True", "1"], out.stderr


SYSTEM_SITE_VENV = r"""
import json, site, sys
venv, base, layout = sys.argv[1], sys.argv[2], sys.argv[3]
if layout == "debian":
    # Debian/Ubuntu patch site.getsitepackages(): a prefix's packages live in dist-packages
    # folders (a venv adds its lib/pythonX.Y/site-packages first). Modelled on the
    # distribution's site.py of python3.11 (Debian 12), which the debian-python run below
    # checks for real where that interpreter exists.
    def getsitepackages(prefixes=None):
        ver, out = "python%d.%d" % sys.version_info[:2], []
        for prefix in (prefixes or site.PREFIXES):
            if sys.base_prefix != sys.prefix:
                out.append("%s/lib/%s/site-packages" % (prefix, ver))
            out += ["%s/local/lib/%s/dist-packages" % (prefix, ver),
                    "%s/lib/python3/dist-packages" % prefix, "%s/lib/%s/dist-packages" % (prefix, ver)]
        return out
    site.getsitepackages = getsitepackages
if sys.argv[4] == "dirs":
    sys.prefix = venv
    print(json.dumps([site.getsitepackages([venv]), site.getsitepackages([base])]))
    raise SystemExit
# What site.main() does in a venv made with --system-site-packages: site.venv() sets the venv
# as sys.prefix and puts the base prefix after it, then addsitepackages() reads the venv's
# .pth files before the base site directories (where the vendor image's torch_musa lives)
# join sys.path.
sys.prefix = venv
site.PREFIXES[:] = [venv, base]
site.addsitepackages(set(), site.PREFIXES)
import torchada_boot
print((torchada_boot.decision or ("None",))[0])
"""


def _interpreters():
    """This interpreter under its own site layout and under Debian's (modelled), plus a
    Debian/Ubuntu-built python3 where this machine has one (its real site module)."""
    runs = [(sys.executable, "own"), (sys.executable, "debian")]
    system = "/usr/bin/python3"
    if os.path.exists(system) and os.path.realpath(system) != os.path.realpath(sys.executable):
        probe = subprocess.run([system, "-S", "-c", "import site; print(site.getsitepackages(['/p']))"],
                               capture_output=True, text=True)
        if "dist-packages" in probe.stdout:
            runs.append((system, "own"))
    return runs


def test_system_site_packages_venv_sees_the_base_torch_musa(tmp_path):
    """Wherever site puts a prefix's packages (site-packages, or Debian's dist-packages), the
    hook in the venv finds a torch_musa in any site directory of the base prefix."""
    checked = []
    for python, layout in _interpreters():
        venv, base = tmp_path / layout / "venv", tmp_path / layout / "base"
        args = [python, "-S", "-c", SYSTEM_SITE_VENV, str(venv), str(base), layout]
        dirs = subprocess.run(args + ["dirs"], env=clean_env(), capture_output=True, text=True)
        venv_dirs, base_dirs = json.loads(dirs.stdout)
        venv_site = Path(venv_dirs[0])
        venv_site.mkdir(parents=True, exist_ok=True)
        # our install in the venv: the source tree on the path (a .pth read first), then the hook
        (venv_site / "a_torchada_src.pth").write_text(str(ROOT / "src") + "\n")
        (venv_site / "torchada_autoload.pth").write_text((ROOT / "torchada_autoload.pth").read_text())
        for base_site in map(Path, base_dirs):
            (base_site / "torch_musa").mkdir(parents=True)
            (base_site / "torch_musa" / "__init__.py").write_text("")
            out = subprocess.run(args + ["run"], env=clean_env(), capture_output=True, text=True)
            assert out.stdout.split() == ["musa"], (python, layout, base_site, out.stdout + out.stderr)
            # Control: the same venv without torch_musa in the base prefix stays off.
            (base_site / "torch_musa" / "__init__.py").unlink()
            (base_site / "torch_musa").rmdir()
            out = subprocess.run(args + ["run"], env=clean_env(), capture_output=True, text=True)
            assert out.stdout.split() == ["None"], (python, layout, out.stdout + out.stderr)
            checked.append((layout, base_site.relative_to(base).as_posix()))
    assert ("debian", "lib/python3/dist-packages") in checked, checked


def _venv_with_pytest(path):
    """A fresh venv that sees this environment's packages (pytest among them) but none of
    torchada's files: the venv's own site-packages holds a link farm of everything else."""
    python, site = make_venv(path)
    ours = sysconfig.get_paths()["purelib"]
    farm = path / "farm"
    farm.mkdir()
    for entry in Path(ours).iterdir():
        if "torchada" not in entry.name.lower():
            (farm / entry.name).symlink_to(entry)
    (site / "zz_farm.pth").write_text(str(farm) + "\n")
    return python, site


def test_installed_torchada_adds_nothing_to_a_pytest_session_unless_asked(wheel, tmp_path):
    python, site = _venv_with_pytest(tmp_path / "venv")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True)
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_trivial.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    env = clean_env()

    def pytest(*args):
        return subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", *args],
                              cwd=project, env=env, capture_output=True, text=True)

    assert subprocess.run([python, "-c", "import torchada, torchada.testing.pytest_plugin"],
                          env=env, cwd=project).returncode == 0  # installed and importable
    plain = pytest("test_trivial.py")
    assert plain.returncode == 0 and "1 passed" in plain.stdout, plain.stdout + plain.stderr
    header = [line for line in plain.stdout.split("collected")[0].splitlines()
              if not line.startswith("rootdir:")]  # the temporary path names the test
    assert [line for line in header if line.startswith("plugins:")], header  # printed
    assert "torchada" not in "\n".join(header).lower(), header
    assert "--torchada-simulate" not in pytest("--help").stdout
    # Asked for: the option and the fixture are there.
    asked = pytest("-p", "torchada.testing.pytest_plugin", "--help")
    assert asked.returncode == 0 and "--torchada-simulate" in asked.stdout
    (project / "test_fixture.py").write_text(
        "def test_fixture(torchada_sim):\n    assert hasattr(torchada_sim, 'run')\n")
    assert pytest("test_fixture.py").returncode != 0   # no fixture unless asked
    used = pytest("-p", "torchada.testing.pytest_plugin", "test_fixture.py")
    assert used.returncode == 0 and "1 passed" in used.stdout, used.stdout + used.stderr
