"""Lightning Fabric on the simulated device: a mixed-precision step equals the same step
written by hand."""

from tests._fresh import last_json, run_sim

PROGRAM = """
import json
from %s import Fabric

def step(fabric_mode):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    x = torch.arange(12.).reshape(3, 4) / 10
    opt = torch.optim.SGD(model.parameters(), lr=0.1)   # before the move, as Fabric's docs do
    if fabric_mode:
        fabric = Fabric(accelerator="cuda", devices=1, precision="16-mixed")
        fabric.launch()
        model, opt = fabric.setup(model, opt)
        x = x.to(fabric.device)
        loss = model(x).square().mean()
        fabric.backward(loss)
        opt.step()
        return str(fabric.device), model.weight.detach().cpu().tolist()
    model = model.cuda()
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x.cuda()).square().mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return "manual", model.weight.detach().cpu().tolist()

device, fabric_w = step(True)
_, manual_w = step(False)
print(json.dumps({"device": device, "same": fabric_w == manual_w}))
"""


def test_fabric_cuda_accelerator_with_mixed_precision_matches_hand_written_step():
    out = last_json(run_sim(PROGRAM % "lightning.fabric"))
    assert out == {"device": "musa:0", "same": True}


def test_without_the_area_fabric_refuses_the_device():
    proc = run_sim(PROGRAM % "lightning.fabric", check=False,
                   TORCHADA_DISABLE_AREAS="lightning")
    assert proc.returncode != 0 and "Device should be CUDA, got musa:0" in proc.stderr
