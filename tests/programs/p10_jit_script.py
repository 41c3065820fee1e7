"""TorchScript code that builds a CUDA device."""
import json

import torch


@torch.jit.script
def to_gpu_and_scale(x: torch.Tensor, s: float) -> torch.Tensor:
    dev = torch.device("cuda")
    return x.to(dev) * s + torch.ones(x.shape, device=dev)


@torch.jit.script
def pick(x: torch.Tensor) -> torch.Tensor:
    return x.to("cuda:0").sum()


y = to_gpu_and_scale(torch.arange(6.0), 2.0)
print(json.dumps({"y": y.tolist(), "s": pick(torch.arange(4.0)).item(),
                  "facts": {"on_gpu": y.is_cuda}}))
