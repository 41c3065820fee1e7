"""Testing support: the simulated torch_musa and a pytest plugin.

Nothing here imports torch.  The simulated package lives in ``simulator_root()``; putting
that folder first on ``sys.path`` makes ``import torch_musa`` load it.  See docs/simulator.md.
"""
import os
import sys

__all__ = ["simulator_root", "real_torch_musa_present", "enable_simulator", "run_simulated"]


def simulator_root() -> str:
    """The folder holding the simulated ``torch_musa`` package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_simroot")


def _real_entry():
    # One detector for the start-up hook and the simulator (stat only, nothing imported).
    import torchada_boot

    return torchada_boot.real_torch_musa_entry()


def real_torch_musa_present() -> bool:
    """Whether a real torch_musa is findable on sys.path (stat only; nothing is imported)."""
    return _real_entry() is not None


def enable_simulator(force: bool = False) -> str:
    """Make ``import torch_musa`` load the simulator in this process; return its root.

    Call it before anything imports torch_musa.  Refuses to shadow a real torch_musa
    unless ``force`` is true.
    """
    real = _real_entry()
    if real is not None and not force:
        raise RuntimeError(
            f"torchada.testing.enable_simulator(): a real torch_musa is installed ({real}); the "
            "simulator will not shadow it. Pass force=True (or set TORCHADA_SIMULATE_MUSA=force) "
            "to simulate anyway.")
    loaded = sys.modules.get("torch_musa")
    root = simulator_root()
    if loaded is not None and not str(getattr(loaded, "__file__", "")).startswith(root):
        raise RuntimeError("torchada.testing.enable_simulator(): torch_musa is already imported from "
                           f"{getattr(loaded, '__file__', '?')}; enable the simulator before importing it "
                           "(or in a fresh process: see torchada.testing.run_simulated)")
    while root in sys.path:
        sys.path.remove(root)
    sys.path.insert(0, root)
    return root


def run_simulated(code: str, env=None, timeout: float = 300, check: bool = True, cwd=None):
    """Run Python ``code`` in a fresh interpreter on the simulator; return CompletedProcess.

    A fresh process is needed because ``rename_privateuse1_backend`` works once per process.
    """
    import subprocess

    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    full = dict(os.environ)
    full.update(env or {})
    full.setdefault("TORCHADA_SIMULATE_MUSA", "1")
    paths = [simulator_root(), src] + [p for p in full.get("PYTHONPATH", "").split(os.pathsep) if p]
    full["PYTHONPATH"] = os.pathsep.join(paths)
    proc = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"simulated run failed (exit {proc.returncode}):\n--- stdout\n{proc.stdout}\n"
                             f"--- stderr\n{proc.stderr}")
    return proc
