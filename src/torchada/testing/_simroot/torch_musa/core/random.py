"""Per-device random number generators (torch.musa.manual_seed, get_rng_state, ...)."""
import contextlib
from typing import Generator, Iterable, List, Union

import torch
from torch import Tensor

import torch_musa
from torch_musa.core._lazy_init import _lazy_call, _lazy_init
from torch_musa.core.device import current_device, device_count

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "fork_rng"]


def _index(device):
    if isinstance(device, str):
        device = torch.device(device)
    elif isinstance(device, int):
        device = torch.device("musa", device)
    idx = device.index
    return current_device() if idx is None else idx


def get_rng_state(device: Union[int, str, torch.device] = "musa") -> Tensor:
    _lazy_init()
    return torch_musa.default_generators[_index(device)].get_state()


def get_rng_state_all() -> List[Tensor]:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: Tensor, device: Union[int, str, torch.device] = "musa") -> None:
    with torch._C._DisableFuncTorch():
        new_state_copy = new_state.clone(memory_format=torch.contiguous_format)
    idx = _index(device)

    def cb():
        torch_musa.default_generators[idx].set_state(new_state_copy)

    _lazy_call(cb)


def set_rng_state_all(new_states: Iterable[Tensor]) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def manual_seed(seed: int) -> None:
    seed = int(seed)

    def cb():
        torch_musa.default_generators[current_device()].manual_seed(seed)

    _lazy_call(cb, seed=True)


def manual_seed_all(seed: int) -> None:
    seed = int(seed)

    def cb():
        for i in range(device_count()):
            torch_musa.default_generators[i].manual_seed(seed)

    _lazy_call(cb, seed_all=True)


def seed() -> None:
    def cb():
        torch_musa.default_generators[current_device()].seed()

    _lazy_call(cb)


def seed_all() -> None:
    def cb():
        random_seed = 0
        seeded = False
        for i in range(device_count()):
            g = torch_musa.default_generators[i]
            if not seeded:
                g.seed()
                random_seed = g.initial_seed()
                seeded = True
            else:
                g.manual_seed(random_seed)

    _lazy_call(cb)


def initial_seed() -> int:
    _lazy_init()
    return torch_musa.default_generators[current_device()].initial_seed()


_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="musa") -> Generator:
    """Forks the RNG, so that when you return, the RNG is reset to the state it was previously in."""
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    device_type = torch.device(device_type).type
    device_mod = getattr(torch, device_type, None)
    if device_mod is None:
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a module by "
                           "`torch._register_device_module`.")
    if not enabled:
        yield
        return
    if devices is None:
        num_devices = device_mod.device_count()
        if num_devices > 1 and not _fork_rng_warned_already:
            message = (f"{device_type.upper()} reports that you have {num_devices} available devices, and "
                       f"you have used {_caller} without explicitly specifying which devices are being used. "
                       f"For safety, we initialize *every* {device_type.upper()} device by default, which can "
                       f"be quite slow if you have a lot of {device_type.upper()}s. If you know that you are only"
                       f" making use of a few {device_type.upper()} devices, set the environment variable "
                       f"{device_type.upper()}_VISIBLE_DEVICES or the '{_devices_kw}' keyword argument of "
                       f"{_caller} with the set of devices you are actually using.")
            import warnings

            warnings.warn(message)
            _fork_rng_warned_already = True
        devices = list(range(num_devices))
    else:
        devices = list(devices)
    cpu_rng_state = torch.get_rng_state()
    device_rng_states = [device_mod.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        torch.set_rng_state(cpu_rng_state)
        for device, device_rng_state in zip(devices, device_rng_states):
            device_mod.set_rng_state(device_rng_state, device)


# RNG alignment with NVIDIA GPUs (torch_musa._sim.releases): align_rng_to_nv_gpu from
# 2.9.1.post1 (its __init__.py imports it and calls it at import), NV_GPU_REGISTRY exported
# from 2.11.0.post2 (core/random.py __all__ at e205050).
from torch_musa._sim import releases as _releases  # noqa: E402

if _releases.has("rng_align"):
    from torch_musa.core.random_align import NV_GPU_REGISTRY, align_rng_to_nv_gpu  # noqa: E402,F401

    __all__ += ["align_rng_to_nv_gpu"] + (["NV_GPU_REGISTRY"] if _releases.has("nv_gpu_registry") else [])

    # The package aligns at import (simulated here, where torch_musa imports this module);
    # then the grid the variables name decides the musa random kernels (_sim/rng_align.py).
    align_rng_to_nv_gpu()
    from torch_musa._sim import rng_align as _rng_align  # noqa: E402

    if _rng_align.grid_from_env():
        _rng_align.install(_rng_align.grid_from_env())
