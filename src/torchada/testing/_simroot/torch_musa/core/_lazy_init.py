"""Lazy initialisation of the MUSA state (mirrors torch.cuda's)."""
import threading
import traceback
from typing import Any

import torch

import torch_musa
from torch_musa import _MUSAC
from torch_musa._MUSAC import _musart
from torch_musa.core._utils import _get_musa_device_index
from torch_musa.core.musa import (BFloat16Storage, BoolStorage, ByteStorage, CharStorage,
                                  DoubleStorage, FloatStorage, HalfStorage, IntStorage,
                                  LongStorage, ShortStorage)

_initialized = False
_tls = threading.local()
_initialization_lock = threading.Lock()
_queued_calls = []
_is_in_bad_fork = _MUSAC._musa_isInBadFork
default_generators = ()


class _LazySeedTracker:
    def __init__(self):
        self.manual_seed_all_cb = None
        self.manual_seed_cb = None
        self.call_order = []

    def queue_seed_all(self, cb, traceback):
        self.manual_seed_all_cb = (cb, traceback)
        self.call_order = [self.manual_seed_cb, self.manual_seed_all_cb]

    def queue_seed(self, cb, traceback):
        self.manual_seed_cb = (cb, traceback)
        self.call_order = [self.manual_seed_all_cb, self.manual_seed_cb]

    def get_calls(self):
        return self.call_order


_lazy_seed_tracker = _LazySeedTracker()


class DeferredMusaCallError(Exception):
    pass


def _lazy_call(callable, **kwargs):
    with _initialization_lock:
        if is_initialized():
            callable()
        else:
            if kwargs.get("seed_all", False):
                _lazy_seed_tracker.queue_seed_all(callable, traceback.format_stack())
            elif kwargs.get("seed", False):
                _lazy_seed_tracker.queue_seed(callable, traceback.format_stack())
            else:
                _queued_calls.append((callable, traceback.format_stack()))


def is_initialized():
    """Returns whether PyTorch's MUSA state has been initialized."""
    return _initialized and not _is_in_bad_fork()


def init():
    """Initialize PyTorch's MUSA state (not re-exported as torch.musa.init: a real quirk)."""
    _lazy_init()


def _lazy_init():
    """Initialize Torch MUSA state. Will call this if `import torch_musa`."""
    global _initialized, _queued_calls, default_generators
    if is_initialized() or hasattr(_tls, "is_initializing"):
        return
    with _initialization_lock:
        if is_initialized():
            return
        if _is_in_bad_fork():
            raise RuntimeError(
                "Cannot re-initialize MUSA in forked subprocess. To use MUSA with "
                "multiprocessing, you must use the 'spawn' start method")
        _MUSAC._musa_init()
        default_generators = torch_musa.default_generators
        _tls.is_initializing = True
        for calls in _lazy_seed_tracker.get_calls():
            if calls:
                _queued_calls.append(calls)
        try:
            for queued_call, orig_traceback in _queued_calls:
                try:
                    queued_call()
                except Exception as e:
                    msg = (f"MUSA call failed lazily at initialization with error: {str(e)}\n\n"
                           f"MUSA call was originally invoked at:\n\n{''.join(orig_traceback)}")
                    raise DeferredMusaCallError(msg) from e
        finally:
            delattr(_tls, "is_initializing")
        _initialized = True


def musart():
    _lazy_init()
    return _musart


class MusaError(RuntimeError):
    def __init__(self, code: int) -> None:
        msg = _musart.musaGetErrorString(_musart.musaError(code)) if callable(_musart.musaError) else str(code)
        super().__init__(f"{msg} ({code})")


def check_error(res: int) -> None:
    if res != 0:
        raise MusaError(res)


class device:
    """The second `device` class of the real _lazy_init.py (not torch.musa.device)."""

    def __init__(self, device: Any):
        self.idx = _get_musa_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _MUSAC._musa_exchangeDevice(self.idx)

    def __exit__(self, type: Any, value: Any, traceback: Any):
        self.idx = _MUSAC._musa_maybeExchangeDevice(self.prev_idx)
        return False


def _lazy_new(cls, *args, **kwargs):
    _lazy_init()
    return super(_MusaBase, cls).__new__(cls, *args, **kwargs)


class _MusaBase:
    is_cuda = False
    is_sparse = False

    def type(self, *args, **kwargs):
        with device(self.get_device()):
            return super().type(*args, **kwargs)

    __new__ = _lazy_new


for _cls in (DoubleStorage, FloatStorage, LongStorage, IntStorage, ShortStorage, CharStorage,
             ByteStorage, HalfStorage, BoolStorage, BFloat16Storage):
    setattr(torch_musa, _cls.__name__, _cls)
for _name in ("musart", "MusaError", "check_error"):
    setattr(torch_musa, _name, globals()[_name])
