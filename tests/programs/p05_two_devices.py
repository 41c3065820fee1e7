"""Two devices: explicit ordinals, set_device, device context, cross-device copies."""
import json

import torch

assert torch.cuda.device_count() >= 2
a = torch.ones(4, device="cuda:0")
b = torch.full((4,), 2.0, device="cuda:1")
c = a.to("cuda:1") + b
torch.cuda.set_device(1)
d = torch.zeros(4, device="cuda") + 3
with torch.cuda.device(0):
    e = torch.ones(4).cuda() * 5
f = b.cuda(0) + e
print(json.dumps({"c": c.tolist(), "d": d.tolist(), "f": f.tolist(),
                  "facts": {"b_index": b.device.index == 1, "d_index": d.get_device() == 1,
                            "e_index": e.get_device() == 0, "current": torch.cuda.current_device() == 1}}))
