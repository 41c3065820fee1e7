"""The C++ backend: cache location and key, cached fast path, clear build errors."""
import os

from tests._fresh import SRC, clean_env, run_python

LOAD = ("import sys; sys.path.insert(0, %r)\n"
        "import torch; torch.utils.rename_privateuse1_backend('musa')\n"
        "from torchada.testing import _backend; print(_backend.load())" % str(SRC))


def _py(code, **env):
    return run_python(code, env=clean_env(TORCHADA_PLATFORM="off", **env), check=False,
                      timeout=600)


def test_cache_dir_is_keyed_by_torch_source_and_platform(monkeypatch, tmp_path):
    import platform

    import platformdirs
    import torch

    from torchada.testing import _backend

    monkeypatch.delenv("TORCHADA_SIM_CACHE_DIR", raising=False)
    d = _backend.cache_dir()
    assert d.startswith(os.path.join(platformdirs.user_cache_dir("torchada"), "sim_backend"))
    tag, sha = os.path.basename(d).rsplit("-", 1)
    assert tag == torch.__version__.replace("+", "_") and len(sha) == 16
    # another machine type or another compiler: another folder
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert _backend.cache_dir() != d
    monkeypatch.undo()
    monkeypatch.setenv("CXX", "/usr/bin/true")  # a program's compiler: not the simulator's
    assert _backend.cache_dir() == d
    monkeypatch.setenv("PATH", "%s:%s" % (failing_compiler(tmp_path), os.environ["PATH"]))
    assert _backend.cache_dir() != d


def failing_compiler(tmp_path):
    """A folder whose c++ says a version and fails every compile."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    cxx = folder / "c++"
    cxx.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "failing c++ 1.0" && exit 0\n'
                   'echo "cannot compile" >&2\nexit 1\n')
    cxx.chmod(0o755)
    return folder


def test_cached_library_loads_without_building(tmp_path):
    """A verified cached library is loaded as it is: with no way to build (a ninja that
    fails first in PATH), the second start still loads it."""
    first = _py(LOAD)
    assert first.returncode == 0, first.stderr
    path = first.stdout.strip().splitlines()[-1]
    assert os.path.isfile(path) and os.path.isfile(path + ".sha256")
    assert oct(os.stat(os.path.dirname(path)).st_mode & 0o777) == "0o700"
    ninja = tmp_path / "ninja"
    ninja.write_text("#!/bin/sh\necho no build allowed >&2\nexit 1\n")
    ninja.chmod(0o755)
    again = _py(LOAD, PATH="%s:%s" % (tmp_path, os.environ["PATH"]))
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().splitlines()[-1] == path


def test_build_failure_names_compiler_and_cache_dir(tmp_path):
    bin_dir = failing_compiler(tmp_path)
    cache = tmp_path / "cache"
    proc = _py(LOAD, PATH="%s:%s" % (bin_dir, os.environ["PATH"]), TORCHADA_SIM_CACHE_DIR=cache)
    assert proc.returncode != 0
    assert str(bin_dir / "c++") in proc.stderr and str(cache) in proc.stderr, proc.stderr[-2000:]
    assert "building the C++ backend failed" in proc.stderr


def test_pytest_fixture_runner():
    from torchada.testing.pytest_plugin import _SimRunner

    out = _SimRunner({"TORCHADA_SIM_DEVICE_COUNT": "3"}).run(
        "import torch, torch_musa; print(torch.musa.device_count(), torch.zeros(2, device='musa').sum().item())")
    assert out.strip().splitlines()[-1] == "3 0.0"
