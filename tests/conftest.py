"""Shared helpers: every test about interpreter start runs in a fresh subprocess."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def clean_env(**overrides):
    """The current environment without any TORCHADA_* / MUSA switches, plus overrides."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCHADA_", "FAKE_TORCH_MUSA")) and k not in ("PYTHONPATH",
                                                                               "MUSA_VISIBLE_DEVICES")}
    env["PYTHONUNBUFFERED"] = "1"
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    return env


def run_python(code, *, args=(), env=None, python=None, check=True, timeout=300, cwd=None):
    """Run a snippet in a fresh interpreter; returns the CompletedProcess (text)."""
    cmd = [python or sys.executable, *args, "-c", textwrap.dedent(code)]
    proc = subprocess.run(cmd, env=env if env is not None else clean_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("subprocess failed (%d)\n--- stdout\n%s\n--- stderr\n%s"
                             % (proc.returncode, proc.stdout, proc.stderr))
    return proc


def fake_musa_env(**overrides):
    """A MUSA-looking machine made of the tiny fake torch_musa fixture (no simulator)."""
    overrides.setdefault("PYTHONPATH", FIXTURES / "fake_musa")
    return clean_env(**overrides)


@pytest.fixture
def py():
    return run_python
