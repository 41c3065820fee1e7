"""Tests of the simulator itself: each run is a fresh interpreter (rename_privateuse1_backend
works once per process) with the simulated torch_musa importable and torchada inactive."""
import pytest

from tests._fresh import bare_sim_env, run_python


def run_bare_sim(code, env=None, expect_ok=True, timeout=300):
    """Run ``code`` on the bare simulator; the CompletedProcess (stdout/stderr as text)."""
    return run_python(code, env=bare_sim_env(**(env or {})), check=expect_ok, timeout=timeout)


@pytest.fixture
def sim():
    return run_bare_sim
