"""Sparse constructors, new_* factories and Tensor.new_tensor on the GPU."""
import json

import torch

i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([3.0, 4.0, 5.0])
s = torch.sparse_coo_tensor(i, v, (2, 3), device="cuda")
dense = s.to_dense()
base = torch.zeros(2, device="cuda")
n1 = base.new_full((2, 2), 7.0)
n2 = torch.zeros(1).new_tensor([1.0, 2.0], device="cuda")
r = torch.randperm(6, device="cuda").sort().values
print(json.dumps({"dense": dense.tolist(), "n1": n1.sum().item(), "n2": n2.tolist(), "r": r.tolist(),
                  "facts": {"s": s.is_cuda, "n2": n2.is_cuda}}))
