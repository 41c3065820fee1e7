"""The AOT-autograd cache with torchada's factory wrappers in the graph: a second process
finds the first one's entry, as it does on stock torch (torchada off), and the compiled
results equal eager ones."""
import pytest

from tests._fresh import clean_env, last_json, run_python, sim_env

PROGRAM = """
import json, torch
import torch._functorch.config
torch._functorch.config.enable_autograd_cache = True
from torch._dynamo.utils import counters

def f(x):  # exact arithmetic on these inputs: compiled and eager agree bit for bit
    return (x * 2 + torch.ones(4)) * (x + torch.zeros(4, dtype=x.dtype))

x = torch.tensor([-1.0, -0.5, 0.25, 1.0], requires_grad=True)
y = torch.compile(f, backend="inductor")(x)
y.sum().backward()
grad = x.grad.clone()
x.grad = None
f(x).sum().backward()
aot = counters["aot_autograd"]
print(json.dumps({"hit": aot["autograd_cache_hit"], "bypass": aot["autograd_cache_bypass"],
                  "same": bool(torch.equal(y, f(x)) and torch.equal(grad, x.grad)),
                  "wrapped": type(torch.ones).__name__}))
"""


def twice(env):
    return [last_json(run_python(PROGRAM, env=env)) for _ in range(2)]


@pytest.fixture
def cache_dir(tmp_path):
    return str(tmp_path / "inductor")


def test_second_process_hits_the_cache_as_on_stock_torch(cache_dir, tmp_path):
    ours = twice(sim_env(TORCHINDUCTOR_CACHE_DIR=cache_dir))
    stock = twice(clean_env(TORCHADA_PLATFORM="off",
                            TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "stock")))
    # the wrappers are in use: the C prefilter, or a Python function on the Python route
    assert [r["wrapped"] for r in ours] in (["Prefilter"] * 2, ["function"] * 2)
    assert [r["wrapped"] for r in stock] == ["builtin_function_or_method"] * 2
    assert [(r["hit"], r["bypass"]) for r in ours] == [(r["hit"], r["bypass"]) for r in stock]
    assert [(r["hit"], r["bypass"]) for r in stock] == [(0, 0), (1, 0)]
    assert all(r["same"] for r in ours + stock)


def test_without_the_area_every_process_bypasses_the_cache(cache_dir):
    runs = twice(sim_env(TORCHINDUCTOR_CACHE_DIR=cache_dir, TORCHADA_DISABLE_AREAS="aot_cache"))
    assert [(r["hit"], r["bypass"]) for r in runs] == [(0, 1), (0, 1)]
    assert all(r["same"] for r in runs)
