"""TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH on the simulated device (fresh interpreters)."""
import json

from tests._fresh import run_sim

CAPTURE = """
import json
x = torch.ones(4, device="cuda")
results = []
for _ in range(3):
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = x * 2          # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        y = x * 2 + 1
    g.replay()
    results.append(y.tolist())
print(json.dumps(results))
"""


def test_each_capture_writes_its_own_dump(tmp_path):
    target = tmp_path / "dumps" / "nested"       # created by torchada
    proc = run_sim(CAPTURE, TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH=target)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [[3.0] * 4] * 3
    dumps = sorted(target.iterdir())
    assert len(dumps) == 3 and all(p.name.startswith("graph_") and p.suffix == ".dot"
                                   for p in dumps)
    assert all(p.stat().st_size > 0 for p in dumps)  # the simulator lists the captured ops


def test_no_variable_no_dump_and_unwritable_directory_only_warns(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = run_sim(CAPTURE, TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH=blocker / "sub")
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [[3.0] * 4] * 3
    assert proc.stderr.count("cannot write graph dumps") == 1  # once, not per capture
    quiet = run_sim(CAPTURE)
    assert "graph dumps" not in quiet.stderr and list(tmp_path.iterdir()) == [blocker]
