"""Default device context and set_default_device."""
import json

import torch

with torch.device("cuda"):
    a = torch.ones(3)
    b = torch.nn.Linear(3, 1)
torch.set_default_device("cuda")
c = torch.arange(3.0)
torch.set_default_device("cpu")
d = torch.arange(3.0)
with torch.no_grad():
    b.weight.fill_(1.0)
    b.bias.fill_(0.5)
print(json.dumps({"out": b(a).tolist(), "c": c.tolist(),
                  "facts": {"a": a.is_cuda, "w": b.weight.is_cuda, "c": c.is_cuda, "d": not d.is_cuda}}))
