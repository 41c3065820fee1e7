"""Differential execution on the simulated device: with the operator fixes off on a release
whose defects the simulator models, verify names the op and the program line that called
it; with the fixes on it finds nothing. References are the CPU's numbers."""
import json
import os

import pytest
import torch

from tests._fresh import last_json, run_sim
from tests._releases import MM_OUT_DTYPE_WRONG, runnable_or_skip


def broken_release():
    """A release with the modelled float64 log_ defect this torch runs."""
    return runnable_or_skip(">2.7.1,<2.11.0.post2", module=False)


def mm_broken_release():
    """The release whose out_dtype matmul is modelled wrong (a skip below torch 2.11)."""
    return runnable_or_skip(MM_OUT_DTYPE_WRONG, module=False)

HAS_OUT_DTYPE = any(s.overload_name == "dtype"
                    for s in torch._C._jit_get_schemas_for_operator("aten::mm"))

MODEL = """
import json, sys
import torch.nn as nn

class Proj(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b, out_dtype=torch.float32)   # PROJ LINE

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Identity(), nn.ModuleDict({"mlp": Proj()})])
    def forward(self, a, b):
        return self.layers[1]["mlp"](self.layers[0](a), b).relu()

model = Net()
gen = torch.Generator().manual_seed(0)
a = torch.randint(-8, 8, (3, 2, 4), generator=gen).to(torch.bfloat16).cuda()
b = torch.randint(-8, 8, (3, 4, 5), generator=gen).to(torch.bfloat16).cuda()
out = {}
try:
    y = model(a, b)
    z = torch.mm(a[1], b[1], out_dtype=torch.float32)   # MM LINE
    out["ran"] = True
except Exception as exc:
    out["error"] = "%s: %s" % (type(exc).__name__, exc)
out["verify"] = torchada._core.trace.snapshot()["verify"]
print(json.dumps(out))
"""


def line_of(marker, program=MODEL):
    return "<string>:%d" % (1 + next(i for i, l in enumerate(program.splitlines(), 1)
                                     if marker in l))


@pytest.mark.skipif(not HAS_OUT_DTYPE, reason="torch < 2.9 has no mm(out_dtype=)")
def test_first_mismatch_names_op_module_and_line_without_the_fixes(tmp_path):
    out = last_json(run_sim(MODEL, TORCHADA_SIM_TORCH_MUSA_VERSION=mm_broken_release(),
                            TORCHADA_DISABLE_AREAS="operator_fixes", TORCHADA_VERIFY="1",
                            TORCHADA_REPORT=str(tmp_path), RANK="1", LOCAL_RANK="1"))
    assert out["error"].startswith("VerifyMismatch: torchada verify: rank 1: aten::bmm.dtype "
                                   "in model.layers.1.mlp at %s" % line_of("PROJ LINE"))
    assert "inputs: self=bfloat16[3, 2, 4], mat2=bfloat16[3, 4, 5], out_dtype=torch.float32" \
        in out["error"]
    [record] = out["verify"]["mismatches"]
    # the defect repeats batch 0: the largest error is in batch 1 or 2, and it is the
    # largest difference from the CPU's product
    gen = torch.Generator().manual_seed(0)
    a = torch.randint(-8, 8, (3, 2, 4), generator=gen).float()
    b = torch.randint(-8, 8, (3, 4, 5), generator=gen).float()
    wrong = (a[:1] @ b[:1]).expand(3, 2, 5)
    assert record["difference"]["largest_at"][0] in (1, 2)
    assert record["difference"]["max_abs_error"] == (wrong - a @ b).abs().max().item()
    assert record["rank"] == 1
    [name] = os.listdir(tmp_path)  # the report, named by rank, holds the same record
    assert "rank1" in name
    report = json.loads((tmp_path / name).read_text())
    assert report["verify"]["mismatches"] == [record]


@pytest.mark.skipif(not HAS_OUT_DTYPE, reason="torch < 2.9 has no mm(out_dtype=)")
def test_all_keeps_going_and_tabulates():
    out = last_json(run_sim(MODEL, TORCHADA_SIM_TORCH_MUSA_VERSION=mm_broken_release(),
                            TORCHADA_DISABLE_AREAS="operator_fixes", TORCHADA_VERIFY="all"))
    assert out["ran"] is True
    found = [(r["op"], r["module"], r["site"]) for r in out["verify"]["mismatches"]]
    assert found == [("aten::bmm.dtype", "model.layers.1.mlp", line_of("PROJ LINE")),
                     ("aten::mm.dtype", None, line_of("MM LINE"))]


@pytest.mark.skipif(not HAS_OUT_DTYPE, reason="torch < 2.9 has no mm(out_dtype=)")
def test_nothing_found_with_the_fixes_on():
    out = last_json(run_sim(MODEL, TORCHADA_SIM_TORCH_MUSA_VERSION=mm_broken_release(),
                            TORCHADA_VERIFY="1"))
    assert out["ran"] is True and out["verify"]["mismatches"] == []
    assert out["verify"]["compared"]["aten::bmm.dtype"] == 1
    assert out["verify"]["compared"]["aten::mm.dtype"] == 1


LOG = """
import json
x = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, device="cuda")
out = {}
try:
    x.log_()   # LOG LINE
    out["values"] = x.cpu().tolist()
except Exception as exc:
    out["error"] = str(exc)
    out["notes"] = getattr(exc, "__notes__", [])
out["verify"] = torchada._core.trace.snapshot()["verify"]
print(json.dumps(out))
"""


def test_a_kernel_that_raises_where_the_cpu_computes_is_named():
    out = last_json(run_sim(LOG, TORCHADA_SIM_TORCH_MUSA_VERSION=broken_release(),
                            TORCHADA_DISABLE_AREAS="operator_fixes", TORCHADA_VERIFY="1"))
    assert "log_musa" in out["error"]  # the program gets the device's own error
    [record] = out["verify"]["mismatches"]
    assert (record["op"], record["kind"], record["site"]) == ("aten::log_", "raised",
                                                              line_of("LOG LINE", LOG))
    assert "aten::log_" in out["notes"][0] and line_of("LOG LINE", LOG) in out["notes"][0]
    fixed = last_json(run_sim(LOG, TORCHADA_SIM_TORCH_MUSA_VERSION=broken_release(), TORCHADA_VERIFY="1"))
    assert fixed["values"] == torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64).log().tolist()
    assert fixed["verify"]["mismatches"] == []


SAMPLED = """
import json
x = torch.ones(4, device="cuda")
for _ in range(10):
    x = x + 1
print(json.dumps(torchada._core.trace.snapshot()["verify"]))
"""


@pytest.mark.parametrize("env,compared", [({}, 10), ({"TORCHADA_VERIFY_FIRST": "3"}, 3),
                                          ({"TORCHADA_VERIFY_FIRST": "0",
                                            "TORCHADA_VERIFY_EVERY": "4"}, 2),
                                          ({"TORCHADA_VERIFY_FIRST": "2",
                                            "TORCHADA_VERIFY_EVERY": "5"}, 4)])
def test_sampling(env, compared):
    out = last_json(run_sim(SAMPLED, TORCHADA_VERIFY="1", **env))
    assert out["compared"]["aten::add.Tensor"] == compared


def test_off_installs_nothing_and_a_bad_value_warns_once():
    code = """
        import json
        from torch.nn.modules import module as m
        print(json.dumps({"modes": torch._C._len_torch_dispatch_stack(),
                          "hooks": len(m._global_forward_pre_hooks)}))
    """
    assert last_json(run_sim(code)) == {"modes": 0, "hooks": 0}
    proc = run_sim(code, TORCHADA_VERIFY="maybe")
    assert last_json(proc) == {"modes": 0, "hooks": 0}
    assert proc.stderr.count("TORCHADA_VERIFY='maybe'") == 1 and "first, all" in proc.stderr
    assert last_json(run_sim(code, TORCHADA_VERIFY="all")) == {"modes": 1, "hooks": 1}


COMPILED = """
import json
def f(a, b):
    return torch.mm(a * 1, b, out_dtype=torch.float32).relu()
a = torch.ones(3, 4, dtype=torch.bfloat16, device="cuda")
b = torch.ones(4, 2, dtype=torch.bfloat16, device="cuda")
out = {}
for backend in ("eager", "aot_eager"):
    torch._dynamo.reset()
    try:
        out[backend] = torch.compile(f, fullgraph=True, backend=backend)(a, b).cpu().tolist()
    except Exception as exc:
        out[backend] = type(exc).__name__
out["found"] = [r["op"] for r in torchada._core.trace.snapshot()["verify"]["mismatches"]]
print(json.dumps(out))
"""


@pytest.mark.skipif(not HAS_OUT_DTYPE, reason="torch < 2.9 has no mm(out_dtype=)")
def test_compiled_graphs_are_checked_op_by_op():
    """fullgraph compiles under verify; the graph's ops (eager / aot_eager) are compared."""
    broken = last_json(run_sim(COMPILED, TORCHADA_SIM_TORCH_MUSA_VERSION=mm_broken_release(),
                               TORCHADA_DISABLE_AREAS="operator_fixes", TORCHADA_VERIFY="all"))
    assert broken["found"] == ["aten::mm.dtype", "aten::mm.dtype"]
    fixed = last_json(run_sim(COMPILED, TORCHADA_SIM_TORCH_MUSA_VERSION=mm_broken_release(),
                              TORCHADA_VERIFY="1"))
    assert fixed == {"eager": [[4.0, 4.0]] * 3, "aot_eager": [[4.0, 4.0]] * 3, "found": []}


def test_a_failure_inside_verify_never_fails_the_program():
    out = last_json(run_sim("""
        import json
        from torchada.areas._verify import compare
        def broken(*args):
            raise MemoryError("injected")
        compare.difference = broken
        y = (torch.ones(3, device="cuda") * 2).cpu().tolist()
        v = torchada._core.trace.snapshot()["verify"]
        print(json.dumps({"y": y, "skipped": v["skipped"], "compared": v["compared"]}))
    """, TORCHADA_VERIFY="1", TORCHADA_TRACE="1"))
    assert out["y"] == [2.0, 2.0, 2.0] and out["compared"] == {}
    assert out["skipped"]["verify error: MemoryError"] == {"aten::mul.Tensor": 1}


BROKEN_KERNEL = """
import json
import torch.nn as nn
lib = torch.library.Library("aten", "IMPL")
def wrong_relu(x):   # a broken device kernel: halves the positives
    return torch.where(x.cpu() > 0, x.cpu() * 0.5, 0.0).to(x.device)
lib.impl("relu", wrong_relu, "PrivateUse1")
net = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Identity(), nn.ReLU()))
with torch.no_grad():  # positive inputs to relu, so the wrong kernel always differs
    net[0].weight.fill_(0.25)
    net[0].bias.fill_(0.5)
net.cuda()
out = {}
try:
    y = net(torch.ones(2, 4, device="cuda"))   # NET LINE
    out["ran"] = True
except Exception as exc:
    out["error"] = "%s: %s" % (type(exc).__name__, exc)
out["verify"] = torchada._core.trace.snapshot()["verify"]
print(json.dumps(out))
"""


def test_a_wrong_kernel_is_named_with_its_module_path_on_any_torch():
    out = last_json(run_sim(BROKEN_KERNEL, TORCHADA_VERIFY="1", TORCHADA_TRACE="1"))
    [record] = out["verify"]["mismatches"]
    assert (record["op"], record["module"]) == ("aten::relu", "net.1.1")
    assert record["inputs"] == ["self=float32[2, 4]"] and record["kind"] == "mismatch"
    assert out["error"].startswith("VerifyMismatch: torchada verify: aten::relu in net.1.1 at ")
    # the module's own line inside torch is not the program's: the site is the program's call
    assert record["site"] == line_of("NET LINE", BROKEN_KERNEL)
    diff = record["difference"]   # the largest error: a positive halved
    assert diff["cpu_value"] > 0 and diff["device_value"] == pytest.approx(diff["cpu_value"] / 2)
    assert diff["max_abs_error"] == pytest.approx(diff["cpu_value"] / 2)
