"""The CUDA autocast policy: fp16 matmul, fp32 for reductions and pow, banned BCE."""
import json

import torch
import torch.nn.functional as F

torch.manual_seed(0)
a = torch.randn(8, 8).cuda()
h = (torch.rand(64) + 0.5).cuda().half()
with torch.autocast(device_type="cuda", dtype=torch.float16):
    mm = a @ a
    total = h.sum()
    running = h.cumsum(0)
    power = h.pow(2)
    norm = h.norm()
    try:
        F.binary_cross_entropy(torch.rand(4).cuda(), torch.rand(4).cuda())
        bce_banned = False
    except RuntimeError as exc:
        bce_banned = "unsafe to autocast" in str(exc)
    try:
        mixed_dot = torch.dot(a[0], a[1].half()).dtype == torch.float32
    except RuntimeError:
        mixed_dot = False
print(json.dumps({"mm": mm.float().flatten().tolist(), "total": total.item(),
                  "running": running.float().tolist(), "power": power.float().tolist(),
                  "norm": norm.item(),
                  # dtypes from ATen's CUDA policy (aten/src/ATen/autocast_mode.cpp)
                  "facts": {"mm_fp16": mm.dtype == torch.float16,
                            "sum_fp32": total.dtype == torch.float32,
                            "cumsum_fp32": running.dtype == torch.float32,
                            "pow_fp32": power.dtype == torch.float32,
                            "norm_fp32": norm.dtype == torch.float32,
                            "bce_banned": bce_banned, "dot_promotes": mixed_dot}}))
