"""UntypedStorage attributes added by torch_musa."""
import torch

from torch_musa import _MUSAC


def _is_musa(self):
    return self.device.type == "musa"


def _musa(self, device=None, non_blocking=False, **kwargs):
    if self.device.type == "musa" and (device is None or torch.device("musa", device) == self.device):
        return self
    device = torch.device("musa" if device is None else f"musa:{device}" if isinstance(device, int) else device)
    out = torch.UntypedStorage(self.size(), device=device)
    out.copy_(self, non_blocking)
    return out


def _edit_device(self, device):
    return _MUSAC._edit_device_musa(self, device)


@classmethod
def _new_shared_musa(cls, *args, **kwargs):
    return _MUSAC._new_shared_musa(*args, **kwargs)


def _share_musa(self, *args, **kwargs):
    return _MUSAC._share_musa_(self, *args, **kwargs)


@classmethod
def _release_ipc_counter_musa(cls, *args, device=None, **kwargs):
    return _MUSAC._release_ipc_counter_musa(*args, **kwargs)


def _is_shared(self):
    if self.is_musa:
        return True
    return self.is_shared_old()


def set_storage_attributes():
    S = torch.UntypedStorage
    S._share_musa_ = _share_musa
    S._share_cuda_ = _share_musa
    S._new_shared_musa = _new_shared_musa
    S._new_shared_cuda = _new_shared_musa
    S.musa = _musa
    S.is_musa = property(_is_musa)
    S.is_cuda = property(_is_musa)
    S.is_shared_old = S.is_shared
    S.is_shared = _is_shared
    S._release_ipc_counter_musa = _release_ipc_counter_musa
    S._release_ipc_counter_cuda = _release_ipc_counter_musa
    S.edit_device = _edit_device
