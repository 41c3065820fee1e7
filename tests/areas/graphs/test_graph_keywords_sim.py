"""torch.cuda graph API forms a serving engine uses, on the simulated device, with replay
results checked against eager arithmetic."""
import json

from tests._fresh import run_sim

CODE = """
import json
x = torch.arange(4.0, device="cuda")
pool = torch.cuda.graph_pool_handle()
out = {}
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    warm = x * 2   # warm-up outside capture, as CUDA requires
torch.cuda.current_stream().wait_stream(s)

g1 = torch.cuda.CUDAGraph()
with torch.cuda.graph(cuda_graph=g1, pool=pool, stream=s, capture_error_mode="thread_local"):
    out["capturing"] = torch.cuda.is_current_stream_capturing()
    y1 = x * 2 + 1
g2 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g2, pool):      # positional forms, sharing the first graph's pool
    y2 = x - 1
out["not_capturing"] = torch.cuda.is_current_stream_capturing()
x.copy_(torch.tensor([10.0, 20.0, 30.0, 40.0], device="cuda"))
g1.replay(); g2.replay()
out["y1"], out["y2"] = y1.tolist(), y2.tolist()
out["pool_is_token"] = g1.pool() is not None
g2.reset()
out["types"] = [isinstance(g1, torch.musa.MUSAGraph), type(g1).__module__]
print(json.dumps(out))
"""


def test_keyword_and_positional_graph_forms_replay_like_eager():
    out = json.loads(run_sim(CODE).stdout.strip().splitlines()[-1])
    assert out == {"capturing": True, "not_capturing": False,
                   "y1": [21.0, 41.0, 61.0, 81.0], "y2": [9.0, 19.0, 29.0, 39.0],
                   "pool_is_token": True, "types": [True, "torch.cuda.graphs"]}


TRAIN = """
import json
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).cuda()
eager = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).cuda()
eager.load_state_dict(model.state_dict())
sample = torch.randn(3, 4, device="cuda", requires_grad=True)
graphed = torch.cuda.make_graphed_callables(model, (sample,))
opt, opt_e = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(eager.parameters(), lr=0.1)
g = torch.Generator().manual_seed(3)
for _ in range(3):
    batch = torch.randn(3, 4, generator=g).cuda()
    opt.zero_grad(); graphed(batch).sum().backward(); opt.step()
    opt_e.zero_grad(); eager(batch).sum().backward(); opt_e.step()
same = all(torch.allclose(a, b, rtol=1.3e-6, atol=1e-5) for a, b in
           zip(model.parameters(), eager.parameters()))
print(json.dumps({"same": same}))
"""


def test_make_graphed_callables_training_equals_eager():
    out = json.loads(run_sim(TRAIN).stdout.strip().splitlines()[-1])
    assert out == {"same": True}
