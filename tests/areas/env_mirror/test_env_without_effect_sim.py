"""CUDA variables with no effect on MUSA: one warning each at activation (fresh interpreters on
the simulator), an opt-out, and the mirrored variables still mirrored."""
import textwrap

from tests._fresh import last_json, run_python, sim_env
from tests._musa_manifest import load
from torchada.areas import _env_without_effect as table
from torchada.areas._cuda_env_names import cuda_twin

PROBE = textwrap.dedent("""
    import json, os, torch, torchada
    import torch.distributed  # a second trigger must not warn again
    print(json.dumps({k: os.environ.get(k) for k in (
        "TORCH_MCCL_BLOCKING_WAIT", "PYTORCH_USE_MUSA_DSA", "MUSA_DEVICE_MAX_CONNECTIONS")}))
""")
SET = {"NVIDIA_TF32_OVERRIDE": "0", "CUDA_DEVICE_MAX_CONNECTIONS": "1",
       "TORCH_NCCL_USE_COMM_NONBLOCKING": "1", "TORCH_NCCL_BLOCKING_WAIT": "1",
       "PYTORCH_USE_CUDA_DSA": "1"}


def _env(**overrides):
    env = sim_env(**overrides)
    for key in [k for k in env if k.startswith("TORCH_NCCL_") and k not in overrides]:
        del env[key]  # a developer's shell must not add warnings
    for row in table.NAMED:
        if row.name not in overrides:
            env.pop(row.name, None)
    return env


def _warnings(stderr):
    return [line for line in stderr.splitlines() if "has no effect on MUSA" in line]


def test_each_set_variable_gets_exactly_one_warning_naming_it_and_its_twin():
    proc = run_python(PROBE, env=_env(**SET))
    lines = _warnings(proc.stderr)
    assert len(lines) == 3, proc.stderr
    by_name = {name: [l for l in lines if " %s has" % name in l]
               for name in ("NVIDIA_TF32_OVERRIDE", "CUDA_DEVICE_MAX_CONNECTIONS",
                            "TORCH_NCCL_USE_COMM_NONBLOCKING")}
    assert all(len(found) == 1 for found in by_name.values()), lines
    assert "MUSA twin: none exists" in by_name["NVIDIA_TF32_OVERRIDE"][0]
    assert "MUSA twin: MUSA_DEVICE_MAX_CONNECTIONS" in by_name["CUDA_DEVICE_MAX_CONNECTIONS"][0]
    assert "MUSA twin: none exists" in by_name["TORCH_NCCL_USE_COMM_NONBLOCKING"][0]
    # warned, not mirrored: the MUSA driver's reading of the twin is not in any public source
    assert last_json(proc)["MUSA_DEVICE_MAX_CONNECTIONS"] is None


def test_no_mccl_twin_agrees_with_the_recorded_api():
    """TORCH_NCCL_USE_COMM_NONBLOCKING is warned about because ProcessGroupMCCL reads no
    twin of it, and TORCH_NCCL_BLOCKING_WAIT is not because it does (recorded 2.7.1 API)."""
    recorded = {cuda_twin(n) for n in load()["distributed"]["env_vars_read_by_ProcessGroupMCCL"]}
    warned = {row.name for row in table.found(SET, frozenset(recorded))}
    assert "TORCH_NCCL_USE_COMM_NONBLOCKING" in warned and "TORCH_NCCL_USE_COMM_NONBLOCKING" not in recorded
    assert "TORCH_NCCL_BLOCKING_WAIT" in recorded and "TORCH_NCCL_BLOCKING_WAIT" not in warned


def test_opt_out_silences_the_warnings_and_mirroring_goes_on():
    proc = run_python(PROBE, env=_env(TORCHADA_CUDA_ENV_WARNINGS="0", **SET))
    assert _warnings(proc.stderr) == []
    assert last_json(proc)["TORCH_MCCL_BLOCKING_WAIT"] == "1"


def test_mirrored_variables_are_still_mirrored_and_not_warned_about():
    proc = run_python(PROBE, env=_env(TORCH_NCCL_BLOCKING_WAIT="1", PYTORCH_USE_CUDA_DSA="1"))
    assert _warnings(proc.stderr) == []
    out = last_json(proc)
    assert out["TORCH_MCCL_BLOCKING_WAIT"] == "1" and out["PYTORCH_USE_MUSA_DSA"] == "1"


def test_nothing_set_no_warning():
    proc = run_python(PROBE, env=_env())
    assert _warnings(proc.stderr) == [] and "torchada:" not in proc.stderr, proc.stderr
