"""Dynamo and the devices area's C prefilters: a compiled factory call stays one graph
(fullgraph included) with the CUDA device translated, as with torch's own builtins; without
the area Dynamo takes the prefilter for a user object and breaks the graph."""
from tests._fresh import last_json, run_sim

PROGRAM = """
import json
import torch._dynamo

def f(x):
    return x + torch.ones(4, device="cuda") + torch.arange(4, device="cuda:0")

x = torch.zeros(4, device="cuda")
out = {}
try:
    y = torch.compile(f, backend="eager", fullgraph=True)(x)
    out["fullgraph"] = [str(y.device), y.cpu().tolist()]
except Exception as exc:
    out["fullgraph"] = type(exc).__name__
explanation = torch._dynamo.explain(f)(x)
out["graphs"], out["breaks"] = explanation.graph_count, explanation.graph_break_count
out["route"] = type(torch.ones).__name__
print(json.dumps(out))
"""


def test_factories_compile_as_one_graph_on_the_c_route():
    out = last_json(run_sim(PROGRAM, TORCHADA_DEVICE_ROUTE="c"))
    assert out == {"fullgraph": ["musa:0", [1.0, 2.0, 3.0, 4.0]], "graphs": 1, "breaks": 0,
                   "route": "Prefilter"}


def test_the_python_route_gives_the_same_graph():
    out = last_json(run_sim(PROGRAM, TORCHADA_DEVICE_ROUTE="python"))
    assert out == {"fullgraph": ["musa:0", [1.0, 2.0, 3.0, 4.0]], "graphs": 1, "breaks": 0,
                   "route": "function"}


def test_without_the_area_the_prefilter_breaks_the_graph():
    run_sim("pass", TORCHADA_DEVICE_ROUTE="c")
    out = last_json(run_sim(PROGRAM, TORCHADA_DEVICE_ROUTE="c",
                            TORCHADA_DISABLE_AREAS="dynamo_wrappers"))
    assert out["fullgraph"] == "Unsupported" and out["breaks"] > 0
