"""pytest plugin for downstream projects (opt-in: installing torchada loads nothing).

It has no ``pytest11`` entry point, so a pytest session never sees it unless asked:
``pytest -p torchada.testing.pytest_plugin`` on the command line, or
``pytest_plugins = ["torchada.testing.pytest_plugin"]`` in a project's top conftest.py.
Once loaded it still does nothing unless a test uses the fixture or the session is started
with ``--torchada-simulate``.

* ``torchada_sim`` fixture: ``torchada_sim.run(code, env=None)`` runs ``code`` in a fresh
  interpreter on the simulated torch_musa and returns its stdout (asserting exit status 0).
* ``--torchada-simulate``: child processes started by the tests (subprocess, mp.spawn)
  inherit ``TORCHADA_SIMULATE_MUSA=1``; the option is explicit user consent to set it.
"""
import os

import pytest

from torchada._core.settings import read


def pytest_addoption(parser):
    group = parser.getgroup("torchada")
    group.addoption("--torchada-simulate", action="store_true", default=False,
                    help="run child processes of the tests on torchada's simulated torch_musa")


def pytest_configure(config):
    config.addinivalue_line("markers", "torchada_sim: test uses torchada's simulated torch_musa")
    if config.getoption("--torchada-simulate", default=False):
        from torchada.testing import real_torch_musa_present, simulator_root

        if real_torch_musa_present() and read("TORCHADA_SIMULATE_MUSA") != "force":
            raise pytest.UsageError("--torchada-simulate: a real torch_musa is installed; set "
                                    "TORCHADA_SIMULATE_MUSA=force to shadow it with the simulator")
        if read("TORCHADA_SIMULATE_MUSA") is None:  # unset, off or malformed (warned)
            os.environ["TORCHADA_SIMULATE_MUSA"] = "1"
        root = simulator_root()
        parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        if root not in parts:
            os.environ["PYTHONPATH"] = os.pathsep.join([root] + parts)


class _SimRunner:
    def __init__(self, env=None):
        self.env = dict(env or {})

    def run(self, code: str, env=None, timeout: float = 300) -> str:
        from torchada.testing import run_simulated

        merged = dict(self.env)
        merged.update(env or {})
        return run_simulated(code, env=merged, timeout=timeout).stdout


@pytest.fixture
def torchada_sim():
    """Runs code snippets in fresh interpreters on the simulated torch_musa."""
    from torchada.testing import real_torch_musa_present

    if real_torch_musa_present() and read("TORCHADA_SIMULATE_MUSA") != "force":
        pytest.skip("a real torch_musa is installed; set TORCHADA_SIMULATE_MUSA=force to simulate anyway")
    return _SimRunner()
