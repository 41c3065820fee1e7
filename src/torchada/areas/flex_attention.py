"""FlexAttention on musa tensors.

CUDA APIs made to work: ``torch.nn.attention.flex_attention.flex_attention(q, k, v,
score_mod=..., block_mask=...)`` in eager mode with musa tensors (forward and backward), and
``create_block_mask(..., device="cuda")`` (its default device is "cuda", which the devices
area makes musa). torch's device check accepts only its own device list (CUDA / CPU / HPU /
MPS / XPU); a musa tensor gets CUDA's treatment (no CPU-style refusal of backward).
Compiled FlexAttention goes through Inductor (issue 11).

torch_musa APIs relied on: none beyond the musa device; the eager path runs torch's
reference implementation on musa tensors.
"""
from torchada.areas import _kit


def _validate_device(original):
    @_kit.wraps(original)
    def _validate_device(query, key, value, *args, **kwargs):
        if getattr(query.device, "type", None) == "musa":
            return None  # as for "cuda": every other check of torch's still runs
        return original(query, key, value, *args, **kwargs)

    return _validate_device


def apply(ctx):
    import torch.nn.attention.flex_attention as flex

    ctx.setattr(flex, "_validate_device", _validate_device(flex._validate_device))
