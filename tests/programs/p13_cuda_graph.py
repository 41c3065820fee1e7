"""CUDA graph capture and replay with a static input."""
import json

import torch

static_in = torch.zeros(8, device="cuda")
w = torch.arange(8.0, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(2):
        static_out = static_in * w + 1
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    buf = torch.ones(8, device="cuda")
    static_out = static_in * w + buf
results = []
for v in (1.0, 2.0, 3.0):
    static_in.copy_(torch.full((8,), v, device="cuda"))
    g.replay()
    results.append(static_out.sum().item())
print(json.dumps({"results": results}))
