"""DeepSpeed picks its CUDA accelerator on MUSA and it answers for the device; its own
choices (DS_ACCELERATOR, an accelerator already set) are kept; off MUSA nothing changes.

DeepSpeed is tests/fixtures/deepspeed, written from DeepSpeed 0.19.8's accelerator source
(its README says what it keeps): the real package builds from an sdist that pulls a CUDA
torch into its build environment."""
from tests._fresh import FIXTURES, clean_env, last_json, run_python, sim_env

DEEPSPEED = str(FIXTURES / "deepspeed")

PROGRAM = """
import json, sys, torch, torchada
import deepspeed
from deepspeed.accelerator import get_accelerator
acc = get_accelerator()
out = {"class": type(acc).__name__, "base": [c.__name__ for c in type(acc).__mro__[1:2]],
       "available": acc.is_available(), "cuda_available": torch.cuda.is_available()}
if out["class"] != "CPU_Accelerator":
    x = torch.ones(3, device=acc.device_name(0)) * 2
    out.update(fp16=acc.is_fp16_supported(), bf16=acc.is_bf16_supported(),
               dtypes=[str(d) for d in acc.supported_dtypes()], triton=acc.is_triton_supported(),
               backend=acc.communication_backend_name(), current=acc.current_device_name(),
               tensor=[str(x.device), x.tolist()], bf16_musa=torch.musa.is_bf16_supported())
area = [a for a in torchada.status().areas if a.name == "deepspeed_accelerator"][0]
out["area"] = [area.state, area.note]
print(json.dumps(out))
"""


def run(env):
    return last_json(run_python(PROGRAM, env=env))


def test_musa_machine_gets_the_cuda_accelerator_answering_for_the_device():
    out = run(sim_env(PYTHONPATH=DEEPSPEED))
    assert out["class"] == "MUSA_CUDA_Accelerator" and out["base"] == ["CUDA_Accelerator"]
    # torch.cuda.is_available() stays False on MUSA (docs/devices.md): DeepSpeed's own
    # detection would have chosen the CPU
    assert out["cuda_available"] is False and out["available"] is True
    assert out["tensor"] == ["musa:0", [2.0, 2.0, 2.0]]
    assert out["fp16"] is True and out["bf16"] is out["bf16_musa"]
    assert out["dtypes"][:2] == ["torch.float32", "torch.float16"]
    assert out["triton"] is False and out["backend"] == "nccl" and out["current"] == "cuda:0"
    assert out["area"][0] == "applied" and "set_accelerator" in out["area"][1]


def test_without_the_area_deepspeed_falls_back_to_the_cpu():
    out = run(sim_env(PYTHONPATH=DEEPSPEED, TORCHADA_DISABLE_AREAS="deepspeed_accelerator"))
    assert out["class"] == "CPU_Accelerator"  # what users got before: silently on the CPU


def test_ds_accelerator_set_by_the_user_is_kept():
    out = run(sim_env(PYTHONPATH=DEEPSPEED, DS_ACCELERATOR="cpu"))
    assert out["class"] == "CPU_Accelerator"
    assert out["area"] == ["applied", "DS_ACCELERATOR=cpu set by the user: DeepSpeed's choice kept"]


def test_no_musa_device_leaves_detection_alone():
    out = run(sim_env(PYTHONPATH=DEEPSPEED, TORCHADA_SIM_DEVICE_COUNT=0))
    assert out["class"] == "CPU_Accelerator"
    assert "sees no device" in out["area"][1]


def test_off_musa_nothing_changes():
    out = run(clean_env(PYTHONPATH=DEEPSPEED))
    assert out["class"] == "CPU_Accelerator" and out["area"][0] == "skipped"
