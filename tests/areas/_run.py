"""Helpers for the area tests: fresh interpreters with a clean torchada environment."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
FAKE = str(Path(__file__).resolve().parent / "_fakemusa")
_DROP = ("TORCHADA_", "CUDA_VISIBLE", "MUSA_VISIBLE", "PYTORCH_CUDA_ALLOC", "PYTORCH_MUSA_ALLOC",
         "CUDA_LAUNCH", "MUSA_LAUNCH", "CUBLAS_WORK", "MUBLAS_WORK")


def env(**overrides):
    out = {k: v for k, v in os.environ.items() if not k.startswith(_DROP) and k != "PYTHONPATH"}
    out["PYTHONUNBUFFERED"] = "1"
    for key, value in overrides.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = str(value)
    return out


def sim_env(**overrides):
    return env(TORCHADA_SIMULATE_MUSA="1", **overrides)


def fake_env(**overrides):
    return env(TORCHADA_PLATFORM="musa", PYTHONPATH=FAKE, **overrides)


def run(code_or_path, environment, timeout=600, check=True, args=()):
    cmd = [PYTHON]
    if os.path.isfile(str(code_or_path)):
        cmd.append(str(code_or_path))
    else:
        cmd += ["-c", code_or_path]
    proc = subprocess.run(cmd + list(args), env=environment, capture_output=True, text=True,
                          timeout=timeout, cwd=str(ROOT))
    if check and proc.returncode != 0:
        raise AssertionError("exit %d\nstdout:\n%s\nstderr:\n%s" % (
            proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:]))
    return proc


def last_json(proc):
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError("no JSON line in output:\n%s\n%s" % (proc.stdout, proc.stderr))


def sim_available():
    return (ROOT / "src" / "torchada" / "testing" / "_simroot" / "torch_musa" /
            "__init__.py").exists()
