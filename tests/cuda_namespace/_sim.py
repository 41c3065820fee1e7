"""Run a snippet in a fresh interpreter on the simulated torch_musa (TORCHADA_SIMULATE_MUSA=1)."""
import os
import subprocess
import sys
import textwrap

PRELUDE = """
import torch, torchada
"""


def env(**overrides):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("TORCHADA_", "FAKE_TORCH_MUSA", "MUSA_")) and k != "PYTHONPATH"}
    e["TORCHADA_SIMULATE_MUSA"] = "1"
    e["PYTHONUNBUFFERED"] = "1"
    e.update({k: str(v) for k, v in overrides.items()})
    return e


def run(code, timeout=300, **overrides):
    proc = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
                          env=env(**overrides), capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError("simulated run failed (%d)\n--- stdout\n%s\n--- stderr\n%s"
                             % (proc.returncode, proc.stdout, proc.stderr[-6000:]))
    return proc.stdout
