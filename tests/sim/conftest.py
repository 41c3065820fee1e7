"""Helpers for simulator tests.  Each simulated run is a fresh interpreter:
rename_privateuse1_backend works once per process."""
import os
import subprocess
import sys
import textwrap

import pytest

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "src"))
SIMROOT = os.path.join(SRC, "torchada", "testing", "_simroot")


def run_sim(code, env=None, expect_ok=True, timeout=300):
    """Run ``code`` on the simulator; return the CompletedProcess (stdout/stderr as text)."""
    full = {k: v for k, v in os.environ.items()
            if not k.startswith("TORCHADA_SIM_") and k not in ("MUSA_VISIBLE_DEVICES", "TORCHADA_SIMULATE_MUSA")}
    full.update(env or {})
    full["PYTHONPATH"] = os.pathsep.join([SIMROOT, SRC])
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, capture_output=True,
                          text=True, timeout=timeout)
    if expect_ok:
        assert proc.returncode == 0, f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return proc


@pytest.fixture
def sim():
    return run_sim
