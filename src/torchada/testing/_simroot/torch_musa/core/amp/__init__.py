from . import common
from .autocast_mode import autocast, custom_bwd, custom_fwd
from .common import _hook_autocast_common
from .grad_scaler import GradScaler
from . import autocast_mode, grad_scaler

_hook_autocast_common()
