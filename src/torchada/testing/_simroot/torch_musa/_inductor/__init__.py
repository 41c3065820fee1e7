"""Inductor: the real package forces compile_threads = 1 at import (reproduced, applied when
torch._inductor.config is imported) and patches GPU helpers (not simulated).

Its ``_init_inductor_backend_registration`` registers a Triton code generator for "musa"
(torch_musa/_inductor/__init__.py: register_device_op_overrides and register_backend_for_device;
its patched torch/_inductor/codegen/common.py calls it from init_backend_registration). The
simulator has no MUSA code generator, so it registers stand-ins that stop the first
compilation with an error saying so and what works, instead of stock torch's
``KeyError: 'musa'`` (nothing registered). Registered when torch._inductor.codegen.common is
imported, before anything is lowered.
"""
__all__ = ["_init_inductor_backend_registration"]

_NO_CODEGEN = (
    "the simulated torch_musa has no Inductor code generator for the MUSA device (real "
    "torch_musa registers a Triton one for its GPUs), so torch.compile's default backend "
    "cannot build kernels here. On the simulator use torch.compile(..., backend=\"aot_eager\") "
    "(or \"eager\"); the default backend runs on real Moore Threads hardware.")


def _force_single_compile_thread(config):
    config.compile_threads = 1


class _Raises(type):
    def __getattr__(cls, name):  # a class attribute Inductor asks for (supports_caching, ...)
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(_NO_CODEGEN)


class _NoMusaCodegen(metaclass=_Raises):
    """Scheduling / wrapper codegen stand-in: raises at first use."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_CODEGEN)

    @classmethod
    def create(cls, *args, **kwargs):
        raise NotImplementedError(_NO_CODEGEN)


class _NoMusaDeviceOps:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(_NO_CODEGEN)


def _init_inductor_backend_registration():
    from torch._inductor.codegen import common
    from torch._inductor.codegen.common import (register_backend_for_device,
                                                register_device_op_overrides)

    # torch 2.7's get_device_op_overrides loads torch's own entries (cpu, cuda, xpu, mps) only
    # while device_op_overrides_dict is empty (2.13 loads them on every call), so a "musa" entry
    # made first leaves CPU Inductor with KeyError: 'cpu'. Load torch's own entries first; the
    # lookup is torch's public path for that on both releases. Real torch_musa registers from
    # its patched init_backend_registration (torch_patches/torch__inductor_codegen_common.py.patch),
    # later than here; whether real torch 2.7.1 + torch_musa then hits the same KeyError for a
    # CPU compile is unknown (the source does not decide: it depends on whether a lookup ran first).
    common.get_device_op_overrides("cpu")
    register_device_op_overrides("musa", _NoMusaDeviceOps())
    register_backend_for_device("musa", _NoMusaCodegen, _NoMusaCodegen, _NoMusaCodegen)


def _register_when_codegen_loads(common):
    _init_inductor_backend_registration()


from torch_musa._sim.onimport import when_imported  # noqa: E402

when_imported("torch._inductor.config", _force_single_compile_thread)
when_imported("torch._inductor.codegen.common", _register_when_codegen_loads)
