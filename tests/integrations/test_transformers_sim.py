"""Hugging Face transformers, unchanged, on the simulated device: a tied-embedding GPT-2
trains to exactly the CPU's losses with an optimizer built before `.to("cuda")`."""
from pathlib import Path

from tests._fresh import clean_env, last_json, run_argv, sim_env

PROGRAM = Path(__file__).with_name("transformers_program.py")


def run(device, env):
    return last_json(run_argv([PROGRAM, device], env=env, timeout=300))


def test_tied_gpt2_training_on_musa_equals_the_cpu():
    musa = run("cuda", sim_env())
    cpu = run("cpu", clean_env())
    assert musa["device"] == "musa:0" and musa["tied"] is True
    assert musa["losses"] == cpu["losses"]
