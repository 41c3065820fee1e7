"""The compiled multinomial rejects bad probability rows as torch does, outside graph capture:
rows of zeros, inf, nan or negatives raise torch's own messages (the reference is torch's
CPU kernel on the same rows, which checks on the host in every mode). Inside a capture
nothing may wait for the device, so the same rows draw without raising."""
from tests._fresh import last_json, run_sim
from tests._releases import runnable_or_skip

IN_RANGE = runnable_or_skip("<2.11.0.post2")   # the compiled multinomial applies

CODE = """
import json
from torchada.areas._op_overrides import shared as _shared
torch.log(torch.ones(1, device="cuda"))
assert _shared.background().wait(900), "the extension did not build in 900 s"
torch.log(torch.ones(1, device="cuda"))           # swaps the compiled kernels in

def message(fn):
    try:
        fn()
        return "no error"
    except RuntimeError as e:
        return str(e).splitlines()[0]

rows = {"zeros": [0.0, 0.0, 0.0, 0.0], "inf": [1.0, float("inf"), 1.0, 1.0],
        "nan": [1.0, float("nan"), 1.0, 1.0], "negative": [1.0, -0.5, 1.0, 1.0]}
out = {"cases": {}}
for name, row in rows.items():
    w = torch.tensor([[1.0, 2.0, 3.0, 4.0], row])
    cpu = message(lambda: torch.multinomial(w, 1, replacement=False))
    for replacement, n in ((False, 1), (False, 2), (True, 1), (True, 3)):
        got = message(lambda: torch.multinomial(w.cuda(), n, replacement=replacement))
        out["cases"]["%s/%s/%d" % (name, replacement, n)] = [got, cpu]
good = torch.tensor([[1.0, 0.0, 3.0]], device="cuda")
out["good_row"] = torch.multinomial(good, 2).cpu().tolist()
w = torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]], device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    s = torch.multinomial(w, 2)
g.replay()
out["captured_zero_row"] = s.cpu().tolist()[1]
print(json.dumps(out))
"""


def test_bad_rows_raise_torchs_messages_outside_capture_and_draw_inside():
    proc = run_sim(CODE, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE,
                   TORCHADA_DEBUG_CPP_OPS="1")
    out = last_json(proc)
    assert "torchada cpp op: multinomial" in proc.stderr   # the compiled kernel answered
    assert len(out["cases"]) == 16
    for case, (got, cpu) in out["cases"].items():
        assert cpu != "no error" and got == cpu, case
    assert sorted(out["good_row"][0]) == [0, 2]
    # a zero row inside the capture: no wait, no raise; it draws category 0 (kernels.h)
    assert out["captured_zero_row"] == [0, 0]


SWAP_IN = """
from torchada.areas._op_overrides import shared as _shared
torch.log(torch.ones(1, device="cuda"))
assert _shared.background().wait(900), "the extension did not build in 900 s"
torch.log(torch.ones(1, device="cuda"))           # swaps the compiled kernels in
"""

GENERATORS = """
import json
w = torch.ones(2, 4, device="cuda")
try:
    torch.multinomial(w, 1, generator=torch.Generator())
    cpu_generator = "no error"
except RuntimeError as e:
    cpu_generator = str(e).splitlines()[0]
g = torch.Generator(device="cuda")
g.manual_seed(7)
first = torch.multinomial(w, 2, generator=g).cpu().tolist()
g.manual_seed(7)
again = torch.multinomial(w, 2, generator=g).cpu().tolist()
print(json.dumps({"cpu_generator": cpu_generator, "first": first, "again": again}))
"""


def test_a_generator_of_another_device_is_refused_as_torch_musa_refuses_it():
    """The reference is torch_musa's own kernel on the simulator (operator_fixes off), which
    refuses a CPU generator through ATen's check_generator."""
    proc = run_sim(SWAP_IN + GENERATORS, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE,
                   TORCHADA_DEBUG_CPP_OPS="1")
    compiled = last_json(proc)
    assert "torchada cpp op: multinomial" in proc.stderr
    native = last_json(run_sim(GENERATORS, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE,
                               TORCHADA_DISABLE_AREAS="operator_fixes"))
    assert native["cpu_generator"].startswith("Expected a 'musa' device type for generator")
    assert compiled["cpu_generator"] == native["cpu_generator"]
    assert compiled["first"] == compiled["again"]            # a musa generator, reseeded, repeats
