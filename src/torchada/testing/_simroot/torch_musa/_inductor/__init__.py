"""Inductor: the real package forces compile_threads = 1 at import (reproduced, applied when
torch._inductor.config is imported) and patches GPU helpers (not simulated)."""
__all__ = ["_init_inductor_backend_registration"]


def _force_single_compile_thread(config):
    config.compile_threads = 1


def _init_inductor_backend_registration():
    return None


from torch_musa._sim.onimport import when_imported  # noqa: E402

when_imported("torch._inductor.config", _force_single_compile_thread)
