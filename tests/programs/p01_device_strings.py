"""Device strings everywhere: factories, new_*, *_like, .cuda(), .to()."""
import json

import torch

dev = torch.device("cuda")
a = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
b = torch.ones(4, 2, device="cuda:0")
c = torch.full((3, 2), 0.5, device=torch.device("cuda", 0))
d = torch.zeros(3, 2, device=torch.device(type="cuda", index=0))
e = torch.linspace(0, 1, 5, device=dev)
f = torch.eye(3, device="cuda").to("cuda")
g = torch.tensor([1.0, 2.0, 3.0], device="cuda")
h = torch.as_tensor([[1, 2], [3, 4]], device="cuda")
i = torch.empty_like(a, device="cuda").fill_(2.0)
j = torch.zeros_like(b).cuda() + a.new_ones(4, 2, device="cuda")
k = torch.ones(2, 2).cuda().to(torch.float64) * torch.ones(2, 2).to("cuda", torch.float64)
out = {
    "mm": (a @ b + c + d).sum().item(),
    "linspace": e.tolist(),
    "eye": f.trace().item(),
    "tensor": (g * 2).tolist(),
    "as_tensor": h.sum().item(),
    "like": (i.sum() + j.sum()).item(),
    "k": k.sum().item(),
    "logspace": torch.logspace(0, 2, 3, device="cuda").tolist(),
}
out["facts"] = {
    "is_cuda": a.is_cuda and b.is_cuda,
    "devtype": isinstance(dev, torch.device) and type(dev) is torch.device,
    "cpu_back": a.cpu().is_cuda is False,
}
print(json.dumps(out))
