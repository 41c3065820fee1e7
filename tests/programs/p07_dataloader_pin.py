"""DataLoader with pinned memory and non_blocking copies."""
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.arange(64, dtype=torch.float32).reshape(16, 4), torch.arange(16))
loader = DataLoader(data, batch_size=4, pin_memory=True)
total, pinned = 0.0, []
for xb, yb in loader:
    pinned.append(xb.is_pinned())
    xb = xb.cuda(non_blocking=True)
    yb = yb.to("cuda", non_blocking=True)
    total += (xb.sum(1) * yb).sum().item()
t = torch.ones(3).pin_memory()
print(json.dumps({"total": total, "facts": {"pinned": all(pinned), "pin": t.is_pinned()}}))
