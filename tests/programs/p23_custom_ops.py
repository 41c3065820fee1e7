"""Custom operators with CUDA kernels: torch.library.Library, @custom_op, register_kernel,
torch.library.impl, register_autocast, and a kernel that raises."""
import json

import torch

torch.manual_seed(0)
lib = torch.library.Library("progops", "DEF")
lib.define("scale(Tensor x, float a) -> Tensor")
lib.define("fails(Tensor x) -> Tensor")


def scale_kernel(x, a):
    return x * a + 1


def failing_kernel(x):
    raise ValueError("kernel refused input of shape %s" % (tuple(x.shape),))


lib.impl("scale", scale_kernel, "CUDA")
lib.impl("fails", failing_kernel, "CUDA")


@torch.library.custom_op("progops::gelu_sum", mutates_args=(), device_types="cuda")
def gelu_sum(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x) + y


@torch.library.custom_op("progops::double", mutates_args=())
def double(x: torch.Tensor) -> torch.Tensor:
    raise RuntimeError("no generic kernel")


@double.register_kernel("cuda")
def _(x):
    return x * 2


torch.library.define("progops::shift", "(Tensor x) -> Tensor")


@torch.library.impl("progops::shift", "cuda")
def shift(x):
    return x - 0.5


@torch.library.custom_op("progops::mm", mutates_args=(), device_types="cuda")
def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


torch.library.register_autocast("progops::mm", "cuda", torch.float16)


@torch.library.custom_op("progops::filled", mutates_args=())
def filled(n: int, value: float, device: torch.device) -> torch.Tensor:
    return torch.full((n,), value, device=device)


x = torch.randn(8).cuda()  # drawn on the CPU: the inputs are the same in both runs
y = torch.randn(8).cuda()
a = torch.randn(4, 4).cuda()
with torch.autocast("cuda", dtype=torch.float16):
    prod = mm(a, a)
try:
    torch.ops.progops.fails(x)
    error = None
except ValueError as exc:
    error = str(exc)
made = filled(3, 2.5, torch.device("cuda"))
print(json.dumps({
    "scale": torch.ops.progops.scale(x, 3.0).tolist(),
    "gelu_sum": gelu_sum(x, y).tolist(),
    "double": double(y).tolist(),
    "shift": torch.ops.progops.shift(x).tolist(),
    "mm": prod.float().sum().item(),
    "filled": made.tolist(),
    "facts": {"on_gpu": x.is_cuda and made.is_cuda, "autocast_half": prod.dtype == torch.float16,
              "user_error": error == "kernel refused input of shape (8,)"},
}))
