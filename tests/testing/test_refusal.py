"""The simulator never shadows a real torch_musa unless forced (checked without importing torch)."""
import os
import sys

import pytest

from tests._fresh import SRC, clean_env, run_python


def test_simulator_root_and_detection(tmp_path, monkeypatch):
    import torchada.testing as t

    assert os.path.isfile(os.path.join(t.simulator_root(), "torch_musa", "__init__.py"))
    monkeypatch.setattr(sys, "path", [p for p in sys.path] + [t.simulator_root()])
    assert not t.real_torch_musa_present(), "the simulator itself is not a real torch_musa"
    fake = tmp_path / "torch_musa"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + sys.path)
    assert t.real_torch_musa_present()
    with pytest.raises(RuntimeError, match="TORCHADA_SIMULATE_MUSA=force"):
        t.enable_simulator()
    assert t.enable_simulator(force=True) == t.simulator_root()
    assert sys.path[0] == t.simulator_root()


def test_enable_simulator_in_process():
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import torchada.testing as t; t.enable_simulator()\n"
            "import torch, torch_musa; print(torch_musa.__file__.startswith(t.simulator_root()), "
            "torch.ones(1, device='musa').device)" % str(SRC))
    proc = run_python(code, env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True musa:0"


def test_import_writes_no_environment_variables(sim):
    out = sim("import os; before = dict(os.environ)\n"
              "import torch, torch_musa; torch.ones(1, device='musa')\n"
              "after = dict(os.environ); print(sorted(set(after) ^ set(before)))").stdout
    assert out.strip() == "[]", out
