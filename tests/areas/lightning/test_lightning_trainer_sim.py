"""PyTorch Lightning's Trainer on the simulated device: results equal the same training
written by hand (16-mixed) and the CPU Trainer's (32-true)."""
import json
from pathlib import Path

import pytest

from tests._fresh import clean_env, run_argv, sim_env

PROGRAM = Path(__file__).with_name("lightning_program.py")


def train(accelerator, precision, env, package="lightning"):
    proc = run_argv([PROGRAM, accelerator, precision, package], env=env, check=False,
                    timeout=300)
    lines = proc.stdout.strip().splitlines()
    return (json.loads(lines[-1]) if proc.returncode == 0 else None), proc


@pytest.mark.parametrize("accelerator", ["gpu", "cuda", "auto"])
def test_mixed_precision_trainer_equals_hand_written_autocast_and_gradscaler(accelerator):
    out, proc = train(accelerator, "16-mixed", sim_env())
    assert out is not None, proc.stderr[-3000:]
    assert out["lightning"] == out["manual"] and out["bias"] == out["manual_bias"]
    assert out["stats"] is True          # get_device_stats answers from torch.musa


def test_full_precision_trainer_on_musa_equals_the_cpu_trainer():
    musa, proc = train("gpu", "32-true", sim_env())
    assert musa is not None, proc.stderr[-3000:]
    cpu, proc = train("cpu", "32-true", clean_env())
    assert cpu is not None, proc.stderr[-3000:]
    assert (musa["lightning"], musa["bias"]) == (cpu["lightning"], cpu["bias"])


def test_without_the_area_lightning_refuses_the_device():
    out, proc = train("gpu", "16-mixed", sim_env(TORCHADA_DISABLE_AREAS="lightning"))
    assert out is None and "Device should be GPU, got musa:0" in proc.stderr

