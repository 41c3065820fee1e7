"""Module moves between the CPU and musa keep their Parameter objects on the simulator, as on
torch_musa's patched torch (stock_vs_patched_torch.md, "Module moves replace parameters"):
tied weights stay tied, an optimizer built before .cuda() trains the moved model. Numbers
are compared with the same training on the CPU."""
import json

import torch

from tests._fresh import last_json, run_sim

TRAIN = """
import json, sys
def run(device):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Embedding(7, 4), torch.nn.Linear(4, 7, bias=False))
    m[1].weight = m[0].weight                     # tied, as in language models
    opt = torch.optim.SGD(m.parameters(), lr=0.5)  # built before the move
    first = m[0].weight
    m.to(device)
    tokens = torch.tensor([1, 3, 5, 2], device=device)
    for _ in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(m(tokens), tokens)
        loss.backward()
        opt.step()
    return {"weight": m[0].weight.detach().cpu().tolist(), "tied": m[1].weight is m[0].weight,
            "same_object": m[0].weight is first, "device": str(m[0].weight.device),
            "grad_device": str(first.grad.device)}
print(json.dumps(run(sys.argv[1] if len(sys.argv) > 1 else "cuda")))
"""


def test_tied_weights_and_early_optimizer_survive_cuda_and_match_the_cpu():
    out = last_json(run_sim(TRAIN))
    assert out["tied"] and out["same_object"]
    assert out["device"] == out["grad_device"] == "musa:0"
    # The CPU reference: the same code with no move at all (torch alone, in this process).
    ns = {"torch": torch}
    exec(TRAIN.replace("print(json.dumps(run(sys.argv[1] if len(sys.argv) > 1 else \"cuda\")))", ""), ns)
    cpu = ns["run"]("cpu")
    assert out["weight"] == cpu["weight"]


def test_back_to_cpu_and_dtype_moves_keep_objects_too():
    proc = run_sim("""
        import json
        m = torch.nn.Linear(3, 2).cuda()
        w = m.weight
        m.cpu()
        a = (m.weight is w, w.device.type)
        m.to("cuda", dtype=torch.float64)
        b = (m.weight is w, w.device.type, str(w.dtype))
        m.half()                                   # same device: stock torch's own path
        print(json.dumps([a, b, m.weight is w, str(w.dtype)]))
    """)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [
        [True, "cpu"], [True, "musa", "torch.float64"], True, "torch.float16"]
