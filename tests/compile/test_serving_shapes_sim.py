"""Serving and training shapes (tests/compile/serving_shapes.py) compiled with fullgraph=True on
the simulated MUSA device: a decode step equal to eager in one graph, the compiled step
captured in a CUDA graph and replayed for new inputs, Dynamo's CUDA-graph-trees backend, and
an autocast + GradScaler + fused AdamW training step equal to eager."""
from pathlib import Path

import pytest

from tests._fresh import last_json, run_argv, sim_env

PROGRAM = Path(__file__).with_name("serving_shapes.py")


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_serving_and_training_steps_compile_as_they_run_eagerly(backend, tmp_path):
    out = last_json(run_argv([PROGRAM, backend], env=sim_env(TORCHINDUCTOR_CACHE_DIR=tmp_path),
                             timeout=900))
    assert out["decode"] == {"equal": True, "graphs": 1, "device": "musa:0", "steps": 4}
    # four replays of one capture, each fed new tokens and positions, each equal to eager
    assert out["decode_graph"] == {"equal": True, "replays": 4, "replays_distinct": 4}
    # CUDA-graph trees accept only CUDA devices (torch/_inductor/cudagraph_utils.py): the
    # musa graph runs uncaptured, once skipped, with eager's numbers
    assert out["cudagraphs_backend"] == {"equal": True, "skipped": 1}
    assert out["train"] == {"losses_equal": True, "params_equal": True, "scale_equal": True,
                            "graphs": 1, "param_device": "musa:0",
                            "loss_dtype": "torch.float32"}
