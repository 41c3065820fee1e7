"""The standalone pytorch_lightning package's Trainer on the simulated device: the same
program as test_lightning_trainer_sim.py, importing ``pytorch_lightning``."""
import json
from pathlib import Path

from tests._fresh import run_argv, sim_env

PROGRAM = Path(__file__).with_name("lightning_program.py")


def train(env):
    proc = run_argv([PROGRAM, "gpu", "16-mixed", "pytorch_lightning"], env=env, check=False,
                    timeout=300)
    return (json.loads(proc.stdout.strip().splitlines()[-1])
            if proc.returncode == 0 else None), proc


def test_mixed_precision_trainer_equals_hand_written_autocast_and_gradscaler():
    out, proc = train(sim_env())
    assert out is not None, proc.stderr[-3000:]
    assert out["lightning"] == out["manual"] and out["bias"] == out["manual_bias"]
    assert out["stats"] is True


def test_without_its_area_the_standalone_package_refuses_the_device():
    out, proc = train(sim_env(TORCHADA_DISABLE_AREAS="lightning"))
    assert out is None and "Device should be GPU, got musa:0" in proc.stderr
