"""The C++ backend: cache location and key, cached fast path, clear build errors."""
import os

from tests._fresh import SRC, clean_env, run_python

LOAD = ("import sys; sys.path.insert(0, %r)\n"
        "import torch; torch.utils.rename_privateuse1_backend('musa')\n"
        "from torchada.testing import _backend; print(_backend.load())" % str(SRC))


def _py(code, **env):
    return run_python(code, env=clean_env(TORCHADA_PLATFORM="off", **env), check=False,
                      timeout=600)


def test_cache_dir_is_keyed_by_torch_and_source(monkeypatch):
    import platformdirs
    import torch

    from torchada.testing import _backend

    monkeypatch.delenv("TORCHADA_SIM_CACHE_DIR", raising=False)
    d = _backend.cache_dir()
    assert d.startswith(os.path.join(platformdirs.user_cache_dir("torchada"), "sim_backend"))
    tag, sha = os.path.basename(d).rsplit("-", 1)
    assert tag == torch.__version__.replace("+", "_") and len(sha) == 16


def test_cached_library_loads_without_compiler():
    first = _py(LOAD)
    assert first.returncode == 0, first.stderr
    path = first.stdout.strip().splitlines()[-1]
    assert os.path.isfile(path)
    assert oct(os.stat(os.path.dirname(path)).st_mode & 0o777) == "0o700"
    again = _py(LOAD, CXX="/nonexistent/c++")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().splitlines()[-1] == path


def test_build_failure_names_compiler_and_cache_dir(tmp_path):
    proc = _py(LOAD, CXX="/nonexistent/c++", TORCHADA_SIM_CACHE_DIR=str(tmp_path))
    assert proc.returncode != 0
    assert "/nonexistent/c++" in proc.stderr and str(tmp_path) in proc.stderr, proc.stderr[-2000:]
    assert "building the C++ backend failed" in proc.stderr


def test_pytest_fixture_runner():
    from torchada.testing.pytest_plugin import _SimRunner

    out = _SimRunner({"TORCHADA_SIM_DEVICE_COUNT": "3"}).run(
        "import torch, torch_musa; print(torch.musa.device_count(), torch.zeros(2, device='musa').sum().item())")
    assert out.strip().splitlines()[-1] == "3 0.0"
