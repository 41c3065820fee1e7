"""The device-generic torch.accelerator API on the GPU."""
import json

import torch

acc = torch.accelerator.current_accelerator()
n = torch.accelerator.device_count()
x = torch.ones(256, 256, device=acc)
torch.accelerator.synchronize()
allocated = torch.accelerator.memory_allocated()
with torch.accelerator.device_index(0):
    y = (x @ x).sum().item()
print(json.dumps({"y": y, "facts": {"avail": torch.accelerator.is_available(), "n": n >= 1,
                                     "allocated": allocated >= 256 * 256 * 4}}))
