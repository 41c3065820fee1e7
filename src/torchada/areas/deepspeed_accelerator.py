"""DeepSpeed's accelerator on MUSA: its CUDA accelerator, chosen and answering for the device.

CUDA API made to work: DeepSpeed picking its ``cuda`` accelerator and running on the GPU.
DeepSpeed 0.19.8 auto-detects with ``torch.cuda.device_count() > 0 and
torch.cuda.is_available()`` (accelerator/real_accelerator.py, get_accelerator); on MUSA
``torch.cuda.is_available()`` stays False under torchada (docs/devices.md), so DeepSpeed
silently fell back to its CPU accelerator, and its CUDA accelerator's ``is_available``,
``is_fp16_supported`` and ``is_bf16_supported`` answered as if there were no GPU.

Through DeepSpeed's own extension point, ``set_accelerator``, the area installs a subclass
of its ``CUDA_Accelerator`` whose ``is_available`` is ``torch.musa.is_available()``,
``is_fp16_supported`` is True (DeepSpeed's rule is NVIDIA's compute capability >= 7; MUSA
GPUs compute in half precision) and ``is_bf16_supported`` asks torch_musa. Every other
method is DeepSpeed's: its ``cuda`` device names and ``nccl`` backend are translated by the
devices and distributed areas. ``is_triton_supported`` keeps DeepSpeed's capability rule
(sm >= 8), which answers False on MUSA: DeepSpeed's Triton kernels are written for NVIDIA.
Left alone: a ``DS_ACCELERATOR`` the user set, an accelerator already chosen, a machine
whose torch_musa sees no device.

torch_musa APIs relied on: torch.musa.is_available, device_count, is_bf16_supported.
"""
import os


def musa_accelerator_class(cuda_accelerator, musa):
    class MUSA_CUDA_Accelerator(cuda_accelerator):
        """DeepSpeed's CUDA accelerator answering for the MUSA device (torchada)."""

        def is_available(self):
            return musa.is_available()

        def is_fp16_supported(self):
            return True

        def is_bf16_supported(self):
            return bool(musa.is_bf16_supported())

    return MUSA_CUDA_Accelerator


def apply(ctx):
    import deepspeed.accelerator.real_accelerator as real

    if os.environ.get("DS_ACCELERATOR"):
        ctx.note("DS_ACCELERATOR=%s set by the user: DeepSpeed's choice kept"
                 % os.environ["DS_ACCELERATOR"])
        return
    if getattr(real, "ds_accelerator", None) is not None:
        ctx.note("an accelerator was already chosen (%s): kept" % type(real.ds_accelerator).__name__)
        return
    musa = ctx.musa
    if not (musa.device_count() > 0 and musa.is_available()):
        ctx.note("torch_musa sees no device: DeepSpeed's own detection left alone")
        return
    from deepspeed.accelerator.cuda_accelerator import CUDA_Accelerator

    before = real.ds_accelerator
    real.set_accelerator(musa_accelerator_class(CUDA_Accelerator, musa)())
    ctx.on_revert(lambda: setattr(real, "ds_accelerator", before))
    ctx.note("DeepSpeed's CUDA accelerator set for the MUSA device (set_accelerator)")
