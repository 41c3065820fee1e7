from . import sharded_grad_scaler
from .sharded_grad_scaler import ShardedGradScaler
