"""More factories, new_* and Tensor.new_tensor on the GPU."""
import json

import torch

s = torch.tril_indices(3, 3, device="cuda")
dense = torch.full_like(torch.ones(2, 3), 2.0, device="cuda") + torch.arange(3, device="cuda")
base = torch.zeros(2, device="cuda")
n1 = base.new_full((2, 2), 7.0)
n2 = torch.zeros(1).new_tensor([1.0, 2.0], device="cuda")
r = torch.randperm(6, device="cuda").sort().values
print(json.dumps({"dense": dense.tolist(), "tril": s.tolist(), "n1": n1.sum().item(), "n2": n2.tolist(), "r": r.tolist(),
                  "facts": {"s": s.is_cuda, "n2": n2.is_cuda}}))
