"""The one way tests start a fresh interpreter: a clean environment, then the platform the
test wants (the simulated torch_musa, the tiny fake torch_musa, or none).

Anything about interpreter start, activation or the simulator runs here, never in the
pytest process: ``rename_privateuse1_backend`` and the start-up hook happen once per process.
"""
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
FIXTURES = ROOT / "tests" / "fixtures"
FAKE_MUSA = FIXTURES / "fake_musa"      # names only: activation machinery, no tensors
SIMROOT = SRC / "torchada" / "testing" / "_simroot"  # the simulated torch_musa package root

# Variables a developer's shell may hold that would change what a child decides.
_DROP_PREFIXES = ("TORCHADA_", "FAKE_TORCH_MUSA", "CUDA_VISIBLE", "MUSA_VISIBLE",
                  "PYTORCH_CUDA_ALLOC", "PYTORCH_MUSA_ALLOC", "CUDA_LAUNCH", "MUSA_LAUNCH",
                  "CUBLAS_WORK", "MUBLAS_WORK")


def free_port():
    """A loopback port free right now (the kernel's pick), never a fixed number: suites
    run side by side (CI and a developer's run) must not meet on a port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def clean_env(**overrides):
    """This environment without torchada / device switches or PYTHONPATH, plus overrides
    (a value of None removes the variable)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(_DROP_PREFIXES) and k != "PYTHONPATH"}
    env["PYTHONUNBUFFERED"] = "1"
    # The device route under test (tests/areas/devices/test_device_route.py reruns the
    # device tests on the Python route through this one variable).
    route = os.environ.get("TORCHADA_TEST_DEVICE_ROUTE")
    if route:
        env["TORCHADA_DEVICE_ROUTE"] = route
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    return env


def sim_env(**overrides):
    """The simulated torch_musa, switched on the way users do (TORCHADA_SIMULATE_MUSA)."""
    return clean_env(TORCHADA_SIMULATE_MUSA="1", **overrides)


def bare_sim_env(**overrides):
    """The simulated torch_musa importable as ``torch_musa`` with torchada inactive: tests
    of the simulator itself (what a CUDA program sees comes from sim_env)."""
    overrides.setdefault("PYTHONPATH", os.pathsep.join([str(SIMROOT), str(SRC)]))
    return clean_env(**overrides)


def fake_musa_env(**overrides):
    """A MUSA-looking machine made of the fake torch_musa fixture (no simulator)."""
    overrides.setdefault("PYTHONPATH", FAKE_MUSA)
    return clean_env(**overrides)


def run_argv(argv, *, env=None, python=None, check=True, timeout=300, cwd=None):
    """``python <argv...>`` in a fresh interpreter; the CompletedProcess (text)."""
    proc = subprocess.run([python or sys.executable, *map(str, argv)],
                          env=env if env is not None else clean_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("subprocess %s failed (%d)\n--- stdout\n%s\n--- stderr\n%s"
                             % (" ".join(map(str, argv[:3])), proc.returncode,
                                proc.stdout[-4000:], proc.stderr[-6000:]))
    return proc


def run_python(code, *, args=(), script_args=(), env=None, python=None, check=True,
               timeout=300, cwd=None):
    """Run a snippet (dedented) in a fresh interpreter; ``args`` are interpreter options
    placed before ``-c`` (``-X``, ``-I``), ``script_args`` its ``sys.argv[1:]``."""
    return run_argv([*args, "-c", textwrap.dedent(code), *script_args], env=env, python=python,
                    check=check, timeout=timeout, cwd=cwd)


def run_sim(code, *, env=None, check=True, timeout=300, **overrides):
    """A snippet on the simulated torch_musa, with ``torch`` and ``torchada`` imported."""
    return run_python("import torch, torchada\n" + textwrap.dedent(code),
                      env=env if env is not None else sim_env(**overrides),
                      check=check, timeout=timeout)


def last_json(proc):
    """The last line of stdout that is a JSON object."""
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError("no JSON line in output:\n%s\n%s" % (proc.stdout, proc.stderr))
