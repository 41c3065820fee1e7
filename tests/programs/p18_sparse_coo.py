"""Sparse COO tensors on the GPU: build, coalesce, sparse @ dense, add, to_sparse, sum."""
import json

import torch

i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
v = torch.tensor([3.0, 4.0, 5.0, 1.5])
s = torch.sparse_coo_tensor(i, v, (2, 3), device="cuda").coalesce()
d = torch.arange(6.0, device="cuda").reshape(3, 2)
mm = torch.sparse.mm(s, d)
twice = (s + s).to_dense()
dense = torch.tensor([[0.0, 2.5, 0.0], [1.0, 0.0, -2.0]], device="cuda")
back = dense.to_sparse()
total = torch.sparse.sum(back).item()
s2 = s.clone()
s2.mul_(0.5)
print(json.dumps({"mm": mm.tolist(), "twice": twice.tolist(), "indices": s.indices().tolist(),
                  "values": s.values().tolist(), "nnz": back._nnz(), "total": total,
                  "half": s2.to_dense().tolist(), "t": s.t().to_dense().tolist(),
                  "facts": {"layout": s.layout == torch.sparse_coo, "is_cuda": s.is_cuda,
                            "values_on_gpu": s.values().is_cuda, "mm_on_gpu": mm.is_cuda,
                            "back_sparse": back.is_sparse and back.is_cuda}}))
