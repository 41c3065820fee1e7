"""Code that branches on is_cuda / device checks."""
import json

import torch
import torch.nn as nn


def ensure_gpu(x):
    if not x.is_cuda:
        x = x.cuda()
    return x


model = nn.Linear(3, 2)
model.to("cuda")
assert next(model.parameters()).is_cuda
x = ensure_gpu(torch.ones(4, 3))
y = model(x)
moved = model.to(torch.device("cuda:0"), dtype=torch.float64)
z = moved(x.double())
print(json.dumps({"y_shape": list(y.shape), "z_dtype": str(z.dtype),
                  "facts": {"x_cuda": x.is_cuda, "y_cuda": y.is_cuda, "cpu_not": not torch.ones(1).is_cuda}}))
