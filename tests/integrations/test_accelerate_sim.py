"""Hugging Face accelerate knows MUSA itself (it checks for torch_musa): on the simulated
device, unchanged, an fp16 training step through Accelerator equals the same step written
by hand with autocast and GradScaler. No torchada area is needed; this guards that."""

from tests._fresh import last_json, run_sim

PROGRAM = """
import json
from accelerate import Accelerator

def data():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(8, 4, generator=g)
    return x, x.sum(1, keepdim=True)

acc = Accelerator(mixed_precision="fp16")
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model, opt = acc.prepare(model, opt)
x, y = (t.to(acc.device) for t in data())
with acc.autocast():
    loss = torch.nn.functional.mse_loss(model(x), y)
acc.backward(loss)
opt.step()

torch.manual_seed(0)
ref = torch.nn.Linear(4, 1).cuda()
ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
x, y = (t.cuda() for t in data())
with torch.autocast("cuda", dtype=torch.float16):
    ref_loss = torch.nn.functional.mse_loss(ref(x), y)
scaler.scale(ref_loss).backward()
scaler.step(ref_opt)
scaler.update()
print(json.dumps({"device": str(acc.device), "same": torch.equal(
    acc.unwrap_model(model).weight.detach().cpu(), ref.weight.detach().cpu())}))
"""


def test_accelerate_fp16_step_on_musa_equals_hand_written_amp():
    out = last_json(run_sim(PROGRAM))
    assert out == {"device": "musa", "same": True}
