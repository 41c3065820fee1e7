import torch.distributed.fsdp.sharded_grad_scaler as _sgs
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler as _TorchSharded

from torch_musa.core.amp.grad_scaler import GradScaler


class ShardedGradScaler(_TorchSharded):
    def __init__(self, device: str = "musa", init_scale: float = 2.0 ** 16, backoff_factor: float = 0.5,
                 growth_factor: float = 2.0, growth_interval: int = 2000, enabled: bool = True,
                 process_group=None):
        kw = dict(init_scale=init_scale, backoff_factor=backoff_factor, growth_factor=growth_factor,
                  growth_interval=growth_interval, enabled=enabled)
        if process_group is not None:
            kw["process_group"] = process_group
        super().__init__(device, **kw)


_sgs.ShardedGradScaler = ShardedGradScaler  # what the real package does at import
