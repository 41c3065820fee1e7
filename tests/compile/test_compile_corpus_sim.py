"""torch.compile of CUDA code on the simulated device, eager and aot_eager backends (Inductor
cannot generate musa code on the simulator: docs/compile.md)."""
from pathlib import Path

import pytest

from tests._fresh import last_json, run_argv, sim_env

CORPUS = Path(__file__).with_name("compile_corpus.py")
CASES = ["device_ctx", "factories", "to_cuda", "streams", "fullgraph_factories", "training",
         "fx", "script"]


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_compiled_cuda_code_matches_eager(backend, tmp_path):
    proc = run_argv([CORPUS, backend], env=sim_env(TORCHINDUCTOR_CACHE_DIR=tmp_path), timeout=600)
    out = last_json(proc)
    expected = {case: True for case in CASES}
    expected["script"] = "musa"     # TorchScript with device="cuda" constants runs on musa
    assert out == expected


def test_nothing_of_inductor_or_dynamo_is_imported_at_start():
    from tests._fresh import run_sim

    proc = run_sim("""
        import sys
        print(sorted(m for m in sys.modules if m.startswith(("torch._inductor", "torch._dynamo"))))
    """)
    assert proc.stdout.strip().splitlines()[-1] == "[]"
