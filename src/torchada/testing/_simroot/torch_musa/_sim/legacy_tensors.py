"""torch.musa.FloatTensor & co: legacy tensor types (isinstance checks and constructors)."""
import torch

_TYPES = {"Bool": torch.bool, "Byte": torch.uint8, "Char": torch.int8, "Double": torch.float64,
          "Float": torch.float32, "Int": torch.int32, "Long": torch.int64, "Short": torch.int16,
          "Half": torch.float16, "BFloat16": torch.bfloat16}


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, torch.Tensor) and obj.device.type == "musa" and obj.dtype == cls.dtype

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not isinstance(args[0], int):
            return torch.tensor(args[0], dtype=cls.dtype, device="musa")
        return torch.empty(*args, dtype=cls.dtype, device="musa", **kwargs)


def make_tensor_types():
    out = []
    for prefix, dtype in _TYPES.items():
        cls = _LegacyTensorMeta(f"{prefix}Tensor", (), {"dtype": dtype, "is_cuda": False, "is_sparse": False,
                                                         "__module__": "torch_musa"})
        out.append(cls)
    return out
