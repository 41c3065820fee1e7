"""The env_mirror area on the simulator (fresh interpreters)."""
import json
import textwrap

from tests._fresh import last_json, run_python, sim_env


ENV = textwrap.dedent("""
    import json, os, torch, torchada
    out = {k: os.environ.get(k) for k in ("MUSA_VISIBLE_DEVICES", "PYTORCH_MUSA_ALLOC_CONF")}
    out["count"] = torch.cuda.device_count()
    torchada.revert("env_mirror")
    out["after_revert"] = os.environ.get("MUSA_VISIBLE_DEVICES")
    print(json.dumps(out))
""")


def test_env_mirror_sets_musa_names_and_reverts():
    proc = run_python(ENV, env=sim_env(CUDA_VISIBLE_DEVICES="1", PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:64"))
    out = last_json(proc)
    assert out["MUSA_VISIBLE_DEVICES"] == "1"
    assert out["PYTORCH_MUSA_ALLOC_CONF"] == "max_split_size_mb:64"
    assert out["after_revert"] is None


def test_env_mirror_musa_wins_with_one_warning():
    proc = run_python(ENV, env=sim_env(CUDA_VISIBLE_DEVICES="1", MUSA_VISIBLE_DEVICES="0"))
    out = last_json(proc)
    assert out["MUSA_VISIBLE_DEVICES"] == "0" and out["count"] == 1
    assert proc.stderr.count("MUSA_VISIBLE_DEVICES wins") == 1


def test_env_mirror_nothing_set_without_cuda_names():
    out = last_json(run_python(ENV, env=sim_env()))
    assert out["MUSA_VISIBLE_DEVICES"] is None and out["PYTORCH_MUSA_ALLOC_CONF"] is None


def test_env_mirror_visible_devices_take_effect():
    out = last_json(run_python(ENV, env=sim_env(CUDA_VISIBLE_DEVICES="1")))
    assert out["count"] == 1


CHILD = textwrap.dedent("""
    import json, os, subprocess, sys, torch, torchada
    assert os.environ["MUSA_VISIBLE_DEVICES"] == "0,1"
    # A worker launcher narrowing the CUDA name per process, as Inductor's autotune
    # workers and Ray / vLLM workers do; the inherited MUSA value was torchada's.
    code = ("import json, os, torch, torchada; "
            "print(json.dumps([os.environ.get('MUSA_VISIBLE_DEVICES'), torch.cuda.device_count(), "
            "torch.cuda.get_device_properties(0).name]))")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="1")
    child = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    print(child.stdout.strip().splitlines()[-1] if child.stdout.strip() else child.stderr[-2000:])
""")


def test_child_narrowing_cuda_visible_devices_gets_it_mirrored():
    proc = run_python(CHILD, env=sim_env(CUDA_VISIBLE_DEVICES="0,1"))
    assert json.loads(proc.stdout.strip().splitlines()[-1])[:2] == ["1", 1]
    assert "wins" not in proc.stderr


def test_musa_name_set_by_hand_still_wins_in_children():
    proc = run_python(CHILD.replace('assert os.environ["MUSA_VISIBLE_DEVICES"] == "0,1"', ""),
                      env=sim_env(CUDA_VISIBLE_DEVICES="0,1", MUSA_VISIBLE_DEVICES="0,1"))
    assert json.loads(proc.stdout.strip().splitlines()[-1])[:2] == ["0,1", 2]


def test_nccl_variables_mirrored_to_the_mccl_names_torch_musa_reads():
    """The table equals the MCCL names the recorded torch_musa 2.7.1 API lists as read by
    ProcessGroupMCCL; values reach them, a set MCCL value is never overwritten."""
    from tests._musa_manifest import load
    from torchada.areas._cuda_env_names import MCCL_NAMES

    recorded = load()["distributed"]["env_vars_read_by_ProcessGroupMCCL"]
    assert set(MCCL_NAMES) == set(recorded) - {"TORCH_DISTRIBUTED_DEBUG"}
    proc = run_python("""
import json, os, torch, torchada
print(json.dumps({k: os.environ.get(k) for k in (
    "TORCH_MCCL_ASYNC_ERROR_HANDLING", "MCCL_DEBUG", "TORCH_MCCL_MUSA_EVENT_CACHE",
    "TORCH_MCCL_BLOCKING_WAIT", "TORCH_MCCL_NAN_CHECK")}))
""", env=sim_env(TORCH_NCCL_ASYNC_ERROR_HANDLING="3", NCCL_DEBUG="INFO",
                 TORCH_NCCL_CUDA_EVENT_CACHE="0", TORCH_NCCL_BLOCKING_WAIT="1",
                 TORCH_MCCL_BLOCKING_WAIT="0"))
    assert last_json(proc) == {"TORCH_MCCL_ASYNC_ERROR_HANDLING": "3", "MCCL_DEBUG": "INFO",
                               "TORCH_MCCL_MUSA_EVENT_CACHE": "0",
                               "TORCH_MCCL_BLOCKING_WAIT": "0",  # set by the user: kept
                               "TORCH_MCCL_NAN_CHECK": None}
    assert proc.stderr.count("TORCH_MCCL_BLOCKING_WAIT='0' and TORCH_NCCL_BLOCKING_WAIT='1' "
                             "are both set; TORCH_MCCL_BLOCKING_WAIT wins") == 1
