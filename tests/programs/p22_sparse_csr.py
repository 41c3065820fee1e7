"""Sparse CSR / CSC tensors on the GPU: build, convert, multiply, scale in place."""
import json

import torch

dense = torch.tensor([[0.0, 2.0, 0.0, 1.0], [1.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 4.0]],
                     device="cuda")
csr = dense.to_sparse_csr()
built = torch.sparse_csr_tensor(torch.tensor([0, 2, 4, 5]), torch.tensor([1, 3, 0, 2, 3]),
                                torch.tensor([2.0, 1.0, 1.0, 3.0, 4.0]), (3, 4), device="cuda")
w = torch.arange(8.0, device="cuda").reshape(4, 2)
product = csr @ w
vec = built @ torch.ones(4, device="cuda")
built.mul_(0.5)
csc = dense.to_sparse_csc()
print(json.dumps({"crow": csr.crow_indices().tolist(), "col": csr.col_indices().tolist(),
                  "values": csr.values().tolist(), "product": product.tolist(),
                  "vec": vec.tolist(), "halved": built.to_dense().tolist(),
                  "csc_back": csc.to_dense().tolist(), "ccol": csc.ccol_indices().tolist(),
                  "facts": {"csr_layout": csr.layout == torch.sparse_csr, "csr_gpu": csr.is_cuda,
                            "members_gpu": csr.values().is_cuda and csr.crow_indices().is_cuda,
                            "product_gpu": product.is_cuda, "csc_gpu": csc.is_cuda}}))
