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


# torch's own shutdown race (torch 2.13 on Python 3.11): once autograd's device threads have
# run, the interpreter's exit can abort with this line after the program finished. Measured
# with torchada off too (docs/simulator.md, "torch's shutdown abort"); it is not torchada's to
# fix and is not hidden: a child that finished its code and then aborted so is reported as a
# TorchShutdownAbort warning in pytest's summary, and its test checks its output as usual.
SHUTDOWN_ABORT = "terminate called without an active exception"
_FINISHED_VAR = "TESTS_CHILD_FINISHED_FILE"
_FINISHED_CODE = ("\nimport os as _tests_os\n"
                  "if _tests_os.environ.get(%r):\n"
                  "    open(_tests_os.environ[%r], 'w').close()\n" % (_FINISHED_VAR, _FINISHED_VAR))


class TorchShutdownAbort(UserWarning):
    """A child finished its code, then torch's shutdown race aborted it (SIGABRT)."""


def _shutdown_abort_after_finishing(proc, finished):
    """``finished``: whether the child's code ran to its end (the path of the file it creates
    then, or a bool read from its output)."""
    if isinstance(finished, str):
        finished = os.path.exists(finished)
    # -6 / 134: the signal as subprocess and a shell report it; 250: a parent that passed the
    # child's -6 on as its own exit status (torchada run)
    if proc.returncode not in (-6, 134, 250) or not finished:
        return False
    lines = proc.stderr.strip().splitlines()
    if not lines or lines[-1].strip() != SHUTDOWN_ABORT:
        return False
    from importlib.metadata import version

    from packaging.version import Version

    return sys.version_info[:2] == (3, 11) and Version(version("torch")) >= Version("2.13")


def reported_shutdown_abort(proc, finished):
    """True (and a TorchShutdownAbort warning) when ``proc`` finished its work, then hit
    torch's shutdown abort; ``finished`` as for _shutdown_abort_after_finishing."""
    if not _shutdown_abort_after_finishing(proc, finished):
        return False
    import warnings

    warnings.warn(TorchShutdownAbort("%s: the code finished, then %r at exit (torch's "
                                     "shutdown race)" % (" ".join(map(str, proc.args[1:4]))[:200],
                                                         SHUTDOWN_ABORT)))
    return True


def run_argv(argv, *, env=None, python=None, check=True, timeout=300, cwd=None,
             finished=None):
    """``python <argv...>`` in a fresh interpreter; the CompletedProcess (text).
    ``finished``: a file the child creates when its code has run to the end (run_python)."""
    proc = subprocess.run([python or sys.executable, *map(str, argv)],
                          env=env if env is not None else clean_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    if check and finished is not None and reported_shutdown_abort(proc, finished):
        return proc
    if check and proc.returncode != 0:
        raise AssertionError("subprocess %s failed (%d)\n--- stdout\n%s\n--- stderr\n%s"
                             % (" ".join(map(str, argv[:3])), proc.returncode,
                                proc.stdout[-4000:], proc.stderr[-6000:]))
    return proc


def run_python(code, *, args=(), script_args=(), env=None, python=None, check=True,
               timeout=300, cwd=None):
    """Run a snippet (dedented) in a fresh interpreter; ``args`` are interpreter options
    placed before ``-c`` (``-X``, ``-I``), ``script_args`` its ``sys.argv[1:]``."""
    import tempfile

    env = dict(env if env is not None else clean_env())
    with tempfile.TemporaryDirectory() as folder:
        env[_FINISHED_VAR] = finished = os.path.join(folder, "finished")
        return run_argv([*args, "-c", textwrap.dedent(code) + _FINISHED_CODE, *script_args],
                        env=env, python=python, check=check, timeout=timeout, cwd=cwd,
                        finished=finished)


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
